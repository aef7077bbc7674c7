"""Personality Similarity aggregation: modal vote per trait and Big Five alignment (PROMPTS.md).

Each trait of each response collection is rated in several independent runs (paper: three);
the modal level is the collection's level for that trait. When the top count is shared (all
three runs differ), the level is Neutral: the judge's runs disagree, so the midpoint is the
honest reading. Alignment compares the reference and generated profiles on the ordinal scale
Low 1 / Neutral 2 / High 3, so one step of difference on one trait costs 0.1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from interviewsim.judges.parsers import Level

TRAITS: tuple[str, ...] = (
    "openness",
    "conscientiousness",
    "extraversion",
    "agreeableness",
    "neuroticism",
)
LEVEL_VALUE: dict[str, int] = {"Low": 1, "Neutral": 2, "High": 3}
TIE_LEVEL: Level = "Neutral"


class Vote(BaseModel):
    """The voted level of one trait and how strongly the runs agreed on it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    level: Level
    confidence: float
    """Share of the runs that gave the most frequent level (1/3 when three runs all differ)."""


def modal_vote(levels: Sequence[Level]) -> Vote:
    """The modal level of ``levels``; a tie for the top count resolves to Neutral."""
    if not levels:
        raise ValueError("a vote needs at least one run")
    unknown = [lv for lv in levels if lv not in LEVEL_VALUE]
    if unknown:
        raise ValueError(f"unknown level(s) {unknown}; expected Low, Neutral or High")
    counts = Counter(levels)
    top = max(counts.values())
    winners = [lv for lv, count in counts.items() if count == top]
    level: Level = winners[0] if len(winners) == 1 else TIE_LEVEL
    return Vote(level=level, confidence=top / len(levels))


def alignment(reference: Mapping[str, Level], generated: Mapping[str, Level]) -> float:
    """``1 - sum(|m(ref) - m(gen)|) / 10`` over the five traits; both profiles must be whole."""
    for name, profile in (("reference", reference), ("generated", generated)):
        if set(profile) != set(TRAITS):
            raise ValueError(f"{name} profile must rate exactly the five traits, "
                             f"got {sorted(profile)}")
    distance = sum(abs(LEVEL_VALUE[reference[t]] - LEVEL_VALUE[generated[t]]) for t in TRAITS)
    return 1.0 - distance / 10.0
