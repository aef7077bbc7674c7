"""Pydantic models of the canonical ``prepared_input.json`` and its strict loader.

The contract is ``shared/spec/INPUT_SCHEMA.md``: unknown fields, duplicate keys, wrong types
(a boolean is not an integer), blank identifiers and texts, and duplicate ids or sequences are
all rejected, each with the file and JSON path of the offending value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from interviewsim.data.jsonio import load_json_strict
from interviewsim.errors import InputError, validation_problems


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _no_nul(value: str) -> str:
    """NUL is no text: it truncates prompts in C-backed tokenizers and is never typed."""
    if "\x00" in value:
        raise ValueError(f"contains a NUL character (U+0000) at position {value.index(chr(0))}; "
                         "remove it")
    return value


NonBlank = Annotated[str, Field(strict=True), AfterValidator(_no_nul), AfterValidator(_not_blank)]


def _unique_tags(tags: list[str]) -> list[str]:
    seen: set[str] = set()
    for index, tag in enumerate(tags):
        if tag in seen:
            raise ValueError(f"tags[{index}] duplicates {tag!r}; tags must be unique")
        seen.add(tag)
    return tags


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class QAPair(_Strict):
    """One question asked in an interview and the person's answer."""

    qa_id: NonBlank
    question: NonBlank
    response: NonBlank
    tags: Annotated[list[NonBlank], AfterValidator(_unique_tags)]


class Interview(_Strict):
    """One interview; ``sequence`` orders interviews in time (lower is earlier)."""

    interview_id: NonBlank
    sequence: Annotated[int, Field(strict=True, ge=0)]
    qa_pairs: Annotated[list[QAPair], Field(min_length=1)]


class Personality(_Strict):
    """Profile texts; each is used by exactly one context strategy."""

    profile: NonBlank
    """The short-profile strategy's whole context: a blank one would make it no-context."""
    long_profile: NonBlank
    """The long-profile strategy's whole context."""


class PreparedInput(_Strict):
    """One personality's interviews: the unit of input and of the hold-out split."""

    schema_version: Literal["1.0"]
    personality_id: NonBlank
    personality: Personality
    interviews: Annotated[list[Interview], Field(min_length=1)]

    @model_validator(mode="after")
    def _ids_unique(self) -> PreparedInput:
        problems = uniqueness_problems(self)
        if problems:
            raise ValueError("\n".join(problems))
        return self


def uniqueness_problems(doc: PreparedInput) -> list[str]:
    """Duplicate interview ids, sequences and qa ids, each with the first occurrence's path."""
    problems: list[str] = []
    first_interview: dict[str, str] = {}
    first_sequence: dict[int, str] = {}
    first_qa: dict[str, str] = {}
    for i, interview in enumerate(doc.interviews):
        here = f"interviews[{i}]"
        for key, table, value in (
            ("interview_id", first_interview, interview.interview_id),
            ("sequence", first_sequence, interview.sequence),
        ):
            if value in table:
                problems.append(
                    f"{here}.{key}: duplicate {value!r} (first at {table[value]}.{key})"
                )
            else:
                table[value] = here
        for j, pair in enumerate(interview.qa_pairs):
            path = f"{here}.qa_pairs[{j}].qa_id"
            if pair.qa_id in first_qa:
                first = first_qa[pair.qa_id]
                problems.append(f"{path}: duplicate {pair.qa_id!r} (first at {first})")
            else:
                first_qa[pair.qa_id] = path
    return problems


def _explain(item: dict[str, Any], path: str, message: str) -> str:
    if item["type"] == "literal_error" and path == "schema_version":
        return f"expected exactly \"1.0\", got {item['input']!r}"
    if item["type"] == "extra_forbidden":
        return "unknown field; remove it (the schema allows no extra fields)"
    if item["type"] == "missing":
        return "required field is missing"
    return message


def parse_prepared_input(data: object, file: str) -> PreparedInput:
    """Validate already-parsed JSON; raise :class:`InputError` listing every problem."""
    try:
        return PreparedInput.model_validate(data)
    except ValidationError as exc:
        raise InputError(validation_problems(exc, file, explain=_explain)) from None


def load_prepared_input(path: str | Path) -> PreparedInput:
    """Load one ``prepared_input.json`` strictly; errors name the file and JSON path."""
    return parse_prepared_input(load_json_strict(path), str(path))
