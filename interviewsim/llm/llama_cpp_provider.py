"""The embedded default: a GGUF model run in-process by llama.cpp (``llama-cpp-python``).

One model per file and context settings per process, loaded on the first call, driven by one
:class:`~interviewsim.llm.llama_engine.BatchEngine`: a worker thread that decodes up to
``parallel`` requests together in one context (continuous batching, each request in its own KV
stream) and reuses the longest prompt prefix any stream holds. The hub keeps ``2 × parallel``
requests in flight, so a queued request takes a finished one's place at the next step.

The chat prompt is rendered with the GGUF's own chat template and tokenized here, which gives the
exact prompt size for the context-window check before any evaluation. Constraints become
grammars through llama-cpp-python's schema converter, with bounded strings written as flat
repetitions (:mod:`interviewsim.llm.gbnf`); a GBNF constraint is used as given; llama.cpp's own
grammar sampler enforces them. llama.cpp ignores integer ``minimum``/``maximum`` in schemas:
express bounded integers as ``enum``.

With ``prefix_cache: false`` every prompt is evaluated from its first token (used to measure
the difference). A reused prefix or a different batch can change the last floating-point bits
of the logits against a cold evaluation, so an answer may depend on the calls around it; the
response cache, not re-evaluation, is what makes reruns exact.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from interviewsim.config.settings import LlamaCppProviderSettings
from interviewsim.errors import ProviderError
from interviewsim.llm.gbnf import gbnf_from_schema
from interviewsim.llm.gguf import content_hash, resolve_model_path
from interviewsim.llm.llama_engine import BatchEngine, Job
from interviewsim.llm.provider import Provider, sampling_seed
from interviewsim.llm.runtime_probe import PROBE_MEMO, ensure_runtime_works
from interviewsim.llm.types import ChatRequest, ChatResult, OutputConstraint, Usage

TOP_K = 40
"""llama-cpp-python's default top-k, kept for sampled (temperature > 0) calls."""

TRACE_ENV = "INTERVIEWSIM_LLAMA_TRACE"
"""When set to a file path, every embedded call appends one JSON line there: prompt tokens,
tokens reused from the KV prefix cache, tokens generated, seconds (benchmarks/bench_cold_run.py)."""


class LoadedModel:
    """A loaded model: its chat template and tokenizer, and the engine that decodes with it."""

    def __init__(self, path: Path, settings: LlamaCppProviderSettings):
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.path = path
        self.settings = settings
        # the weights, vocabulary and template; its own small context is never decoded in
        self.llama = Llama(model_path=str(path), n_ctx=64, n_threads=settings.n_threads,
                           n_batch=64, verbose=False)
        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ProviderError(f"GGUF {path} has no chat template (tokenizer.chat_template)")
        eos_id = self.llama.token_eos()
        self.formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=self.llama._model.token_get_text(eos_id),
            bos_token=self.llama._model.token_get_text(self.llama.token_bos()),
            stop_token_ids=[eos_id],
        )
        self._tokenize_lock = threading.Lock()
        self.engine = BatchEngine(self.llama, n_ctx=settings.n_ctx, n_batch=settings.n_batch,
                                  n_threads=settings.n_threads,
                                  parallel=settings.parallel,
                                  n_seq=settings.parallel + settings.kv_slots,
                                  reuse=settings.prefix_cache,
                                  adapt_threads=settings.adapt_threads,
                                  flash_attention=settings.flash_attention)

    def prompt_tokens(self, request: ChatRequest) -> tuple[list[int], list[str]]:
        """The request rendered with the model's chat template, as tokens, and its stop strings."""
        with self._tokenize_lock:
            rendered = self.formatter(
                messages=[{"role": m.role, "content": m.content} for m in request.messages]
            )
            tokens = self.llama.tokenize(
                rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special,
                special=True)
        stop = rendered.stop if isinstance(rendered.stop, list) else [rendered.stop]
        return tokens, [s for s in stop if s]

    def close(self) -> None:
        self.engine.close()
        self.llama.close()


_MODELS: dict[tuple[Any, ...], LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


@atexit.register
def _close_models() -> None:
    """Free models before interpreter shutdown; llama-cpp-python's own finaliser runs after its
    module globals are gone and prints a TypeError traceback at every exit otherwise."""
    with _MODELS_LOCK:
        for model in _MODELS.values():
            model.close()
        _MODELS.clear()


def load_model(path: Path, settings: LlamaCppProviderSettings) -> LoadedModel:
    """The process-wide model for this file and context settings, loaded on first use."""
    key = (str(path.resolve()), settings.n_ctx, settings.n_threads, settings.n_batch,
           settings.parallel, settings.kv_slots, settings.prefix_cache)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = LoadedModel(path, settings)
        return _MODELS[key]


@lru_cache(maxsize=64)
def _schema_grammar(schema_json: str) -> str:
    return gbnf_from_schema(json.loads(schema_json))


def grammar_text(constraint: OutputConstraint | None) -> str | None:
    """The GBNF grammar that enforces a constraint, or None."""
    if constraint is None:
        return None
    if constraint.kind == "json_schema" and constraint.json_schema is not None:
        return _schema_grammar(json.dumps(constraint.json_schema, sort_keys=True))
    if constraint.kind == "grammar" and constraint.grammar:
        return constraint.grammar
    return None


class LlamaCppProvider(Provider):
    """Runs chat completions on an embedded GGUF model, ``parallel`` at a time."""

    kind = "llama_cpp"
    supports_json_schema = True
    supports_grammar = True

    def __init__(self, settings: LlamaCppProviderSettings, name: str, cache_dir: str):
        self.settings = settings
        self.name = name
        # one queued behind each decoding request; one at a time keeps the hub's order
        self.max_concurrency = 1 if settings.parallel == 1 else 2 * settings.parallel
        self._sidecar = Path(cache_dir) / "gguf-hashes.json"
        self._path: Path | None = None
        self._hash: str | None = None
        self._runtime_checked = False

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = resolve_model_path(self.settings.model_path, self.name)
        return self._path

    def check(self) -> None:
        _ = self.path

    def identity(self, model: str) -> dict[str, str]:
        if self._hash is None:
            self._hash = content_hash(self.path, self._sidecar)
        return {"kind": self.kind, "model": self._hash}

    def model(self) -> LoadedModel:
        if not self._runtime_checked:  # once per provider: model() runs on every call
            # A runtime built for another CPU dies in its first decode; find out in a child.
            ensure_runtime_works(self.name, self.path, self.identity("")["model"],
                                 self.settings.n_threads, self._sidecar.with_name(PROBE_MEMO))
            self._runtime_checked = True
        return load_model(self.path, self.settings)

    def _check_size(self, prompt_tokens: int, request: ChatRequest) -> None:
        total = prompt_tokens + request.max_tokens
        if total > self.settings.n_ctx:
            raise ProviderError(
                f"provider {self.name!r}: prompt of {prompt_tokens} tokens + max_tokens "
                f"{request.max_tokens} = {total} exceeds n_ctx {self.settings.n_ctx}; raise "
                f"providers.{self.name}.n_ctx or shorten the prompt"
            )

    def validate(self, model: str, requests: list[ChatRequest]) -> None:
        loaded = self.model()
        for request in requests:
            self._check_size(len(loaded.prompt_tokens(request)[0]), request)

    def _job(self, loaded: LoadedModel, request: ChatRequest) -> Job:
        tokens, stop = loaded.prompt_tokens(request)
        self._check_size(len(tokens), request)
        return Job(tokens=tokens, max_tokens=request.max_tokens,
                   temperature=request.temperature, seed=sampling_seed(request), top_k=TOP_K,
                   stop=stop, grammar=grammar_text(request.constraint))

    async def complete(self, model: str, request: ChatRequest) -> ChatResult:
        loaded = self.model()
        start = time.perf_counter()
        job = self._job(loaded, request)
        try:
            await asyncio.wrap_future(loaded.engine.submit(job))
        except ValueError as exc:  # llama.cpp reports bad grammars this way
            raise ProviderError(f"provider {self.name!r}: llama.cpp rejected the call: {exc}"
                                ) from exc
        except RuntimeError as exc:
            raise ProviderError(f"provider {self.name!r}: {exc}") from exc
        seconds = time.perf_counter() - start
        _trace(job, request, seconds, loaded.engine.stats)
        return ChatResult(
            text=job.text.decode("utf-8", errors="replace"),
            finish_reason=job.finish_reason,
            usage=Usage(prompt_tokens=len(job.tokens), completion_tokens=len(job.generated)),
            latency_s=seconds,
            model=model,
        )


def _trace(job: Job, request: ChatRequest, seconds: float, engine: dict[str, float]) -> None:
    """One line per call in the ``INTERVIEWSIM_LLAMA_TRACE`` file, when it is set. ``seconds``
    is the call's time in the engine, queueing included: with parallel sequences the calls'
    seconds overlap and add up to more than the stage's wall time."""
    trace = os.environ.get(TRACE_ENV)
    if not trace:
        return
    record = {"prompt_tokens": len(job.tokens), "reused_tokens": job.reused,
              "completion_tokens": len(job.generated),
              "constrained": request.constraint is not None, "seconds": round(seconds, 4),
              "engine": {k: round(v, 3) for k, v in engine.items()}}
    with open(trace, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
