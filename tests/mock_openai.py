"""A programmable OpenAI-compatible HTTP server on 127.0.0.1, for tests and benchmarks.

It serves ``POST /v1/chat/completions`` and ``POST /v1/embeddings`` with deterministic answers
a fixed latency after each request arrives (its own work happens within it), and injects queued faults: 429 with Retry-After, any 5xx, a read timeout
(it sleeps past the client's timeout), a dropped connection, a malformed JSON body, an empty
``choices`` list, and ``finish_reason: length``. Each queued fault is used by one request (the
first whose body contains its ``match`` text, when given). It counts requests per path, keeps
the last bodies it received, and logs every exchange (path, a hash of the body, outcome), so a
test can prove which calls were answered and which were sent again. :meth:`MockOpenAI.hold_after`
stops answering after N completed chat calls (later requests wait, unanswered), so a test can
kill a client at a known point. It is bounded: an ephemeral loopback port, a request-body
limit, a capped request log, and a lifetime after which it stops by itself.
:func:`contract_answer` answers every InterviewSim prompt in its output contract, so whole
stages run against the server.

In-process (tests)::

    with MockOpenAI(latency_s=0.0) as server:
        server.enqueue(Fault.rate_limit(retry_after=0.2), Fault.http(500))
        ... OpenAI(base_url=server.base_url) ...
        assert server.count("/v1/chat/completions") == 3
        assert len(server.answered()) == 1   # body hashes of the completed calls

As a separate process (benchmarks, so the server does not share the client's GIL)::

    python tests/mock_openai.py --latency 0.1   # prints the base URL, serves until stdin closes
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import importlib
import json
import subprocess
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

FaultKind = Literal["status", "timeout", "drop", "malformed", "empty_choices", "length"]
CHAT = "/v1/chat/completions"
_REASONS = {200: "OK", 404: "Not Found", 413: "Payload Too Large", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}


@dataclass(frozen=True)
class Fault:
    """One injected misbehaviour, consumed by one request."""

    kind: FaultKind
    status: int = 500
    retry_after: float | None = None
    sleep_s: float = 0.0
    match: str | None = None
    echo_auth: bool = False
    """For an error status: quote the request's Authorization header in the error message,
    as a careless proxy might (the client must not repeat it)."""

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0, match: str | None = None) -> Fault:
        return cls("status", status=429, retry_after=retry_after, match=match)

    @classmethod
    def http(cls, status: int = 500, retry_after: float | None = None,
             match: str | None = None, echo_auth: bool = False) -> Fault:
        """An error status (500, 502, 503, 400, ...), optionally with Retry-After."""
        return cls("status", status=status, retry_after=retry_after, match=match,
                   echo_auth=echo_auth)

    @classmethod
    def timeout(cls, sleep_s: float = 5.0, match: str | None = None) -> Fault:
        return cls("timeout", sleep_s=sleep_s, match=match)

    @classmethod
    def drop(cls, match: str | None = None) -> Fault:
        return cls("drop", match=match)

    @classmethod
    def malformed(cls, match: str | None = None) -> Fault:
        return cls("malformed", match=match)

    @classmethod
    def empty_choices(cls, match: str | None = None) -> Fault:
        return cls("empty_choices", match=match)

    @classmethod
    def length(cls, match: str | None = None) -> Fault:
        return cls("length", match=match)


def echo(body: dict[str, Any]) -> str:
    """Default answer: ``echo: `` and the last user message."""
    users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
    return f"echo: {users[-1] if users else ''}"


def request_key(body: dict[str, Any]) -> str:
    """The identity of one call in the log: SHA-256 of the body's canonical JSON."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Exchange:
    """One request as the server saw it: ``outcome`` is ``ok``, ``held`` (never answered) or
    the fault it got (``429``, ``503``, ``timeout``, ``drop``, ``malformed``, ...)."""

    seq: int
    path: str
    key: str
    outcome: str
    at: float
    """``time.monotonic()`` when the request arrived."""

    @property
    def answered(self) -> bool:
        """The client received an answer it may keep (a truncated one included)."""
        return self.outcome in ("ok", "length")


def contract_answer(body: dict[str, Any]) -> str:
    """A valid, deterministic answer to any InterviewSim prompt, in the contract its system
    message asks for: the offline model (:mod:`interviewsim.experiment.offline_responder`)
    answering the request body. Values vary with a hash of the user message, so metrics are
    not all equal."""
    from interviewsim.experiment.offline_responder import respond_to_body

    return respond_to_body(body)


def fake_embedding(text: str, dims: int = 16) -> list[float]:
    """A deterministic unit-free vector derived from the text's hash."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [(digest[i % len(digest)] - 127.5) / 127.5 for i in range(dims)]


class MockOpenAI:
    """The server; start with ``with`` or :meth:`start`, stop with :meth:`stop`."""

    def __init__(self, latency_s: float = 0.0, responder: Callable[[dict], str] = echo,
                 max_body_bytes: int = 4 << 20, log_size: int = 1000,
                 lifetime_s: float = 900.0):
        self.latency_s = latency_s
        self.responder = responder
        self.max_body_bytes = max_body_bytes
        self.lifetime_s = lifetime_s
        self.bodies: deque[dict[str, Any]] = deque(maxlen=log_size)
        self.log: deque[Exchange] = deque(maxlen=log_size)
        self.faults_used: Counter[str] = Counter()
        self._counts: Counter[str] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: list[Fault] = []
        self._seq = 0
        self._hold_after: int | None = None
        self._hold_match: str | None = None
        self._chat_answers = 0
        self._release: asyncio.Event | None = None
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task] = set()
        self.port = 0
        self.batch_api = BatchApi(self)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    def count(self, path: str | None = None) -> int:
        """Requests received, on one path or on all."""
        with self._lock:
            return self._counts[path] if path else sum(self._counts.values())

    def pending_faults(self) -> int:
        with self._lock:
            return len(self._faults)

    def mark(self) -> int:
        """A position in the log: pass it to :meth:`exchanges` to see only later requests."""
        with self._lock:
            return self._seq

    def exchanges(self, since: int = 0, path: str | None = CHAT) -> list[Exchange]:
        """Logged requests after ``since`` (a :meth:`mark`), on one path or (None) on all."""
        with self._lock:
            return [e for e in self.log if e.seq > since and (path is None or e.path == path)]

    def answered(self, since: int = 0) -> list[str]:
        """Body hashes of the chat calls answered after ``since``, in order."""
        return [e.key for e in self.exchanges(since) if e.answered]

    def hold_after(self, completed: int | None, match: str | None = None) -> None:
        """Answer ``completed`` more chat calls (only those whose body contains ``match``
        count, when given), then hold every later such call unanswered until :meth:`release`
        (or the server's lifetime ends); None answers everything again."""
        with self._lock:
            self._hold_match = match
            self._hold_after = None if completed is None else self._chat_answers + completed

    def release(self) -> None:
        """Stop holding: held requests get their connection closed, later ones an answer."""
        with self._lock:
            self._hold_after = None
            released, self._release = self._release, asyncio.Event()
        if released is not None:
            self._loop.call_soon_threadsafe(released.set)

    def _log(self, path: str, body: dict[str, Any], outcome: str, arrived: float) -> None:
        with self._lock:
            self._seq += 1
            self.log.append(Exchange(self._seq, path, request_key(body), outcome, arrived))

    def _admit_chat(self, raw: bytes) -> bool:
        """Whether one more chat call may be answered now (counted when it is)."""
        with self._lock:
            if self._hold_match is not None and self._hold_match not in raw.decode("utf-8",
                                                                                    "replace"):
                return True
            if self._hold_after is not None and self._chat_answers >= self._hold_after:
                return False
            self._chat_answers += 1
            return True

    def _take_fault(self, raw_body: bytes) -> Fault | None:
        text = raw_body.decode("utf-8", "replace")
        with self._lock:
            for index, fault in enumerate(self._faults):
                if fault.match is None or fault.match in text:
                    return self._faults.pop(index)
        return None

    def start(self) -> MockOpenAI:
        self._release = asyncio.Event()
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0), self._loop
        ).result()
        self.port = self._server.sockets[0].getsockname()[1]
        self._loop.call_soon_threadsafe(self._loop.call_later, self.lifetime_s, self._shutdown)
        return self

    def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in self._connections:
            task.cancel()

    async def _drain(self) -> None:
        self._shutdown()
        await asyncio.gather(*self._connections, return_exceptions=True)

    def stop(self) -> None:
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._drain(), self._loop).result(10)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
        self._loop.close()

    def __enter__(self) -> MockOpenAI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while await self._one_request(reader, writer):
                pass
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._connections.discard(task)
            writer.close()

    async def _one_request(self, reader: asyncio.StreamReader,
                           writer: asyncio.StreamWriter) -> bool:
        """Serve one request on a keep-alive connection; False when the connection should end."""
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        parts = request_line.split(" ")
        path = parts[1].split("?")[0] if len(parts) > 1 else ""
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        if length > self.max_body_bytes:
            await self._send(writer, 413, {"error": {"message": "body too large"}}, close=True)
            return False
        raw = await reader.readexactly(length)
        with self._lock:
            self._counts[path] += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._respond(writer, path, headers, raw)
        finally:
            self.in_flight -= 1

    async def _latency(self, arrived: float) -> None:
        """Wait until ``latency_s`` after the request arrived: the server's own parsing and
        answering happen within that time instead of adding to it, so a burst of answers due
        at once is not served late by the mock's own CPU."""
        if self.latency_s:
            await asyncio.sleep(max(0.0, arrived + self.latency_s - time.monotonic()))

    async def _respond(self, writer: asyncio.StreamWriter, path: str, headers: dict[str, str],
                       raw: bytes) -> bool:
        arrived = time.monotonic()
        if path.startswith(BatchApi.PREFIXES):
            status, payload = self.batch_api.handle(path, headers, raw)
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            await self._send_raw(writer, status, data, {})
            return True
        fault = self._take_fault(raw)
        if fault is not None:
            self.faults_used[fault.kind if fault.kind != "status" else str(fault.status)] += 1
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            await self._latency(arrived)
            await self._send(writer, 400, {"error": {"message": "body is not JSON"}})
            return True
        self.bodies.append(body)
        if fault is not None:
            self._log(path, body, fault.kind if fault.kind != "status" else str(fault.status),
                      arrived)
        if fault is None and path == CHAT and not self._admit_chat(raw):
            self._log(path, body, "held", arrived)
            released = self._release
            assert released is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(released.wait(), self.lifetime_s)
            return False
        if fault is not None and fault.kind == "timeout":
            await self._latency(arrived)
            await asyncio.sleep(fault.sleep_s)
            return False
        payload = None  # answered before the wait, so the wait is the whole latency
        if fault is None or fault.kind not in ("drop", "status", "malformed"):
            if path == CHAT:
                payload = self._chat(body, fault)
            elif path == "/v1/embeddings":
                payload = self._embeddings(body)
        await self._latency(arrived)
        if fault is not None and fault.kind == "drop":
            writer.transport.abort()
            return False
        if fault is not None and fault.kind == "status":
            extra = {} if fault.retry_after is None else {"Retry-After": f"{fault.retry_after:g}"}
            message = f"injected {fault.status}"
            if fault.echo_auth:
                message += f" for Authorization: {headers.get('authorization', '')}"
            error = {"error": {"message": message, "type": "mock"}}
            await self._send(writer, fault.status, error, extra)
            return True
        if fault is not None and fault.kind == "malformed":
            await self._send_raw(writer, 200, b'{"id": "chatcmpl-broken", "choices": [', {})
            return True
        if payload is None:
            await self._send(writer, 404, {"error": {"message": f"no route {path}"}})
            return True
        if fault is None:
            self._log(path, body, "ok", arrived)
        await self._send(writer, 200, payload)
        return headers.get("connection", "").lower() != "close"

    def _chat(self, body: dict[str, Any], fault: Fault | None) -> dict[str, Any]:
        text = self.responder(body)
        finish = "stop"
        if fault is not None and fault.kind == "length":
            text, finish = text[: max(1, len(text) // 2)], "length"
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        choices = [] if fault is not None and fault.kind == "empty_choices" else [
            {"index": 0, "message": {"role": "assistant", "content": text},
             "finish_reason": finish, "logprobs": None}
        ]
        usage = {"prompt_tokens": prompt_chars // 4 + 1, "completion_tokens": len(text) // 4 + 1}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return {"id": "chatcmpl-mock", "object": "chat.completion", "created": 0,
                "model": body.get("model", "mock"), "choices": choices, "usage": usage}

    @staticmethod
    def _embeddings(body: dict[str, Any]) -> dict[str, Any]:
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else texts
        data = [{"object": "embedding", "index": i, "embedding": fake_embedding(str(t))}
                for i, t in enumerate(texts)]
        tokens = sum(len(str(t)) // 4 + 1 for t in texts)
        return {"object": "list", "data": data, "model": body.get("model", "mock"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}

    async def _send(self, writer: asyncio.StreamWriter, status: int, payload: dict[str, Any],
                    extra_headers: dict[str, str] | None = None, close: bool = False) -> None:
        headers = dict(extra_headers or {})
        if close:
            headers["Connection"] = "close"
        await self._send_raw(writer, status, json.dumps(payload).encode("utf-8"), headers)

    @staticmethod
    async def _send_raw(writer: asyncio.StreamWriter, status: int, data: bytes,
                        headers: dict[str, str]) -> None:
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
                 "Content-Type: application/json", f"Content-Length: {len(data)}",
                 *(f"{name}: {value}" for name, value in headers.items())]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data)
        await writer.drain()


class BatchApi:
    """``/v1/files`` and ``/v1/batches`` of the mock: upload (multipart), content download,
    batch create and retrieve. A batch completes on its ``polls_to_complete``-th retrieve (its
    lines answered like chat calls, without latency or faults), or fails when ``fail`` is set;
    custom ids in ``error_ids`` get an error line instead of an answer."""

    PREFIXES = ("/v1/files", "/v1/batches")

    def __init__(self, server: MockOpenAI):
        self.server = server
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.polls: Counter[str] = Counter()
        self.polls_to_complete = 1
        self.fail = False
        self.error_ids: set[str] = set()
        self.created = 0

    def _file(self, data: bytes, name: str) -> dict[str, Any]:
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = data
        return {"id": file_id, "object": "file", "bytes": len(data), "created_at": 0,
                "filename": name, "purpose": "batch", "status": "processed"}

    def handle(self, path: str, headers: dict[str, str], raw: bytes
               ) -> tuple[int, dict[str, Any] | bytes]:
        parts = path.strip("/").split("/")  # v1, files|batches, [id], [content]
        if parts[1] == "files" and len(parts) == 2:
            boundary = headers.get("content-type", "").partition("boundary=")[2].strip('"')
            for part in raw.split(b"--" + boundary.encode()):
                head, _, data = part.partition(b"\r\n\r\n")
                if b'name="file"' in head:
                    return 200, self._file(data.removesuffix(b"\r\n"), "batch.jsonl")
            return 400, {"error": {"message": "no file part"}}
        if parts[1] == "files" and len(parts) == 4 and parts[2] in self.files:
            return 200, self.files[parts[2]]
        if parts[1] == "batches" and len(parts) == 2:
            body = json.loads(raw or b"{}")
            if body.get("input_file_id") not in self.files:
                return 400, {"error": {"message": "unknown input_file_id"}}
            self.created += 1
            batch_id = f"batch_{self.created}"
            self.batches[batch_id] = {
                "id": batch_id, "object": "batch", "endpoint": body.get("endpoint"),
                "input_file_id": body["input_file_id"], "created_at": 0,
                "completion_window": body.get("completion_window", "24h"),
                "status": "validating", "output_file_id": None, "error_file_id": None}
            return 200, self.batches[batch_id]
        if parts[1] == "batches" and len(parts) == 3 and parts[2] in self.batches:
            batch = self.batches[parts[2]]
            self.polls[parts[2]] += 1
            if batch["status"] in ("validating", "in_progress"):
                if self.fail:
                    batch["status"] = "failed"
                elif self.polls[parts[2]] >= self.polls_to_complete:
                    self._run(batch)
                else:
                    batch["status"] = "in_progress"
            return 200, batch
        return 404, {"error": {"message": f"no route {path}"}}

    def _run(self, batch: dict[str, Any]) -> None:
        lines = []
        for line in self.files[batch["input_file_id"]].decode("utf-8").splitlines():
            request = json.loads(line)
            custom_id = request["custom_id"]
            if custom_id in self.error_ids:
                lines.append({"id": f"r-{custom_id}", "custom_id": custom_id, "response": None,
                              "error": {"code": "server_error", "message": "injected"}})
                continue
            body = self.server._chat(request["body"], None)
            lines.append({"id": f"r-{custom_id}", "custom_id": custom_id, "error": None,
                          "response": {"status_code": 200, "request_id": "mock", "body": body}})
        data = "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")
        batch["output_file_id"] = self._file(data, "output.jsonl")["id"]
        batch["status"] = "completed"


@contextlib.contextmanager
def separate_process(*args: str, env: dict[str, str] | None = None
                     ) -> Iterator[tuple[str, subprocess.Popen]]:
    """The server in a process of its own (so it does not share the caller's interpreter
    lock), started with this module's command-line ``args``: yields its base URL and the
    process, and stops it on exit (benchmarks)."""
    process = subprocess.Popen([sys.executable, __file__, *args], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip(), process
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)


def _trace(server: MockOpenAI, path: str, stop: threading.Event) -> None:
    with open(path, "a", encoding="utf-8") as out:
        while not stop.wait(0.05):
            out.write(f"{time.time():.3f} {server.in_flight}\n")
            out.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--lifetime", type=float, default=900.0, help="seconds until it stops")
    parser.add_argument("--responder", default=None,
                        help="module:function answering each chat body (default: echo)")
    parser.add_argument("--trace", default=None,
                        help="append 'unix time, requests in flight' every 50 ms to this file")
    args = parser.parse_args()
    responder = echo
    if args.responder:
        module, _, name = args.responder.partition(":")
        responder = getattr(importlib.import_module(module), name)
    stdin_closed = threading.Event()
    with MockOpenAI(latency_s=args.latency, lifetime_s=args.lifetime,
                    responder=responder) as server:
        print(server.base_url, flush=True)
        threading.Thread(target=lambda: (sys.stdin.read(), stdin_closed.set()), daemon=True).start()
        if args.trace:
            threading.Thread(target=_trace, args=(server, args.trace, stdin_closed),
                             daemon=True).start()
        stdin_closed.wait(args.lifetime)  # serve until the parent closes our stdin, or time is up


if __name__ == "__main__":
    main()
