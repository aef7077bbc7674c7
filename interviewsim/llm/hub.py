"""The seam every stage calls: :class:`ModelHub` owns providers, the cache and usage;
:class:`ModelClient` sends batches for one configured model.

A batch goes: cache lookup → the misses, de-duplicated, run concurrently up to the provider's
limit on the hub's event loop (one background thread, so stages stay synchronous and the async
HTTP client keeps its connection pool across batches) → each result is committed to the cache
before the batch returns. Commits are grouped: whatever finished while one transaction was being
written goes into the next, so a busy endpoint costs one transaction per group, not per call.
When a call fails for good, no new calls start, the ones in flight finish and are stored, and
the error is raised; a rerun resumes from the cache.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from tqdm import tqdm

from interviewsim.errors import ConfigError, Problem, ProviderError
from interviewsim.llm.cache import ResponseCache, cache_key
from interviewsim.llm.provider import Provider, estimate_prompt_tokens
from interviewsim.llm.settings import ModelSettings, ProviderSettings
from interviewsim.llm.types import ChatRequest, ChatResult, DryRunPlan, Message, OutputConstraint

if TYPE_CHECKING:
    from interviewsim.llm.batch_spool import BatchSpool
    from interviewsim.params import Params

T = TypeVar("T")

REPLAY_ONLY_ENV = "INTERVIEWSIM_REPLAY_ONLY"
"""With ``=1``, a request the response cache cannot answer fails (exit 2) instead of calling a
model: the reproduction check uses it to prove a run is a pure replay."""


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
    from interviewsim.llm.scripted import ScriptedProvider

    return ScriptedProvider.from_reference(settings.script)


def _progress_enabled() -> bool:
    """A bar on an interactive terminal; INTERVIEWSIM_PROGRESS=0 hides it, =1 forces it."""
    flag = os.environ.get("INTERVIEWSIM_PROGRESS")
    if flag is not None:
        return flag not in ("0", "false", "no")
    return sys.stderr.isatty()


@dataclass
class _Usage:
    """This run's calls, cache hits, tokens paid and wall time (they differ between a fresh
    run and a replay); ``requests`` and the ``answer_*`` tokens describe every answer the
    stage used, whether paid now or earlier, so they are the same on every run."""

    label: str
    provider: str
    model: str
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    requests: int = 0
    answer_prompt_tokens: int = 0
    answer_completion_tokens: int = 0


class _GroupWriter:
    """Commits fresh results to the cache in groups and reports each one once it is durable."""

    def __init__(self, cache: ResponseCache, on_stored: Callable[[str, ChatResult], None]):
        self._cache = cache
        self._on_stored = on_stored
        self._pending: dict[str, ChatResult] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.stored = 0
        """Results added so far."""

    def add(self, key: str, result: ChatResult) -> None:
        self.stored += 1
        self._pending[key] = result
        if not self._tasks or self._tasks[-1].done():
            self._tasks.append(asyncio.create_task(self._drain()))

    async def _drain(self) -> None:
        while self._pending:
            group, self._pending = self._pending, {}
            group.update(await asyncio.to_thread(self._cache.store_results, group))
            for key, result in group.items():
                self._on_stored(key, result)

    async def flush(self) -> None:
        for outcome in await asyncio.gather(*self._tasks, return_exceptions=True):
            if isinstance(outcome, BaseException):
                raise outcome


_SUBMIT_BATCHES: ContextVar[bool] = ContextVar("submit_batches", default=False)
_SUBMITTED: list[dict[str, Any]] = []
"""Records of the batches submitted by hubs closed in this process (for the submit report)."""


def submitted_batches() -> list[dict[str, Any]]:
    """The batch records submitted so far by this process, oldest first."""
    return list(_SUBMITTED)


@contextmanager
def submitting_batches() -> Iterator[None]:
    """Hubs built inside this block spool every planned cache miss into Batch API batches
    (:mod:`interviewsim.llm.batch_spool`): a stage's ``--dry-run`` becomes its submission."""
    token = _SUBMIT_BATCHES.set(True)
    try:
        yield
    finally:
        _SUBMIT_BATCHES.reset(token)


@dataclass
class _Fetch:
    stopped: BaseException | None = None


LOOP_SWITCH_INTERVAL_S = 0.0005
"""The interpreter's thread switch interval while a hub's event loop runs."""


class ModelHub:
    """Providers by name (built lazily), the response cache, and usage per client."""

    def __init__(self, params: Params, provider_overrides: Mapping[str, Provider] | None = None):
        self.params = params
        self.spool: BatchSpool | None = None
        if _SUBMIT_BATCHES.get():
            from interviewsim.llm.batch_spool import BatchSpool

            self.spool = BatchSpool(self)
        self._overrides = dict(provider_overrides or {})
        self._providers: dict[str, Provider] = {}
        self._limits: dict[str, asyncio.Semaphore] = {}
        self._cache: ResponseCache | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._usage: dict[str, _Usage] = {}
        self._busy_until: dict[str, float] = {}
        self.stopped: BaseException | None = None
        """Set by :meth:`stop`: no new request starts until the batches running have ended."""
        self._fetching = 0
        self._lock = threading.Lock()

    @property
    def cache(self) -> ResponseCache:
        """The response cache at ``params.cache.path``; nothing is created until it is used."""
        with self._lock:
            if self._cache is None:
                self._cache = ResponseCache(self.params.cache.path)
            return self._cache

    def provider(self, name: str) -> Provider:
        """The provider named ``name`` (an override, or built from ``params.providers``)."""
        with self._lock:
            if name not in self._providers:
                if name in self._overrides:
                    self._providers[name] = self._overrides[name]
                elif name in self.params.providers:
                    cache_dir = os.path.dirname(self.params.cache.path) or "."
                    settings = self.params.providers[name]
                    self._providers[name] = build_provider(name, settings, cache_dir)
                else:
                    known = ", ".join(sorted({*self.params.providers, *self._overrides})) or "none"
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
        self.check(model_settings)
        return ModelClient(self, model_settings, label)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the hub's event loop thread and wait for its result."""
        with self._lock:
            if self._loop is None:
                # The loop thread shares the interpreter lock with the stage's own threads
                # (building prompts, writing records). Every socket write releases the lock,
                # and at Python's default 5 ms switch interval the loop could then wait that
                # long to get it back, with hundreds of answers waiting on it; 0.5 ms keeps
                # the loop's turnaround short (benchmarks/README.md, "End to end").
                sys.setswitchinterval(min(sys.getswitchinterval(), LOOP_SWITCH_INTERVAL_S))
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="interviewsim-llm", daemon=True
                )
                self._thread.start()
            loop = self._loop
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def stop(self, reason: BaseException) -> None:
        """Start no new request in the batches running now: the stage is failing
        (``reason``). Requests in flight finish and are cached; a batch that had to leave
        requests out raises ``reason``. Once none is running the hub takes requests again."""
        with self._lock:
            if self.stopped is None and self._fetching:
                self.stopped = reason

    @contextmanager
    def fetching(self) -> Iterator[_Fetch]:
        """Around one batch's requests. Once the batch has ended, the yielded record holds the
        reason :meth:`stop` was called with while it ran (or None); the last batch to end
        clears the stop, so the hub takes requests again."""
        with self._lock:
            self._fetching += 1
        fetch = _Fetch()
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
        """Add one batch: ``fresh`` results were paid now; ``answers`` is every result the
        batch returned (one per request, from the cache or not); ``span`` its start and end
        (``perf_counter``). Wall time counts once what overlapping batches share."""
        settings = client.settings
        key = f"{client.label}/{settings.model}"
        start, end = span
        with self._lock:
            usage = self._usage.setdefault(
                key, _Usage(client.label, settings.provider, settings.model))
            busy_until = self._busy_until.get(key, start)
            wall_s = max(0.0, end - max(start, busy_until))
            self._busy_until[key] = max(busy_until, end)
            usage.calls += len(fresh)
            usage.cache_hits += hits
            usage.prompt_tokens += sum(r.usage.prompt_tokens for r in fresh)
            usage.completion_tokens += sum(r.usage.completion_tokens for r in fresh)
            usage.wall_s += wall_s
            usage.requests += len(answers)
            usage.answer_prompt_tokens += sum(r.usage.prompt_tokens for r in answers)
            usage.answer_completion_tokens += sum(r.usage.completion_tokens for r in answers)

    def usage(self) -> dict[str, dict[str, Any]]:
        """Per ``label/model``: calls, cache hits, tokens of the calls made, wall time, and an
        estimated cost from ``params.prices`` (None when the model has no price); and the
        same-on-every-run figures: requests, tokens and cost of every answer used."""
        table: dict[str, dict[str, Any]] = {}
        with self._lock:
            for key, usage in sorted(self._usage.items()):
                row: dict[str, Any] = asdict(usage)
                price = self.params.prices.get(usage.model)
                for prefix, tokens in (("", (usage.prompt_tokens, usage.completion_tokens)),
                                       ("answers_", (usage.answer_prompt_tokens,
                                                     usage.answer_completion_tokens))):
                    row[f"{prefix}est_cost_usd"] = None if price is None else (
                        tokens[0] * price.prompt_per_million
                        + tokens[1] * price.completion_per_million) / 1e6
                table[key] = row
        return table

    def close(self) -> None:
        """Submit what the spool holds, close provider connections, stop the loop thread and
        close the cache."""
        if self.spool is not None:
            spool, self.spool = self.spool, None
            spool.close()
            _SUBMITTED.extend(spool.submitted)
        if self._loop is not None:
            async def close_all() -> None:
                for provider in self._providers.values():
                    await provider.aclose()

            self.run(close_all())
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join()
            self._loop.close()
            self._loop = None
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> ModelHub:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


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
        still reads and builds the rest (:func:`interviewsim.batching.fill_batches`)."""
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
        is ``params.seed`` (each sample index gets its own derived sampling seed)."""
        return ChatRequest(
            messages=tuple(m if isinstance(m, Message) else Message(**m) for m in messages),
            temperature=self.settings.temperature if temperature is None else temperature,
            seed=self.hub.params.seed,
            max_tokens=self.settings.max_tokens if max_tokens is None else max_tokens,
            constraint=constraint,
            sample_index=sample_index,
        )

    def key(self, request: ChatRequest) -> str:
        if self._identity is None:
            self._identity = self.provider.identity(self.settings.model)
        return cache_key(self._identity, request)

    def plan(self, requests: Sequence[ChatRequest]) -> DryRunPlan:
        """What :meth:`complete_many` would do, without calling the model."""
        keys = [self.key(r) for r in requests]
        cached = self.hub.cache.contains(keys)
        misses = {k: r for k, r in zip(keys, requests, strict=True) if k not in cached}
        if self.hub.spool is not None:
            self.hub.spool.add(self, misses)
        return DryRunPlan(
            calls=len(misses),
            cache_hits=sum(k in cached for k in keys),
            est_prompt_tokens=sum(estimate_prompt_tokens(r) for r in misses.values()),
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
                   disable=not (slots and _progress_enabled()), file=sys.stderr, leave=False)

        def stored(key: str, result: ChatResult) -> None:
            if not result.cached:
                fresh.append(result)
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
                           stored: Callable[[str, ChatResult], None]) -> None:
        """Misses through the provider's batch API; what it did not answer, one call each."""
        done = await self.provider.complete_batch(self.settings.model, misses)  # type: ignore[attr-defined]
        writer = _GroupWriter(self.hub.cache, stored)
        for key, result in done.items():
            if key in misses:
                writer.add(key, result.model_copy(update={"cache_key": key, "cached": False}))
        await writer.flush()
        rest = {key: request for key, request in misses.items() if key not in done}
        if rest:
            await self._fetch(rest, stored)

    async def _fetch(self, misses: dict[str, ChatRequest],
                     stored: Callable[[str, ChatResult], None]) -> None:
        limit = self.hub.limit(self.settings.provider)
        writer = _GroupWriter(self.hub.cache, stored)
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
