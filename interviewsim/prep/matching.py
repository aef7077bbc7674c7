"""Stage 2: one verdict per requirement, by term coverage (``lexical``) or by a model (``llm``).

The lexical matcher is the IDF coverage of :mod:`interviewsim.text.coverage`: FULL when some item
attests at least ``match_threshold`` of a requirement's weighted terms, GAP otherwise. It never
says PARTIAL: overlap can measure how much vocabulary is attested, not whether the missing part
matters, so a middling score stays a GAP rather than pretending to a judgment. The model matcher
may say PARTIAL; both face the same match gate.

An evidence file item is matched on its summary, title and tags (all the candidate's words); a
term attested only by the title or a tag says so in the explanation. The term weights come from
a reference collection a prep run fixes once, before any clarification is admitted, so a new
item can add support for a requirement but never reweight the terms of one it does not attest.
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
from interviewsim.text.coverage import (
    DocumentFrequencies,
    LexicalCorpus,
    Support,
    judge_lexically,
    terms,
)

Matcher = Literal["lexical", "llm"]


def _percent(score: float) -> str:
    """One decimal, so a score just under the threshold (29.9%) never reads as reaching it."""
    return f"{score * 100:.1f}%"


def matched_fields(item: EvidenceItem) -> list[tuple[str, str]]:
    """What matching reads of an item, by field. A file item's title and tags are the
    candidate's own words; a QA pair's title is the interviewer's question and a clarification's
    title is generated, so neither attests anything."""
    fields = [("text", item.text)]
    if item.kind == "file":
        fields += [("title", item.title)] + [("tags", tag) for tag in item.tags]
    return fields


def matched_text(item: EvidenceItem) -> str:
    """The item's matched fields as one text (lines keep the fields' terms apart)."""
    return "\n".join(text for _, text in matched_fields(item))


def reference_frequencies(evidence: Sequence[EvidenceItem]) -> DocumentFrequencies:
    """The document frequencies that weight terms: a run computes them once, from its
    original evidence, and reuses them after clarifications are admitted."""
    return DocumentFrequencies.of(matched_text(item) for item in evidence)


def _provenance(support: Support, items: dict[str, EvidenceItem]) -> str:
    """The matched terms, naming the field of any that the item's main text lacks."""
    fields = matched_fields(items[support.item_id])
    in_text = terms(fields[0][1])
    extra: dict[str, list[str]] = {}
    for term in support.matched:
        if term not in in_text:
            field = next(name for name, text in fields[1:] if term in terms(text))
            extra.setdefault(field, []).append(term)
    plain = [t for t in support.matched if t in in_text]
    parts = [", ".join(plain)] if plain else []
    parts += [f"from its {name}: {', '.join(found)}" for name, found in extra.items()]
    return "; ".join(parts)


def match_lexical(requirements: Sequence[Requirement], evidence: Sequence[EvidenceItem],
                  settings: PrepSettings, reference: DocumentFrequencies | None = None
                  ) -> list[Verdict]:
    """One FULL or GAP verdict per requirement, in order, with the overlapping terms.

    ``reference`` weights the terms (default: ``evidence`` itself); see
    :func:`reference_frequencies`.
    """
    corpus = LexicalCorpus([(item.id, matched_text(item)) for item in evidence],
                           reference=reference)
    items = {item.id: item for item in evidence}
    verdicts: list[Verdict] = []
    for requirement in requirements:
        judged = judge_lexically(requirement.text, corpus, settings.match_threshold,
                                 settings.max_citations)
        best = judged.best
        confidence = round(best.score, 4) if best else 0.0
        if judged.cited:
            top = judged.cited[0]
            explanation = (f"{top.item_id} attests {_percent(top.score)} of the requirement's "
                           f"weighted terms ({_provenance(top, items)})")
            terms = tuple(sorted({t for s in judged.cited for t in s.matched}))
        elif best and best.matched:
            explanation = (f"best evidence {best.item_id} attests only {_percent(best.score)} "
                           f"({_provenance(best, items)}); threshold is "
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
        "evidence": [{"id": e.id, "title": e.title, "text": e.text,
                      **({"tags": list(e.tags)} if e.tags else {})} for e in evidence],
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
