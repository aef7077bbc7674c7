"""Records shared between stages: per-personality metrics (a model call's audit record,
``CallRecord``, sits with the other model types in :mod:`interviewsim.llm.types`).

Stages write JSON Lines of these (sorted by their id fields). ``PersonalityMetric`` is the
contract between the scoring stages (judge, mcq-answer, ...) and ``aggregate``: each scoring
stage reduces its judgments to one value per (personality, strategy, judge, metric), and
aggregate macro-averages over personalities and tests strategies against each other.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class _MetricRow(BaseModel):
    """The fields every per-personality metric row has (``value`` None when no valid judgment
    exists; ``n`` the units behind it; ``invalid`` those excluded, or, for MCQ rows, scored as
    malformed)."""

    model_config = ConfigDict(extra="forbid")

    personality_id: str
    judge: str
    metric: str
    value: float | None
    n: int
    invalid: int = 0


class PersonalityMetric(_MetricRow):
    """One metric value for one personality under one strategy and one judge/answerer.

    ``value`` is None when no valid judgment exists; ``n`` counts the valid judgments behind it
    and ``invalid`` the ones excluded because their output broke the contract.
    """

    strategy: str

    def sort_key(self) -> tuple[str, str, str, str]:
        return (self.metric, self.judge, self.strategy, self.personality_id)


class ControlMetric(_MetricRow):
    """One metric value for one personality under one *control* condition (``oracle``: the
    person's own held-out answer scored as if simulated; ``impostor``: another personality's
    real answer to the most similar question) and one judge/answerer.

    A separate record type and separate files (``control_metrics.jsonl``), never a
    ``PersonalityMetric`` with a strategy name: no table, test or plot of strategies can pick
    a control up by accident.
    """

    control: str

    def sort_key(self) -> tuple[str, str, str, str]:
        return (self.metric, self.judge, self.control, self.personality_id)


class ControlAnswer(BaseModel):
    """One control's answer to one held-out question: a line of controls/answers.jsonl,
    written by the controls stage and read by judge and mcq-answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    personality_id: str
    control: str
    qa_id: str
    interview_id: str
    question: str
    response: str
    source_personality_id: str
    """Whose answer it is (the person's own for the oracle)."""
    source_qa_id: str
    similarity: float | None = None
    """The impostor's question similarity to this question (None for the oracle)."""

    def record(self) -> dict:
        return self.model_dump(mode="json")
