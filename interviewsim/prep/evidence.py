"""The evidence corpus: what the candidate can attest to, one citable item each.

Two sources: an evidence file (YAML or JSON, items ``EV-…`` with a title, a summary and optional
tags, all three matched) or a personality's ``prepared_input.json``, where each *training* pair
becomes an item whose text is the person's own answer and which cites its ``qa_id``. Held-out
pairs are never evidence, so the same corpus can ground InterviewSim claims without leaking the
answers being predicted.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from interviewsim.data.schema import load_prepared_input
from interviewsim.data.split import SplitError, split_interviews
from interviewsim.errors import InputError, Problem, validation_problems
from interviewsim.prep.models import EvidenceItem
from interviewsim.prep.sources import read_text_file

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
EXAMPLE = ("expected YAML or JSON like: evidence: [{id: EV-001, title: Payments API, "
           "summary: Built the payments API in Go for a team of five., tags: [go, postgres]}] "
           "(one item per thing you can attest to; id EV-…, title and summary required, "
           "tags optional)")
"""The expected shape, on one line, for every error that means the file is not shaped so."""


class _FileItem(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    id: Annotated[str, Field(pattern=r"^EV-[A-Za-z0-9][A-Za-z0-9._-]*$")]
    title: Annotated[str, Field(min_length=1)]
    summary: Annotated[str, Field(min_length=1)]
    tags: list[str] = []


class _EvidenceFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    evidence: Annotated[list[_FileItem], Field(min_length=1)]


def _raw_ids(data: object) -> list[str | None]:
    """Each listed item's id as written (None where it has none), read before validation so
    duplicates are reported together with every other problem of the file."""
    items = data.get("evidence") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    return [item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str)
            else None for item in items]


def _duplicate_problems(ids: list[str | None], file: str) -> list[Problem]:
    seen: dict[str, int] = {}
    problems: list[Problem] = []
    for index, item_id in enumerate(ids):
        if item_id is None:
            continue
        if item_id in seen:
            problems.append(Problem(file, f"evidence[{index}].id",
                                    f"duplicate {item_id!r} (first at evidence[{seen[item_id]}])"))
        seen.setdefault(item_id, index)
    return problems


def _explain(item: dict, path: str, message: str) -> str:
    """A pydantic message in the user's terms: which field, what it should be."""
    kind = item.get("type", "")
    if kind == "missing":
        return f"missing; {EXAMPLE}"
    if kind == "extra_forbidden":
        return f"unknown field; {EXAMPLE}"
    if kind == "string_pattern_mismatch":
        return "an id must start with EV- (EV-001, EV-payments, …)"
    if kind in ("string_type", "list_type", "too_short", "string_too_short"):
        return f"{message.lower()}; {EXAMPLE}"
    return message


def _shape_problem(data: object, file: str) -> Problem | None:
    """One line for a file that is not an ``evidence:`` list at all."""
    if isinstance(data, dict) and isinstance(data.get("evidence"), list):
        return None
    if data is None:
        return Problem(file, "", f"the file holds no evidence; {EXAMPLE}")
    found = ("a list without the 'evidence:' key" if isinstance(data, list)
             else f"keys {', '.join(map(str, data))}" if isinstance(data, dict)
             else "plain text")
    return Problem(file, "", f"found {found}; {EXAMPLE}")


def load_evidence_file(path: str | Path) -> list[EvidenceItem]:
    """Read an evidence YAML/JSON file strictly; every problem is reported, not just the first."""
    path = Path(path)
    text, _ = read_text_file(path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" at line {where.line + 1}" if where is not None else ""
        raise InputError([Problem(str(path), "", f"not valid YAML/JSON{line} "
                                  f"({getattr(exc, 'problem', None) or exc}); {EXAMPLE}")]
                         ) from None
    shape = _shape_problem(data, str(path))
    if shape is not None:
        raise InputError([shape])
    problems: list[Problem] = []
    try:
        parsed = _EvidenceFile.model_validate(data)
    except ValidationError as exc:
        problems += validation_problems(exc, str(path), explain=_explain)
    problems += _duplicate_problems(_raw_ids(data), str(path))
    if problems:
        raise InputError(problems)
    return [
        EvidenceItem(id=item.id, kind="file", title=item.title, text=item.summary,
                     tags=tuple(item.tags))
        for item in parsed.evidence
    ]


def personality_evidence(path: str | Path, test_fraction: float) -> list[EvidenceItem]:
    """One item per training pair of a personality (``path``: its folder or its JSON file)."""
    path = Path(path)
    if path.is_dir():
        path = path / "prepared_input.json"
    doc = load_prepared_input(path)
    try:
        split = split_interviews(doc, test_fraction)
    except SplitError as exc:
        raise InputError([Problem(str(path), "interviews", str(exc))]) from None
    items: list[EvidenceItem] = []
    for interview in split.train:
        for pair in interview.qa_pairs:
            suffix = pair.qa_id if _SAFE_ID.match(pair.qa_id) else f"QA{len(items) + 1:03d}"
            items.append(EvidenceItem(id=f"EV-{suffix}", kind="qa_pair", title=pair.question,
                                      text=pair.response, qa_id=pair.qa_id))
    return items
