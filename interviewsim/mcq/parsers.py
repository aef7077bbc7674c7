"""Strict parsers for the three MCQ output contracts; each raises only :class:`ParseError`.

Each is a small total function: it either returns the typed value or says exactly which rule
the output broke, so a re-ask or a drop is always recorded with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from interviewsim.errors import ParseError
from interviewsim.llm.contract_json import parse_contract_object, require_text
from interviewsim.mcq.models import (
    AtomicItem,
    GeneratedMcq,
    GeneratedOption,
    duplicate_texts,
    roles_for,
)

ATOMIC_QUESTION = "Atomic Question: "
ATOMIC_ANSWER = "Atomic Answer: "
MCQ_FIELDS = ("question", "options", "correct_answer")
OPTION_FIELDS = ("kind", "text")
_ANSWER_LINE = re.compile(r"Q(?P<index>[0-9]+): (?P<label>.*)")


def _tagged_line(line: str, tag: str, which: str) -> str:
    if not (line.startswith(tag) or line == tag.rstrip()):
        raise ParseError(f"{which} line must start with {tag!r}, got {line[:60]!r}")
    value = line[len(tag):].strip()
    if not value:
        raise ParseError(f"{which} is blank")
    return value


def parse_atomic(text: str) -> AtomicItem:
    """Exactly two lines, ``Atomic Question: ...`` then ``Atomic Answer: ...``, nothing else."""
    lines = text.strip().split("\n")
    if len(lines) != 2:
        raise ParseError(f"expected exactly 2 lines (Atomic Question, Atomic Answer), "
                         f"got {len(lines)}")
    question = _tagged_line(lines[0].rstrip(), ATOMIC_QUESTION, "first")
    answer = _tagged_line(lines[1].rstrip(), ATOMIC_ANSWER, "second")
    return AtomicItem(question=question, answer=answer)


def _option(value: Any, index: int, role: str) -> GeneratedOption:
    where = f"options[{index}]"
    if not isinstance(value, dict):
        raise ParseError(f"{where} must be an object with kind and text")
    extra = [k for k in value if k not in OPTION_FIELDS]
    missing = [k for k in OPTION_FIELDS if k not in value]
    if missing or extra:
        raise ParseError(f"{where} must have exactly the fields kind, text "
                         f"(missing: {', '.join(missing) or 'none'}; "
                         f"unexpected: {', '.join(extra) or 'none'})")
    if value["kind"] != role:
        raise ParseError(f"{where}.kind must be {role!r} (role order is fixed), "
                         f"got {value['kind']!r}")
    text = require_text(value["text"], f"{where}.text").strip()
    return GeneratedOption(role=role, text=text)


def parse_mcq(text: str, atomic: AtomicItem, option_count: int) -> GeneratedMcq:
    """One JSON object: ``question`` equal to the atomic question, ``options`` in the fixed role
    order whose first text equals the atomic answer, texts unique, ``correct_answer`` "A"."""
    roles = roles_for(option_count)
    value = parse_contract_object(text, MCQ_FIELDS)
    question = require_text(value["question"], "question").strip()
    if question != atomic.question.strip():
        raise ParseError(f"question must equal the atomic question {atomic.question!r}, "
                         f"got {question!r}")
    if value["correct_answer"] != "A":
        raise ParseError(f"correct_answer must be \"A\", got {value['correct_answer']!r}")
    raw_options = value["options"]
    if not isinstance(raw_options, list):
        raise ParseError(f"options must be a list, got {type(raw_options).__name__}")
    if len(raw_options) != option_count:
        raise ParseError(f"expected {option_count} options, got {len(raw_options)}")
    options = tuple(_option(v, i, role) for i, (v, role) in
                    enumerate(zip(raw_options, roles, strict=True)))
    if options[0].text != atomic.answer.strip():
        raise ParseError(f"the first (correct) option must equal the atomic answer "
                         f"{atomic.answer!r}, got {options[0].text!r}")
    duplicates = duplicate_texts([o.text for o in options])
    if duplicates:
        raise ParseError(f"option texts must be unique ignoring case and spacing: "
                         f"{duplicates[0]!r} repeats")
    return GeneratedMcq(question=question, options=options)


def parse_grouped_answers(text: str, labels: Sequence[Sequence[str]]) -> list[str]:
    """Exactly ``len(labels)`` lines ``Qi: <label>``, i = 1..N in order, nothing else; each
    label one of those available for item i (``labels[i - 1]``)."""
    n = len(labels)
    lines = text.strip().split("\n") if text.strip() else []
    if len(lines) != n:
        raise ParseError(f"expected exactly {n} answer line(s) Q1..Q{n}, got {len(lines)}")
    chosen = []
    for position, (line, available) in enumerate(zip(lines, labels, strict=True), start=1):
        match = _ANSWER_LINE.fullmatch(line.rstrip())
        if match is None:
            raise ParseError(f"line {position} must be 'Q{position}: <label>', got {line[:60]!r}")
        if int(match["index"]) != position:
            raise ParseError(f"line {position} answers Q{match['index']}; every index 1..{n} "
                             f"must appear once, in order")
        label = match["label"]
        if label not in available:
            raise ParseError(f"Q{position}: label {label!r} is not available "
                             f"(options: {', '.join(available)})")
        chosen.append(label)
    return chosen
