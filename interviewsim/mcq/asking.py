"""Ask a batch of prompts, re-asking the ones whose output breaks its contract.

A re-ask differs from the first ask by its sample index (its own cache entry and sampling
seed) and, when the model is configured greedy, by a sampling temperature: at temperature 0 a
new seed reproduces the rejected output token for token, so the re-ask would be wasted. After
``max_attempts`` the last parse error is the recorded reason; every call is kept for the audit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from interviewsim.errors import ParseError
from interviewsim.llm.hub import ModelClient
from interviewsim.llm.types import ChatRequest, Message, OutputConstraint
from interviewsim.records import CallRecord

T = TypeVar("T")

REASK_TEMPERATURE = 0.7
"""Temperature of a re-ask when the model's configured temperature is 0 (seeded, so still
reproducible and cached like any call)."""


@dataclass(frozen=True)
class Ask:
    """One prompt with its optional decoding constraint and completion budget."""

    messages: list[Message]
    constraint: OutputConstraint | None = None
    max_tokens: int | None = None

    def request(self, client: ModelClient, sample_index: int = 0) -> ChatRequest:
        greedy_reask = sample_index > 0 and client.settings.temperature == 0
        return client.request(self.messages, constraint=self.constraint,
                              sample_index=sample_index, max_tokens=self.max_tokens,
                              temperature=REASK_TEMPERATURE if greedy_reask else None)


@dataclass
class Asked(Generic[T]):
    """The outcome of one prompt: the parsed value, or why the last attempt was rejected."""

    value: T | None = None
    error: str | None = None
    calls: list[CallRecord] = field(default_factory=list)


def ask_until_valid(
    client: ModelClient,
    asks: Sequence[Ask],
    parse: Callable[[int, str], T],
    max_attempts: int,
    desc: str,
) -> list[Asked[T]]:
    """Outcomes in ``asks`` order; ``parse(index, text)`` raises ParseError to reject."""
    outcomes: list[Asked[T]] = [Asked() for _ in asks]
    pending = list(range(len(asks)))
    for attempt in range(max_attempts):
        if not pending:
            break
        batch = [asks[i].request(client, sample_index=attempt) for i in pending]
        results = client.complete_many(batch, desc=desc)
        still = []
        for i, request, result in zip(pending, batch, results, strict=True):
            outcome = outcomes[i]
            outcome.calls.append(CallRecord.of(request, result))
            try:
                outcome.value, outcome.error = parse(i, result.text), None
            except ParseError as exc:
                outcome.error = f"attempt {attempt + 1}: {exc}"
                still.append(i)
        pending = still
    return outcomes
