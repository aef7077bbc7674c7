"""The embedded default: a GGUF model run in-process by llama.cpp (``llama-cpp-python``).

One ``Llama`` per model file and context settings per process, loaded on the first call and
driven by one worker thread (llama.cpp contexts are not thread-safe), so the hub's single async
code path serves it like a remote endpoint with a concurrency of one.

The chat prompt is rendered with the GGUF's own chat template and tokenized here, which gives the
exact prompt size for the context-window check before any evaluation. Constraints become
grammars through llama-cpp-python's schema converter, with bounded strings written as flat
repetitions (:mod:`interviewsim.llm.gbnf`); a GBNF constraint is used as given. llama.cpp
ignores integer ``minimum``/``maximum`` in schemas: express bounded integers as ``enum``.

Prefix reuse: llama-cpp-python keeps the KV cache of the previous prompt and re-evaluates only
the tokens after the longest common prefix, so consecutive prompts that share a long prefix
(same instruction and context, different question) skip most of the prompt evaluation. With
``kv_slots`` contexts, prompts of interleaved roles each find their own prefix again
(:meth:`LoadedModel.slot_for`). With ``prefix_cache: false`` the state is reset before every
call (used to measure the difference).
A reused prefix can change the last floating-point bits of the logits against a cold
evaluation, so an answer may depend on the call before it; the response cache, not
re-evaluation, is what makes reruns exact.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

from interviewsim.config.settings import LlamaCppProviderSettings
from interviewsim.errors import ProviderError
from interviewsim.llm.gbnf import gbnf_from_schema
from interviewsim.llm.gguf import content_hash, resolve_model_path
from interviewsim.llm.lazy_grammar import LazyGrammar
from interviewsim.llm.provider import Provider, sampling_seed
from interviewsim.llm.runtime_probe import PROBE_MEMO, ensure_runtime_works
from interviewsim.llm.types import ChatRequest, ChatResult, OutputConstraint, Usage

TOP_K = 40
"""llama-cpp-python's default top-k, stated so the lazy grammar keeps as many valid tokens."""

TRACE_ENV = "INTERVIEWSIM_LLAMA_TRACE"
"""When set to a file path, every embedded call appends one JSON line there: prompt tokens,
tokens reused from the KV prefix cache, tokens generated, seconds (benchmarks/bench_cold_run.py)."""


SLOT_MIN_REUSE = 64
"""A call goes to a fresh or least recently used KV slot unless some slot already holds at
least this many of its prompt's first tokens (a shared chat header alone is not worth it)."""


class LoadedModel:
    """A loaded ``Llama``, its chat template, the one thread allowed to use it, and up to
    ``kv_slots`` contexts over the same memory-mapped weights, each with its own KV cache."""

    def __init__(self, path: Path, settings: LlamaCppProviderSettings):
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.path = path
        self.settings = settings
        self.llama = self._new_context()
        self.slots = [self.llama]
        self._last_used = [0]
        self._clock = 0
        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ProviderError(f"GGUF {path} has no chat template (tokenizer.chat_template)")
        eos_id = self.llama.token_eos()
        self.eos_id = eos_id
        self.formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=self.llama._model.token_get_text(eos_id),
            bos_token=self.llama._model.token_get_text(self.llama.token_bos()),
            stop_token_ids=[eos_id],
        )
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama-cpp")

    def _new_context(self) -> Any:
        from llama_cpp import Llama

        return Llama(model_path=str(self.path), n_ctx=self.settings.n_ctx,
                     n_threads=self.settings.n_threads, n_batch=self.settings.n_batch,
                     verbose=False)

    def slot_for(self, tokens: list[int]) -> tuple[Any, int]:
        """The context to evaluate ``tokens`` in, and how many of them its KV cache holds.

        The slot sharing the longest prefix with the prompt, when that is worth keeping;
        otherwise a new slot while there are fewer than ``kv_slots``, else the least recently
        used one. Interleaved roles (the interview agent's interviewer, twin and evaluator,
        each with its own instructions and growing history) so stop evicting each other's
        prefix. The choice depends only on the sequence of calls, so reruns make the same.
        """
        reuse = [slot.longest_token_prefix(slot._input_ids.tolist(), tokens)
                 for slot in self.slots]
        best = max(range(len(self.slots)), key=lambda i: (reuse[i], -i))
        if reuse[best] < min(SLOT_MIN_REUSE, len(tokens)):
            if len(self.slots) < self.settings.kv_slots:
                self.slots.append(self._new_context())
                self._last_used.append(0)
                reuse.append(0)
                best = len(self.slots) - 1
            else:
                best = min(range(len(self.slots)), key=lambda i: self._last_used[i])
        self._clock += 1
        self._last_used[best] = self._clock
        return self.slots[best], reuse[best]

    def prompt_tokens(self, request: ChatRequest) -> tuple[list[int], list[str]]:
        """The request rendered with the model's chat template, as tokens, and its stop strings."""
        rendered = self.formatter(
            messages=[{"role": m.role, "content": m.content} for m in request.messages]
        )
        tokens = self.llama.tokenize(
            rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True
        )
        stop = rendered.stop if isinstance(rendered.stop, list) else [rendered.stop]
        return tokens, [s for s in stop if s]


_MODELS: dict[tuple[Any, ...], LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


@atexit.register
def _close_models() -> None:
    """Free models before interpreter shutdown; llama-cpp-python's own finaliser runs after its
    module globals are gone and prints a TypeError traceback at every exit otherwise."""
    with _MODELS_LOCK:
        for model in _MODELS.values():
            for slot in model.slots:
                slot.close()
        _MODELS.clear()


def load_model(path: Path, settings: LlamaCppProviderSettings) -> LoadedModel:
    """The process-wide model for this file and context settings, loaded on first use."""
    key = (str(path.resolve()), settings.n_ctx, settings.n_threads, settings.n_batch)
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
    """Runs chat completions on an embedded GGUF model, one at a time."""

    kind = "llama_cpp"
    max_concurrency = 1
    supports_json_schema = True
    supports_grammar = True

    def __init__(self, settings: LlamaCppProviderSettings, name: str, cache_dir: str):
        self.settings = settings
        self.name = name
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

        def check_all() -> None:
            for request in requests:
                self._check_size(len(loaded.prompt_tokens(request)[0]), request)

        loaded.executor.submit(check_all).result()

    def _complete_sync(self, loaded: LoadedModel, request: ChatRequest) -> dict[str, Any]:
        from llama_cpp import LogitsProcessorList

        tokens, stop = loaded.prompt_tokens(request)
        self._check_size(len(tokens), request)
        if self.settings.prefix_cache:
            llama, reused = loaded.slot_for(tokens)
        else:
            llama, reused = loaded.llama, 0
            llama.reset()
        trace = os.environ.get(TRACE_ENV)
        start = time.perf_counter()
        grammar = grammar_text(request.constraint)
        lazy = (LazyGrammar(llama, grammar, 1 if request.temperature == 0 else TOP_K)
                if grammar else None)
        try:
            output = llama.create_completion(
                prompt=tokens,
                max_tokens=request.max_tokens,
                temperature=request.temperature,
                top_k=TOP_K,
                seed=sampling_seed(request),
                stop=stop,
                logits_processor=LogitsProcessorList([lazy]) if lazy else None,
            )
        finally:
            if lazy is not None:
                lazy.close()
        if trace:
            record = {"prompt_tokens": len(tokens), "reused_tokens": reused,
                      "completion_tokens": output["usage"]["completion_tokens"],
                      "constrained": request.constraint is not None,
                      "seconds": round(time.perf_counter() - start, 4)}
            with open(trace, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")
        return output

    async def complete(self, model: str, request: ChatRequest) -> ChatResult:
        loaded = self.model()
        start = time.perf_counter()
        loop = asyncio.get_running_loop()
        try:
            output = await loop.run_in_executor(
                loaded.executor, self._complete_sync, loaded, request
            )
        except ValueError as exc:  # llama-cpp-python reports bad grammars and sizes this way
            raise ProviderError(f"provider {self.name!r}: llama.cpp rejected the call: {exc}"
                                ) from exc
        choice = output["choices"][0]
        usage = output["usage"]
        return ChatResult(
            text=choice["text"],
            finish_reason=choice["finish_reason"],
            usage=Usage(prompt_tokens=usage["prompt_tokens"],
                        completion_tokens=usage["completion_tokens"]),
            latency_s=time.perf_counter() - start,
            model=model,
        )
