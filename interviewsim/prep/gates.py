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
    VerdictChange,
    normalize,
)
from interviewsim.prep.models import requirement_id as numbered_id
from interviewsim.text.coverage import DocumentFrequencies, coverage


def quote_in_posting(quote: str, posting: str, normalized: str | None = None) -> bool:
    """Whether ``quote`` occurs in ``posting``, forgiving only whitespace runs and letter case
    (``normalized``: the posting already normalized, for a caller that checks many quotes)."""
    needle = normalize(quote)
    return bool(needle) and needle in (normalized if normalized is not None
                                       else normalize(posting))


def posting_frequencies(posting: str) -> DocumentFrequencies:
    """Term weights for grounding: each non-blank line of the posting is one document."""
    return DocumentFrequencies.of(line for line in posting.splitlines() if line.strip())


def ungrounded_text(text: str, posting: str, frequencies: DocumentFrequencies,
                    threshold: float, normalized: str | None = None) -> str | None:
    """Why ``text`` is not grounded in the posting, or None when it is: found verbatim (case
    and whitespace aside), or its weighted terms covered at least ``threshold``. A quote can be
    real while the text beside it is invented; matching reads the text, so both are checked."""
    if quote_in_posting(text, posting, normalized):
        return None
    found = coverage(text, posting, frequencies)
    if found.score >= threshold and found.claim_terms:
        return None
    unattested = [t for t in found.claim_terms if t not in found.matched]
    return (f"text {text[:60]!r} is not grounded in the posting: coverage "
            f"{found.score:.2f} < {threshold:.2f} (absent: {', '.join(unattested[:6]) or '—'})")


def extraction_gate(requirements: Sequence[Requirement], posting: str,
                    settings: PrepSettings) -> list[str]:
    """Grounded quotes and texts, sequential ids from REQ-001, no repeated statement, count in
    bounds."""
    problems: list[str] = []
    frequencies = posting_frequencies(posting)
    normalized = normalize(posting)
    count = len(requirements)
    if count < settings.min_requirements:
        problems.append(f"extraction: {count} requirements; expected at least "
                        f"{settings.min_requirements} (is the posting's text its requirements?)")
    if settings.max_requirements is not None and count > settings.max_requirements:
        problems.append(f"extraction: {count} requirements; expected at most "
                        f"{settings.max_requirements} (raise --max-requirements)")
    first_seen: dict[str, str] = {}
    for index, requirement in enumerate(requirements):
        expected = numbered_id(index + 1)
        if requirement.id != expected:
            problems.append(f"extraction: requirement {index + 1} has id {requirement.id}; "
                            f"expected {expected}")
        if not requirement.text.strip():
            problems.append(f"extraction: {requirement.id} has blank text")
        if not quote_in_posting(requirement.source_quote, posting, normalized):
            problems.append(f"extraction: {requirement.id} source_quote "
                            f"{requirement.source_quote[:60]!r} does not appear in the posting")
        ungrounded = ungrounded_text(requirement.text, posting, frequencies,
                                     settings.grounding_threshold, normalized)
        if ungrounded and requirement.text.strip():
            problems.append(f"extraction: {requirement.id} {ungrounded}")
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
    initial_matches: Sequence[Verdict] = ()
    """The initial pass's verdicts, when this draft is the final pass's."""


def verdict_changes(initial: Sequence[Verdict], final: Sequence[Verdict],
                    evidence: Sequence[EvidenceItem]) -> list[VerdictChange]:
    """Requirements whose coverage differs between the passes, each with the admitted
    clarifications its final verdict cites (the only evidence the final pass adds)."""
    admitted = {item.id for item in evidence if item.kind == "clarification"}
    before = {v.requirement_id: v.coverage for v in initial}
    return [VerdictChange(requirement_id=v.requirement_id, before=before[v.requirement_id],
                          after=v.coverage,
                          new_evidence_ids=tuple(e for e in v.evidence_ids if e in admitted))
            for v in final
            if v.requirement_id in before and before[v.requirement_id] != v.coverage]


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
    problems += [f"package: {c.requirement_id} went {c.before} → {c.after} between the passes "
                 "without citing any admitted clarification (no new evidence about it)"
                 for c in verdict_changes(draft.initial_matches, draft.matches, draft.evidence)
                 if not c.new_evidence_ids]
    if draft.strategy is not None:
        risks = {r.requirement_id for r in draft.strategy.risks}
        problems += [f"package: gap {a.requirement_id} is missing from the risks"
                     for a in draft.focus_areas
                     if a.coverage == "GAP" and a.requirement_id not in risks]
    return problems
