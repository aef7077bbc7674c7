"""Stage 1: the posting's requirements, by list markers (``lexical``) or by a model (``llm``).

Both paths emit :class:`Requirement` with a ``source_quote``, so the one extraction gate can hold
both to the same rule: every requirement must be findable in the posting. The lexical path
satisfies that by construction; the model path must earn it.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from interviewsim.llm.asking import AskingClient
from interviewsim.prep.modelcall import PrepCall, call_json
from interviewsim.prep.models import (
    REQUIREMENT_ID,
    Category,
    Importance,
    PrepSettings,
    Requirement,
    normalize,
    requirement_id,
)
from interviewsim.prep.sections import SectionKind, blocks, sentence_kind, sentences

Extractor = Literal["lexical", "llm"]

IMPORTANCE: dict[SectionKind, int] = {"requirements": 4, "duties": 3, "nice": 2, "other": 3}
"""Importance by where a requirement sits: a must-have ranks above a stated duty, a
nice-to-have below both (the model path rates 1 to 5 itself)."""
_CLAUSE_START = (r"(?:(?:if\s+)?you|can|know|have|has|are|is|hold|speak|write|understand|enjoy|"
                 r"bring|like|love|thrive|take|own|care|keep|use|build|work|communicate|want|"
                 r"feel|show|lead|manage|stay|get|make|see|handle|think|explain|read|run|do|"
                 r"will|should|must|review|share|maintain|support|mentor|coordinate|ensure|"
                 r"report|train|plan|prepare|deliver|drive|partner|we|collect|complete|carry|"
                 r"prescribe|investigate|monitor|adjust|operate|attend|present|liaise|"
                 r"calculate|process|submit|record|check|issue|assess|respond|supervise|"
                 r"escalate|recruit|synthesi[sz]e|design|analy[sz]e|write|test|conduct|"
                 r"facilitate|develop|create|document|track|evaluate|advise|negotiate|source|"
                 r"teach|organi[sz]e|schedule|inspect|repair|install|diagnose|configure|"
                 r"produce|publish|oversee|direct|purchase|forecast|audit|coach|resolve|"
                 r"champion|contribute|promote|identify|improve|set|raise|chase|place|agree|"
                 r"approve|able\s+to|comfortable|confident|familiar|fluent|experienced|"
                 r"proficient|skilled|happy\s+to|willing\s+to|at\s+least\s+\w+\s+years?|"
                 r"\d+\+?\s+years?)\b"
                 r"(?!\s*(?:,|and\b|or\b))")
"""A word that opens a new clause after a comma — unless a verb list goes on ("design, build
and operate the pipelines" is one duty)."""
_BUNDLE = re.compile(r";\s+|,\s+as\s+(?:is|are)\s+|,\s+(?:together|along)\s+with\s+|"
                     r",\s+as\s+well\s+as\s+|\s+and\s+(?=(?:liaise|report|attend|present|chase"
                     r"|reconcile|prepare|process|submit)\s)|\s+and\s+(?=an?\s+(?:[A-Z]\w*\s+)*"
                     r"(?:Level\s+\d|qualification|certificate|licence|license|degree|diploma))|"
                     r",\s+(?:and\s+|or\s+)?(?="
                     + _CLAUSE_START + r")|,?\s+and\s+(?=who\s|(?:have|hold)\s+(?:a|an|the|"
                     r"passing|current|valid)\s)|,\s+and\s+(?=(?:experience|knowledge|"
                     r"familiarity|exposure)\s+(?:of|with|in)\s)", re.I)
"""Also a second relative clause ("someone who holds X and who is comfortable with Y") and a
second verb phrase of having ("hold a licence ... and have passing scores on ..."), and a
second thing asked after a comma ("French or German, and experience of mentoring ...")."""
_SUBORDINATE = re.compile(r"^(?:because|as|when|if|since|while|although|though|whether)\b",
                          re.I)
MIN_PART_WORDS = 3
_PARTICIPLE = (r"(?!(?:including|using|following|during|according|regarding|concerning|"
               r"excluding|involving|bring|string|spring|thing|nothing|anything|everything)\b)"
               r"[a-z]{3,}ing\s+(?:[a-z]+ly\s+)?(?:(?:with|across|alongside)\s+)?"
               r"(?:(?-i:[A-Z])|(?:the|your|a|an|all|our|any|their|each|every|new|clear)\b)")
_PARTICIPIAL = re.compile(r",\s+(?:and\s+)?(?=" + _PARTICIPLE + ")", re.I)
_AND_PARTICIPLE = re.compile(r"\s+and\s+(?=" + _PARTICIPLE + ")", re.I)
"""A duty bundled as participles ("hold a caseload of eighteen, completing assessments on time
and presenting your analysis at strategy meetings"): each participle is its own ask; the "and"
before one is cut only once a comma has opened the list."""


def split_bundle(sentence: str) -> list[str]:
    """A sentence asking for several things, cut where a new clause starts (``…, and you can
    explain …``; ``…; …``; ``X is required, as is Y``); a list of alternatives, of nouns or of
    verbs stays whole, and so does a leading "Because …," clause (it belongs to the one after
    it) unless the main clause ("you will …") has already begun before the cut."""
    cuts = list(_BUNDLE.finditer(sentence))
    participles = list(_PARTICIPIAL.finditer(sentence))
    if participles:
        cuts += participles + [m for m in _AND_PARTICIPLE.finditer(sentence)
                               if m.start() > participles[0].start()]
        cuts = sorted({c.start(): c for c in cuts}.values(), key=lambda c: c.start())
    if cuts and _SUBORDINATE.match(sentence) and not re.search(
            r"\byou\b", sentence[:cuts[0].start()], re.I):
        cuts = cuts[1:]
    bounds = [0, *(c.start() for c in cuts), len(sentence)]
    starts = [0, *(c.end() for c in cuts)]
    parts = [sentence[a:b].strip(" ,;") for a, b in zip(starts, bounds[1:], strict=True)]
    if len(parts) == 1 or any(len(part.split()) < MIN_PART_WORDS for part in parts):
        return [sentence]
    return parts


_INTRO = re.compile(r"^(?:we\s+are|we're|we)\s+(?:looking|seeking|hiring|searching)\b"
                    r"(?!.*\b(?:at\s+least\s+\w+\s+years?|\d+\+?\s+years?|years?\s+of|"
                    r"(?:someone|somebody|a\s+\w+|an\s+\w+)\s+who\s+(?:has|have)\s+(?:\w+ly\s+)?"
                    r"(?:\w+ed|written|done|run|led|held|built|taught|driven|seen|worked))\b)",
                    re.I)
"""An introduction of the role ("We're looking for a nurse to join the ward"), not one that
asks for something ("We're looking for at least 4 years of …", "We are looking for someone
who has written both property and casualty business, …": experience already had)."""


def _wanted(kind: SectionKind, sentence: str, listed: bool) -> SectionKind | None:
    """The kind a candidate sentence is extracted as, or None when it is not a requirement."""
    own = sentence_kind(sentence)
    if own in ("benefits", "apply") or (not listed and _INTRO.match(sentence)):
        return None
    if kind in ("benefits", "apply", "company"):
        return None
    if own == "nice":
        return "nice"
    if kind in ("requirements", "nice"):
        return kind
    if own == "company":
        return None
    if kind == "duties":
        return kind if listed or own in ("requirements", "duties") else None
    if listed:
        return "requirements" if own == "requirements" else "other"
    return own if own in ("requirements", "duties") else None


def candidates(posting: str) -> list[tuple[str, SectionKind]]:
    """Requirement candidates in posting order, verbatim, with the kind they were taken as.

    When the headings leave nothing (a layout whose headings were misread), every sentence is
    judged by its own wording instead: a posting is never rejected whole for its format.
    """
    return _candidates(posting, by_section=True) or _candidates(posting, by_section=False)


def _candidates(posting: str, by_section: bool) -> list[tuple[str, SectionKind]]:
    found: list[tuple[str, SectionKind]] = []
    for block in blocks(posting):
        # a list item is one candidate unless it holds several sentences ("The role: As a
        # ... settlement. You will investigate ..."): then each sentence is one
        split = sentences(block.text)
        pieces = [block.text] if block.listed and len(split) < 2 else split
        for piece in pieces:
            kind = _wanted(block.kind if by_section else "other", piece, block.listed)
            if kind is None or not any(ch.isalnum() for ch in piece):
                continue
            found += [(part, kind) for part in split_bundle(piece)]
    return found


def candidate_lines(posting: str) -> list[str]:
    """The texts :func:`extract_lexical` turns into requirements."""
    return [text for text, _ in candidates(posting)]


def extract_lexical(posting: str) -> list[Requirement]:
    """Deterministic extraction; duplicates (by normalized text) keep their first occurrence."""
    seen: set[str] = set()
    requirements: list[Requirement] = []
    for text, kind in candidates(posting):
        key = normalize(text)
        if key in seen:
            continue
        seen.add(key)
        requirements.append(Requirement(id=requirement_id(len(requirements) + 1), text=text,
                                        normalized=key, source_quote=text,
                                        importance=IMPORTANCE[kind]))
    return requirements


class ProposedRequirement(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=REQUIREMENT_ID)]
    text: Annotated[str, Field(min_length=1, max_length=400)]
    source_quote: Annotated[str, Field(min_length=1, max_length=400)]
    importance: Importance
    category: Category


class ExtractionOut(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    requirements: Annotated[list[ProposedRequirement], Field(min_length=1)]


MODEL_LIST_LIMIT = 60
"""Most requirements a model may list when no ``--max-requirements`` is given: a bound the
decoding constraint needs to terminate, not a judgment about postings."""


EXTRACTION_RULES = """
You list the requirements a job posting states, as JSON.
A requirement is anything the posting asks of the candidate, essential or desirable: a skill,
qualification, licence, kind or length of experience, or trait; and every duty the role
involves ("you will ...", "what you'll do", responsibilities), since a candidate may or may not
have done it before. Pay, benefits, the company's description, working hours and how to apply
are never requirements.
Rules (each is checked by code; a violation fails the whole answer):
- One entry per requirement the posting states; a sentence or bullet that asks for several
  things gives one entry for each. Take nothing that is not in the text.
- source_quote: copy the posting's words for that requirement exactly, character for character.
- text: the requirement in the posting's own words (may equal source_quote).
- id: REQ-001, REQ-002, ... in order, no gaps.
- importance: 1 (nice to have) to 5 (essential), from the posting's wording.
- category: technical, domain, experience, education, interpersonal or other.
- Never list the same requirement twice.
Answer with one JSON object: {"requirements": [...]}.
"""


def extract_llm(posting: str, client: AskingClient, settings: PrepSettings
                ) -> tuple[list[Requirement] | None, PrepCall]:
    """Model-proposed requirements, or None (the call's ``parse_error`` says why).

    A malformed or over-full answer is rejected whole; nothing is salvaged from it.
    """
    limit = settings.max_requirements or MODEL_LIST_LIMIT
    value, call = call_json(client, "extract-requirements", EXTRACTION_RULES,
                            {"posting": posting, "max_requirements": limit},
                            ExtractionOut, settings.max_tokens,
                            choices={"id": [requirement_id(n) for n in range(1, limit + 1)]},
                            counts={"requirements": (1, limit)})
    if value is None:
        return None, call
    if len(value.requirements) > limit:
        error = f"lists {len(value.requirements)} requirements; at most {limit} allowed"
        return None, call.model_copy(update={"parse_error": error})
    requirements = [
        Requirement(id=item.id, text=item.text, normalized=normalize(item.text),
                    source_quote=item.source_quote, importance=item.importance,
                    category=item.category)
        for item in value.requirements
    ]
    return requirements, call
