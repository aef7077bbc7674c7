"""Scores, flags and the composite: the evaluator's records, independent of any model.

The composite weights accuracy and depth above delivery on purpose: an interview should reward
what the candidate knows and how they reason more than how smoothly they say it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

COMPOSITE_WEIGHTS: dict[str, float] = {
    "technical_accuracy": 0.35,
    "communication_clarity": 0.20,
    "depth_of_reasoning": 0.30,
    "relevance": 0.15,
}
"""Weight of each 0-10 dimension in the composite (sums to 1, so the composite is 0-10)."""
DIMENSIONS: tuple[str, ...] = tuple(COMPOSITE_WEIGHTS)

FlagType = Literal[
    "vague_answer",
    "interesting_depth",
    "potential_red_flag",
    "claimed_expertise",
    "contradiction",
    "needs_verification",
]
Priority = Literal["low", "medium", "high"]


def composite(
    technical_accuracy: float,
    communication_clarity: float,
    depth_of_reasoning: float,
    relevance: float,
) -> float:
    """0.35·accuracy + 0.20·clarity + 0.30·depth + 0.15·relevance, rounded to 2 decimals."""
    value = (
        COMPOSITE_WEIGHTS["technical_accuracy"] * technical_accuracy
        + COMPOSITE_WEIGHTS["communication_clarity"] * communication_clarity
        + COMPOSITE_WEIGHTS["depth_of_reasoning"] * depth_of_reasoning
        + COMPOSITE_WEIGHTS["relevance"] * relevance
    )
    return round(value, 2)


class AnswerScore(BaseModel):
    """The evaluator's accepted assessment of one candidate answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int
    """Transcript turn of the answer; the code binds the score to it, not the model."""
    state: str
    question: str
    rubric_area: str
    technical_accuracy: int = Field(ge=0, le=10)
    communication_clarity: int = Field(ge=0, le=10)
    depth_of_reasoning: int = Field(ge=0, le=10)
    relevance: int = Field(ge=0, le=10)
    answer_summary: str
    notable_observations: str = ""

    @property
    def composite(self) -> float:
        return composite(self.technical_accuracy, self.communication_clarity,
                         self.depth_of_reasoning, self.relevance)

    def record(self) -> dict:
        return {**self.model_dump(), "composite": self.composite}


class Flag(BaseModel):
    """An answer marked for follow-up; high priority means the very next turn probes it."""

    model_config = ConfigDict(extra="forbid")

    flag_id: int
    turn: int
    """Turn of the flagged answer."""
    state: str
    raised_by: Literal["interviewer", "evaluator"]
    flag_type: FlagType
    answer_excerpt: str
    suggested_followup: str
    priority: Priority
    resolved_turn: int | None = None
    """Turn whose question followed the flag up; None while open."""

    @property
    def resolved(self) -> bool:
        return self.resolved_turn is not None
