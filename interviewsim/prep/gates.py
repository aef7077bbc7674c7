"""The deterministic checks every stage boundary must pass. Each returns its problems ([] = pass).

These are the authority on validity; a model never approves its own output. They are cheap
structural assertions: they catch a quote that is not in the posting, a citation that does not
resolve, a reference chain that breaks. They cannot tell a well-formed wrong judgment from a
right one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from interviewsim.prep.models import (
    EvidenceItem,
    FocusArea,
    PracticeQuestion,
    PrepSettings,
    Requirement,
    Strategy,
    Verdict,
    normalize,
)


def quote_in_posting(quote: str, posting: str) -> bool:
    """Whether ``quote`` occurs in ``posting``, forgiving only whitespace runs and letter case."""
    needle = normalize(quote)
    return bool(needle) and needle in normalize(posting)


def extraction_gate(requirements: Sequence[Requirement], posting: str,
                    settings: PrepSettings) -> list[str]:
    """Grounded quotes, sequential ids from REQ-001, no repeated statement, count in bounds."""
    problems: list[str] = []
    count = len(requirements)
    if not settings.min_requirements <= count <= settings.max_requirements:
        problems.append(f"extraction: {count} requirements; expected "
                        f"{settings.min_requirements} to {settings.max_requirements}")
    first_seen: dict[str, str] = {}
    for index, requirement in enumerate(requirements):
        expected = f"REQ-{index + 1:03d}"
        if requirement.id != expected:
            problems.append(f"extraction: requirement {index + 1} has id {requirement.id}; "
                            f"expected {expected}")
        if not requirement.text.strip():
            problems.append(f"extraction: {requirement.id} has blank text")
        if not quote_in_posting(requirement.source_quote, posting):
            problems.append(f"extraction: {requirement.id} source_quote "
                            f"{requirement.source_quote[:60]!r} does not appear in the posting")
        key = normalize(requirement.text)
        if key in first_seen:
            problems.append(f"extraction: {requirement.id} repeats {first_seen[key]}")
        first_seen.setdefault(key, requirement.id)
    return problems


def match_gate(requirements: Sequence[Requirement], verdicts: Sequence[Verdict],
               evidence: Sequence[EvidenceItem]) -> list[str]:
    """Every requirement judged once, in order; citations resolve; GAP cites nothing."""
    problems: list[str] = []
    expected = [r.id for r in requirements]
    got = [v.requirement_id for v in verdicts]
    if got != expected:
        counts = Counter(got)
        missing = [rid for rid in expected if rid not in counts]
        repeated = sorted(rid for rid, n in counts.items() if n > 1)
        unknown = sorted(set(got) - set(expected))
        detail = [f"missing {', '.join(missing)}" if missing else "",
                  f"repeated {', '.join(repeated)}" if repeated else "",
                  f"unknown {', '.join(unknown)}" if unknown else ""]
        summary = "; ".join(d for d in detail if d) or "out of order"
        problems.append(f"matching: verdicts must judge {len(expected)} requirements once each, "
                        f"in order ({summary})")
    known = {item.id for item in evidence}
    for verdict in verdicts:
        where = f"matching: {verdict.requirement_id}"
        unresolved = [eid for eid in verdict.evidence_ids if eid not in known]
        if unresolved:
            problems.append(f"{where} cites unknown evidence {', '.join(unresolved)}")
        if len(set(verdict.evidence_ids)) != len(verdict.evidence_ids):
            problems.append(f"{where} cites an item twice")
        if verdict.coverage == "GAP" and verdict.evidence_ids:
            problems.append(f"{where} is a GAP but cites evidence")
        if verdict.coverage != "GAP" and not verdict.evidence_ids:
            problems.append(f"{where} is {verdict.coverage} but cites no evidence")
        if verdict.coverage == "PARTIAL" and not (verdict.missing or "").strip():
            problems.append(f"{where} is PARTIAL but does not name the missing dimension")
    return problems


@dataclass(frozen=True)
class Draft:
    """Everything a package would be assembled from, as the graph state holds it."""

    posting: str
    evidence: Sequence[EvidenceItem]
    requirements: Sequence[Requirement]
    matches: Sequence[Verdict]
    focus_areas: Sequence[FocusArea]
    strategy: Strategy | None
    questions: Sequence[PracticeQuestion]


def _sections(draft: Draft, settings: PrepSettings) -> list[str]:
    problems = [f"package: section {name} is empty" for name, part in (
        ("evidence", draft.evidence), ("requirements", draft.requirements),
        ("matches", draft.matches), ("focus_areas", draft.focus_areas)) if not part]
    if draft.strategy is None:
        problems.append("package: section strategy is missing")
    if not settings.min_questions <= len(draft.questions) <= settings.max_questions:
        problems.append(f"package: {len(draft.questions)} practice questions; expected "
                        f"{settings.min_questions} to {settings.max_questions}")
    return problems


def _focus_agreement(draft: Draft) -> list[str]:
    problems: list[str] = []
    verdicts = {v.requirement_id: v for v in draft.matches}
    areas = Counter(a.requirement_id for a in draft.focus_areas)
    for requirement in draft.requirements:
        verdict = verdicts.get(requirement.id)
        if verdict is None:
            problems.append(f"package: {requirement.id} has no coverage level")
            continue
        if areas[requirement.id] != 1:
            problems.append(f"package: {requirement.id} has {areas[requirement.id]} focus "
                            "areas; expected exactly one")
    for area in draft.focus_areas:
        verdict = verdicts.get(area.requirement_id)
        if verdict is not None and area.coverage != verdict.coverage:
            problems.append(f"package: focus area {area.requirement_id} says {area.coverage} "
                            f"but its verdict is {verdict.coverage}")
    return problems


def _references(draft: Draft) -> list[str]:
    """Each strategy item and question names a real requirement and cites only its evidence."""
    verdicts = {v.requirement_id: v for v in draft.matches}
    cited: list[tuple[str, str, Sequence[str]]] = []
    if draft.strategy is not None:
        cited += [(f"priority {i + 1}", p.requirement_id, p.evidence_ids)
                  for i, p in enumerate(draft.strategy.priorities)]
        cited += [(f"story {i + 1}", s.requirement_id, s.evidence_ids)
                  for i, s in enumerate(draft.strategy.stories)]
        cited += [(f"risk {i + 1}", r.requirement_id, ()) for i, r in
                  enumerate(draft.strategy.risks)]
    cited += [(f"question {i + 1}", q.requirement_id, q.evidence_ids)
              for i, q in enumerate(draft.questions)]
    problems: list[str] = []
    for where, requirement_id, evidence_ids in cited:
        verdict = verdicts.get(requirement_id)
        if verdict is None:
            problems.append(f"package: {where} names unknown requirement {requirement_id}")
            continue
        if verdict.coverage == "GAP" and evidence_ids:
            problems.append(f"package: {where} cites evidence for gap {requirement_id}")
            continue
        foreign = [eid for eid in evidence_ids if eid not in verdict.evidence_ids]
        if foreign:
            problems.append(f"package: {where} cites {', '.join(foreign)}, not matched to "
                            f"{requirement_id}")
    return problems


def package_gate(draft: Draft, settings: PrepSettings) -> list[str]:
    """Every invariant a package must hold before it is assembled."""
    problems = _sections(draft, settings)
    problems += extraction_gate(draft.requirements, draft.posting, settings)
    problems += match_gate(draft.requirements, draft.matches, draft.evidence)
    problems += _focus_agreement(draft)
    problems += _references(draft)
    if draft.strategy is not None:
        risks = {r.requirement_id for r in draft.strategy.risks}
        problems += [f"package: gap {a.requirement_id} is missing from the risks"
                     for a in draft.focus_areas
                     if a.coverage == "GAP" and a.requirement_id not in risks]
    return problems
