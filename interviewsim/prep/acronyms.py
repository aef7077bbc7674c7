"""Acronyms and the words that spell them: "profit and loss" attests P&L, "first in, first out"
FIFO, "quarterly business reviews" QBRs (:mod:`interviewsim.prep.distinctive` reads them)."""

from __future__ import annotations

import re
from collections.abc import Sequence

_ACRONYM = re.compile(r"^[a-z](?:[&/]?[a-z]){1,4}$")
_ACRONYM_SKIP = frozenset({"and", "of", "&", "the", "for", "to", "in", "on", "at"})
ACRONYM_PREFIX = "initials:"
"""An attested term ``initials:cms`` stands for words whose initials spell an acronym."""
PAIR_PREFIX = "pair:"
"""``pair:os``: two capitalised words spell a two-letter acronym ("Ordnance Survey" is OS,
"United Kingdom" UK); lower-case pairs are too many to count."""
SPELT_PREFIX = "spelt:"
"""``spelt:wms``: three or more words in lower case whose initials spell it ("warehouse
management system"), the only spelling that attests a known name's acronym."""


def initials(tokens: Sequence[str]) -> set[str]:
    """``initials:`` terms of every run of 2-5 consecutive words of three letters or more
    (and, of, the, ... skipped inside a run): "profit and loss" attests P&L, "collections
    management system" CMS."""
    found: set[str] = {PAIR_PREFIX + (a[0] + b[0]).lower() for a, b in
                       zip(tokens, tokens[1:], strict=False)
                       if all(len(w) >= 3 and w.isalpha() and w[0].isupper() and w[1:].islower()
                              for w in (a, b))}
    words = [t.lower() for t in tokens]
    for start, first in enumerate(words):
        if first in _ACRONYM_SKIP or len(first) < 3 or not first.isalpha():
            continue
        spelt = {first[0]}
        plain = tokens[start] == first  # every word of the run in lower case so far
        for offset, word in enumerate(words[start + 1:start + 8], start + 1):
            if word in _ACRONYM_SKIP:  # skipped, or counted: "first in, first out" is FIFO
                spelt |= {s + word[0] for s in spelt if word.isalpha() and len(s) < 5}
                continue
            if len(word) < 3 or not word.isalpha():
                break
            spelt = {s + word[0] for s in spelt if len(s) < 5}
            if not spelt:
                break
            plain = plain and tokens[offset] == word
            found.update(ACRONYM_PREFIX + s for s in spelt)
            found.update(SPELT_PREFIX + s for s in spelt if plain and len(s) >= 3)
    return found


def acronym_key(term: str, known: frozenset[str] = frozenset()) -> str | None:
    """``initials:<letters>`` of an acronym term that is not a ``known`` tool or standard name
    ("p&l", "cms"); for a known one, ``spelt:<letters>``: only words in lower case spell it
    ("warehouse management system" is a WMS, "programmable logic controllers" PLCs), never a
    chance run of a title ("Senior quality lead" is no SQL)."""
    if not _ACRONYM.match(term):
        return None
    letters = re.sub(r"[&/]", "", term)
    if len(letters) < 3 and "&" not in term:  # "PM", "QA": only a capitalised pair spells them
        return PAIR_PREFIX + letters if term not in known else None
    if term in known:
        return SPELT_PREFIX + letters if len(letters) >= 3 and "&" not in term else None
    return ACRONYM_PREFIX + letters
