"""The deterministic gate a fact summary must pass before it reaches the FC judge.

The contract forbids citations, links, source identifiers and provenance in a summary. A model
that echoes ``[1]``, a URL or one of the personality's ``qa_id``s has turned the summary into a
pointer at held-out records rather than a statement of facts, so the gate rejects it exactly like
a parse failure (same exception, same re-ask). Checks are plain patterns: cheap, reproducible,
and the rejection says what matched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from interviewsim.errors import ParseError

_TLDS = "com|org|net|edu|gov|io|co|uk|de|fr|info|me|tv|ly|ai|app|dev|blog"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a URL", re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)),
    ("a link", re.compile(r"\bwww\.\S+", re.IGNORECASE)),
    ("a link", re.compile(rf"\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:{_TLDS})(?:/\S*)?\b",
                          re.IGNORECASE)),
    ("a Markdown link", re.compile(r"\]\([^)]*\)")),
    ("a citation marker", re.compile(r"\[\s*\d+(?:\s*[,;\-\u2013]\s*\d+)*\s*\]")),
    ("a footnote marker", re.compile(r"\[\^[^\]]*\]")),
    ("a source note", re.compile(
        r"[(\[]\s*(?:sources?|refs?|references?|citations?|cited(?: in)?)\s*[:#]",
        re.IGNORECASE)),
    ("a source note", re.compile(r"(?:^|\n)\s*(?:sources?|references?|citations?)\s*:",
                                 re.IGNORECASE)),
)


class SummaryGate:
    """Rejects summaries that cite, link or name the source records of one personality."""

    def __init__(self, identifiers: Iterable[str]):
        ids = sorted({i for i in identifiers if i}, key=lambda i: (-len(i), i))
        # An id only counts as a whole token: "I1" must not fire inside "I10" or "WI1".
        self._ids = (
            re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, ids)) + r")(?![\w-])")
            if ids else None
        )

    def check(self, summary: str) -> str:
        """Return ``summary`` unchanged, or raise :class:`ParseError` naming what matched."""
        for what, pattern in _PATTERNS:
            match = pattern.search(summary)
            if match:
                raise ParseError(f"summary contains {what} ({match.group(0).strip()!r}); "
                                 "citations, links and source identifiers are not allowed")
        if self._ids is not None:
            match = self._ids.search(summary)
            if match:
                raise ParseError(f"summary contains the source identifier {match.group(0)!r}; "
                                 "qa_ids and interview_ids are not allowed")
        return summary
