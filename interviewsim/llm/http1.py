"""The opt-in HTTP client (``transport: http1``): JSON POSTs over pooled HTTP/1.1 keep-alive
connections. The default transport is the ``openai`` SDK (:mod:`interviewsim.llm.transport`);
this one is for endpoints reached directly at hundreds of requests in flight: it connects
straight to ``base_url`` and ignores ``HTTP_PROXY`` / ``HTTPS_PROXY`` / ``NO_PROXY``.

Chat and embedding calls are one request shape — a POST with a JSON body and a few fixed
headers, answered by a status, headers and a JSON body — sent hundreds at a time. For that
shape a general client's per-request machinery is the cost that matters: aiohttp spent
0.36-0.40 ms of CPU per request against a local endpoint, this client 0.14 ms (4,000 POSTs at
128 in flight, benchmarks/README.md), and the client's CPU is what caps a stage's request
rate. What it implements is what OpenAI-compatible servers send: ``Content-Length`` and
``chunked`` bodies, bodies delimited by the connection closing, interim 1xx responses (skipped),
``Connection: close``, TLS for ``https://``, and one total timeout per request. A pooled
connection the server closed while idle is replaced and the request sent again on a new one,
once, when no byte of a response had arrived. It asks for no compression and follows no
redirects; any other failure is an exception for the retry loop (:mod:`interviewsim.llm.retry`).
TLS uses Python's default context (the system CA store, or what ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` name, which OpenSSL reads).
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit


class ProtocolError(ConnectionError):
    """The server's bytes are not an HTTP/1.1 response this client understands."""


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]
    """Lower-cased names; a repeated header keeps its last value."""
    body: bytes


_HEAD_END = b"\r\n\r\n"
_MAX_HEAD = 64 * 1024


class _Connection(asyncio.Protocol):
    """One TCP (or TLS) connection, carrying one request at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.reusable = True
        self._buffer = bytearray()
        self._waiter: asyncio.Future[Reply] | None = None
        self._head: tuple[int, dict[str, str]] | None = None
        self._framing = ""  # "length", "chunked" or "close"
        self._length = 0
        self._chunks: list[bytes] = []
        self.received = False
        """Whether any byte of the current response has arrived."""

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self._waiter is None:  # nothing asked: a server talking out of turn
            self.reusable = False
            self.close()
            return
        self.received = True
        self._buffer += data
        try:
            reply = self._parse()
        except ProtocolError as exc:
            self._fail(exc)
            return
        if reply is not None:
            self._finish(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.reusable = False
        if self._waiter is None or self._waiter.done():
            return
        if self._head is not None and self._framing == "close":
            status, headers = self._head
            self._finish(Reply(status, headers, bytes(self._buffer)))
        else:
            self._fail(ConnectionError(f"connection closed before the response ended"
                                       f"{f' ({exc})' if exc else ''}"))

    # requests
    def send(self, payload: bytes) -> asyncio.Future[Reply]:
        assert self.transport is not None and self._waiter is None
        self._waiter = asyncio.get_running_loop().create_future()
        self.received = False
        self.transport.write(payload)
        return self._waiter

    def close(self) -> None:
        self.reusable = False
        if self.transport is not None and not self.closed:
            self.transport.close()

    def _finish(self, reply: Reply) -> None:
        waiter, self._waiter = self._waiter, None
        self._head, self._framing, self._chunks = None, "", []
        if waiter is not None and not waiter.done():
            waiter.set_result(reply)

    def _fail(self, exc: Exception) -> None:
        self.close()
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)

    # parsing
    def _parse(self) -> Reply | None:
        while self._head is None:
            end = self._buffer.find(_HEAD_END)
            if end < 0:
                if len(self._buffer) > _MAX_HEAD:
                    raise ProtocolError("response header block over 64 KiB")
                return None
            head = bytes(self._buffer[:end]).decode("latin-1")
            del self._buffer[: end + 4]
            status, headers, version = _parse_head(head)
            if 100 <= status < 200:  # interim response: the real one follows
                continue
            self._head = (status, headers)
            connection = headers.get("connection", "").lower()
            if connection == "close" or (version == "HTTP/1.0" and connection != "keep-alive"):
                self.reusable = False
            if "chunked" in headers.get("transfer-encoding", "").lower():
                self._framing = "chunked"
            elif "content-length" in headers:
                try:
                    self._length = int(headers["content-length"])
                except ValueError:
                    raise ProtocolError(
                        f"bad Content-Length {headers['content-length']!r}") from None
                self._framing = "length"
            else:
                self._framing = "close"
                self.reusable = False
        status, headers = self._head
        if self._framing == "length":
            if len(self._buffer) < self._length:
                return None
            body = bytes(self._buffer[: self._length])
            del self._buffer[: self._length]
            return Reply(status, headers, body)
        if self._framing == "chunked":
            return self._parse_chunks(status, headers)
        return None  # framing "close": the body ends with the connection

    def _parse_chunks(self, status: int, headers: dict[str, str]) -> Reply | None:
        buffer = self._buffer
        while True:
            line_end = buffer.find(b"\r\n")
            if line_end < 0:
                return None
            size_text = bytes(buffer[:line_end]).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise ProtocolError(f"bad chunk size {size_text[:20]!r}") from None
            if size == 0:  # last chunk, then optional trailers and an empty line
                trailer_end = buffer.find(b"\r\n\r\n", line_end)
                if buffer[line_end: line_end + 4] == b"\r\n\r\n":
                    del buffer[: line_end + 4]
                elif trailer_end >= 0:
                    del buffer[: trailer_end + 4]
                else:
                    return None
                return Reply(status, headers, b"".join(self._chunks))
            start, end = line_end + 2, line_end + 2 + size
            if len(buffer) < end + 2:
                return None
            if buffer[end: end + 2] != b"\r\n":
                raise ProtocolError("chunk not followed by CRLF")
            self._chunks.append(bytes(buffer[start:end]))
            del buffer[: end + 2]


def _parse_head(head: str) -> tuple[int, dict[str, str], str]:
    status_line, *lines = head.split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise ProtocolError(f"bad status line {status_line[:60]!r}")
    headers: dict[str, str] = {}
    for line in lines:
        name, colon, value = line.partition(":")
        if not colon:
            raise ProtocolError(f"bad header line {line[:60]!r}")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers, parts[0]


class Http1Pool:
    """Keep-alive connections to one origin; one request per connection at a time, as many
    connections as requests in flight (the caller bounds those)."""

    def __init__(self, base_url: str, headers: dict[str, str], timeout_s: float):
        url = urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.host = url.hostname
        self.tls = url.scheme == "https"
        self.port = url.port or (443 if self.tls else 80)
        self.prefix = url.path.rstrip("/")
        self.timeout_s = timeout_s
        default_port = self.port == (443 if self.tls else 80)
        host_header = self.host if default_port else f"{self.host}:{self.port}"
        fixed = {"Host": host_header, **headers, "Accept-Encoding": "identity"}
        self._fixed = "".join(f"{k}: {v}\r\n" for k, v in fixed.items()).encode("latin-1")
        self._ssl = ssl.create_default_context() if self.tls else None
        self._idle: list[_Connection] = []
        self._all: set[_Connection] = set()

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        _, connection = await loop.create_connection(
            _Connection, self.host, self.port, ssl=self._ssl,
            server_hostname=self.host if self.tls else None)
        self._all.add(connection)
        return connection

    def _idle_connection(self) -> _Connection | None:
        while self._idle:
            connection = self._idle.pop()
            if not connection.closed and connection.reusable:
                return connection
            self._all.discard(connection)
        return None

    async def post(self, route: str, body: bytes) -> Reply:
        """POST ``body`` (JSON) to ``base_url + route``; the reply, whatever its status."""
        payload = (b"POST " + (self.prefix + route).encode("latin-1") + b" HTTP/1.1\r\n"
                   + self._fixed + b"Content-Length: " + str(len(body)).encode("ascii")
                   + b"\r\n\r\n" + body)
        async with asyncio.timeout(self.timeout_s):
            connection = self._idle_connection()
            if connection is not None:
                try:
                    return await self._exchange(connection, payload)
                except ConnectionError:
                    if connection.received:
                        raise
                    # closed by the server while idle: nothing was answered; send again below
            return await self._exchange(await self._connect(), payload)

    async def _exchange(self, connection: _Connection, payload: bytes) -> Reply:
        try:
            reply = await connection.send(payload)
        except BaseException:  # failed, timed out or cancelled: the connection is spent
            connection.close()
            self._all.discard(connection)
            raise
        return self._released(connection, reply)

    def _released(self, connection: _Connection, reply: Reply) -> Reply:
        if connection.reusable and not connection.closed:
            self._idle.append(connection)
        else:
            connection.close()
            self._all.discard(connection)
        return reply

    async def close(self) -> None:
        for connection in list(self._all):
            connection.close()
        self._all.clear()
        self._idle.clear()
        await asyncio.sleep(0)  # let the transports run their close callbacks
