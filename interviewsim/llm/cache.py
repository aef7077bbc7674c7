"""The content-addressed response cache that sits in front of every provider.

A key is the SHA-256 of the canonical JSON of everything that determines an answer: the
provider's identity (kind, base URL, model — for a GGUF file its content hash, not its path),
the messages, the output constraint, temperature, seed, max tokens and sample index. Nothing
else enters it: not the API key, not timeouts, not concurrency, so changing those never
invalidates a response. Errors are never stored; any text is, parseable or not, because it is
the model's answer. Storage is :class:`~interviewsim.llm.kvstore.SqliteStore`.
"""

from __future__ import annotations

import json
import os
import threading
import weakref
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from interviewsim.data.jsonio import canonical_json, read_jsonl, sha256_hex, write_jsonl_atomic
from interviewsim.llm.kvstore import SqliteStore
from interviewsim.llm.types import ChatRequest, ChatResult

CACHE_FORMAT = 1
"""Bumped when the key recipe or the stored value changes meaning, so old entries stop matching."""

_STORED_FIELDS = {"text", "finish_reason", "usage", "latency_s", "model"}

TRACE_ENV = "INTERVIEWSIM_CACHE_TRACE"
"""When set to a file path, every key a run reads or stores is appended there, one per line:
the exact set of responses a run needs (``make lock`` ships just those)."""


def _trace(keys: Sequence[str]) -> None:
    path = os.environ.get(TRACE_ENV)
    if path and keys:
        with open(path, "a", encoding="utf-8") as handle:  # O_APPEND: safe across processes
            handle.write("".join(f"{key}\n" for key in keys))


def cache_key(identity: Mapping[str, str], request: ChatRequest) -> str:
    """The key of one request sent to the provider described by ``identity``."""
    payload = {
        "format": CACHE_FORMAT,
        "identity": dict(identity),
        "messages": [[m.role, m.content] for m in request.messages],
        "constraint": request.constraint.model_dump() if request.constraint else None,
        "temperature": float(request.temperature),
        "seed": request.seed,
        "max_tokens": request.max_tokens,
        "sample_index": request.sample_index,
    }
    return sha256_hex(canonical_json(payload))


@dataclass(frozen=True)
class CacheStats:
    """What ``interviewsim cache stats`` reports."""

    entries: int
    size_bytes: int
    per_model: dict[str, dict[str, int]]
    """``{"provider/model": {"hits": n, "misses": m}}`` accumulated over every run."""


def _flush_counts(store: SqliteStore, pending: Counter[tuple[str, str]],
                  lock: threading.Lock) -> None:
    with lock:
        counts = {name: value for name, value in pending.items() if value}
        pending.clear()
    if counts:
        store.add_counts(counts)


class ResponseCache:
    """Maps cache keys to :class:`ChatResult` values, and counts hits and misses per model.

    Hit and miss counts are kept in memory and written with the next stored results (same
    transaction), on :meth:`close`, or at interpreter exit, so a batch answered entirely from
    the cache writes nothing and costs no disk I/O.
    """

    def __init__(self, path: str | Path):
        self.store = SqliteStore(path)
        self._pending: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()
        self._flush = weakref.finalize(self, _flush_counts, self.store, self._pending, self._lock)

    def _take_counts(self) -> dict[tuple[str, str], int]:
        with self._lock:
            counts = {name: value for name, value in self._pending.items() if value}
            self._pending.clear()
        return counts

    @staticmethod
    def _load(key: str, value: str | bytes) -> ChatResult:
        result = ChatResult.model_validate_json(value)
        return result.model_copy(update={"cached": True, "cache_key": key})

    def lookup(self, keys: Sequence[str]) -> dict[str, ChatResult]:
        """Stored results for the keys that have one, marked ``cached``."""
        found = {key: self._load(key, value) for key, value in self.store.get_many(keys).items()}
        _trace(sorted(found))
        return found

    def contains(self, keys: Sequence[str]) -> set[str]:
        return self.store.contains_many(keys)

    def store_results(self, results: Mapping[str, ChatResult]) -> dict[str, ChatResult]:
        """Store fresh results durably; returns the stored result for any key another process
        stored first, which the caller should use instead of its own (first writer wins)."""
        values = {
            key: canonical_json(result.model_dump(mode="json", include=_STORED_FIELDS))
            for key, result in results.items()
        }
        winners = self.store.put_many(values, self._take_counts())
        _trace(sorted(values))
        return {key: self._load(key, value) for key, value in winners.items()}

    def record(self, model: str, hits: int, misses: int) -> None:
        """Add one batch's hits and misses to the per-model counters (written later)."""
        with self._lock:
            self._pending[(model, "hits")] += hits
            self._pending[(model, "misses")] += misses

    def export_jsonl(self, path: str | Path, keys: set[str] | None = None) -> int:
        """Write the entries (all, or those in ``keys``) to a JSON Lines file sorted by key,
        one ``{"key", "value"}`` record a line: byte-identical for the same entries, diffable,
        and free of counters. Returns how many were written."""
        wanted = sorted(keys) if keys is not None else self.store.keys()
        found = self.store.get_many(wanted)
        missing = [key for key in wanted if key not in found]
        if missing:
            raise KeyError(f"{len(missing)} requested keys are not in the cache, e.g. "
                           f"{missing[0]}")
        records = ({"key": key, "value": json.loads(found[key])} for key in wanted)
        return write_jsonl_atomic(path, records)

    def merge_jsonl(self, path: str | Path) -> int:
        """Add the entries of an :meth:`export_jsonl` file that this cache lacks."""
        values = {str(record["key"]): canonical_json(record["value"])
                  for record in read_jsonl(path)}
        return len(values) - len(self.store.put_many(values))

    def stats(self) -> CacheStats:
        self.store.add_counts(self._take_counts())
        return CacheStats(len(self.store), self.store.size_bytes(), self.store.counts())

    def close(self) -> None:
        self._flush()
        self.store.close()
