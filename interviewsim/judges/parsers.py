"""Strict parsers for the judge output contracts (PROMPTS.md: CS, fact summary, FC, PS).

The parser is the authority on a judge's output: constrained decoding only raises the hit rate.
Each parser is a total function from text to a typed value or :class:`ParseError` with the exact
reason, so an invalid judgment can be recorded with why it was rejected and never scored.
The JSON contracts share :func:`parse_contract_object` (exact fields, no duplicates, one
optional code fence); the field checks that differ per contract live here.
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict

from interviewsim.errors import ParseError
from interviewsim.llm.contract_json import parse_contract_object, require_text

FcLabel = Literal["Entailment", "Neutral", "Contradiction"]
FC_LABELS: tuple[str, ...] = get_args(FcLabel)
Level = Literal["Low", "Neutral", "High"]
LEVELS: tuple[str, ...] = get_args(Level)
CS_SCORES: tuple[int, ...] = (1, 2, 3, 4, 5)

CS_FIELDS = ("score", "explanation")
FACT_SUMMARY_FIELDS = ("summary", "explanation")
FC_FIELDS = ("label", "explanation")


class _Parsed(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ContentSimilarity(_Parsed):
    """A CS judgment: the 1-5 score is what aggregates; the explanation is kept for audit."""

    score: int
    explanation: str


class FactSummary(_Parsed):
    """An evaluation-only summary of one personality's held-out responses."""

    summary: str
    explanation: str


class FactualConsistency(_Parsed):
    """An FC judgment of one generated answer against a fact summary."""

    label: FcLabel
    explanation: str


class TraitRating(_Parsed):
    """One categorical PS run for one trait and one response collection."""

    level: Level
    justification: str


def _require_score(value: Any) -> int:
    # bool is a subclass of int and 4.0 == 4 in Python; neither is an integer in the contract.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParseError(f"score must be an integer from 1 to 5, got {value!r}")
    if value not in CS_SCORES:
        raise ParseError(f"score must be an integer from 1 to 5, got {value}")
    return value


def parse_content_similarity(text: str) -> ContentSimilarity:
    """``{"score": 1..5, "explanation": non-blank}`` and nothing else."""
    obj = parse_contract_object(text, CS_FIELDS)
    return ContentSimilarity(
        score=_require_score(obj["score"]),
        explanation=require_text(obj["explanation"], "explanation"),
    )


def parse_fact_summary(text: str) -> FactSummary:
    """``{"summary": non-blank, "explanation": non-blank}`` and nothing else."""
    obj = parse_contract_object(text, FACT_SUMMARY_FIELDS)
    return FactSummary(
        summary=require_text(obj["summary"], "summary"),
        explanation=require_text(obj["explanation"], "explanation"),
    )


def parse_factual_consistency(text: str) -> FactualConsistency:
    """``{"label": Entailment|Neutral|Contradiction, "explanation": non-blank}``, exact case."""
    obj = parse_contract_object(text, FC_FIELDS)
    label = obj["label"]
    if not isinstance(label, str):
        raise ParseError(f"label must be a string, got {type(label).__name__}")
    if label not in FC_LABELS:
        hint = ""
        if label.strip().lower() in {x.lower() for x in FC_LABELS}:
            hint = " (labels are case-sensitive and must not be padded)"
        raise ParseError(f"label {label!r} is not one of {', '.join(FC_LABELS)}{hint}")
    return FactualConsistency(
        label=label, explanation=require_text(obj["explanation"], "explanation")
    )


_TAGGED = re.compile(
    r"<rate>(?P<level>[^<]*)</rate>[ \t\r\n]*<justification>(?P<why>.*)</justification>",
    re.DOTALL,
)
_ANY_TAG = re.compile(r"</?(?:rate|justification)>")


def parse_trait_rating(text: str) -> TraitRating:
    """``<rate>Low|Neutral|High</rate> <justification>non-blank</justification>``.

    Whitespace around the output and between the two tags is tolerated (it carries nothing);
    any other text, a recased or padded level, a repeated or nested tag is rejected.
    """
    body = text.strip()
    if not body:
        raise ParseError("empty output; expected <rate>...</rate> "
                         "<justification>...</justification>")
    match = _TAGGED.fullmatch(body)
    if match is None:
        if "<rate>" not in body or "<justification>" not in body:
            raise ParseError("missing <rate> or <justification> tag")
        raise ParseError(
            "output must be exactly <rate>LEVEL</rate> <justification>TEXT</justification> "
            "with nothing before, between or after the tags"
        )
    level, why = match.group("level"), match.group("why")
    if level not in LEVELS:
        raise ParseError(f"rate {level!r} is not one of {', '.join(LEVELS)} (case-sensitive)")
    if _ANY_TAG.search(why):
        raise ParseError("justification contains a <rate> or <justification> tag")
    if not why.strip():
        raise ParseError("justification must not be blank")
    return TraitRating(level=level, justification=why)
