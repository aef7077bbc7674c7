"""Claim grounding: which sentences of a simulated answer trace back to what the person said.

Each generated answer is split into claims (sentences with at least three content terms, so
greetings and fillers do not count), and each claim is matched with the prep lexical matcher
against that personality's *training* pairs only: FULL when one pair's answer attests at least
30% of the claim's IDF-weighted terms, citing the best such pairs by ``qa_id``; GAP otherwise.
Per personality and strategy, ``grounded_claim_rate`` is the share of FULL claims. The metric
is lexical: a paraphrase scores as a gap and a sentence reusing the person's words scores as
grounded even if it twists them — read it beside the judges, and open the links to check.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from interviewsim.data.records import PersonalityMetric
from interviewsim.errors import InputError, Problem, validation_problems
from interviewsim.text.coverage import LEXICAL_THRESHOLD, LexicalCorpus, judge_lexically, terms

METRIC = "grounded_claim_rate"
JUDGE = "lexical"
MIN_CLAIM_TERMS = 3
MAX_CITATIONS = 3

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+|\n+")


def split_claims(text: str, min_terms: int = MIN_CLAIM_TERMS) -> list[str]:
    """Sentences of ``text`` that carry at least ``min_terms`` content terms, in order."""
    pieces = (piece.strip() for piece in _SENTENCE_END.split(text))
    return [piece for piece in pieces if piece and len(terms(piece)) >= min_terms]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    personality_id: str
    strategy: str
    qa_id: str
    response: str | None
    valid: bool


class _TrainPair(BaseModel):
    model_config = ConfigDict(extra="ignore")

    personality_id: str
    qa_id: str
    response: str


class ClaimLink(BaseModel):
    """One claim of one generated answer and the training pairs that attest it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    personality_id: str
    strategy: str
    qa_id: str
    claim_index: int
    claim: str
    coverage: Literal["FULL", "GAP"]
    score: float
    """Best coverage of the claim's weighted terms by any one training answer."""
    cited_qa_ids: tuple[str, ...]
    matched_terms: tuple[str, ...]
    """Terms the best training answer shares with the claim."""

    def sort_key(self) -> tuple[str, str, str, int]:
        return (self.personality_id, self.strategy, self.qa_id, self.claim_index)


@dataclass(frozen=True)
class ClaimGrounding:
    links: list[ClaimLink]
    metrics: list[PersonalityMetric]


def _validated(records: Iterable[dict], model: type[BaseModel], file: str) -> list:
    out, problems = [], []
    for number, record in enumerate(records, start=1):
        try:
            out.append(model.model_validate(record))
        except ValidationError as exc:
            problems += validation_problems(exc, file, prefix=f"line {number}")
    if problems:
        raise InputError(problems)
    return out


def ground_claims(answers: Iterable[dict], train_pairs: Iterable[dict],
                  threshold: float = LEXICAL_THRESHOLD, answers_file: str = "answers",
                  train_file: str = "train_pairs") -> ClaimGrounding:
    """Claim links for every valid answer, and one metric row per personality and strategy."""
    parsed: list[_Answer] = _validated(answers, _Answer, answers_file)
    pairs: list[_TrainPair] = _validated(train_pairs, _TrainPair, train_file)
    by_personality: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for pair in pairs:
        by_personality[pair.personality_id].append((pair.qa_id, pair.response))
    missing = sorted({a.personality_id for a in parsed} - set(by_personality))
    if missing:
        raise InputError([Problem(train_file, "", f"no training pairs for personality {pid!r}; "
                                  "its claims cannot be grounded") for pid in missing])
    corpora = {pid: LexicalCorpus(items) for pid, items in by_personality.items()}
    links: list[ClaimLink] = []
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for answer in parsed:
        tally = counts[(answer.personality_id, answer.strategy)]
        if not answer.valid or answer.response is None:
            tally[2] += 1
            continue
        for index, claim in enumerate(split_claims(answer.response)):
            judged = judge_lexically(claim, corpora[answer.personality_id], threshold,
                                     MAX_CITATIONS)
            best = judged.best
            links.append(ClaimLink(
                personality_id=answer.personality_id, strategy=answer.strategy,
                qa_id=answer.qa_id, claim_index=index, claim=claim, coverage=judged.coverage,
                score=round(best.score, 4) if best else 0.0,
                cited_qa_ids=tuple(s.item_id for s in judged.cited),
                matched_terms=best.matched if best else ()))
            tally[0] += 1
            tally[1] += judged.coverage == "FULL"
    metrics = [
        PersonalityMetric(personality_id=pid, strategy=strategy, judge=JUDGE, metric=METRIC,
                          value=full / n if n else None, n=n, invalid=invalid)
        for (pid, strategy), (n, full, invalid) in counts.items()
    ]
    return ClaimGrounding(links=sorted(links, key=ClaimLink.sort_key),
                          metrics=sorted(metrics, key=PersonalityMetric.sort_key))


def strategy_summary(grounding: ClaimGrounding) -> dict[str, dict[str, float | int | None]]:
    """Per strategy: the macro average over personalities, and the claim counts behind it."""
    summary: dict[str, dict[str, float | int | None]] = {}
    by_strategy: dict[str, list[PersonalityMetric]] = defaultdict(list)
    for row in grounding.metrics:
        by_strategy[row.strategy].append(row)
    for strategy, rows in sorted(by_strategy.items()):
        values = [r.value for r in rows if r.value is not None]
        summary[strategy] = {
            METRIC: sum(values) / len(values) if values else None,
            "claims": sum(r.n for r in rows),
            "grounded_claims": sum(1 for link in grounding.links
                                   if link.strategy == strategy and link.coverage == "FULL"),
            "invalid_answers": sum(r.invalid for r in rows),
        }
    return summary
