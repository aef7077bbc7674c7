"""Strict reading of the JSON objects that model outputs must be (PROMPTS.md contracts).

One JSON object, exactly the listed fields, no duplicate keys; a single fenced block
(```json ... ```) around it is allowed. Everything else raises :class:`ParseError` saying what
is wrong. Field-level checks (types, ranges, labels) belong to each contract's parser.
"""

from __future__ import annotations

import json
import re
from typing import Any

from interviewsim.errors import ParseError

_FENCE = re.compile(r"^```[A-Za-z]*[ \t]*\n(?P<body>.*)\n```$", re.DOTALL)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ParseError(f"duplicate key {key!r}")
        result[key] = value
    return result


def unfence(text: str) -> str:
    """Strip surrounding whitespace and one Markdown code fence, if present."""
    stripped = text.strip()
    match = _FENCE.match(stripped)
    return match.group("body").strip() if match else stripped


def parse_contract_object(text: str, fields: tuple[str, ...]) -> dict[str, Any]:
    """Parse ``text`` as one JSON object with exactly ``fields`` (in any order)."""
    body = unfence(text)
    if not body:
        raise ParseError("empty output; expected one JSON object")
    try:
        value = json.loads(body, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise ParseError(f"not valid JSON ({exc.msg} at {where})") from None
    if not isinstance(value, dict):
        raise ParseError(f"expected a JSON object, got {type(value).__name__}")
    missing = [f for f in fields if f not in value]
    extra = [k for k in value if k not in fields]
    if missing:
        raise ParseError(f"missing field(s): {', '.join(missing)}")
    if extra:
        allowed = ", ".join(fields)
        raise ParseError(f"unexpected field(s): {', '.join(extra)}; only {allowed} allowed")
    return value


def require_text(value: Any, field: str) -> str:
    """A non-blank string field."""
    if not isinstance(value, str):
        raise ParseError(f"{field} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ParseError(f"{field} must not be blank")
    return value
