"""Stage 2: one verdict per requirement, by term coverage (``lexical``) or by a model (``llm``).

The lexical matcher is the IDF coverage of :mod:`interviewsim.text.coverage`: FULL when some item
attests at least ``match_threshold`` of a requirement's weighted terms, GAP otherwise. It never
says PARTIAL: overlap can measure how much vocabulary is attested, not whether the missing part
matters, so a middling score stays a GAP rather than pretending to a judgment. The model matcher
may say PARTIAL; both face the same match gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from interviewsim.prep.modelcall import PrepCall, PrepClient, call_json
from interviewsim.prep.models import (
    Coverage,
    EvidenceItem,
    PrepSettings,
    Requirement,
    Verdict,
)
from interviewsim.text.coverage import LexicalCorpus, judge_lexically

Matcher = Literal["lexical", "llm"]
def _percent(score: float) -> str:
    return f"{round(score * 100)}%"


def match_lexical(requirements: Sequence[Requirement], evidence: Sequence[EvidenceItem],
                  settings: PrepSettings) -> list[Verdict]:
    """One FULL or GAP verdict per requirement, in order, with the overlapping terms."""
    corpus = LexicalCorpus([(item.id, item.text) for item in evidence])
    verdicts: list[Verdict] = []
    for requirement in requirements:
        judged = judge_lexically(requirement.text, corpus, settings.match_threshold,
                                 settings.max_citations)
        best = judged.best
        confidence = round(best.score, 4) if best else 0.0
        if judged.cited:
            top = judged.cited[0]
            explanation = (f"{top.item_id} attests {_percent(top.score)} of the requirement's "
                           f"weighted terms ({', '.join(top.matched)})")
            terms = tuple(sorted({t for s in judged.cited for t in s.matched}))
        elif best and best.matched:
            explanation = (f"best evidence {best.item_id} attests only {_percent(best.score)} "
                           f"({', '.join(best.matched)}); threshold is "
                           f"{_percent(settings.match_threshold)}")
            terms = best.matched
        else:
            explanation = "no evidence item shares a content term with this requirement"
            terms = ()
        verdicts.append(Verdict(requirement_id=requirement.id, coverage=judged.coverage,
                                evidence_ids=tuple(s.item_id for s in judged.cited),
                                explanation=explanation, confidence=confidence,
                                matched_terms=terms))
    return verdicts


class ProposedVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    requirement_id: Annotated[str, Field(max_length=20)]
    coverage: Coverage
    evidence_ids: Annotated[list[Annotated[str, Field(max_length=80)]], Field(max_length=8)]
    explanation: Annotated[str, Field(min_length=1, max_length=400)]
    confidence: Annotated[float, Field(ge=0.0, le=1.0)]
    missing: Annotated[str, Field(max_length=200)] | None


class MatchOut(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    assessments: Annotated[list[ProposedVerdict], Field(min_length=1, max_length=40)]


MATCH_RULES = """
You judge, for each requirement, whether the supplied evidence supports it, as JSON.
Coverage levels:
- FULL: supplied evidence directly supports every important part of the requirement.
- PARTIAL: related supplied evidence exists but misses an important dimension; name that
  dimension in "missing".
- GAP: no supplied evidence supports it; cite nothing. A gap is a correct, useful answer.
Rules (each is checked by code; a violation fails the whole answer):
- One assessment per requirement, in the order given, using its requirement_id.
- evidence_ids: only ids from the supplied evidence. Inventing support is the failure to avoid.
- FULL and PARTIAL cite at least one item; GAP cites none.
- confidence: 0 to 1. missing: null unless PARTIAL.
Answer with one JSON object: {"assessments": [...]}.
"""


def match_llm(requirements: Sequence[Requirement], evidence: Sequence[EvidenceItem],
              client: PrepClient, settings: PrepSettings) -> tuple[list[Verdict] | None, PrepCall]:
    """Model verdicts converted to :class:`Verdict`, or None when the answer breaks the schema."""
    payload = {
        "requirements": [{"requirement_id": r.id, "text": r.text} for r in requirements],
        "evidence": [{"id": e.id, "title": e.title, "text": e.text} for e in evidence],
    }
    choices = {"requirement_id": [r.id for r in requirements],
               "evidence_ids": [e.id for e in evidence]}
    count = len(requirements)
    value, call = call_json(client, "match-evidence", MATCH_RULES, payload, MatchOut,
                            settings.max_tokens, choices, {"assessments": (count, count)})
    if value is None:
        return None, call
    verdicts = [
        Verdict(requirement_id=a.requirement_id, coverage=a.coverage,
                evidence_ids=tuple(a.evidence_ids), explanation=a.explanation,
                confidence=a.confidence, missing=a.missing)
        for a in value.assessments
    ]
    return verdicts, call
