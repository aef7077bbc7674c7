"""What one evidence item affirms, clause by clause: the reading the lexical verdict rules
(:mod:`interviewsim.prep.attestation`) judge a requirement on.

Only affirmative clauses are kept (:mod:`interviewsim.prep.polarity`); each is marked when it
asserts nothing outright (:mod:`interviewsim.prep.assertion`), and a lapse said anywhere in a
sentence ("I joined as a student, but I let the membership lapse") marks every clause of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from interviewsim.prep.assertion import LIMITED, coordinated, qualification, word_pairs
from interviewsim.prep.distinctive import (
    KNOWN_TERMS,
    attested_terms,
    capitalised,
    stated_years,
    stem,
)
from interviewsim.prep.polarity import SetAside, affirmative
from interviewsim.prep.sections import sentences
from interviewsim.text.coverage import terms


def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(t) for t in terms(text))


@dataclass(frozen=True)
class Clause:
    text: str
    names: frozenset[str]
    stems: frozenset[str]
    years: int | None
    limited: bool
    listed: bool = False
    """The item's title and tags: a list of labels, in which words have no order."""
    qualified: str | None = None
    """Why the clause asserts nothing outright (:mod:`assertion`): it supports PARTIAL only."""
    sentence: int = -1
    """Which sentence of the item it is in (-1: the title and tags)."""


@dataclass(frozen=True)
class Reading:
    """What one evidence item affirms, clause by clause."""

    item_id: str
    clauses: tuple[Clause, ...]
    denied: frozenset[str]
    """Stems the item mentions only in set-aside clauses."""
    set_aside: tuple[SetAside, ...]
    set_aside_stems: tuple[frozenset[str], ...] = ()
    denied_names: frozenset[str] = frozenset()
    """Names the item mentions only in set-aside clauses ("I have not used Spark")."""
    denied_objects: frozenset[str] = frozenset()
    """Stems of what the item's negations deny ("robotic milkers" of "I have never worked
    with robotic milkers"), the item's own affirmations aside."""


_OBJECT_ONLY = re.compile(r"^(?:the|a|an|all|its|their|his|her)\s", re.I)
"""A coordinated piece that is only a noun phrase: the object of the clause before it, whose
qualification it shares."""


def read_item(item_id: str, text: str, extra: Sequence[str] = ()) -> Reading:
    """An item's affirmative clauses; ``extra`` (its title and tags) count as one more clause
    unless the item denies or wishes something."""
    clauses: list[Clause] = []
    dropped: list[SetAside] = []
    for number, sentence in enumerate(sentences(text)):
        kept, aside = affirmative(sentence)
        parts = [_clause(part, number) for c in kept for part in coordinated(c)]
        for i in range(1, len(parts)):  # "X did the commissioning and the first-year services"
            if (parts[i].qualified is None and parts[i - 1].qualified
                    and _OBJECT_ONLY.match(parts[i].text)):
                parts[i] = replace(parts[i], qualified=parts[i - 1].qualified, limited=True)
        lapsed = next((c.qualified for c in parts if (c.qualified or "").startswith(_LAPSED)),
                      None)  # "I joined as a student, but I let the membership lapse"
        clauses += [replace(c, qualified=c.qualified or lapsed, limited=True) if lapsed else c
                    for c in parts]
        dropped += aside
    if extra and not dropped:
        joined = "\n".join(extra)
        clauses.append(Clause(joined, attested_terms(joined), _stems(joined), None, False,
                              listed=True))
    affirmed = frozenset().union(*(c.stems for c in clauses)) if clauses else frozenset()
    denied = frozenset().union(*(_stems(d.text) for d in dropped)) - affirmed if dropped else (
        frozenset())
    named = frozenset().union(*(c.names for c in clauses)) if clauses else frozenset()
    denied_names = attested_terms("\n".join(d.text for d in dropped)) - named
    # a name only by its capital ("Supply" in the posting) is denied only when written so
    cased = capitalised("\n".join(d.text for d in dropped))
    denied_names -= {n for n in denied_names
                     if n.isalpha() and n not in KNOWN_TERMS and n not in cased}
    objects = frozenset().union(*(_stems(d.denied) for d in dropped)) - affirmed
    return Reading(item_id, tuple(clauses), denied, tuple(dropped),
                   tuple(_stems(d.text) for d in dropped), denied_names, objects)


def _clause(text: str, sentence: int) -> Clause:
    why = qualification(text)
    return Clause(text, attested_terms(text), _stems(text), stated_years(text),
                  bool(LIMITED.search(text)) or why is not None, qualified=why,
                  sentence=sentence)


_LAPSED = "a lapsed or former state"


def own_wording(reading: Reading, requirement: str) -> Reading:
    """``reading`` with clauses whose only markers are the requirement's own wording ("Global
    Wind Organisation basic safety training" for "Basic Safety Training") read as asserting."""
    own = word_pairs(requirement)
    fixed = [replace(c, qualified=None, limited=bool(LIMITED.search(c.text)))
             if c.qualified and not c.listed and qualification(c.text) == c.qualified
             and qualification(c.text, own) is None else c
             for c in reading.clauses]
    return replace(reading, clauses=tuple(fixed))


def strong(reading: Reading) -> Reading:
    """The reading with only the clauses that assert outright (the only ones FULL rests on)."""
    return replace(reading, clauses=tuple(c for c in reading.clauses if c.qualified is None))
