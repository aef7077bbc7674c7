"""Open alternatives: a posting that accepts any like thing ("Kafka or a similar broker",
"a degree in biology or a related field", "tools such as Jira"). What such an alternative
names is not asked for (read by :mod:`~interviewsim.prep.distinctive` and
:mod:`~interviewsim.prep.attestation`)."""

from __future__ import annotations

import re

_LIKE = r"similar|equivalent|comparable|related"
"""What makes an alternative open: any thing like the one named."""
_OPEN_AFTER = re.compile(r"^[\s,)]*(?:or|and/or)\s+(?:an?\s+|any\s+|other\s+)?(?:" + _LIKE
                         + r"|other|alike)\b", re.I)
OPEN_ALTERNATIVE = re.compile(
    r"\bor\s+(?:an?\s+|any\s+)?(?:other\s+)?(?:closely\s+|directly\s+)?(?:" + _LIKE
    + r"|relevant|allied)\b(?:[ \t-]+(?!and\b|or\b|with\b)[\w-]+){0,3}", re.I)
"""An open alternative with what it names ("or a closely related field", "or equivalent
practical experience"): any like thing, so its words are not asked for."""
_OPEN_BEFORE = re.compile(r"\b(?:[Ss]uch as|e\.g\.?|[Ff]or example|for instance|like|including)"
                          r"[\s:,(]*(?:[A-Z][\w-]*\s+)?$")


def open_span(requirement: str, end: int) -> tuple[int, int] | None:
    """Where the open alternative right after a term ends its group ("or a comparable Irish
    payroll package"), or None."""
    if not _OPEN_AFTER.match(requirement[end:end + 40]):
        return None
    found = OPEN_ALTERNATIVE.search(requirement, end)
    return found.span() if found and found.start() - end < 12 else None


def is_open(requirement: str, span: tuple[int, int]) -> bool:
    start, end = span
    return bool(_OPEN_AFTER.match(requirement[end:end + 40])
                or _OPEN_BEFORE.search(requirement[max(0, start - 30):start]))
