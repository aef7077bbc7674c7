"""The governed evidence loop's parts: which gap next, what to ask, and whether to admit.

The model is consulted once per answer, with only the requirement, the question and the answer
in view, and its assessment then faces code-owned gates in order of cheapness and trust. What is
asked is built by code from the requirement's own text, so it never depends on a model; what is
admitted is the assessed claim, never the raw answer.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from interviewsim.errors import InputError, Problem, validation_problems
from interviewsim.llm.asking import AskingClient
from interviewsim.prep.modelcall import PrepCall, call_json
from interviewsim.prep.models import (
    REQUIREMENT_ID,
    AnswerAssessment,
    ClarificationProvenance,
    EvidenceItem,
    PrepSettings,
    Requirement,
    Verdict,
)
from interviewsim.prep.polarity import affirmative
from interviewsim.prep.sources import read_text_file

AnswerSource = Callable[[Requirement, str], str]
"""Gives the candidate's answer to the question asked about a requirement."""


def gap_queue(requirements: Sequence[Requirement], verdicts: Sequence[Verdict],
              processed: Collection[str]) -> list[str]:
    """Unprocessed GAP requirements: importance descending (none last), then id ascending."""
    importance = {r.id: r.importance for r in requirements}
    gaps = [v.requirement_id for v in verdicts if v.coverage == "GAP"
            and v.requirement_id in importance and v.requirement_id not in processed]
    return sorted(gaps, key=lambda rid: (importance[rid] is None, -(importance[rid] or 0), rid))


def clarification_question(requirement: Requirement) -> str:
    """The question for a gap, from the requirement's words: one example, the method, the result."""
    return (f"The posting asks for: \"{requirement.text.rstrip(' .')}\". Tell me about one "
            "specific time you did this: what the situation was, how you went about it, and "
            "what came of it.")


ASSESS_RULES = """
You check whether a candidate's answer gives evidence for one job requirement, as JSON.
- target_requirement_id: the requirement_id you were given.
- verdict: "supports" only when the answer describes something the candidate actually did that
  bears on the requirement; otherwise "does_not_support".
- relevance_reason: why the answer is or is not about this requirement.
- specificity_reason: whether it names a concrete situation, method and result.
- claim: one sentence restating only what the answer shows the candidate did, without adding
  anything; "" when the verdict is "does_not_support".
Answer with one JSON object with exactly these five fields.
"""


def assess_answer(requirement: Requirement, question: str, answer: str, client: AskingClient,
                  settings: PrepSettings) -> tuple[AnswerAssessment | None, PrepCall]:
    """One short-context assessment: the assessor never sees the rest of the run."""
    payload = {"requirement_id": requirement.id, "requirement": requirement.text,
               "question": question, "answer": answer}
    return call_json(client, "assess-answer", ASSESS_RULES, payload, AnswerAssessment,
                     settings.max_tokens, choices={"target_requirement_id": [requirement.id]})


@dataclass(frozen=True)
class Admission:
    accepted: bool
    reason: str
    claim: str | None = None


def long_enough(answer: str, settings: PrepSettings) -> bool:
    """The length floor, checked before any model judgment is consulted."""
    return len(answer.strip()) >= settings.min_clarification_length


def admit(requirement_id: str, answer: str, assessment: AnswerAssessment | None,
          settings: PrepSettings) -> Admission:
    """The admission gates, in order; the first that fails names the rejection."""
    if not long_enough(answer, settings):
        return Admission(False, f"answer shorter than {settings.min_clarification_length} "
                                "characters")
    if assessment is None:
        return Admission(False, "assessment broke its schema")
    if assessment.target_requirement_id != requirement_id:
        return Admission(False, f"assessment targets {assessment.target_requirement_id!r}, "
                                f"not the requirement asked ({requirement_id})")
    if assessment.verdict != "supports":
        return Admission(False, "assessment verdict: does_not_support")
    claim = assessment.claim.strip()
    if not claim:
        return Admission(False, "assessment claim is empty")
    aside = polarity_problem(answer, claim)
    if aside:
        return Admission(False, aside)
    return Admission(True, "admitted", claim)


def polarity_problem(answer: str, claim: str) -> str | None:
    """Why an answer or its claim cannot become evidence: every clause of it denies or wishes
    ("I can't drive yet, but I am booked on lessons") — the matcher's polarity gate, applied
    before a claim is minted, so a model that reads a wish as support cannot admit it."""
    for text in (claim, answer):
        kept, dropped = affirmative(text)
        if dropped and not kept:
            return (f"the {'claim' if text is claim else 'answer'} only "
                    f"{'denies' if dropped[0].reason == 'denial' else 'wishes or plans'}: "
                    f"\"{dropped[0].text[:80]}\"")
    return None


def mint_claim(number: int, requirement_id: str, question: str, claim: str) -> EvidenceItem:
    """The evidence an admitted answer becomes: the accepted claim, with its provenance."""
    return EvidenceItem(id=f"CL-{number:03d}", kind="clarification",
                        title=f"Clarification for {requirement_id}", text=claim,
                        provenance=ClarificationProvenance(requirement_id=requirement_id,
                                                           question=question))


class _AnswersFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    answers: dict[Annotated[str, Field(pattern=REQUIREMENT_ID)], str]


class ScriptedAnswers:
    """Answers keyed by requirement id, read from a YAML/JSON file; an unlisted gap gets ""."""

    def __init__(self, answers: dict[str, str]):
        self.answers = dict(answers)
        self.asked: list[str] = []

    @classmethod
    def load(cls, path: str | Path) -> ScriptedAnswers:
        path = Path(path)
        try:
            data = yaml.safe_load(read_text_file(path)[0])
            return cls(_AnswersFile.model_validate(data).answers)
        except yaml.YAMLError as exc:
            raise InputError([Problem(str(path), "", f"invalid YAML/JSON: {exc}")]) from None
        except ValidationError as exc:
            raise InputError(validation_problems(exc, str(path))) from None

    def __call__(self, requirement: Requirement, question: str) -> str:
        self.asked.append(requirement.id)
        return self.answers.get(requirement.id, "")
