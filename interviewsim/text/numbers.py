"""Numbers in text, written as digits or as words: ``3``, ``1,200``, ``3.5``, ``three``,
``twenty-five``, ``two hundred``, ``twice``. What the MCQ gate needs to see that an answer of
"3" is attested by "we built three kilns"."""

from __future__ import annotations

import re

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
          "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
WORD_VALUES: dict[str, int] = {
    **{word: value for value, word in enumerate(_UNITS)},
    **{word: 10 * (i + 2) for i, word in enumerate(_TENS)},
    "once": 1, "twice": 2, "dozen": 12,
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000}
NUMBER_WORDS = frozenset(WORD_VALUES) | frozenset(_SCALES)
"""Every word this module reads as (part of) a number."""

_DIGITS = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])\d+(?:\.\d+)?")
_WORDS = re.compile(r"[a-z]+")


def _digit_values(text: str) -> set[float]:
    return {float(match.replace(",", "")) for match in _DIGITS.findall(text)}


def _word_values(text: str) -> set[float]:
    """Runs of number words (``twenty five``, ``two hundred and ten``) read as one value."""
    values: set[float] = set()
    total, current, in_run = 0, 0, False
    for word in [*_WORDS.findall(text.lower().replace("-", " ")), ""]:
        if word in WORD_VALUES:
            current += WORD_VALUES[word]
            in_run = True
        elif word in _SCALES and in_run:
            current = max(current, 1) * _SCALES[word]
            if _SCALES[word] >= 1_000:
                total, current = total + current, 0
        elif word == "and" and in_run:
            continue
        else:
            if in_run:
                values.add(float(total + current))
            total, current, in_run = 0, 0, False
    return values


def numbers_in(text: str) -> set[float]:
    """Every number ``text`` states, in digits or in words."""
    return _digit_values(text) | _word_values(text)
