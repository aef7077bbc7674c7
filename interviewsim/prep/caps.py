"""The rules that turn a FULL into PARTIAL after the matching (:mod:`.attestation`, rules 4-6):
a compound said only apart, fewer years than asked, a smaller count than the posting's bar,
the requirement's rarest term denied anywhere in the evidence, a word it cannot do without
left out, and one half of "both X and Y" unsaid."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from interviewsim.prep.distinctive import required_years
from interviewsim.prep.phrases import compounds, says_compound
from interviewsim.prep.quantities import unmet_bar

if TYPE_CHECKING:
    from interviewsim.prep.attestation import Judgment
    from interviewsim.prep.reading import Reading


def phrase_rule(requirement: str, judgment: Judgment, readings: Sequence[Reading]
                ) -> Judgment:
    """A FULL on words alone becomes PARTIAL when the requirement names a compound ("motor
    control") whose words the cited clauses say only apart, and no compound of it as a phrase
    (:mod:`phrases`); titles and tags are labels without word order, so they never trigger it."""
    if judgment.coverage != "FULL":
        return judgment
    cited = [c for r in readings if r.item_id in judgment.cited for c in r.clauses]
    seen = frozenset().union(*(c.stems for c in cited)) if cited else frozenset()
    pairs = compounds(requirement)
    scattered = [(a, b) for a, b in pairs if a in seen and b in seen]
    together = [c for c in cited if c.listed and any({a, b} <= c.stems for a, b in scattered)]
    if not scattered or together or any(says_compound(pairs, c.text) for c in cited):
        return judgment
    named = ", ".join(f"{a} {b}" for a, b in scattered[:3])
    return replace(judgment, coverage="PARTIAL", reason=f"{judgment.reason}; but no cited "
                   f"clause says the requirement's phrase ({named}), only its words apart",
                   missing=f"the phrase {named}")


def years_rule(requirement: str, judgment: Judgment) -> Judgment:
    needed = required_years(requirement)
    if needed is None or judgment.coverage != "FULL":
        return judgment
    if judgment.years is not None and judgment.years >= needed:
        return judgment
    have = f"states {judgment.years}" if judgment.years is not None else "states no years"
    return replace(judgment, coverage="PARTIAL",
                   reason=f"{judgment.reason}; the posting asks {needed}+ years and the "
                   f"evidence {have}", missing=f"{needed}+ years (the evidence {have})")


def bar_rule(requirement: str, judgment: Judgment, readings: Sequence[Reading]) -> Judgment:
    """FULL becomes PARTIAL when a cited item states a smaller count than the posting's bar."""
    if judgment.coverage != "FULL":
        return judgment
    cited = [r for r in readings if r.item_id in judgment.cited]
    short = unmet_bar(requirement, (c.text for r in cited for c in r.clauses))
    if short is None:
        return judgment
    return replace(judgment, coverage="PARTIAL", reason=f"{judgment.reason}; but the posting "
                   f"{short}", missing=short)


def denied_rule(judgment: Judgment, weights: dict[str, float], readings: Sequence[Reading],
                generic: frozenset[str] = frozenset()) -> Judgment:
    """FULL becomes PARTIAL when a negation anywhere in the evidence denies the requirement's
    most specific term (its rarest content word) and no item affirms it: "I have never worked
    with robotic milkers" beside "I milk twice a day" attests milking, not robotic milking;
    and when a cited item denies any other (not ``generic``) word of the requirement that
    none of the cited items affirms."""
    if judgment.coverage != "FULL" or not weights:
        return judgment
    top = max(weights.values())
    specific = {t for t, w in weights.items() if w == top}
    affirmed = frozenset().union(*(c.stems for r in readings for c in r.clauses))
    denied = {t: r.item_id for r in readings for t in sorted(r.denied_objects & specific)
              if t not in affirmed}
    # a cited item that denies another word of the requirement ("I did the NEBOSH Award, but
    # not the full General Certificate") attests only the rest of it
    cited = [r for r in readings if r.item_id in judgment.cited]
    said = frozenset().union(*(c.stems for r in cited for c in r.clauses)) if cited else (
        frozenset())
    denied |= {t: r.item_id for r in cited for t in sorted(r.denied_objects & set(weights))
               if t not in said and t not in generic and t not in denied}
    if not denied:
        return judgment
    said = ", ".join(f"{t} (denied by {i})" for t, i in sorted(denied.items()))
    return replace(judgment, coverage="PARTIAL",
                   reason=f"{judgment.reason}, but the evidence denies {said}", missing=said)


_ALTERNATIVES = re.compile(r"\bor\b(?!\s+(?:more|above|higher|over|longer|greater)\b)", re.I)
SHORT_REQUIREMENT = 3
"""A requirement of at most this many content words names each of them for a reason."""


def wording_rule(requirement: str, judgment: Judgment, claimed: Sequence[str],
                 readings: Sequence[Reading]) -> Judgment:
    """A FULL on words alone (no distinctive name) becomes PARTIAL when the cited clauses
    leave out one of a short requirement's content words ("Pushback and towing" on pushback
    alone; "Report ground damage" without the ground): some of its words attested is the "in
    part" the lexical path may say, and a FULL needs the rest. (Asking the same of the verbs a
    longer duty opens with cost a fifth of the genuine FULLs on the tuning parts, whose
    evidence says "produce" for "prepare": not kept.)"""
    if not _ALTERNATIVES.search(requirement):  # with alternatives, each may be one part
        parts = {p for t in claimed if "-" in t for p in t.split("-")}
        claimed = [t for t in claimed if t not in parts]  # "multi-engine" is one word
    if judgment.coverage != "FULL" or len(claimed) > SHORT_REQUIREMENT:
        return judgment
    cited = [c for r in readings if r.item_id in judgment.cited for c in r.clauses]
    seen = frozenset().union(*(c.stems for c in cited)) if cited else frozenset()
    lacking = sorted(set(claimed) - seen)
    if not lacking:
        return judgment
    words = ", ".join(lacking)
    return replace(judgment, coverage="PARTIAL", reason=f"{judgment.reason}; but no cited "
                   f"clause says {words}", missing=words)


_CREDENTIAL = re.compile(r"\b(?:certificates?|certification|certified|licen[cs]es?|licensed|"
                         r"degree|diploma|qualification|registration|registered|endorsement|"
                         r"accreditation|accredited|chartered|pgcert|postgraduate certificate)\b",
                         re.I)
_HELD = re.compile(r"\b(?:certif\w*|licen[cs]\w*|degree|diploma|qualif\w*|regist\w*|"
                   r"endors\w*|accredit\w*|charter\w*|pgcert|ba|bsc|ma|msc|mba|phd|nvq|hnd|"
                   r"hold|held|holding|passed|awarded|graduated|card|ticket|permit|member)\b",
                   re.I)


CREDENTIAL_MAX_WORDS = 12
"""Longer requirements bundle other asks, whose credential word may not be this one's."""


def credential_rule(requirement: str, judgment: Judgment, readings: Sequence[Reading]
                    ) -> Judgment:
    """FULL becomes PARTIAL when the posting asks for a credential (a certificate, licence,
    degree, registration, ...) and no cited item speaks of holding one: a name attested by
    work ("I passed our in-house CT competency", "I scan CT heads") is the skill, not the
    postgraduate certificate in it."""
    if (judgment.coverage != "FULL" or not _CREDENTIAL.search(requirement)
            or len(requirement.split()) > CREDENTIAL_MAX_WORDS):
        return judgment
    cited = [r for r in readings if r.item_id in judgment.cited]
    if any(_HELD.search(c.text) for r in cited for c in r.clauses):
        return judgment
    return replace(judgment, coverage="PARTIAL", reason=f"{judgment.reason}; but no cited item "
                   "says it holds the credential the posting asks for",
                   missing="the credential itself")


_BOTH = re.compile(r"\bboth\s+(.+?)\s+and\s+(.+?)(?=\s*[,.;:]|\s+(?:for|to|with|in|at|on|"
                   r"from|across)\s|$)", re.I)


BOTH_MIN_WORDS = 3
"""Two things named: at least three words between them (two single words are two ways)."""


def both_parts(requirement: str) -> tuple[str, str] | None:
    """The two things a requirement asks for with "both X and Y" ("set and run both CNC
    lathes and machining centres"), or None."""
    found = _BOTH.search(requirement)
    if not found or len(found.group(1).split()) + len(found.group(2).split()) < BOTH_MIN_WORDS:
        return None  # "in English, both written and spoken" says how, not two things
    return found.group(1), found.group(2)


def both_rule(judgment: Judgment, parts: Sequence[tuple[str, frozenset[str]]],
              readings: Sequence[Reading]) -> Judgment:
    """FULL becomes PARTIAL when the posting asks for both of two things (``parts``: each
    one's words and content stems) and no cited clause that asserts outright says a word of
    one of them: "both" is the posting saying one is not enough."""
    if judgment.coverage != "FULL" or len(parts) != 2 or not all(p for _, p in parts):
        return judgment
    cited = [c for r in readings if r.item_id in judgment.cited for c in r.clauses
             if c.qualified is None]
    seen = frozenset().union(*(c.stems for c in cited)) if cited else frozenset()
    lacking = [words for words, stems in parts if not stems & seen]
    if not lacking:
        return judgment
    return replace(judgment, coverage="PARTIAL", reason=f"{judgment.reason}; the posting asks "
                   f"for both, and no cited clause says {lacking[0]}", missing=lacking[0])
