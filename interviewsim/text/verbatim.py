"""Verbatim overlap between an answer and source texts, counted in word tokens.

Two measures, both model-free and exact: the longest run of consecutive tokens an answer shares
with any source (a 13-token run is far beyond what two people say by chance, so a no-context
answer with one reproduces text it was never shown: memorization), and the share of the
answer's ``window``-token windows that occur in the sources (how much of it is copied).
Tokens are lowercase words and numbers (apostrophes normalized), so punctuation and case do
not break a copied run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")


def verbatim_tokens(text: str) -> tuple[str, ...]:
    """Lowercase word tokens, curly apostrophes made straight."""
    return tuple(_TOKEN.findall(text.replace("\u2019", "'").replace("\u2018", "'").lower()))


def _grams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


class Sources:
    """The token sequences an answer is compared with; their n-gram sets are built once per
    length and kept (one person's held-out answers serve all of that person's answers)."""

    def __init__(self, texts: Sequence[str]):
        self.tokens = tuple(verbatim_tokens(t) for t in texts)
        self._longest = max((len(t) for t in self.tokens), default=0)
        self.grams = lru_cache(maxsize=None)(self._grams)

    def _grams(self, n: int) -> frozenset[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for tokens in self.tokens:
            found |= _grams(tokens, n)
        return frozenset(found)

    def longest_run(self, answer: Sequence[str]) -> int:
        """The longest run of consecutive tokens of ``answer`` found in one source (binary
        search on the length: a shared run of n implies shared runs of every length below)."""
        low, high = 0, min(len(answer), self._longest)
        while low < high:
            mid = (low + high + 1) // 2
            if _grams(answer, mid) & self.grams(mid):
                low = mid
            else:
                high = mid - 1
        return low

    def window_share(self, answer: Sequence[str], window: int) -> float | None:
        """The share of ``answer``'s ``window``-token windows found in a source; None when the
        answer is shorter than one window."""
        if len(answer) < window:
            return None
        windows = [tuple(answer[i:i + window]) for i in range(len(answer) - window + 1)]
        known = self.grams(window)
        return sum(w in known for w in windows) / len(windows)
