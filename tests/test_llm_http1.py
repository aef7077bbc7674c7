"""The seam's HTTP/1.1 client (interviewsim/llm/http1.py) against a server that sends exactly
the bytes a test scripts: every body framing, interim responses, connection reuse and the
ways a connection can end badly."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from interviewsim.llm.http1 import Http1Pool, ProtocolError

OK = b'{"ok": true}'


def with_length(body: bytes = OK, *headers: str) -> bytes:
    extra = "".join(f"{h}\r\n" for h in headers)
    return (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n{extra}"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


@dataclass
class Step:
    """One scripted response: byte pieces sent with a pause between them, then maybe close."""

    pieces: list[bytes]
    close: bool = False
    pause_s: float = 0.0


@dataclass
class ScriptedServer:
    script: list[Step]
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0
    tasks: set = field(default_factory=set)

    def __post_init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.tasks.add(asyncio.current_task())
        try:
            while self.script:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                self.requests.append(head + await reader.readexactly(length))
                step = self.script.pop(0)
                for i, piece in enumerate(step.pieces):
                    if i and step.pause_s:
                        await asyncio.sleep(step.pause_s)
                    writer.write(piece)
                    await writer.drain()
                if step.close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self.loop).result()
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        async def shutdown() -> None:
            self.server.close()
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


def posts(url: str, count: int, timeout_s: float = 5.0) -> list:
    """``count`` POSTs one after another on one pool; a result or the exception raised."""
    async def run() -> list:
        pool = Http1Pool(url, {"Authorization": "Bearer k"}, timeout_s)
        results = []
        for i in range(count):
            try:
                results.append(await pool.post("/chat/completions", b'{"n": %d}' % i))
            except Exception as exc:  # noqa: BLE001 - the test looks at what was raised
                results.append(exc)
        await pool.close()
        return results
    return asyncio.run(run())


@pytest.fixture
def serve() -> Iterator:
    servers: list[ScriptedServer] = []

    def start(*steps: Step) -> ScriptedServer:
        servers.append(ScriptedServer(list(steps)).__enter__())
        return servers[-1]
    yield start
    for server in servers:
        server.__exit__()


def test_content_length_replies_reuse_one_connection_and_send_the_full_request(serve):
    server = serve(Step([with_length()]), Step([with_length(b'{"second": 1}')]))
    first, second = posts(server.url, 2)
    assert (first.status, first.body, second.body) == (200, OK, b'{"second": 1}')
    assert first.headers["content-type"] == "application/json"
    assert server.connections == 1
    request = server.requests[0]
    assert request.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert b"\r\nAuthorization: Bearer k\r\n" in request and request.endswith(b'{"n": 0}')
    assert b"\r\nHost: 127.0.0.1:" in request and b"Content-Length: 8\r\n" in request


def test_a_chunked_body_trickling_in_byte_by_byte_is_reassembled(serve):
    raw = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"5;ext=1\r\n{\"ok\"\r\n7\r\n: true}\r\n0\r\nX-Trailer: t\r\n\r\n")
    server = serve(Step([raw[i:i + 1] for i in range(len(raw))], pause_s=0.001),
                   Step([with_length()]))
    first, second = posts(server.url, 2)
    assert first.body == OK and second.body == OK
    assert server.connections == 1  # the chunked reply ended cleanly: the connection is reused


def test_interim_100_responses_are_skipped(serve):
    server = serve(Step([b"HTTP/1.1 100 Continue\r\n\r\n" + with_length()]))
    (reply,) = posts(server.url, 1)
    assert (reply.status, reply.body) == (200, OK)


def test_a_body_delimited_by_close_and_connection_close_are_not_reused(serve):
    server = serve(Step([b"HTTP/1.1 200 OK\r\n\r\n", OK], close=True),
                   Step([with_length(OK, "Connection: close")]),
                   Step([with_length()]))
    replies = posts(server.url, 3)
    assert [r.body for r in replies] == [OK, OK, OK]
    assert server.connections == 3


def test_a_connection_the_server_closed_while_idle_is_replaced_without_an_error(serve):
    server = serve(Step([with_length()], close=True), Step([with_length()]))
    replies = posts(server.url, 2)
    assert [r.body for r in replies] == [OK, OK]
    assert server.connections == 2 and len(server.requests) == 2


def test_error_statuses_come_back_as_replies_with_their_headers(serve):
    body = b'{"error": {"message": "slow down"}}'
    raw = (b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\n"
           b"Content-Length: %d\r\n\r\n" % len(body)) + body
    server = serve(Step([raw]))
    (reply,) = posts(server.url, 1)
    assert (reply.status, reply.headers["retry-after"], reply.body) == (429, "2", body)


@pytest.mark.parametrize(("pieces", "error"), [
    ([b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{\"partial\""], ConnectionError),
    ([b"SMTP ready\r\n\r\n"], ProtocolError),
    ([b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"], ProtocolError),
    ([b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n"], ProtocolError),
])
def test_a_broken_reply_is_a_connection_error_for_the_retry_loop(serve, pieces, error):
    server = serve(Step(pieces, close=True))
    (outcome,) = posts(server.url, 1)
    assert isinstance(outcome, error) and isinstance(outcome, OSError)


def test_no_reply_within_the_timeout_raises_timeout_error(serve):
    server = serve(Step([b"HTTP/1.1 200 OK\r\n", b"Content-Length: 2\r\n\r\n{}"], pause_s=2))
    (outcome,) = posts(server.url, 1, timeout_s=0.3)
    assert isinstance(outcome, TimeoutError)


def test_only_http_urls_are_accepted():
    with pytest.raises(ValueError, match="not an http"):
        Http1Pool("ftp://example.org/v1", {}, 1.0)
