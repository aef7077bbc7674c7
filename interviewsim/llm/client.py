"""A client for one configured model: requests with its settings, sent through the cache."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from tqdm import tqdm

from interviewsim.config.settings import ModelSettings
from interviewsim.errors import ProviderError
from interviewsim.llm.cache import cache_key
from interviewsim.llm.progress import progress_enabled
from interviewsim.llm.provider import estimate_prompt_tokens
from interviewsim.llm.types import CallEstimate, ChatRequest, ChatResult, Message, OutputConstraint
from interviewsim.llm.writer import GroupWriter

if TYPE_CHECKING:
    from interviewsim.llm.hub import ModelHub

REPLAY_ONLY_ENV = "INTERVIEWSIM_REPLAY_ONLY"
"""With ``=1``, a request the response cache cannot answer fails (exit 2) instead of calling a
model: the reproduction check uses it to prove a run is a pure replay."""


class ModelClient:
    """Sends batches to one configured model through the cache."""

    def __init__(self, hub: ModelHub, settings: ModelSettings, label: str):
        self.hub = hub
        self.settings = settings
        self.label = label
        self.provider = hub.provider(settings.provider)
        self._identity: dict[str, str] | None = None

    @property
    def batch_target(self) -> int:
        """Requests worth sending in one :meth:`complete_many`: each call ends in a tail where
        fewer than ``max_concurrency`` requests are in flight, and with at least eight waves
        of them that tail costs under an eighth of the call. Stages that would send less per
        personality group personalities up to this."""
        return 8 * max(1, self.provider.max_concurrency)

    @property
    def first_batch_target(self) -> int:
        """The first batch of a stage: one wave, so the endpoint has work while the stage
        still reads and builds the rest (:func:`stages.runner.batching.fill_batches`)."""
        return max(1, self.provider.max_concurrency)

    @property
    def supports_json_schema(self) -> bool:
        return self.provider.supports_json_schema

    @property
    def supports_grammar(self) -> bool:
        return self.provider.supports_grammar

    @property
    def stats_name(self) -> str:
        return f"{self.settings.provider}/{self.settings.model}"

    def request(
        self,
        messages: Sequence[Message | Mapping[str, str]],
        constraint: OutputConstraint | None = None,
        sample_index: int = 0,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatRequest:
        """A request with this model's temperature and max_tokens unless overridden; the seed
        is the hub's seed (each sample index gets its own derived sampling seed)."""
        return ChatRequest(
            messages=tuple(m if isinstance(m, Message) else Message(**m) for m in messages),
            temperature=self.settings.temperature if temperature is None else temperature,
            seed=self.hub.settings.seed,
            max_tokens=self.settings.max_tokens if max_tokens is None else max_tokens,
            constraint=constraint,
            sample_index=sample_index,
        )

    def key(self, request: ChatRequest) -> str:
        if self._identity is None:
            self._identity = self.provider.identity(self.settings.model)
        return cache_key(self._identity, request)

    def estimate(self, requests: Sequence[ChatRequest]) -> CallEstimate:
        """What :meth:`complete_many` would do, without calling the model."""
        keys = [self.key(r) for r in requests]
        cached = self.hub.cache.contains(keys)
        misses = {k: r for k, r in zip(keys, requests, strict=True) if k not in cached}
        if self.hub.spool is not None:
            self.hub.spool.add(self, misses)
        return CallEstimate(
            calls=len(misses),
            requests=len(requests),
            cache_hits=sum(k in cached for k in keys),
            est_prompt_tokens=sum(estimate_prompt_tokens(r) for r in misses.values()),
            est_completion_tokens=sum(r.max_tokens for r in misses.values()),
        )

    def complete(self, request: ChatRequest) -> ChatResult:
        return self.complete_many([request], desc="")[0]

    def complete_many(self, requests: Sequence[ChatRequest], desc: str = "model calls"
                      ) -> list[ChatResult]:
        """Results in request order; every fresh result is in the cache before this returns."""
        start = time.perf_counter()
        keys = [self.key(r) for r in requests]
        found = self.hub.cache.lookup(keys)
        results: list[ChatResult | None] = [found.get(k) for k in keys]
        hits = len(requests) - results.count(None)
        slots: dict[str, list[int]] = {}
        for index, (key, result) in enumerate(zip(keys, results, strict=True)):
            if result is None:
                slots.setdefault(key, []).append(index)
        fresh: list[ChatResult] = []
        bar = tqdm(total=len(requests), initial=hits, desc=desc or None, unit="call",
                   disable=not (slots and progress_enabled()), file=sys.stderr, leave=False)

        def stored(key: str, result: ChatResult, paid: ChatResult) -> None:
            fresh.append(paid)  # paid now, even when another process stored the key first
            for index in slots[key]:
                results[index] = result
            bar.update(len(slots[key]))

        try:
            if slots:
                if os.environ.get(REPLAY_ONLY_ENV) == "1":
                    raise ProviderError(
                        f"{len(slots)} requests of {self.stats_name} are not in the response "
                        f"cache and {REPLAY_ONLY_ENV}=1 allows no model call: the code or params "
                        "changed what is asked; `make lock` records the new answers, the lock "
                        "and the reports in one go")
                misses = {key: requests[indices[0]] for key, indices in slots.items()}
                self.provider.validate(self.settings.model, list(misses.values()))
                batched = getattr(self.provider, "complete_batch", None)
                self.hub.run(self._fetch(misses, stored) if batched is None
                             else self._fetch_batch(misses, stored))
        finally:
            bar.close()
            self.hub.cache.record(self.stats_name, hits, len(slots))
            self.hub.record_usage(self, fresh, hits, (start, time.perf_counter()),
                                  [r for r in results if r is not None])
        return cast(list[ChatResult], results)

    async def _fetch_batch(self, misses: dict[str, ChatRequest],
                           stored: Callable[[str, ChatResult, ChatResult], None]) -> None:
        """Misses through the provider's batch API; what it did not answer, one call each."""
        done = await self.provider.complete_batch(self.settings.model, misses)  # type: ignore[attr-defined]
        writer = GroupWriter(self.hub.cache, stored)
        for key, result in done.items():
            if key in misses:
                writer.add(key, result.model_copy(update={"cache_key": key, "cached": False}))
        await writer.flush()
        rest = {key: request for key, request in misses.items() if key not in done}
        if rest:
            await self._fetch(rest, stored)

    async def _fetch(self, misses: dict[str, ChatRequest],
                     stored: Callable[[str, ChatResult, ChatResult], None]) -> None:
        limit = self.hub.limit(self.settings.provider)
        writer = GroupWriter(self.hub.cache, stored)
        failures: list[Exception] = []

        async def one(key: str, request: ChatRequest) -> None:
            async with limit:
                if failures or self.hub.stopped is not None:
                    return
                try:
                    result = await self.provider.complete(self.settings.model, request)
                except Exception as exc:
                    failures.append(exc)
                    self.hub.stop(exc)
                    return
            writer.add(key, result.model_copy(update={"cache_key": key, "cached": False}))

        with self.hub.fetching() as fetch:
            try:
                await asyncio.gather(*(one(key, request) for key, request in misses.items()))
            finally:
                await writer.flush()
        if failures:
            raise failures[0]
        if fetch.stopped is not None and writer.stored < len(misses):
            raise fetch.stopped  # requests left unsent: the stage's failure is the reason
