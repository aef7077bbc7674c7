"""The seam every stage calls: :class:`ModelHub` owns the providers, the response cache, the
event loop the calls run on and the usage tally; :class:`~interviewsim.llm.client.ModelClient`
sends batches for one configured model.

A batch goes: cache lookup → the misses, de-duplicated, run concurrently up to the provider's
limit on the hub's event loop → each result is committed to the cache (in groups,
:mod:`interviewsim.llm.writer`) before the batch returns. When a call fails for good, no new
calls start, the ones in flight finish and are stored, and the error is raised; a rerun resumes
from the cache. The hub takes :class:`~interviewsim.config.settings.HubSettings`, not the
experiment's params: the model layer knows providers, a cache path, prices and a seed only.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from interviewsim.config.settings import HubSettings, ModelSettings, ProviderSettings
from interviewsim.errors import ConfigError, Problem
from interviewsim.llm.batch_spool import BatchSpool, submit_mode
from interviewsim.llm.cache import ResponseCache
from interviewsim.llm.loop import LoopThread
from interviewsim.llm.provider import Provider
from interviewsim.llm.types import ChatResult
from interviewsim.llm.usage import UsageTally

if TYPE_CHECKING:
    from interviewsim.llm.client import ModelClient

T = TypeVar("T")


def build_provider(name: str, settings: ProviderSettings, cache_dir: str) -> Provider:
    """The provider a ``providers`` entry describes; heavy imports happen only for its kind."""
    if settings.kind == "openai" and settings.batch:
        from interviewsim.llm.openai_batch import OpenAIBatchProvider

        return OpenAIBatchProvider(settings, name, cache_dir)
    if settings.kind == "openai":
        from interviewsim.llm.openai_provider import OpenAIProvider

        return OpenAIProvider(settings, name)
    if settings.kind == "llama_cpp":
        from interviewsim.llm.llama_cpp_provider import LlamaCppProvider

        return LlamaCppProvider(settings, name, cache_dir)
    if settings.kind == "relay":
        from interviewsim.llm.relay import RelayProvider

        return RelayProvider(settings, name)
    from interviewsim.llm.scripted import ScriptedProvider

    return ScriptedProvider.from_reference(settings.script)


@dataclass
class Fetch:
    """One batch's view of :meth:`ModelHub.stop` (see :meth:`ModelHub.fetching`)."""

    stopped: BaseException | None = None


class ModelHub:
    """Providers by name (built lazily), the response cache, the loop and usage per client."""

    def __init__(self, settings: HubSettings,
                 provider_overrides: Mapping[str, Provider] | None = None):
        self.settings = settings
        self.spool: BatchSpool | None = BatchSpool(self) if submit_mode() else None
        self._overrides = dict(provider_overrides or {})
        self._providers: dict[str, Provider] = {}
        self._limits: dict[str, asyncio.Semaphore] = {}
        self._cache: ResponseCache | None = None
        self._loop = LoopThread()
        self.tally = UsageTally()
        self.stopped: BaseException | None = None
        """Set by :meth:`stop`: no new request starts until the batches running have ended."""
        self._fetching = 0
        self._lock = threading.Lock()

    @property
    def cache(self) -> ResponseCache:
        """The response cache at ``settings.cache_path``; nothing is created until it is used."""
        with self._lock:
            if self._cache is None:
                self._cache = ResponseCache(self.settings.cache_path)
            return self._cache

    def provider(self, name: str) -> Provider:
        """The provider named ``name`` (an override, or built from ``settings.providers``)."""
        with self._lock:
            if name not in self._providers:
                providers = self.settings.providers
                if name in self._overrides:
                    self._providers[name] = self._overrides[name]
                elif name in providers:
                    cache_dir = os.path.dirname(self.settings.cache_path) or "."
                    self._providers[name] = build_provider(name, providers[name], cache_dir)
                else:
                    known = ", ".join(sorted({*providers, *self._overrides})) or "none"
                    raise ConfigError(
                        [Problem("params.yaml", "providers",
                                 f"unknown provider {name!r} (defined: {known})")]
                    )
            return self._providers[name]

    def check(self, model_settings: ModelSettings) -> None:
        """Raise ConfigError/ProviderError now if calls to this model could not succeed."""
        self.provider(model_settings.provider).check()

    def client(self, model_settings: ModelSettings, label: str = "model") -> ModelClient:
        """A client for one configured model; ``label`` groups its usage (e.g. the stage role)."""
        from interviewsim.llm.client import ModelClient

        self.check(model_settings)
        return ModelClient(self, model_settings, label)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the hub's event loop thread and wait for its result."""
        return self._loop.run(coroutine)

    def stop(self, reason: BaseException) -> None:
        """Start no new request in the batches running now: the stage is failing
        (``reason``). Requests in flight finish and are cached; a batch that had to leave
        requests out raises ``reason``. Once none is running the hub takes requests again."""
        with self._lock:
            if self.stopped is None and self._fetching:
                self.stopped = reason

    @contextmanager
    def fetching(self) -> Iterator[Fetch]:
        """Around one batch's requests. Once the batch has ended, the yielded record holds the
        reason :meth:`stop` was called with while it ran (or None); the last batch to end
        clears the stop, so the hub takes requests again."""
        with self._lock:
            self._fetching += 1
        fetch = Fetch()
        try:
            yield fetch
        finally:
            with self._lock:
                self._fetching -= 1
                fetch.stopped = self.stopped
                if not self._fetching:
                    self.stopped = None

    def limit(self, provider_name: str) -> asyncio.Semaphore:
        """The in-flight limit shared by every client of one provider (call on the hub loop)."""
        if provider_name not in self._limits:
            size = self.provider(provider_name).max_concurrency
            self._limits[provider_name] = asyncio.Semaphore(size)
        return self._limits[provider_name]

    def embed(self, provider_name: str, model: str, texts: list[str]) -> list[list[float]]:
        """Embedding vectors from a provider that serves them (the ``openai`` embedder)."""
        provider = self.provider(provider_name)
        provider.check()

        async def limited() -> list[list[float]]:
            async with self.limit(provider_name):
                return await provider.embed(model, texts)

        return self.run(limited())

    def record_usage(self, client: ModelClient, fresh: Sequence[ChatResult], hits: int,
                     span: tuple[float, float], answers: Sequence[ChatResult] = ()) -> None:
        """Add one batch of ``client`` to the tally (:meth:`UsageTally.record`)."""
        self.tally.record(client.label, client.settings.provider, client.settings.model,
                          fresh, hits, span, answers)

    def usage(self) -> dict[str, dict[str, Any]]:
        """Per ``label/model``: the tally's row with estimated costs at ``settings.prices``
        (None when the model has no price)."""
        return self.tally.table(self.settings.prices)

    def close(self) -> None:
        """Submit what the spool holds, close provider connections, stop the loop thread and
        close the cache."""
        if self.spool is not None:
            spool, self.spool = self.spool, None
            spool.close()
        if self._loop.started:
            async def close_all() -> None:
                for provider in self._providers.values():
                    await provider.aclose()

            self.run(close_all())
            self._loop.stop()
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> ModelHub:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
