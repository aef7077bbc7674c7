"""A whole stage in as few Batch API batches as the API allows: submit first, collect later.

With ``batch: true`` alone, a stage sends one batch per ``complete_many`` (a personality at a
time in generate and judge) and waits for each before the next: at paper scale that is a
thousand sequential waits of up to 24 hours. Submit mode instead runs the stage's dry-run
enumeration (every first-attempt request, exactly as the stage will build it) with a spool
attached to the hub: each uncached request becomes one line of a batch file on disk, and a
file is submitted whenever it reaches ``batch_max_requests`` lines or :data:`MAX_FILE_BYTES`
(the API's limits), so memory stays bounded and the whole stage is in flight at once.
``collect`` later downloads every finished batch into the response cache; the stage then
runs from the cache, and only what the batches could not answer (re-asks, error lines,
second steps such as MCQs written from atomic items) is sent as the stage goes.

The ledger (``<cache dir>/batches/pending.sqlite``) maps each submitted request's cache key to
its batch, so a second ``submit`` sends nothing that is already in flight, and a batch that
failed or expired is forgotten by ``collect`` so its requests can be submitted again. Each
submitted batch also has a record under ``<cache dir>/batches/submitted/``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from interviewsim.errors import ConfigError
from interviewsim.llm.kvstore import connect_shared
from interviewsim.llm.openai_batch import (
    ENDPOINT,
    FINAL,
    OpenAIBatchProvider,
)
from interviewsim.llm.types import ChatRequest

if TYPE_CHECKING:
    from interviewsim.llm.client import ModelClient
    from interviewsim.llm.hub import ModelHub

MAX_FILE_BYTES = 190 * 1024 * 1024
"""Below the Batch API's 200 MB input-file limit, with room for the multipart envelope."""
SPOOLING = "spooling"
"""Ledger value of a key written to a batch file that has not been submitted yet."""


def batches_dir(cache_path: str) -> Path:
    return Path(os.path.dirname(cache_path) or ".") / "batches"


class PendingLedger:
    """Cache keys in flight, by batch id (SQLite; millions of keys stay on disk)."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = connect_shared(path, isolation_level="")  # implicit transactions, commit()
        self._db.execute("CREATE TABLE IF NOT EXISTS pending "
                         "(key TEXT PRIMARY KEY, batch TEXT NOT NULL)")
        self._db.execute("CREATE INDEX IF NOT EXISTS pending_batch ON pending (batch)")
        self._db.commit()

    def in_flight(self, keys: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(keys), 500):
            chunk = list(keys[start:start + 500])
            marks = ",".join("?" * len(chunk))
            found.update(row[0] for row in self._db.execute(
                f"SELECT key FROM pending WHERE key IN ({marks})", chunk))
        return found

    def mark(self, keys: Iterable[str], batch: str) -> None:
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO pending VALUES (?, ?)",
                                 ((key, batch) for key in keys))

    def rename(self, old: str, new: str) -> None:
        with self._db:
            self._db.execute("UPDATE pending SET batch = ? WHERE batch = ?", (new, old))

    def forget(self, batch: str) -> int:
        with self._db:
            return self._db.execute("DELETE FROM pending WHERE batch = ?", (batch,)).rowcount

    def forget_unsubmitted(self) -> None:
        """Drop keys a run spooled but died before submitting: they were never sent."""
        with self._db:
            self._db.execute("DELETE FROM pending WHERE batch LIKE ?", (f"{SPOOLING}:%",))

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM pending").fetchone()[0])

    def close(self) -> None:
        self._db.close()


_SUBMIT_BATCHES: ContextVar[bool] = ContextVar("submit_batches", default=False)
_SUBMITTED: list[dict[str, Any]] = []
"""Records of the batches submitted by hubs closed in this process (for the submit report)."""


def submitted_batches() -> list[dict[str, Any]]:
    """The batch records submitted so far by this process, oldest first."""
    return list(_SUBMITTED)


@contextmanager
def submitting_batches() -> Iterator[None]:
    """Hubs built inside this block spool every planned cache miss into Batch API batches: a
    stage's ``--dry-run`` becomes its submission."""
    token = _SUBMIT_BATCHES.set(True)
    try:
        yield
    finally:
        _SUBMIT_BATCHES.reset(token)


def submit_mode() -> bool:
    """Whether a hub built now spools its misses (inside :func:`submitting_batches`)."""
    return _SUBMIT_BATCHES.get()


@dataclass
class _OpenFile:
    provider: OpenAIBatchProvider
    model: str
    path: Path
    out: BinaryIO
    tag: str
    lines: int = 0
    size: int = 0


class BatchSpool:
    """Collects requests into batch files per (provider, model) and submits them when full."""

    def __init__(self, hub: ModelHub):
        self.hub = hub
        self.root = batches_dir(hub.settings.cache_path)
        self.ledger = PendingLedger(self.root / "pending.sqlite")
        self._files: dict[tuple[str, str], _OpenFile] = {}
        self.submitted: list[dict[str, Any]] = []
        self.skipped_in_flight = 0
        self.ledger.forget_unsubmitted()

    def add(self, client: ModelClient, misses: Mapping[str, ChatRequest]) -> None:
        """Spool the requests that are neither cached (the caller checked) nor in flight."""
        if not misses:
            return
        provider = client.provider
        if not isinstance(provider, OpenAIBatchProvider):
            raise ConfigError([f"providers.{client.settings.provider}: batch submission needs "
                               "an openai provider with `batch: true`; set it, or run the "
                               "stage directly"])
        flying = self.ledger.in_flight(list(misses))
        self.skipped_in_flight += len(flying)
        model = client.settings.model
        limit = provider.settings.batch_max_requests
        marks: list[str] = []
        handle = None
        for key, request in misses.items():
            if key in flying:
                continue
            handle = handle or self._file(provider, model)
            data = (json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT,
                                "body": provider._body(model, request)},
                               sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
            if handle.lines and (handle.lines >= limit or handle.size + len(data) > MAX_FILE_BYTES):
                self.ledger.mark(marks, handle.tag)  # before the submit renames the tag
                marks = []
                self._submit(handle)
                handle = self._file(provider, model)
            handle.out.write(data)
            handle.lines += 1
            handle.size += len(data)
            marks.append(key)
        if handle is not None:
            self.ledger.mark(marks, handle.tag)

    def _file(self, provider: OpenAIBatchProvider, model: str) -> _OpenFile:
        slot = (provider.name, model)
        if slot not in self._files:
            spool = self.root / "spool"
            spool.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix="batch-", suffix=".jsonl", dir=spool)
            self._files[slot] = _OpenFile(provider, model, Path(name), os.fdopen(fd, "wb"),
                                          f"{SPOOLING}:{Path(name).name}")
        return self._files[slot]

    def _submit(self, handle: _OpenFile) -> None:
        handle.out.close()
        record = self.hub.run(handle.provider.submit_file(handle.model, handle.path,
                                                          handle.lines))
        self.ledger.rename(handle.tag, record["batch_id"])
        path = self.root / "submitted" / f"{record['batch_id']}.json"
        handle.provider._save(path, record)
        handle.path.unlink()
        self.submitted.append(record)
        del self._files[(handle.provider.name, handle.model)]

    def close(self) -> None:
        """Submit every file still open; the batches submitted join this process's record
        (:func:`submitted_batches`)."""
        try:
            for handle in list(self._files.values()):
                self._submit(handle)
        finally:
            self.ledger.close()
            _SUBMITTED.extend(self.submitted)


@dataclass
class Collected:
    batch_id: str
    provider: str
    model: str
    status: str
    requests: int
    answered: int = 0


def collect_batches(hub: ModelHub) -> list[Collected]:
    """Every submitted batch: a finished one is downloaded into the response cache and
    forgotten; a failed, expired or cancelled one is forgotten (its requests can be submitted
    again, or go through the chat endpoint when the stage runs); a running one is left."""
    root = batches_dir(hub.settings.cache_path)
    records = sorted((root / "submitted").glob("*.json"))
    if not records:
        return []
    ledger = PendingLedger(root / "pending.sqlite")
    report: list[Collected] = []
    try:
        for path in records:
            record = json.loads(path.read_text(encoding="utf-8"))
            provider = hub.provider(record["provider"])
            if not isinstance(provider, OpenAIBatchProvider):
                raise ConfigError([f"providers.{record['provider']}: {path} is a batch of "
                                   "this provider, which no longer has `batch: true`"])
            status, results = hub.run(provider.fetch(record["batch_id"], record["model"]))
            row = Collected(record["batch_id"], record["provider"], record["model"], status,
                            record["requests"])
            if status in FINAL:
                if results:
                    stored = {key: result.model_copy(update={"cache_key": key})
                              for key, result in results.items()}
                    hub.cache.store_results(stored)
                    row.answered = len(stored)
                ledger.forget(record["batch_id"])
                path.unlink()
            report.append(row)
    finally:
        ledger.close()
    return report


def pending_summary(report: Sequence[Collected]) -> tuple[int, int]:
    """(batches still running, their requests)."""
    running = [r for r in report if r.status not in FINAL]
    return len(running), sum(r.requests for r in running)

