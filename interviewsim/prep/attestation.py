"""The lexical verdict rules: what an evidence item affirms, and when that makes a requirement met.

Rules, in order (all deterministic; PARTIAL comes only from the rules, never from a score):

1. Only affirmative clauses attest (:mod:`interviewsim.prep.polarity`); a title or tag word
   that the item's text mentions only in a denial or a wish does not attest either.
2. A requirement with distinctive terms (:mod:`interviewsim.prep.distinctive`) is FULL only
   when every one of them (one of each set of alternatives) is attested; some of them attested
   is PARTIAL, naming the missing ones; none is GAP, whatever else overlaps.
3. A requirement without distinctive terms is FULL when one item attests at least the
   threshold of its weighted non-generic terms (the IDF coverage of
   :mod:`interviewsim.text.coverage`), GAP otherwise; generic words carry no weight.
4. "N+ years" is compared with the years the supporting items state: fewer is PARTIAL.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from interviewsim.prep.distinctive import (
    GENERIC,
    TermGroup,
    attested_terms,
    distinctive_groups,
    required_years,
    stated_years,
)
from interviewsim.prep.models import Coverage, EvidenceItem
from interviewsim.prep.polarity import SetAside, affirmative
from interviewsim.text.coverage import DocumentFrequencies, terms
from interviewsim.text.numbers import NUMBER_WORDS

ALIASES: dict[str, frozenset[str]] = {
    "postgres": frozenset({"postgresql"}), "postgresql": frozenset({"postgres"}),
    "kubernetes": frozenset({"k8s"}), "k8s": frozenset({"kubernetes"}),
    "go": frozenset({"golang"}), "golang": frozenset({"go"}),
    "node.js": frozenset({"nodejs"}), "nodejs": frozenset({"node.js"}),
    "cd": frozenset({"ci-cd"}), "ci": frozenset({"ci-cd"}),
}
"""Spellings of one name; a term is attested by any of them."""


@dataclass(frozen=True)
class Reading:
    """What one evidence item affirms."""

    item_id: str
    names: frozenset[str]
    """Terms attested in their name sense (distinctive terms are checked against these)."""
    words: frozenset[str]
    """Content terms of the affirmative text (coverage reads these)."""
    years: int | None
    set_aside: tuple[SetAside, ...]


def read_item(item_id: str, text: str, extra: Sequence[str] = ()) -> Reading:
    """An item's affirmative terms; ``extra`` are its title and tags, which attest only what
    the text does not mention solely in a set-aside clause."""
    kept, dropped = affirmative(text)
    kept_text = "\n".join(kept)
    denied = attested_terms("\n".join(d.text for d in dropped)) - attested_terms(kept_text)
    extra_text = "\n".join(extra)
    names = attested_terms(kept_text) | (attested_terms(extra_text) - denied)
    words = terms(kept_text) | (terms(extra_text) - denied)
    return Reading(item_id, names, words, stated_years(kept_text), tuple(dropped))


def _has(term: str, names: frozenset[str]) -> bool:
    return all(word in names or bool(ALIASES.get(word, frozenset()) & names)
               for word in term.split())


def attests(group: TermGroup, reading: Reading) -> bool:
    return any(_has(term, reading.names) for term in group.terms)


def content_terms(requirement: str) -> frozenset[str]:
    """The requirement's terms that may carry coverage: no generic words, no numbers."""
    return frozenset(t for t in terms(requirement) if t not in GENERIC
                     and t not in NUMBER_WORDS and not t.replace("+", "").isdigit())


def weighted_coverage(claimed: frozenset[str], reading: Reading,
                      frequencies: DocumentFrequencies) -> tuple[float, tuple[str, ...]]:
    ordered = sorted(claimed)
    matched = tuple(t for t in ordered if t in reading.words)
    total = math.fsum(frequencies.weight(t) for t in ordered)
    score = math.fsum(frequencies.weight(t) for t in matched) / total if total else 0.0
    return score, matched


@dataclass(frozen=True)
class Judgment:
    """A rule-made verdict before it becomes a :class:`Verdict`."""

    coverage: Coverage
    cited: tuple[str, ...]
    score: float
    matched: tuple[str, ...]
    reason: str
    missing: str | None
    set_aside: tuple[tuple[str, SetAside], ...]


def _set_aside_notes(readings: Sequence[Reading], requirement: str
                     ) -> tuple[tuple[str, SetAside], ...]:
    """Set-aside clauses that mention one of the requirement's terms."""
    wanted = terms(requirement) - GENERIC
    return tuple((r.item_id, d) for r in readings for d in r.set_aside
                 if terms(d.text) & wanted)


def judge(requirement: str, readings: Sequence[Reading], frequencies: DocumentFrequencies,
          threshold: float, max_citations: int) -> Judgment:
    """The verdict the rules give ``requirement`` on ``readings``."""
    groups = distinctive_groups(requirement)
    claimed = content_terms(requirement)
    scored = [(r, *weighted_coverage(claimed, r, frequencies)) for r in readings]
    notes = _set_aside_notes(readings, requirement)
    if groups:
        judgment = _by_names(groups, scored, max_citations, notes)
    else:
        judgment = _by_coverage(scored, threshold, max_citations, notes)
    return _years_rule(requirement, judgment, readings)


def _by_names(groups: list[TermGroup], scored: list[tuple[Reading, float, tuple[str, ...]]],
              max_citations: int, notes: tuple[tuple[str, SetAside], ...]) -> Judgment:
    hits = [(r, score, matched, {i for i, g in enumerate(groups) if attests(g, r)})
            for r, score, matched in scored]
    supporting = sorted((h for h in hits if h[3]), key=lambda h: (-len(h[3]), -h[1]))
    found = set().union(*(h[3] for h in supporting)) if supporting else set()
    missing = [groups[i].label() for i in range(len(groups)) if i not in found]
    named = [groups[i].label() for i in sorted(found)]
    if not found:
        best = max(scored, key=lambda s: s[1], default=None)
        return Judgment("GAP", (), best[1] if best else 0.0, best[2] if best else (),
                        f"no evidence affirms {', '.join(missing)}", None, notes)
    cited = tuple(h[0].item_id for h in supporting[:max_citations])
    matched = tuple(sorted({t for h in supporting[:max_citations] for t in h[2]}))
    top = supporting[0]
    if missing:
        return Judgment("PARTIAL", cited, top[1], matched,
                        f"{', '.join(cited)} affirm {', '.join(named)} but nothing affirms "
                        f"{', '.join(missing)}", f"no evidence of {', '.join(missing)}", notes)
    return Judgment("FULL", cited, top[1], matched,
                    f"{', '.join(cited)} affirm {', '.join(named)}", None, notes)


def _by_coverage(scored: list[tuple[Reading, float, tuple[str, ...]]], threshold: float,
                 max_citations: int, notes: tuple[tuple[str, SetAside], ...]) -> Judgment:
    ranked = sorted(scored, key=lambda s: -s[1])
    cited = [s for s in ranked if s[1] >= threshold and s[2]][:max_citations]
    if cited:
        top = cited[0]
        return Judgment("FULL", tuple(s[0].item_id for s in cited), top[1], top[2],
                        f"{top[0].item_id} attests {top[1] * 100:.1f}% of the requirement's "
                        f"weighted terms ({', '.join(top[2])})", None, notes)
    best = ranked[0] if ranked else None
    if best is None or not best[2]:
        return Judgment("GAP", (), 0.0, (), "no evidence item affirms a content term of this "
                        "requirement", None, notes)
    return Judgment("GAP", (), best[1], best[2],
                    f"best evidence {best[0].item_id} attests only {best[1] * 100:.1f}% "
                    f"({', '.join(best[2])}); threshold is {threshold * 100:.1f}%", None, notes)


def _years_rule(requirement: str, judgment: Judgment, readings: Sequence[Reading]) -> Judgment:
    needed = required_years(requirement)
    if needed is None or judgment.coverage != "FULL":
        return judgment
    by_id = {r.item_id: r for r in readings}
    stated = [by_id[i].years for i in judgment.cited if by_id[i].years is not None]
    if stated and max(stated) >= needed:
        return judgment
    have = f"states {max(stated)}" if stated else "states no number of years"
    return Judgment("PARTIAL", judgment.cited, judgment.score, judgment.matched,
                    f"{judgment.reason}; the posting asks {needed}+ years and the evidence "
                    f"{have}", f"{needed}+ years (the evidence {have})", judgment.set_aside)
