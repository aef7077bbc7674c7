"""Accuracy and severity-aware reward of one MCQ answer, by the chosen option's retained role.

Accuracy is 1 only for the correct option. Reward: +1 correct, -1 only for the designated
opposite/negation option, and -0.5 for everything else: near miss, plausible misconception,
a label the item does not have, malformed output.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from interviewsim.mcq.models import McqItem, Role

Outcome = Literal["correct", "opposite_negation", "near_miss", "plausible_misconception",
                  "unavailable", "malformed"]
CORRECT_REWARD = 1.0
OPPOSITE_REWARD = -1.0
OTHER_REWARD = -0.5


@dataclass(frozen=True)
class Score:
    outcome: Outcome
    role: Role | None
    """The role of the selected option; None for an unavailable label or malformed output."""
    accuracy: int
    reward: float


def score_role(role: Role | None, malformed: bool = False) -> Score:
    """Score a selection by the role it landed on (None: the label matched no option)."""
    if malformed:
        return Score("malformed", None, 0, OTHER_REWARD)
    if role is None:
        return Score("unavailable", None, 0, OTHER_REWARD)
    if role == "correct":
        return Score(role, role, 1, CORRECT_REWARD)
    if role == "opposite_negation":
        return Score(role, role, 0, OPPOSITE_REWARD)
    return Score(role, role, 0, OTHER_REWARD)


def score_answer(item: McqItem, label: str | None) -> Score:
    """Score ``label`` for ``item``; None means the group's output was malformed."""
    if label is None:
        return score_role(None, malformed=True)
    return score_role(item.role_of(label))


def mean(values: Iterable[float]) -> float | None:
    """Arithmetic mean, None for no values (a personality without items has no metric)."""
    values = list(values)
    return sum(values) / len(values) if values else None
