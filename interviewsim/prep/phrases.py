"""Compound phrases a requirement names: "motor control" is not "quality control on motor housings".

A requirement without distinctive names is matched on its words, and two shared words can
come from two unrelated phrases ("cold chain" vs "chain of custody … controlled access"). Two
content words side by side in the requirement form a compound; when the requirement has one,
FULL needs an affirmative clause that says at least one of them as a phrase (see
:func:`says_compound`) when the cited clauses have both words of one apart.
"""

from __future__ import annotations

import re

from interviewsim.prep.distinctive import GENERIC, stem
from interviewsim.text.coverage import STOPWORDS
from interviewsim.text.numbers import NUMBER_WORDS

_WORD = re.compile(r"[a-z0-9]+(?:[-/.][a-z0-9]+)*[+#]*")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_GAP = 2
"""Most positions between a compound's two words in the evidence (1 = adjacent)."""


def _words(text: str) -> list[str]:
    plain = re.sub(r"'s\b", "", text.lower().translate(_APOSTROPHES))
    return _WORD.findall(plain)


def _content(word: str) -> bool:
    return (len(word) > 1 and word not in STOPWORDS and word not in GENERIC
            and word not in NUMBER_WORDS and not word.replace("+", "").isdigit())


def compounds(requirement: str) -> tuple[tuple[str, str], ...]:
    """Adjacent pairs of content words in ``requirement``, as stems."""
    words = _words(requirement)
    pairs: list[tuple[str, str]] = []
    for a, b in zip(words, words[1:], strict=False):
        if _content(a) and _content(b):
            pairs.append((stem(a), stem(b)))
            left, right = a.split("-")[-1], b.split("-")[0]
            if (left, right) != (a, b) and _content(left) and _content(right):
                pairs.append((stem(left), stem(right)))  # temperature-controlled freight
    return tuple(pairs)


def _same(a: str, b: str) -> bool:
    """One stem, or one word family by its first five letters ("medicin" ~ "medical")."""
    return a == b or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5])


def says_compound(pairs: tuple[tuple[str, str], ...], clause: str) -> bool:
    """Whether ``clause`` says one of ``pairs`` as a phrase: in order with at most one content
    word between, or reversed and adjacent ("code reviews" for "review code"); stopwords and
    numbers between do not count ("supervise 18 to 22 hourly associates")."""
    stems = [stem(w) for w in _words(clause) if _content(w) or w in GENERIC]
    for a, b in pairs:
        for i, word in enumerate(stems):
            ahead = stems[i + 1:i + 1 + _GAP]
            if _same(word, a) and any(_same(w, b) for w in ahead):
                return True
            if _same(word, b) and ahead and _same(ahead[0], a):
                return True
    return False
