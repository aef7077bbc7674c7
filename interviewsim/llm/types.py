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


class DryRunPlan(BaseModel):
    """What a batch would cost, computed without calling the model (``--dry-run``)."""

    model_config = ConfigDict(extra="forbid")

    calls: int
    """Distinct requests not in the cache: the provider calls the batch would make."""
    cache_hits: int
    """Requests the cache would answer."""
    est_prompt_tokens: int
    """Estimated prompt tokens of those calls (4 characters a token plus per-message overhead)."""
