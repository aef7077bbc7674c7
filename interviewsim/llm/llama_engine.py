"""Several sequences decoded together in one llama.cpp context: the embedded model's engine.

Decoding one sequence reads every weight for every token; a batch of tokens from several
sequences reads them once per step for all of them (benchmarks/README.md "Engine" has the
measured gain on 2 cores). So one worker thread owns one ``llama_context`` with ``n_seq``
sequence streams (``kv_unified`` off: each stream keeps its own KV cells, so a sequence's
attention never spans another's) and runs continuous batching: every step it decodes the next
token of each generating sequence plus as much pending prompt as ``n_batch`` allows, samples
each sequence that produced logits, and admits queued requests as soon as a sequence ends.

Prefix reuse: a stream keeps the tokens of its last request, and a new request goes to the idle
stream that shares the longest prompt prefix with it (only the rest is evaluated); when another
stream holds a longer prefix, that stream's KV cells are copied over first (a memory copy, where
evaluating them would take seconds). Interleaved roles (the interview agent) so keep their
prefixes, as the per-role contexts of the single-sequence design did.

Constraints are llama.cpp's own grammar sampler, checking the sampled token first
(:mod:`interviewsim.llm.llama_sampling`).

Batch composition (which sequences share a step) depends on when requests arrive, and the CPU
kernels for a batch of one and of several tokens round differently, so the same request can
differ in its last logit bits between cold runs; the response cache, not re-evaluation, keeps
reruns exact (docs/ENGINE.md "Determinism").
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from interviewsim.llm import llama_sampling
from interviewsim.llm.cpu_share import CoreWatch
from interviewsim.llm.llama_sampling import Sampling

STAT_KEYS = ("steps", "decode_s", "prompt_tokens", "generated_tokens", "prefill_steps",
             "prefill_s", "copies", "copy_s", "waiting", *llama_sampling.STAT_KEYS)
"""The engine's running totals (``BatchEngine.stats``, in the ``INTERVIEWSIM_LLAMA_TRACE`` lines):
decode steps and seconds, prompt and generated tokens decoded, the steps that carried prompt
(and their seconds), KV copies between streams with their seconds, request-steps spent
waiting for another request's prefix,
and the sampling totals (:data:`interviewsim.llm.llama_sampling.STAT_KEYS`)."""

COPY_MIN_GAIN = 8
"""A prefix another stream holds is copied when it saves evaluating at least this many tokens
(a copy through the sequence state takes ~3 ms, evaluating a token ~4 ms)."""

SLOT_MIN_REUSE = 64
"""Below this many shared prompt tokens a request goes to a fresh or least recently used stream
(a shared chat header alone is not worth keeping another stream's prefix for)."""


@dataclass
class Job:
    """One completion: its prompt tokens and limits in, its text and counts out."""

    tokens: list[int]
    max_tokens: int
    temperature: float
    seed: int
    top_k: int
    stop: list[str]
    grammar: str | None
    future: Future = field(default_factory=Future)
    # filled in by the engine
    reused: int = 0
    generated: list[int] = field(default_factory=list)
    text: bytearray = field(default_factory=bytearray)
    finish_reason: str = "length"


@dataclass
class _Running:
    job: Job
    stream: int
    pending: list[int]  # prompt tokens not yet evaluated
    chain: Any
    grammar: Any
    next_token: int | None = None


class BatchEngine:
    """Continuous batching over ``n_seq`` KV streams, ``parallel`` of them generating at once."""

    def __init__(self, llama: Any, n_ctx: int, n_batch: int, n_threads: int, parallel: int,
                 n_seq: int, reuse: bool = True, adapt_threads: bool = True,
                 flash_attention: bool = False):
        import llama_cpp

        self._api = llama_cpp
        self._llama = llama  # keeps the model (and its vocabulary) alive
        self.parallel = parallel
        self.n_seq = max(n_seq, parallel)
        self.n_batch = n_batch
        self.reuse = reuse
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx * self.n_seq
        params.n_batch = params.n_ubatch = n_batch
        params.n_seq_max = self.n_seq
        params.n_threads = params.n_threads_batch = n_threads
        params.kv_unified = False
        params.flash_attn_type = (llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED if flash_attention
                                  else llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED)
        params.no_perf = True
        self._ctx = llama_cpp.llama_init_from_model(llama._model.model, params)
        if not self._ctx:
            raise RuntimeError("llama.cpp could not create a context for the batch engine")
        self._mem = llama_cpp.llama_get_memory(self._ctx)
        self._watch = CoreWatch(n_threads) if adapt_threads else None
        self.threads = n_threads
        self._vocab = llama._model.vocab
        self._batch = llama_cpp.llama_batch_init(n_batch, 0, 1)
        self._piece = ctypes.create_string_buffer(256)
        self._streams: list[list[int]] = [[] for _ in range(self.n_seq)]
        self._last_used = [0] * self.n_seq
        self._clock = 0
        self._queue: deque[Job] = deque()
        self._running: list[_Running] = []
        self._cv = threading.Condition()
        self._closed = False
        self.stats: dict[str, float] = dict.fromkeys(STAT_KEYS, 0)
        self._sampling = Sampling(llama_cpp, self._ctx, self._vocab, self.stats)
        self._thread = threading.Thread(target=self._loop, name="llama-engine", daemon=True)
        self._thread.start()

    # -- the public side (any thread) ---------------------------------------------------------

    def submit(self, job: Job) -> Future:
        with self._cv:
            if self._closed:
                raise RuntimeError("the llama.cpp engine is closed")
            self._queue.append(job)
            self._cv.notify()
        return job.future

    def close(self) -> None:
        with self._cv:
            self._closed = True
            self._cv.notify()
        self._thread.join()
        for running in self._running:
            self._sampling.free(running.chain, running.grammar)
        if self._ctx:
            self._api.llama_batch_free(self._batch)
            self._api.llama_free(self._ctx)
            self._ctx = None

    # -- the worker thread --------------------------------------------------------------------

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._closed and not self._queue and not self._running:
                    self._cv.wait()
                if self._closed:
                    failed = list(self._queue) + [r.job for r in self._running]
                    self._queue.clear()
                    break
                admitted = self._take_admissible()
            for job in admitted:
                self._admit(job)
            if self._running:
                try:
                    self._step()
                except Exception as error:  # noqa: BLE001 - handed to every caller in flight
                    for running in self._running:
                        self._fail(running, error)
                    self._running = []
        for job in failed:
            if not job.future.done():
                job.future.set_exception(RuntimeError("the llama.cpp engine was closed"))

    def _take_admissible(self) -> list[Job]:
        taken = []
        while self._queue and len(self._running) + len(taken) < self.parallel:
            taken.append(self._queue.popleft())
        return taken

    def _admit(self, job: Job) -> None:
        try:
            chain = self._sampling.chain(job.temperature, job.top_k, job.seed)
            grammar = self._sampling.grammar(job.grammar) if job.grammar else None
        except Exception as error:  # noqa: BLE001 - handed to the caller
            job.future.set_exception(error)
            return
        stream, keep = self._place(job.tokens)
        job.reused = keep
        self._running.append(_Running(job, stream, job.tokens[keep:], chain, grammar))

    def _place(self, tokens: list[int]) -> tuple[int, int]:
        """The idle stream for ``tokens``, with its KV cut to the prefix it keeps: the one that
        shares the longest prefix with them, or the least recently used one when none shares
        at least ``SLOT_MIN_REUSE`` tokens."""
        busy = {r.stream for r in self._running}
        idle = [s for s in range(self.n_seq) if s not in busy]
        shared = {s: _common_prefix(self._streams[s], tokens) for s in idle}
        best = max(idle, key=lambda s: (shared[s], -self._last_used[s], -s))
        if shared[best] < min(SLOT_MIN_REUSE, len(tokens)):
            best = min(idle, key=lambda s: (self._last_used[s], s))
        keep = min(shared[best], len(tokens) - 1) if self.reuse else 0  # last one gives logits
        self._cut(best, keep)
        self._clock += 1
        self._last_used[best] = self._clock
        return best, keep

    def _cut(self, stream: int, keep: int) -> int:
        if not self._api.llama_memory_seq_rm(self._mem, stream, keep, -1):
            self._api.llama_memory_seq_rm(self._mem, stream, -1, -1)
            keep = 0
        self._streams[stream] = self._streams[stream][:keep]
        return keep

    def _ready_to_prefill(self, running: _Running) -> bool:
        """Whether ``running`` evaluates prompt this step. A prompt whose prefix another stream
        holds copies those KV cells instead of evaluating them; one whose prefix an earlier
        request is still evaluating waits for it (requests sent together, such as the judge's
        trait ratings over one answer collection, share one evaluation of their prefix)."""
        if not self.reuse:
            return True
        tokens = running.job.tokens
        have = len(tokens) - len(running.pending)
        held, donor = have, None
        for other in range(self.n_seq):
            if other != running.stream:
                common = min(_common_prefix(self._streams[other], tokens), len(tokens) - 1)
                if common > held:
                    held, donor = common, other
        coming = 0
        for leader in self._running:
            if leader is running:
                break
            if leader.pending:  # still evaluating: it will hold its whole prompt
                coming = max(coming, min(_common_prefix(leader.job.tokens, tokens),
                                         len(tokens) - 1))
        if coming > held and coming >= have + SLOT_MIN_REUSE:
            self.stats["waiting"] += 1
            return False
        if donor is not None and held >= have + COPY_MIN_GAIN:
            self._copy_stream(donor, running.stream)
            self._cut(running.stream, held)
            running.pending = tokens[held:]
            running.job.reused = held
        return True

    def _copy_stream(self, source: int, target: int) -> None:
        """``target``'s KV cells replaced by ``source``'s, bit for bit. Through a sequence's
        state (only the cells it uses, a few MB) rather than ``llama_memory_seq_cp``, which
        between streams copies the whole stream buffer (``n_ctx`` cells, ~190 MB at 8192:
        ~250 ms, the cost of evaluating ~60 prompt tokens); that copy remains the fallback
        should the state not round-trip."""
        api, ctx = self._api, self._ctx
        start = time.perf_counter()
        api.llama_memory_seq_rm(self._mem, target, -1, -1)
        size = api.llama_state_seq_get_size(ctx, source)
        buffer = (ctypes.c_uint8 * size)()
        written = api.llama_state_seq_get_data(ctx, buffer, size, source)
        if not (written and api.llama_state_seq_set_data(ctx, buffer, written, target)):
            api.llama_memory_seq_rm(self._mem, target, -1, -1)  # whatever a failed set left
            api.llama_memory_seq_cp(self._mem, source, target, -1, -1)
        self.stats["copies"] += 1
        self.stats["copy_s"] += time.perf_counter() - start
        self._streams[target] = list(self._streams[source])

    def _fail(self, running: _Running, error: BaseException) -> None:
        self._sampling.free(running.chain, running.grammar)
        self._streams[running.stream] = []
        self._api.llama_memory_seq_rm(self._mem, running.stream, -1, -1)
        if not running.job.future.done():
            running.job.future.set_exception(error)

    def _step(self) -> None:
        """One ``llama_decode`` over every generating sequence and as much prompt as fits."""
        batch, n, outputs = self._batch, 0, []
        stats = self.stats

        def add(running: _Running, token: int, logits: bool) -> None:
            nonlocal n
            stream = self._streams[running.stream]
            batch.token[n] = token
            batch.pos[n] = len(stream)
            batch.n_seq_id[n] = 1
            batch.seq_id[n][0] = running.stream
            batch.logits[n] = logits
            stream.append(token)
            if logits:
                outputs.append((running, n))
            n += 1

        # copies between streams first, while every stream's token list is what its KV holds
        ready = [r for r in self._running if r.pending and self._ready_to_prefill(r)]
        for running in self._running:
            if running.next_token is not None:
                add(running, running.next_token, True)
                running.next_token = None
        generating = n
        for running in ready:
            if n < self.n_batch:
                chunk = running.pending[: self.n_batch - n]
                running.pending = running.pending[len(chunk):]
                for i, token in enumerate(chunk):
                    add(running, token, not running.pending and i == len(chunk) - 1)
        if n == 0:
            return
        if self._watch is not None and self._watch.update() != self.threads:
            self.threads = self._watch.threads
            self._api.llama_set_n_threads(self._ctx, self.threads, self.threads)
        batch.n_tokens = n
        start = time.perf_counter()
        code = self._api.llama_decode(self._ctx, batch)
        seconds = time.perf_counter() - start
        if code != 0:
            raise RuntimeError(f"llama_decode returned {code} (KV cache full or aborted)")
        stats["steps"] += 1
        stats["decode_s"] += seconds
        stats["generated_tokens"] += generating
        stats["prompt_tokens"] += n - generating
        if n > generating:
            stats["prefill_steps"] += 1
            stats["prefill_s"] += seconds
        start = time.perf_counter()
        for running, index in outputs:
            need = 1 if running.job.temperature <= 0 else running.job.top_k
            self._advance(running, self._sampling.sample(running.chain, running.grammar, need,
                                                         index))
        stats["sample_s"] += time.perf_counter() - start

    def _advance(self, running: _Running, token: int) -> None:
        job = running.job
        if self._api.llama_vocab_is_eog(self._vocab, token):
            self._finish(running, "stop")
            return
        job.generated.append(token)
        job.text += self._token_bytes(token)
        if job.stop:
            text = job.text.decode("utf-8", errors="ignore")
            cuts = [text.find(s) for s in job.stop if s in text]
            if cuts:
                job.text = bytearray(text[: min(cuts)].encode("utf-8"))
                self._finish(running, "stop")
                return
        if len(job.generated) >= job.max_tokens:
            self._finish(running, "length")
            return
        running.next_token = token

    def _token_bytes(self, token: int) -> bytes:
        size = self._api.llama_token_to_piece(self._vocab, token, self._piece,
                                              len(self._piece), 0, False)
        if size < 0:
            bigger = ctypes.create_string_buffer(-size)
            size = self._api.llama_token_to_piece(self._vocab, token, bigger, -size, 0, False)
            return bigger.raw[:size]
        return self._piece.raw[:size]

    def _finish(self, running: _Running, reason: str) -> None:
        self._sampling.free(running.chain, running.grammar)
        self._running.remove(running)
        running.job.finish_reason = reason
        running.job.future.set_result(running.job)


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    if n == 0:
        return 0
    left = np.asarray(a[:n]) != np.asarray(b[:n])
    mismatch = np.flatnonzero(left)
    return int(mismatch[0]) if len(mismatch) else n
