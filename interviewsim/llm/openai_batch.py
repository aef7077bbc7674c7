"""The OpenAI Batch API as a provider mode (``batch: true`` on an ``openai`` provider).

A batch of cache misses is written as batch JSONL (one ``/v1/chat/completions`` body per line,
``custom_id`` = the cache key), uploaded through the Files API, submitted with
``POST /v1/batches``, polled with doubling waits up to ``batch_poll_max_s``, and its output
file downloaded; the hub stores every answer in the response cache like any other result, so
the stage then completes from the cache. Lines the batch could not answer (an error line, a
missing line) go through the ordinary chat endpoint with its retries.

Submitting twice is avoided: the batch id is recorded under ``<cache dir>/batches/`` in a file
named by a hash of the model and the request keys, before the wait starts. A stage that is
interrupted, or that gives up waiting after ``batch_max_wait_s`` (exit 2, "rerun to resume"),
finds the record on its next run and resumes polling the same batch; a batch that failed,
expired or was cancelled is forgotten and submitted afresh.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from interviewsim.config.settings import OpenAIProviderSettings
from interviewsim.data.jsonio import sha256_hex
from interviewsim.errors import ProviderError
from interviewsim.llm.openai_provider import OpenAIProvider
from interviewsim.llm.types import ChatRequest, ChatResult, Usage

ENDPOINT = "/v1/chat/completions"
FINAL = {"completed", "failed", "expired", "cancelled"}
RESUBMIT = {"failed", "expired", "cancelled"}


def batch_lines(bodies: Mapping[str, dict[str, Any]]) -> bytes:
    """Batch input JSONL: one request per line, ``custom_id`` = cache key, sorted by it."""
    lines = [json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body},
                        sort_keys=True, ensure_ascii=False) for key, body in sorted(bodies.items())]
    return ("\n".join(lines) + "\n").encode("utf-8")


def parse_output(text: str, model: str) -> dict[str, ChatResult]:
    """Answers of a batch output file by ``custom_id``; error or malformed lines are skipped
    (their requests are then sent through the chat endpoint)."""
    results: dict[str, ChatResult] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            response = record.get("response") or {}
            if record.get("error") or response.get("status_code") != 200:
                continue
            body = response["body"]
            choice = body["choices"][0]
            usage = body.get("usage") or {}
            results[str(record["custom_id"])] = ChatResult(
                text=choice["message"].get("content") or "",
                finish_reason=choice.get("finish_reason"),
                usage=Usage(prompt_tokens=usage.get("prompt_tokens") or 0,
                            completion_tokens=usage.get("completion_tokens") or 0),
                model=model,
            )
        except (ValueError, LookupError, TypeError, AttributeError):
            continue
    return results


class OpenAIBatchProvider(OpenAIProvider):
    """An OpenAI provider whose batches go through the Batch API (see the module doc)."""

    def __init__(self, settings: OpenAIProviderSettings, name: str, cache_dir: str):
        super().__init__(settings, name)
        self.state_dir = Path(cache_dir) / "batches"

    def record_path(self, model: str, keys: list[str]) -> Path:
        """Where the batch of these requests is recorded once submitted."""
        digest = sha256_hex(json.dumps([self.name, model, sorted(keys)]))[:32]
        return self.state_dir / f"{digest}.json"

    def _save(self, path: Path, state: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(state, handle, indent=2, sort_keys=True)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)

    async def _create(self, model: str, data: bytes, requests: int) -> dict[str, Any]:
        """Upload batch JSONL and create its batch; the record to keep for it."""
        client = self.client()
        upload = await client.files.create(file=("batch.jsonl", data), purpose="batch")
        batch = await client.batches.create(input_file_id=upload.id, endpoint=ENDPOINT,
                                            completion_window="24h")
        return {"batch_id": batch.id, "input_file_id": upload.id, "model": model,
                "provider": self.name, "requests": requests, "submitted_at": time.time()}

    async def _submit(self, model: str, requests: Mapping[str, ChatRequest], path: Path) -> str:
        data = batch_lines({key: self._body(model, r) for key, r in requests.items()})
        record = await self._create(model, data, len(requests))
        self._save(path, record)
        return str(record["batch_id"])

    async def submit_file(self, model: str, path: Path, requests: int) -> dict[str, Any]:
        """Submit a batch JSONL file written by the spool (interviewsim/llm/batch_spool.py)."""
        return await self._create(model, path.read_bytes(), requests)

    async def fetch(self, batch_id: str, model: str) -> tuple[str, dict[str, ChatResult]]:
        """One status check; a completed batch's answers by cache key (else none)."""
        client = self.client()
        batch = await client.batches.retrieve(batch_id)
        if batch.status != "completed" or not batch.output_file_id:
            return str(batch.status), {}
        content = await client.files.content(batch.output_file_id)
        return "completed", parse_output(content.text, model)

    async def complete_batch(self, model: str, requests: Mapping[str, ChatRequest]
                             ) -> dict[str, ChatResult]:
        """Answers by cache key for the requests the batch answered (maybe not all)."""
        client = self.client()
        path = self.record_path(model, list(requests))
        batch_id = None
        if path.exists():
            batch_id = json.loads(path.read_text(encoding="utf-8"))["batch_id"]
            batch = await client.batches.retrieve(batch_id)
            if batch.status in RESUBMIT:
                path.unlink()
                batch_id = None
        if batch_id is None:
            batch_id = await self._submit(model, requests, path)
            batch = await client.batches.retrieve(batch_id)
        start, delay = time.monotonic(), self.settings.batch_poll_initial_s
        while batch.status not in FINAL:
            if time.monotonic() - start + delay > self.settings.batch_max_wait_s:
                raise ProviderError(
                    f"provider {self.name!r}: batch {batch_id} is still {batch.status} after "
                    f"{time.monotonic() - start:.0f}s; rerun the stage to resume waiting for "
                    f"it (recorded in {path})")
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.settings.batch_poll_max_s)
            batch = await client.batches.retrieve(batch_id)
        if batch.status != "completed":
            path.unlink(missing_ok=True)
            raise ProviderError(f"provider {self.name!r}: batch {batch_id} {batch.status}; "
                                "rerun the stage to submit its requests again")
        if not batch.output_file_id:
            return {}
        content = await client.files.content(batch.output_file_id)
        return parse_output(content.text, model)
