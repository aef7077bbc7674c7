"""Stage 1: the posting's requirements, by list markers (``lexical``) or by a model (``llm``).

Both paths emit :class:`Requirement` with a ``source_quote``, so the one extraction gate can hold
both to the same rule: every requirement must be findable in the posting. The lexical path
satisfies that by construction; the model path must earn it.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from interviewsim.prep.modelcall import PrepCall, PrepClient, call_json
from interviewsim.prep.models import Category, Importance, PrepSettings, Requirement, normalize

Extractor = Literal["lexical", "llm"]

_LIST_MARKER = re.compile(r"^\s*(?:[-*+\u2022\u2023\u25e6\u2013]|\(?\d{1,2}[.)]|[a-z][.)])\s+")
_HEADINGS = frozenset({
    "requirements", "about the role", "about you", "about us", "responsibilities",
    "qualifications", "what you'll do", "what you will do", "what we're looking for",
    "what we are looking for", "nice to have", "nice to haves", "bonus points", "benefits",
    "who you are", "the role", "skills", "preferred qualifications", "required qualifications",
})
MIN_LINE_LENGTH = 8


def _is_heading(line: str) -> bool:
    stripped = line.strip()
    if stripped.startswith("#") or stripped.endswith(":"):
        return True
    return normalize(stripped).strip("*_ ").rstrip(".") in _HEADINGS


def candidate_lines(posting: str) -> list[str]:
    """Requirement candidates: list items, or every non-heading line when there is no list.

    Text is kept verbatim after the marker; headings and lines under eight characters go.
    """
    lines = posting.splitlines()
    listed = [_LIST_MARKER.sub("", line, count=1).strip()
              for line in lines if _LIST_MARKER.match(line)]
    pool = listed if listed else [line.strip() for line in lines]
    return [text for text in pool
            if text and len(text) >= MIN_LINE_LENGTH and not _is_heading(text)]


def extract_lexical(posting: str) -> list[Requirement]:
    """Deterministic extraction; duplicates (by normalized text) keep their first occurrence."""
    seen: set[str] = set()
    requirements: list[Requirement] = []
    for text in candidate_lines(posting):
        key = normalize(text)
        if key in seen:
            continue
        seen.add(key)
        requirements.append(Requirement(id=f"REQ-{len(requirements) + 1:03d}", text=text,
                                        normalized=key, source_quote=text))
    return requirements


class ProposedRequirement(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, Field(pattern=r"^REQ-\d{3}$")]
    text: Annotated[str, Field(min_length=1, max_length=400)]
    source_quote: Annotated[str, Field(min_length=1, max_length=400)]
    importance: Importance
    category: Category


class ExtractionOut(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    requirements: Annotated[list[ProposedRequirement], Field(min_length=1, max_length=40)]


EXTRACTION_RULES = """
You list the requirements a job posting states, as JSON.
Rules (each is checked by code; a violation fails the whole answer):
- One entry per requirement the posting states. Take nothing that is not in the text.
- source_quote: copy the posting's words for that requirement exactly, character for character.
- text: the requirement in the posting's own words (may equal source_quote).
- id: REQ-001, REQ-002, ... in order, no gaps.
- importance: 1 (nice to have) to 5 (essential), from the posting's wording.
- category: technical, domain, experience, education, interpersonal or other.
- Never list the same requirement twice.
Answer with one JSON object: {"requirements": [...]}.
"""


def extract_llm(posting: str, client: PrepClient, settings: PrepSettings
                ) -> tuple[list[Requirement] | None, PrepCall]:
    """Model-proposed requirements, or None (the call's ``parse_error`` says why).

    A malformed or over-full answer is rejected whole; nothing is salvaged from it.
    """
    value, call = call_json(client, "extract-requirements", EXTRACTION_RULES,
                            {"posting": posting, "max_requirements": settings.max_requirements},
                            ExtractionOut, settings.max_tokens,
                            choices={"id": [f"REQ-{n:03d}" for n in
                                            range(1, settings.max_requirements + 1)]})
    if value is None:
        return None, call
    if len(value.requirements) > settings.max_requirements:
        error = (f"lists {len(value.requirements)} requirements; at most "
                 f"{settings.max_requirements} allowed")
        return None, call.model_copy(update={"parse_error": error})
    requirements = [
        Requirement(id=item.id, text=item.text, normalized=normalize(item.text),
                    source_quote=item.source_quote, importance=item.importance,
                    category=item.category)
        for item in value.requirements
    ]
    return requirements, call
