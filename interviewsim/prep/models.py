"""The records every prep stage exchanges, and the settings that bound them.

Both extractors emit :class:`Requirement`, both matchers emit :class:`Verdict`: one model per
boundary, so one gate per boundary can hold every implementation to the same contract. Models
that a language model fills (``*Out``) forbid extra keys and bound every string and list, which
is also what makes a JSON-schema constraint terminate on a small model.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

REQUIREMENT_ID = r"^REQ-\d{3,}$"
EVIDENCE_ID = r"^(EV|CL)-[A-Za-z0-9][A-Za-z0-9._-]*$"

Coverage = Literal["FULL", "PARTIAL", "GAP"]
COVERAGE_WEIGHT: dict[str, int] = {"FULL": 1, "PARTIAL": 2, "GAP": 3}
Category = Literal["technical", "domain", "experience", "education", "interpersonal", "other"]
Importance = Annotated[int, Field(ge=1, le=5)]
ShortText = Annotated[str, Field(min_length=1, max_length=400)]
Note = Annotated[str, Field(min_length=1, max_length=200)]
"""A sentence or two. Bounds on model-written text are what let a grammar-constrained small
model finish its document inside the token budget instead of looping inside one string."""
RequirementId = Annotated[str, Field(pattern=REQUIREMENT_ID)]
EvidenceId = Annotated[str, Field(pattern=EVIDENCE_ID)]
EvidenceIds = Annotated[list[EvidenceId], Field(max_length=8)]


def requirement_id(number: int) -> str:
    """``REQ-001`` …: three digits at least, more when a posting states more requirements."""
    return f"REQ-{number:03d}"


def normalize(text: str) -> str:
    """Lowercase, whitespace-collapsed form: for de-duplication and quote checks, never display."""
    return re.sub(r"\s+", " ", text).strip().casefold()


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PrepSettings(_Record):
    """Bounds and thresholds of one prep run (CLI options; not part of params.yaml)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    match_threshold: float = Field(0.30, ge=0.0, le=1.0)
    """Lexical coverage at or above which an evidence item supports a requirement (FULL)."""
    grounding_threshold: float = Field(0.30, ge=0.0, le=1.0)
    """Lexical coverage of a requirement's ``text`` by the posting that grounds it (a text not
    found verbatim in the posting must reach this, or the extraction gate rejects it)."""
    max_citations: int = Field(3, ge=1, le=8)
    """Most evidence items a lexical FULL verdict cites (the best-scoring ones)."""
    min_requirements: int = Field(1, ge=1)
    """Fewest requirements an extraction may return before the gate rejects it."""
    max_requirements: int | None = Field(None, ge=1)
    """Most requirements an extraction may return (None: as many as the posting states); a
    fuller extraction fails the run."""
    min_questions: int = Field(8, ge=1)
    """Fewest practice questions a package may hold."""
    max_questions: int = Field(12, ge=1)
    """Most practice questions a package may hold."""
    min_clarification_length: int = Field(24, ge=0)
    """Characters a stripped clarification answer needs before any model judges it."""
    max_clarifications: int = Field(10, ge=0)
    """Question budget of the clarification loop (gaps asked at most)."""
    max_tokens: int = Field(2048, gt=0)
    """Completion limit of every prep model call."""

    @model_validator(mode="after")
    def _bounds_ordered(self) -> PrepSettings:
        if self.max_requirements is not None and self.min_requirements > self.max_requirements:
            raise ValueError("min_requirements exceeds max_requirements")
        if self.min_questions > self.max_questions:
            raise ValueError("min_questions exceeds max_questions")
        return self


class ClarificationProvenance(_Record):
    """Where a ``CL-`` item came from: which gap was asked about, with which question."""

    requirement_id: str
    question: str


class EvidenceItem(_Record):
    """One thing the candidate can attest to; ``text`` is what matching reads."""

    id: Annotated[str, Field(pattern=EVIDENCE_ID)]
    kind: Literal["file", "qa_pair", "clarification"]
    title: str
    text: Annotated[str, Field(min_length=1)]
    tags: tuple[str, ...] = ()
    """Keywords the candidate gave the item (evidence files); matched like its title."""
    qa_id: str | None = None
    """The interview pair this item restates (``qa_pair`` items only)."""
    provenance: ClarificationProvenance | None = None


class Requirement(_Record):
    """One stated requirement of the posting, quoted verbatim."""

    id: Annotated[str, Field(pattern=REQUIREMENT_ID)]
    text: Annotated[str, Field(min_length=1)]
    normalized: str
    """De-duplication key only; nothing may display it."""
    source_quote: Annotated[str, Field(min_length=1)]
    """The posting span the requirement comes from; the extraction gate finds it there."""
    importance: Importance | None = None
    category: Category | None = None


class Verdict(_Record):
    """How well the corpus supports one requirement, and which items say so."""

    requirement_id: str
    coverage: Coverage
    evidence_ids: tuple[str, ...] = ()
    explanation: str
    confidence: float = Field(ge=0.0, le=1.0)
    missing: str | None = None
    """The unattested dimension of a PARTIAL verdict."""
    matched_terms: tuple[str, ...] = ()
    """Lexical path: the requirement terms the best evidence attests."""


class FocusArea(_Record):
    """A requirement ranked for preparation: gaps on important requirements first."""

    requirement_id: str
    coverage: Coverage
    importance: int
    priority: int
    action: str
    reason: str
    evidence_ids: tuple[str, ...] = ()


class RoundContext(_Record):
    """What is known about the upcoming round; shapes emphasis, never what can be claimed."""

    round_type: str | None = None
    format: str | None = None
    interviewer_roles: tuple[str, ...] = ()
    focus: tuple[str, ...] = ()
    notes: str | None = None


class PriorityItem(_Record):
    requirement_id: RequirementId
    note: Note
    evidence_ids: EvidenceIds


class Story(_Record):
    requirement_id: RequirementId
    title: Annotated[str, Field(min_length=1, max_length=80)]
    outline: Note
    evidence_ids: EvidenceIds


class Risk(_Record):
    requirement_id: RequirementId
    mitigation: Note


class Strategy(_Record):
    """How to position the candidate: what to lead with, which stories, which risks."""

    priorities: Annotated[list[PriorityItem], Field(min_length=1, max_length=12)]
    positioning: ShortText
    stories: Annotated[list[Story], Field(max_length=12)]
    risks: Annotated[list[Risk], Field(max_length=40)]


class PracticeQuestion(_Record):
    requirement_id: RequirementId
    question: Annotated[str, Field(min_length=1, max_length=240)]
    """One question, as an interviewer would ask it (a longer one is several questions)."""
    evidence_ids: EvidenceIds


class PracticeQuestionSet(_Record):
    questions: Annotated[list[PracticeQuestion], Field(min_length=1, max_length=12)]


class AnswerAssessment(_Record):
    """A model's reading of one clarification answer; every field faces an admission gate."""

    target_requirement_id: Annotated[str, Field(max_length=40)]
    verdict: Literal["supports", "does_not_support"]
    relevance_reason: ShortText
    specificity_reason: ShortText
    claim: Annotated[str, Field(max_length=400)]
    """A faithful one-sentence restatement of what the answer evidences ("" when nothing)."""


class ClarificationRecord(_Record):
    """The audit trail of one processed gap, admitted or not."""

    requirement_id: str
    question: str
    answer: str
    assessment: AnswerAssessment | None
    assessment_error: str | None = None
    accepted: bool
    reason: str
    accepted_claim: str | None = None
    evidence_id: str | None = None


class VerdictChange(_Record):
    """A requirement whose coverage differs between the initial and the final pass, and the
    admitted evidence the final verdict cites (what changed it)."""

    requirement_id: str
    before: Coverage
    after: Coverage
    new_evidence_ids: tuple[str, ...]


class Package(_Record):
    """Everything a candidate prepares from, each part traceable to the parts before it."""

    stop_reason: str
    round_context: RoundContext | None
    evidence: tuple[EvidenceItem, ...]
    requirements: tuple[Requirement, ...]
    matches: tuple[Verdict, ...]
    focus_areas: tuple[FocusArea, ...]
    strategy: Strategy
    questions: tuple[PracticeQuestion, ...]
    clarifications: tuple[ClarificationRecord, ...]
    remaining_gaps: tuple[str, ...]
    verdict_changes: tuple[VerdictChange, ...] = ()
    """Coverage changes between the passes; each names the new evidence behind it."""
