"""Records shared between stages: the audit trail of a model call and per-personality metrics.

Stages write JSON Lines of these (sorted by their id fields). ``PersonalityMetric`` is the
contract between the scoring stages (judge, mcq-answer, ...) and ``aggregate``: each scoring
stage reduces its judgments to one value per (personality, strategy, judge, metric), and
aggregate macro-averages over personalities and tests strategies against each other.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from interviewsim.llm.types import ChatRequest, ChatResult


class CallRecord(BaseModel):
    """What is needed to audit one model call: which model, which cache entry, what it said.

    Whether it came from the cache is deliberately absent: artifacts must be byte-identical
    whether the calls were made now or replayed (cache hits are counted in stage summaries).
    """

    model_config = ConfigDict(extra="forbid")

    model: str
    cache_key: str
    sample_index: int
    raw: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None = None

    @classmethod
    def of(cls, request: ChatRequest, result: ChatResult) -> CallRecord:
        return cls(
            model=result.model,
            cache_key=result.cache_key,
            sample_index=request.sample_index,
            raw=result.text,
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            finish_reason=result.finish_reason,
        )


class PersonalityMetric(BaseModel):
    """One metric value for one personality under one strategy and one judge/answerer.

    ``value`` is None when no valid judgment exists; ``n`` counts the valid judgments behind it
    and ``invalid`` the ones excluded because their output broke the contract.
    """

    model_config = ConfigDict(extra="forbid")

    personality_id: str
    strategy: str
    judge: str
    metric: str
    value: float | None
    n: int
    invalid: int = 0

    def sort_key(self) -> tuple[str, str, str, str]:
        return (self.metric, self.judge, self.strategy, self.personality_id)


class ControlMetric(BaseModel):
    """One metric value for one personality under one *control* condition (``oracle``: the
    person's own held-out answer scored as if simulated; ``impostor``: another personality's
    real answer to the most similar question) and one judge/answerer.

    A separate record type and separate files (``control_metrics.jsonl``), never a
    ``PersonalityMetric`` with a strategy name: no table, test or plot of strategies can pick
    a control up by accident. The fields mean what they mean in ``PersonalityMetric``.
    """

    model_config = ConfigDict(extra="forbid")

    personality_id: str
    control: str
    judge: str
    metric: str
    value: float | None
    n: int
    invalid: int = 0

    def sort_key(self) -> tuple[str, str, str, str]:
        return (self.metric, self.judge, self.control, self.personality_id)
