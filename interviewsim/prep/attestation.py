"""The lexical verdict rules: what an evidence item affirms, and when that makes a requirement met.

Rules, in order (all deterministic; PARTIAL comes only from the rules, never from a score):

1. Only affirmative clauses attest (:mod:`interviewsim.prep.polarity`). An item that denies or
   wishes something has its title and tags ignored (they name the topic, not a claim). FULL
   rests only on clauses that assert outright (:mod:`interviewsim.prep.assertion`: no marker
   of negation, modality, plan, hedging, condition or observation anywhere in them, and the
   candidate as subject), one sentence at a time (title and tags may add to it, never stand
   alone); a clause that is only qualified supports PARTIAL.
2. A requirement with distinctive terms (:mod:`interviewsim.prep.distinctive`) is FULL only
   when each of them (one of each set of alternatives) is attested. A term attested only in a
   limited clause ("C++ only for small host-side tools"), or only through a name of the same
   family (Datadog for Prometheus, MISRA C for MISRA C++), is attested in part — unless the
   posting itself accepts a comparable one ("Kafka or a similar broker", "such as"). Some
   attested (fully or in part) is PARTIAL, naming what is missing; none is GAP.
3. A requirement without distinctive terms is FULL when one item attests at least the
   threshold of its weighted non-generic terms, and two of them when it has more than two
   (one shared word is not proof of a longer requirement), suffixes aside (supervise ~
   supervising); GAP otherwise. Generic words carry no weight. A term the cited item
   explicitly denies ("I have not held a budget") makes it PARTIAL.
6. When a negation anywhere in the evidence denies the requirement's most specific term (its
   rarest content word) and no item affirms it, FULL is PARTIAL: "I have never worked with
   robotic milkers" beside "I milk twice a day" attests milking, not robotic milking.
4. "N+ years" is compared with the years stated in the clauses that attest the requirement:
   fewer, or none stated, is PARTIAL.
5. A count the posting sets ("a 32-bed unit") is compared with the count the cited evidence
   states for the same noun (:mod:`interviewsim.prep.quantities`): smaller is PARTIAL.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from interviewsim.prep.alternatives import OPEN_ALTERNATIVE
from interviewsim.prep.caps import (
    bar_rule,
    both_parts,
    both_rule,
    credential_rule,
    denied_rule,
    phrase_rule,
    wording_rule,
    years_rule,
)
from interviewsim.prep.distinctive import (
    GENERIC,
    TermGroup,
    capitalised,
    distinctive_groups,
    family,
    has_name,
    stem,
)
from interviewsim.prep.models import Coverage
from interviewsim.prep.polarity import SetAside
from interviewsim.prep.reading import Clause, Reading, own_wording, strong
from interviewsim.text.coverage import DocumentFrequencies, terms
from interviewsim.text.numbers import NUMBER_WORDS


def _singles(reading: Reading, claimed: Sequence[str]) -> list[Reading]:
    """Each sentence's clauses that assert outright, where they name one of the requirement's
    words, read with the item's title and tags (they name its topic): the units a FULL may rest
    on. Words scattered over several sentences of an item are not one statement."""
    sure = strong(reading).clauses
    labels = tuple(c for c in sure if c.listed)
    said = {c.sentence for c in sure if not c.listed and c.stems & set(claimed)}
    return [replace(reading, clauses=(*(c for c in sure if c.sentence == n and not c.listed),
                                      *labels)) for n in sorted(said)]


_INSTITUTION = re.compile(r"(?:Board|Council|Department|University|College|Institute|Society|"
                          r"Commission|Authority|Association|County|State|Hospital|Trust|"
                          r"Ministry|Agency)s?$")
"""A body named after a place or a field ("the Oregon Board of Dentistry"): it writes that
name in its own sense, unlike a product's longer name ("Harbor Days")."""


def _own_name(term: str, text: str, near: frozenset[str]) -> bool:
    """``text`` writes ``term`` capitalised and not as the first word of a longer name (one
    more capitalised word of two letters or more that ``near`` lacks: "Harbor Days")."""
    root = term[:-1] if term.endswith("s") and len(term) > 3 else term  # "SOP" of "SOPs"
    # a hyphenated tail keeps the name: "PASMA-certified", "Sunday-to-Thursday"
    for found in re.finditer(rf"(?<!\w){re.escape(root)}\w*(?:-\w+)*(?![\w-])"
                             r"(?:\s+(\w+))?", text, re.I):
        after = found.group(1) or ""
        if re.match(r"\w+[A-Z]", found.group(0)):
            return True  # an inner capital is a name's own ("MasterMap Topography Layer")
        if found.group(0)[:1].isupper() and not (
                after[:1].isupper() and len(after) > 1 and after.lower() not in near
                and not _INSTITUTION.match(after)):
            return True
    return False


def group_level(group: TermGroup, clause: Clause) -> int:
    """2: the clause attests the group; 1: in part (a limited or qualified clause, a title or
    tag alone, or a family name); 0: no."""
    named = [term for term in group.terms if has_name(term, clause.names)]
    if (named and clause.sentence >= 0 and all(t in group.cased for t in named)
            and clause.text != clause.text.lower()
            and not any(has_name(t, capitalised(clause.text))
                        and _own_name(t, clause.text, group.near) for t in named)):
        return 0  # "balancing asanas" is not Asana, nor "Harbor Days" Harbor (tags: lower case)
    if named:
        return 1 if clause.limited or clause.listed else 2
    kin = frozenset().union(*(family(t) for t in group.terms)) - set(group.terms)
    if any(has_name(name, clause.names) for name in kin):
        return 2 if group.open and not (clause.limited or clause.listed) else 1
    return 0


def content_stems(requirement: str) -> tuple[str, ...]:
    """The requirement's terms that may carry coverage (no generic words, no numbers, none of
    an open alternative's)."""
    kept = {stem(t) for t in terms(OPEN_ALTERNATIVE.sub(" ", requirement))
            if t not in GENERIC and t not in NUMBER_WORDS and not t.replace("+", "").isdigit()}
    return tuple(sorted(kept))


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
    years: int | None = None
    """The most years the clauses behind the verdict state."""
    quote: str | None = None
    """The affirmative clause of the first cited item that best attests the requirement."""


def _weights(claimed: Sequence[str], requirement: str,
             frequencies: DocumentFrequencies) -> dict[str, float]:
    """Each content stem's IDF weight (that of the rarest word of the requirement with it)."""
    weights: dict[str, float] = {}
    for term in terms(requirement):
        key = stem(term)
        if key in claimed:
            weights[key] = max(weights.get(key, 0.0), frequencies.weight(term))
    return weights


def _coverage(claimed: Sequence[str], weights: dict[str, float], reading: Reading,
              display: dict[str, str]) -> tuple[float, tuple[str, ...], int | None]:
    """The weighted share of ``claimed`` stems the item affirms, the requirement's words for
    them (as the posting spells them), and the fewest years the clauses with them state (of
    several spells in one item, only the shortest is sure to be the requirement's)."""
    seen = frozenset().union(*(c.stems for c in reading.clauses)) if reading.clauses else (
        frozenset())
    matched = tuple(t for t in claimed if t in seen)
    total = math.fsum(weights[t] for t in claimed)
    score = math.fsum(weights[t] for t in matched) / total if total else 0.0
    years = [c.years for c in reading.clauses if c.years is not None and c.stems & set(matched)]
    return score, tuple(display[t] for t in matched), min(years) if years else None


def _notes(readings: Sequence[Reading], requirement: str) -> tuple[tuple[str, SetAside], ...]:
    """Set-aside clauses that mention one of the requirement's terms."""
    wanted = {stem(t) for t in terms(requirement)} - _GENERIC_STEMS
    return tuple((r.item_id, d) for r in readings
                 for d, said in zip(r.set_aside, r.set_aside_stems, strict=True) if said & wanted)


_GENERIC_STEMS = frozenset(stem(g) for g in GENERIC)


def judge(requirement: str, readings: Sequence[Reading], frequencies: DocumentFrequencies,
          threshold: float, max_citations: int) -> Judgment:
    """The verdict the rules give ``requirement`` on ``readings``."""
    readings = [own_wording(r, requirement) for r in readings]
    groups = distinctive_groups(requirement)
    claimed = content_stems(requirement)
    weights = _weights(claimed, requirement, frequencies)
    display = {stem(t): t for t in sorted(terms(requirement), reverse=True)}
    scored = [(r, *_coverage(claimed, weights, r, display)) for r in readings]
    notes = _notes(readings, requirement)
    if groups:
        judgment = _by_names(groups, scored, max_citations, notes, claimed)
    else:
        sure = [max(((r, *_coverage(claimed, weights, one, display))
                     for one in _singles(r, claimed)),
                    key=lambda s: s[1], default=(r, 0.0, (), None)) for r in readings]
        judgment = _hedged(_by_coverage(sure, claimed, threshold, max_citations, notes),
                           _by_coverage(scored, claimed, threshold, max_citations, notes),
                           readings)
        judgment = phrase_rule(requirement, judgment, readings)
    judged = bar_rule(requirement, years_rule(requirement, judgment), readings)
    judged = credential_rule(requirement, judged, readings)
    judged = denied_rule(judged, weights, readings, _GENERIC_STEMS)
    both = both_parts(requirement)
    if both:
        judged = both_rule(judged, [(p, frozenset(content_stems(p))) for p in both], readings)
    if not groups:
        judged = wording_rule(requirement, judged, claimed, readings)
    return replace(judged, quote=_quote(judged, readings, groups, claimed))


def _quote(judgment: Judgment, readings: Sequence[Reading], groups: Sequence[TermGroup],
           claimed: Sequence[str]) -> str | None:
    """The clause a reader should check: the first cited item's that names most of the
    requirement (its distinctive terms first, then its other words)."""
    if not judgment.cited:
        return None
    reading = next(r for r in readings if r.item_id == judgment.cited[0])
    best = max(reading.clauses, key=lambda c: (sum(group_level(g, c) for g in groups),
                                               len(c.stems & set(claimed))), default=None)
    return best.text if best is not None else None


Scored = tuple[Reading, float, tuple[str, ...], int | None]


def _levels(groups: Sequence[TermGroup], reading: Reading, denied_elsewhere: frozenset[str],
            claimed: Sequence[str]) -> tuple[list[int], int | None]:
    """Each group's best level in the item, and the most years its attesting clauses state.
    A name another item denies ("I have not used Spark") is attested here only in part: the
    evidence contradicts itself, and a contradiction is not proof. A name in the title or tags
    alone counts in full only when a clause of the item that asserts outright says something
    else the requirement asks ("I built our pytest-based suite of 1,400 tests", tag pytest)."""
    levels = [0] * len(groups)
    years: list[int] = []
    contradicted = [any(has_name(t, denied_elsewhere) for t in g.terms) for g in groups]
    anchored = any(c.qualified is None and not c.listed and c.stems & set(claimed)
                   for c in reading.clauses)
    for clause in reading.clauses:
        label = clause.listed and anchored
        found = [min(group_level(g, replace(clause, listed=False) if label else clause),
                     1 if doubt else 2)
                 for g, doubt in zip(groups, contradicted, strict=True)]
        levels = [max(a, b) for a, b in zip(levels, found, strict=True)]
        if any(found) and clause.years is not None:
            years.append(clause.years)
    return levels, max(years) if years else None


def _by_names(groups: list[TermGroup], scored: list[Scored], max_citations: int,
              notes: tuple[tuple[str, SetAside], ...], claimed: Sequence[str]) -> Judgment:
    denials = [(s[0].item_id, s[0].denied_names) for s in scored]
    hits = [(s, *_levels(groups, s[0], frozenset().union(
        *(names for item_id, names in denials if item_id != s[0].item_id)), claimed))
        for s in scored]
    supporting = sorted((h for h in hits if any(h[1])),
                        key=lambda h: (-sum(h[1]), -h[0][1]))[:max_citations]
    best = [max((h[1][i] for h in supporting), default=0) for i in range(len(groups))]
    full = [g.label() for g, level in zip(groups, best, strict=True) if level == 2]
    part = [g.label() for g, level in zip(groups, best, strict=True) if level == 1]
    missing = [g.label() for g, level in zip(groups, best, strict=True) if level == 0]
    if not supporting:
        top = max(scored, key=lambda s: s[1], default=None)
        return Judgment("GAP", (), top[1] if top else 0.0, top[2] if top else (),
                        f"no evidence affirms {', '.join(missing)}", None, notes)
    cited = tuple(h[0][0].item_id for h in supporting)
    matched = tuple(sorted({t for h in supporting for t in h[0][2]}))
    years = max((h[2] for h in supporting if h[2] is not None), default=None)
    score = supporting[0][0][1]
    if part or missing:
        lacking = [*missing, *(f"{p} itself (only a related name or limited use)"
                               for p in part)]
        said = f"{', '.join(cited)} affirm {', '.join(full)}" if full else (
            f"{', '.join(cited)} affirm only related or limited use")
        return Judgment("PARTIAL", cited, score, matched, f"{said}; not shown: "
                        f"{', '.join(lacking)}", f"no evidence of {', '.join(lacking)}", notes,
                        years)
    reason = f"{', '.join(cited)} affirm {', '.join(full)}"
    denied = sorted(supporting[0][0][0].denied & set(claimed))
    if denied:
        return Judgment("PARTIAL", cited, score, matched, f"{reason}, but {cited[0]} denies "
                        f"{', '.join(denied)}", f"{', '.join(denied)} (denied by {cited[0]})",
                        notes, years)
    return Judgment("FULL", cited, score, matched, reason, None, notes, years)


def _by_coverage(scored: list[Scored], claimed: Sequence[str], threshold: float,
                 max_citations: int, notes: tuple[tuple[str, SetAside], ...]) -> Judgment:
    ranked = sorted(scored, key=lambda s: -s[1])
    needed = 1 if len(claimed) <= 2 else 2
    cited = [s for s in ranked if s[1] >= threshold and len(s[2]) >= needed][:max_citations]
    if not cited:
        best = ranked[0] if ranked else None
        if best is None or not best[2]:
            return Judgment("GAP", (), 0.0, (), "no evidence item affirms a content term of "
                            "this requirement", None, notes)
        return Judgment("GAP", (), best[1], best[2], f"best evidence {best[0].item_id} attests "
                        f"only {best[1] * 100:.1f}% ({', '.join(best[2])}); threshold is "
                        f"{threshold * 100:.1f}%", None, notes)
    top = cited[0]
    ids = tuple(s[0].item_id for s in cited)
    years = max((s[3] for s in cited if s[3] is not None), default=None)
    reason = (f"{top[0].item_id} attests {top[1] * 100:.1f}% of the requirement's weighted "
              f"terms ({', '.join(top[2])})")
    denied = sorted(top[0].denied & set(claimed))
    if denied:
        return Judgment("PARTIAL", ids, top[1], top[2], f"{reason}, but it denies "
                        f"{', '.join(denied)}", f"{', '.join(denied)} (denied by "
                        f"{top[0].item_id})", notes, years)
    return Judgment("FULL", ids, top[1], top[2], reason, None, notes, years)


def _hedged(sure: Judgment, any_clause: Judgment, readings: Sequence[Reading]) -> Judgment:
    """FULL from clauses that assert outright; a FULL only qualified clauses give is PARTIAL."""
    if sure.coverage != "GAP" or any_clause.coverage != "FULL":
        return sure
    top = next(r for r in readings if r.item_id == any_clause.cited[0])
    why = next((c.qualified for c in top.clauses if c.qualified), "a qualified clause")
    return replace(any_clause, coverage="PARTIAL", reason=f"{any_clause.reason}; but no "
                   f"clause asserts it outright ({why})",
                   missing="a clause saying the candidate did or holds it")
