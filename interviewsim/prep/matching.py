"""Stage 2: one verdict per requirement, by rules (``lexical``) or by a model (``llm``).

The lexical matcher applies the deterministic rules of :mod:`interviewsim.prep.attestation`:
only affirmative evidence attests (denials and wishes are set aside, and the explanation says
which), a requirement's distinctive terms must all be attested for FULL, and PARTIAL comes only
from the rules (some of several distinctive terms; fewer years than asked), never from a middling
score: overlap can measure how much vocabulary is attested, not whether the missing part matters.
The model matcher may say PARTIAL on its own judgment; both face the same match gate.

An evidence file item is matched on its summary, title and tags (all the candidate's words). The
term weights come from a reference collection a prep run fixes once, before any clarification is
admitted, so a new item can add support for a requirement but never reweight the terms of one it
does not attest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from interviewsim.llm.asking import AskingClient
from interviewsim.prep.attestation import Judgment, judge
from interviewsim.prep.modelcall import PrepCall, call_json
from interviewsim.prep.models import (
    Coverage,
    EvidenceItem,
    PrepSettings,
    Requirement,
    Verdict,
)
from interviewsim.prep.reading import Reading, read_item
from interviewsim.text.coverage import DocumentFrequencies, terms

Matcher = Literal["lexical", "llm"]


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


def _reading(item: EvidenceItem) -> Reading:
    fields = matched_fields(item)
    return read_item(item.id, fields[0][1], [text for _, text in fields[1:]])


def _provenance(judged: Judgment, items: dict[str, EvidenceItem]) -> str:
    """The matched terms the first cited item's main text lacks, by the field that has them."""
    if not judged.cited:
        return ""
    fields = matched_fields(items[judged.cited[0]])
    in_text = terms(fields[0][1])
    extra: dict[str, list[str]] = {}
    for term in judged.matched:
        if term not in in_text:
            field = next((name for name, text in fields[1:] if term in terms(text)), None)
            if field is not None:
                extra.setdefault(field, []).append(term)
    found = "; ".join(f"from its {name}: {', '.join(words)}" for name, words in extra.items())
    return f" ({found})" if found else ""


def _explanation(judged: Judgment, items: dict[str, EvidenceItem]) -> str:
    """The rule's reason, where a title or tag supplied a term, and the sentences set aside
    (at most two) with why."""
    notes = [f"set aside {item_id} \"{aside.text[:80]}\" ({_ASIDE[aside.reason]}: "
             f"{aside.construction})"
             for item_id, aside in judged.set_aside[:2]]
    quote = f' — "{" ".join(judged.quote.split())[:160]}"' if judged.quote else ""
    return "; ".join([judged.reason + _provenance(judged, items) + quote, *notes])


_ASIDE = {"denial": "a denial attests nothing", "wish": "a wish or plan is not experience"}


def match_lexical(requirements: Sequence[Requirement], evidence: Sequence[EvidenceItem],
                  settings: PrepSettings, reference: DocumentFrequencies | None = None
                  ) -> list[Verdict]:
    """One verdict per requirement, in order, by the rules of
    :mod:`interviewsim.prep.attestation`.

    ``reference`` weights the terms (default: ``evidence`` itself); see
    :func:`reference_frequencies`.
    """
    frequencies = reference if reference is not None else reference_frequencies(evidence)
    readings = [_reading(item) for item in evidence]
    items = {item.id: item for item in evidence}
    verdicts: list[Verdict] = []
    for requirement in requirements:
        judged = judge(requirement.text, readings, frequencies, settings.match_threshold,
                       settings.max_citations)
        verdicts.append(Verdict(requirement_id=requirement.id, coverage=judged.coverage,
                                evidence_ids=judged.cited, explanation=_explanation(judged, items),
                                confidence=round(min(1.0, judged.score), 4),
                                missing=judged.missing, matched_terms=judged.matched))
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

    assessments: Annotated[list[ProposedVerdict], Field(min_length=1)]


MATCH_RULES = """
You judge, for each requirement, whether the supplied evidence supports it, as JSON.
Coverage levels:
- FULL: an item says affirmatively that the candidate has what is asked: the skill, tool,
  credential or standard itself, and at least any number of years or amount stated. One of
  the alternatives of "X or Y" is enough; an acronym and its spelled-out name are the same
  thing; other words a careful recruiter would accept, and modest wording, count.
- PARTIAL: related but short of it: fewer years or less of it, only part of a bundled
  requirement, a neighbouring tool or standard, or a lower level of the same thing; name what
  is missing in "missing".
- GAP: nothing affirmative: the candidate denies it, only wishes or plans it, held it once and
  let it lapse, failed it, watched someone else do it, or the evidence only shares words with
  it. Cite nothing. A gap is a correct, useful answer.
Rules (each is checked by code; a violation fails the whole answer):
- One assessment per requirement, in the order given, using its requirement_id.
- evidence_ids: only ids from the supplied evidence. Inventing support is the failure to avoid.
- FULL and PARTIAL cite at least one item; GAP cites none.
- confidence: 0 to 1. missing: null unless PARTIAL.
Answer with one JSON object: {"assessments": [...]}.
"""


def match_llm(requirements: Sequence[Requirement], evidence: Sequence[EvidenceItem],
              client: AskingClient, settings: PrepSettings
              ) -> tuple[list[Verdict] | None, PrepCall]:
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
