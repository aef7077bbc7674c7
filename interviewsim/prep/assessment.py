"""Stage 3: focus areas by arithmetic, not judgment.

``priority = importance × coverage weight`` (FULL 1, PARTIAL 2, GAP 3), highest first, ties in
source order. A gap on an essential requirement lands first, a covered nice-to-have last; with
no importance (the lexical extractor has none) the neutral 1 leaves coverage alone to order them.
"""

from __future__ import annotations

from collections.abc import Sequence

from interviewsim.prep.models import COVERAGE_WEIGHT, FocusArea, Requirement, Verdict

ACTIONS: dict[str, str] = {
    "FULL": "Rehearse a short, concrete story built on the cited evidence.",
    "PARTIAL": "Lead with the cited evidence, then address the missing dimension honestly.",
    "GAP": "Prepare a candid answer: the nearest experience you have and how you would close "
           "the gap.",
}


def assess(requirements: Sequence[Requirement], verdicts: Sequence[Verdict]) -> list[FocusArea]:
    """One focus area per requirement (verdicts must already have passed the match gate)."""
    by_id = {v.requirement_id: v for v in verdicts}
    areas: list[tuple[int, int, FocusArea]] = []
    for position, requirement in enumerate(requirements):
        verdict = by_id[requirement.id]
        importance = requirement.importance or 1
        priority = importance * COVERAGE_WEIGHT[verdict.coverage]
        areas.append((-priority, position, FocusArea(
            requirement_id=requirement.id, coverage=verdict.coverage, importance=importance,
            priority=priority, action=ACTIONS[verdict.coverage], reason=verdict.explanation,
            evidence_ids=verdict.evidence_ids)))
    return [area for _, _, area in sorted(areas, key=lambda a: (a[0], a[1]))]
