"""The default ``openai-sdk`` transport honours the proxy and CA-bundle environment variables;
the opt-in ``http1`` transport still works, and goes straight to the endpoint.

A small counting proxy on 127.0.0.1 stands in front of the mock endpoint. For an ``http://``
endpoint httpx sends each request to the proxy in absolute form (``POST http://host/...``), which
the proxy forwards; for an ``https://`` endpoint it opens a ``CONNECT`` tunnel, here to a TLS
front of the mock whose certificate only a test CA named by ``SSL_CERT_FILE`` vouches for.
httpx reads the proxy variables when the client is built and exempts no host by itself (only
what ``NO_PROXY`` names), so loopback endpoints are proxied once the variables are set; every
test clears ``NO_PROXY`` first unless it is what the test is about.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from interviewsim.config.params import parse_params
from interviewsim.config.settings import ModelSettings
from interviewsim.errors import ProviderError
from interviewsim.llm import ModelHub
from tests.mock_openai import CHAT, MockOpenAI

KEY_ENV = "INTERVIEWSIM_TEST_KEY"
MODEL = ModelSettings(provider="api", model="gpt-test")
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


class LoopThread:
    """An asyncio loop in a daemon thread, for servers the synchronous tests talk to."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.servers: list[asyncio.Server] = []

    def listen(self, handler: Callable[[asyncio.StreamReader, asyncio.StreamWriter],
                                       Awaitable[None]], context: ssl.SSLContext | None = None
               ) -> int:
        """Serve ``handler`` on an ephemeral loopback port; the port."""
        server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(handler, "127.0.0.1", 0, ssl=context), self.loop).result(5)
        self.servers.append(server)
        return server.sockets[0].getsockname()[1]

    def close(self) -> None:
        for server in self.servers:
            self.loop.call_soon_threadsafe(server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy bytes one way until the reading side ends, then close the writing side."""
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def tunnel(a: tuple[asyncio.StreamReader, asyncio.StreamWriter],
                 b: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> None:
    await asyncio.gather(pipe(a[0], b[1]), pipe(b[0], a[1]))


async def read_message(reader: asyncio.StreamReader) -> tuple[str, list[str], bytes]:
    """One HTTP/1.1 message framed by Content-Length: start line, header lines, body."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    start, *lines = head[:-4].split("\r\n")
    length = next((int(line.partition(":")[2]) for line in lines
                   if line.lower().startswith("content-length:")), 0)
    return start, lines, await reader.readexactly(length)


class CountingProxy:
    """An HTTP proxy: ``CONNECT host:port`` tunnels, absolute-form requests are forwarded in
    origin form on a keep-alive upstream connection. It records what it carried."""

    def __init__(self, loop: LoopThread):
        self.connections = 0
        self.tunnels: list[str] = []
        """``host:port`` of every CONNECT."""
        self.forwarded: list[str] = []
        """The absolute URL of every forwarded request."""
        self.port = loop.listen(self._serve)
        self.url = f"http://127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        try:
            while True:
                start, lines, body = await read_message(reader)
                method, target, version = start.split(" ")
                if method == "CONNECT":
                    self.tunnels.append(target)
                    host, _, port = target.rpartition(":")
                    far = await asyncio.open_connection(host, int(port))
                    writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    await tunnel((reader, writer), far)
                    return
                self.forwarded.append(target)
                url = urlsplit(target)
                if upstream is None:
                    upstream = await asyncio.open_connection(url.hostname, url.port)
                kept = [line for line in lines if not line.lower().startswith("proxy-")]
                path = url.path + (f"?{url.query}" if url.query else "")
                upstream[1].write(("\r\n".join([f"{method} {path} {version}", *kept])
                                   + "\r\n\r\n").encode("latin-1") + body)
                status, answer_lines, answer = await read_message(upstream[0])
                writer.write(("\r\n".join([status, *answer_lines]) + "\r\n\r\n"
                              ).encode("latin-1") + answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            if upstream is not None:
                upstream[1].close()
            writer.close()


def certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A test CA and a server certificate for 127.0.0.1 that it signed: (CA file, server
    certificate, server key), as PEM files."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)

    def build(subject: str, key: ec.EllipticCurvePrivateKey, issuer: str,
              signer: ec.EllipticCurvePrivateKey, ca: bool) -> x509.Certificate:
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                   .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(hours=2))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
                   .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                                  critical=False)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                       signer.public_key()), critical=False)
                   .add_extension(x509.KeyUsage(
                       digital_signature=True, content_commitment=False, key_encipherment=False,
                       data_encipherment=False, key_agreement=False, key_cert_sign=ca,
                       crl_sign=ca, encipher_only=False, decipher_only=False), critical=True))
        if not ca:
            builder = (builder
                       .add_extension(x509.SubjectAlternativeName(
                           [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
                       .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                                      critical=False))
        return builder.sign(signer, hashes.SHA256())

    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(
        ec.SECP256R1())
    ca = build("InterviewSim test CA", ca_key, "InterviewSim test CA", ca_key, ca=True)
    server = build("127.0.0.1", server_key, "InterviewSim test CA", ca_key, ca=False)
    paths = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return paths


@pytest.fixture
def loop() -> Iterator[LoopThread]:
    thread = LoopThread()
    yield thread
    thread.close()


@pytest.fixture
def proxy(loop: LoopThread) -> CountingProxy:
    return CountingProxy(loop)


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-proxy-test-key")
    for name in PROXY_VARIABLES:  # urllib reads both spellings; the lower case wins
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def use_proxy(monkeypatch: pytest.MonkeyPatch, proxy: CountingProxy) -> None:
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("HTTPS_PROXY", proxy.url)


def ask(tmp_path: Path, base_url: str, texts: list[str], **provider: object) -> list[str]:
    """Answers to ``texts`` from an ``openai`` provider at ``base_url`` (fresh cache)."""
    settings = {"kind": "openai", "base_url": base_url, "api_key_env": KEY_ENV,
                "max_attempts": 1, "timeout_s": 5, "max_concurrency": 2, **provider}
    params = parse_params({"cache": {"path": str(tmp_path / "responses.sqlite")},
                           "providers": {"local": {"kind": "llama_cpp"}, "api": settings}})
    with ModelHub(params.hub) as hub:
        client = hub.client(MODEL)
        results = client.complete_many([client.request([{"role": "user", "content": t}])
                                        for t in texts])
    return [r.text for r in results]


def test_the_default_transport_sends_http_requests_through_the_proxy(
        tmp_path: Path, server: MockOpenAI, proxy: CountingProxy,
        monkeypatch: pytest.MonkeyPatch) -> None:
    use_proxy(monkeypatch, proxy)
    texts = ["one", "two", "three"]
    assert ask(tmp_path, server.base_url, texts) == [f"echo: {t}" for t in texts]
    assert proxy.connections >= 1 and proxy.tunnels == []
    assert proxy.forwarded.count(server.base_url + "/chat/completions") == len(texts)
    assert server.count(CHAT) == len(texts)


def test_the_default_transport_tunnels_https_and_trusts_the_ca_of_ssl_cert_file(
        tmp_path: Path, server: MockOpenAI, proxy: CountingProxy, loop: LoopThread,
        monkeypatch: pytest.MonkeyPatch) -> None:
    ca_file, certificate, key = certificates(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)

    async def front(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await tunnel((reader, writer), await asyncio.open_connection("127.0.0.1", server.port))

    port = loop.listen(front, context)
    base_url = f"https://127.0.0.1:{port}/v1"
    use_proxy(monkeypatch, proxy)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with pytest.raises(ProviderError, match="connection failed.*(?i:certificate)"):
        ask(tmp_path / "untrusted", base_url, ["untrusted"])  # the test CA is not trusted
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    assert ask(tmp_path, base_url, ["secure"]) == ["echo: secure"]
    assert proxy.tunnels == [f"127.0.0.1:{port}"] * 2 and proxy.forwarded == []
    assert server.count(CHAT) == 1


def test_no_proxy_exempts_the_endpoint(tmp_path: Path, server: MockOpenAI,
                                       proxy: CountingProxy,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    use_proxy(monkeypatch, proxy)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert ask(tmp_path, server.base_url, ["direct"]) == ["echo: direct"]
    assert proxy.connections == 0 and server.count(CHAT) == 1


def test_an_unreachable_proxy_is_a_connection_failure(tmp_path: Path, server: MockOpenAI,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    with pytest.raises(ProviderError, match="connection failed"):
        ask(tmp_path, server.base_url, ["lost"])
    assert server.count(CHAT) == 0


def test_the_opt_in_http1_transport_still_works_and_connects_directly(
        tmp_path: Path, server: MockOpenAI, proxy: CountingProxy,
        monkeypatch: pytest.MonkeyPatch) -> None:
    use_proxy(monkeypatch, proxy)
    texts = ["one", "two"]
    answers = ask(tmp_path, server.base_url, texts, transport="http1")
    assert answers == [f"echo: {t}" for t in texts]
    assert proxy.connections == 0, "http1 ignores the proxy variables (documented)"
    assert server.count(CHAT) == len(texts)
