"""The model seam: what every stage sends to a model and what it gets back."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class OutputConstraint(BaseModel):
    """Constrained decoding hint. The parsers still decide; this only raises the hit rate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["json_schema", "grammar"]
    name: str = "output"
    json_schema: dict[str, Any] | None = None
    grammar: str | None = None


class ChatRequest(BaseModel):
    """Everything that determines a completion, plus nothing else (so it can key the cache)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[Message, ...]
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 256
    constraint: OutputConstraint | None = None
    sample_index: int = Field(0, ge=0)
    """Distinguishes repeated samples of the same prompt (PS runs, re-asks)."""


class Usage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    finish_reason: str | None = None
    usage: Usage = Usage()
    latency_s: float = 0.0
    cached: bool = False
    cache_key: str = ""
    model: str = ""


class CallEstimate(BaseModel):
    """What a batch would cost, computed without calling the model (``--dry-run``)."""

    model_config = ConfigDict(extra="forbid")

    calls: int
    """Distinct requests not in the cache: the provider calls the batch would make."""
    requests: int = 0
    """Every request of the batch, cached or not, duplicates included (what the stage sends)."""
    cache_hits: int
    """Requests the cache would answer."""
    est_prompt_tokens: int
    """Estimated prompt tokens of those calls (4 characters a token plus per-message overhead)."""
    est_completion_tokens: int = 0
    """Their completion budgets (``max_tokens``): an upper bound on what they generate."""


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
