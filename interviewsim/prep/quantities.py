"""Counts a requirement sets as a bar ("a 32-bed unit", "a team of 25–40 associates"), and the
counts evidence states for the same thing.

"Lead the 32-bed unit" shares every word with "charge nurse on a 28-bed ward" except the number
that matters. A bar is a number followed (within a few words) by a noun; the evidence meets it
when it states a number at least as large before the same noun. Only a stated, smaller number
withholds FULL: evidence that gives no number for the noun is left to the other rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from interviewsim.prep.distinctive import stem
from interviewsim.text.coverage import STOPWORDS
from interviewsim.text.numbers import WORD_VALUES

_COUNT = re.compile(
    r"(?<![$£€\w.,])(\d{1,3}(?:,\d{3})*|\d+)(?:\s*(?:–|-|to)\s*(\d{1,3}(?:,\d{3})*|\d+))?"
    r"(?![\d%kKmM$])\+?[\s-]*((?:[A-Za-z][\w-]*(?:\s+|$|(?=[.,;:)]))){0,3})", re.I)
_SKIP_NOUNS = frozenset("year years yr yrs month months day days week weeks hour hours minute "
                        "minutes percent times".split())
_NOUN_WINDOW = 3


def _nouns(words: str) -> frozenset[str]:
    found = [w.lower().strip("-") for w in words.split()][:_NOUN_WINDOW]
    return frozenset(stem(w) for w in found if w and w not in STOPWORDS
                     and w not in _SKIP_NOUNS and not w.isdigit())


def bars(requirement: str) -> list[tuple[int, frozenset[str]]]:
    """Each count the requirement asks for (a range's lower end) with the nouns after it."""
    found = []
    for match in _COUNT.finditer(requirement):
        low = int(match.group(1).replace(",", ""))
        nouns = _nouns(match.group(3))
        year = "," not in match.group(1) and 1900 <= low <= 2100
        if nouns and not year:
            found.append((low, nouns))
    return found


_WORD_COUNT = re.compile(r"\b(" + "|".join(sorted(WORD_VALUES, key=len, reverse=True)) +
                         r")[\s-]+((?:[A-Za-z][\w-]*(?:\s+|$|(?=[.,;:)]))){0,3})", re.I)


def stated_counts(texts: Iterable[str]) -> list[tuple[int, frozenset[str]]]:
    """Each count the texts state (a range's upper end, or in words: "a crew of eight
    associates") with the nouns after it."""
    found = []
    for text in texts:
        for match in _WORD_COUNT.finditer(text):
            nouns = _nouns(match.group(2))
            if nouns:
                found.append((WORD_VALUES[match.group(1).lower()], nouns))
        for match in _COUNT.finditer(text):
            high = int((match.group(2) or match.group(1)).replace(",", ""))
            nouns = _nouns(match.group(3))
            if nouns:
                found.append((high, nouns))
    return found


_MONEY = re.compile(r"([$£€])\s?(\d+(?:,\d{3})*(?:\.\d+)?)\s*(k|m|bn|million|thousand|"
                    r"billion)?\b", re.I)
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}


def amounts(text: str) -> list[tuple[str, float, str]]:
    """Each sum of money the text states: currency, value, as written ("£2.8m")."""
    return [(m.group(1), float(m.group(2).replace(",", "")) * _SCALE.get(
        (m.group(3) or "").lower(), 1.0), m.group(0)) for m in _MONEY.finditer(text)]


def _unmet_amount(requirement: str, evidence: list[str]) -> str | None:
    """A sum the posting sets ("schemes of £5m or more") above every sum the evidence states in
    the same currency."""
    for currency, bar, written in amounts(requirement):
        said = [(value, text) for text in evidence
                for cur, value, text in amounts(text) if cur == currency]
        if said and max(said)[0] < bar:
            return f"asks {written}; the evidence states {max(said)[1]}"
    return None


def unmet_bar(requirement: str, evidence: Iterable[str]) -> str | None:
    """The first bar the evidence states a smaller count for ("asks 32 bed; states 28"), or a
    smaller sum of money."""
    evidence = list(evidence)
    stated = stated_counts(evidence)
    for low, nouns in bars(requirement):
        same = [(count, sorted(said & nouns)[0]) for count, said in stated if said & nouns]
        if same and max(same)[0] < low:
            count, noun = max(same)
            return f"asks {low} ({noun}); the evidence states {count}"
    return _unmet_amount(requirement, evidence)
