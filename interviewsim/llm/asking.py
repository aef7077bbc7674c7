"""Asking a model until its output passes the parser, and recording every attempt.

The one re-ask loop of the project: generated answers, judgments, atomic items, MCQs and MCQ
answers all go through :func:`run_together`. A model call is only as good as its contract, so
each output goes through a strict parser; a rejected one is asked again with a new sample index
(a new cache key and sampling seed), up to a fixed number of attempts. When the call's
temperature is 0, a re-ask is sampled at :data:`REASK_TEMPERATURE` instead: greedy decoding
ignores the seed, so a greedy re-ask would reproduce the rejected output token for token. What
comes back is an :class:`Outcome` that keeps every raw output and either the parsed value or
the last parse error: an invalid output is kept and counted, never scored and never dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from interviewsim.config.settings import ModelSettings
from interviewsim.errors import ParseError
from interviewsim.llm.types import (
    CallEstimate,
    CallRecord,
    ChatRequest,
    ChatResult,
    Message,
    OutputConstraint,
)

T = TypeVar("T")

REASK_TEMPERATURE = 0.7
"""Temperature of a re-ask when the call's own temperature is 0 (seeded, so still reproducible
and cached like any call)."""


class AskingClient(Protocol):
    """The part of the model client that asking needs (``interviewsim.llm.ModelClient``): the
    judges', the generator's, the MCQ stages' and the prep pipeline's calls all go through it."""

    supports_json_schema: bool
    supports_grammar: bool
    settings: ModelSettings

    def request(self, messages: Sequence[Message], constraint: OutputConstraint | None = None,
                sample_index: int = 0, temperature: float | None = None,
                max_tokens: int | None = None) -> ChatRequest: ...

    def complete_many(self, requests: Sequence[ChatRequest], desc: str = ...
                      ) -> list[ChatResult]: ...

    def estimate(self, requests: Sequence[ChatRequest]) -> CallEstimate: ...


@dataclass(frozen=True)
class Ask:
    """One output to obtain. Attempt ``a`` uses sample index ``first_index + a * stride``,
    so repeated runs of one prompt (PS) and their re-asks never share an index. ``check`` is
    an extra test of the parsed value that only this ask needs (it raises ParseError);
    ``constraint`` and ``max_tokens`` override the task's for this ask alone."""

    messages: list[Message]
    first_index: int = 0
    stride: int = 1
    check: Callable[[Any], object] | None = None
    constraint: OutputConstraint | None = None
    max_tokens: int | None = None

    def sample_index(self, attempt: int) -> int:
        return self.first_index + attempt * self.stride


@dataclass
class Outcome(Generic[T]):
    """Every call made for one judgment, and the parsed value or the reason it is invalid."""

    calls: list[CallRecord] = field(default_factory=list)
    value: T | None = None
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.value is not None

    @classmethod
    def invalid(cls, reason: str) -> Outcome[T]:
        """A judgment that could not be asked at all (its input was invalid)."""
        return cls(error=reason)

    def record(self) -> dict[str, Any]:
        """The audit fields every judgment artifact carries."""
        return {
            "valid": self.valid,
            "parsed": self.value.model_dump() if isinstance(self.value, BaseModel)
            else self.value,
            "error": self.error,
            "calls": [call.model_dump() for call in self.calls],
        }


@dataclass(frozen=True)
class AskTask(Generic[T]):
    """How to ask for one kind of judgment: parser, constraints by preference, temperature."""

    parse: Callable[[str], T]
    constraints: tuple[OutputConstraint, ...] = ()
    temperature: float | None = None

    def usable_constraint(self, client: AskingClient) -> OutputConstraint | None:
        """The first constraint the provider can enforce; None leaves it to the prompt."""
        for constraint in self.constraints:
            if (client.supports_grammar if constraint.kind == "grammar"
                    else client.supports_json_schema):
                return constraint
        return None

    def request(self, client: AskingClient, ask: Ask, attempt: int) -> ChatRequest:
        temperature = self.temperature
        if attempt > 0 and (client.settings.temperature if temperature is None
                            else temperature) == 0:
            temperature = REASK_TEMPERATURE
        return client.request(ask.messages,
                              constraint=ask.constraint or self.usable_constraint(client),
                              sample_index=ask.sample_index(attempt),
                              temperature=temperature, max_tokens=ask.max_tokens)

    def estimate(self, client: AskingClient, asks: Sequence[Ask]) -> CallEstimate:
        """Cost of the first attempts (re-asks depend on outputs not yet seen)."""
        return client.estimate([self.request(client, ask, 0) for ask in asks])

    def run(self, client: AskingClient, asks: Sequence[Ask], max_attempts: int,
            desc: str) -> list[Outcome[T]]:
        """One outcome per ask, in order; invalid outputs are re-asked as a batch."""
        return run_together(client, [(self, asks)], max_attempts, desc)[0]


def run_together(client: AskingClient, groups: Sequence[tuple[AskTask[Any], Sequence[Ask]]],
                 max_attempts: int, desc: str) -> list[list[Outcome[Any]]]:
    """Several tasks' asks through one model as one batch per attempt; outcomes per group.

    One :meth:`ModelClient.complete_many` per attempt keeps an endpoint's concurrency busy
    across tasks (and personalities) instead of draining it at the end of each small batch;
    the requests, and so the cache keys, are exactly those of running each group alone.
    """
    outcomes: list[list[Outcome[Any]]] = [[Outcome() for _ in asks] for _, asks in groups]
    pending = [(g, i) for g, (_, asks) in enumerate(groups) for i in range(len(asks))]
    for attempt in range(max_attempts):
        if not pending:
            break
        batch = [groups[g][0].request(client, groups[g][1][i], attempt) for g, i in pending]
        results = client.complete_many(batch, desc=desc)
        for (g, i), request, result in zip(pending, batch, results, strict=True):
            task, asks = groups[g]
            outcome = outcomes[g][i]
            outcome.calls.append(CallRecord.of(request, result))
            try:
                value = task.parse(result.text)
                if asks[i].check is not None:
                    asks[i].check(value)
                outcome.value, outcome.error = value, None
            except ParseError as exc:
                outcome.error = str(exc)
        pending = [(g, i) for g, i in pending if not outcomes[g][i].valid]
    return outcomes
