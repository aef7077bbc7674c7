"""How an ``openai`` provider's chat and embedding POSTs reach the endpoint.

Both transports take the JSON body the provider built and return the endpoint's answer as a
:class:`~interviewsim.llm.http1.Reply` (status, lower-cased headers, raw body), whatever its
status: the provider alone decides what is an answer, a retryable fault or a final error, so
that classification is the same for both. A request that got no answer raises
:class:`TimeoutError` (no answer within ``timeout_s``, counted from the start of the request)
or :class:`ConnectionError` (refused, reset, dropped, TLS, proxy); neither retries anything:
:mod:`interviewsim.llm.retry` is the only retry loop.

- :class:`SdkTransport` (``transport: openai-sdk``, the default): the official ``openai``
  client's ``post`` on its default httpx connection pool, its own retries off
  (``max_retries=0``). httpx reads ``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``ALL_PROXY`` /
  ``NO_PROXY`` and the CA bundle named by ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` from the
  environment when the client is built.
- :class:`Http1Transport` (``transport: http1``, opt-in): the hand-written keep-alive client
  :class:`~interviewsim.llm.http1.Http1Pool`. It spends less client CPU per request
  (benchmarks/README.md, "Transports") but connects straight to ``base_url``: it ignores the
  proxy variables. For ``https://`` it uses Python's default TLS context, whose CA store
  OpenSSL also takes from ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when they are set.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, Protocol

from interviewsim.llm.http1 import Http1Pool, Reply

if TYPE_CHECKING:
    import openai


class Transport(Protocol):
    async def post(self, route: str, body: dict[str, Any]) -> Reply:
        """POST ``body`` as JSON to ``base_url + route``; the reply, whatever its status."""

    async def close(self) -> None: ...


def _headers(raw: Any) -> dict[str, str]:
    """Lower-cased header names, as :class:`Reply` holds them."""
    return {str(name).lower(): str(value) for name, value in raw.items()}


def _reason(exc: BaseException) -> str:
    """What an ``APIConnectionError`` ("Connection error.") stands for: the transport's error
    and, when it differs, the operating system's at the end of the chain, e.g. ``All
    connection attempts failed ([Errno 111] Connect call failed ('127.0.0.1', 9))``."""
    chain: list[BaseException] = []
    link = exc.__cause__
    while link is not None and len(chain) < 10:
        chain.append(link)
        link = link.__cause__ or link.__context__
    if not chain:
        return str(exc)
    first, last = (str(e) or type(e).__name__ for e in (chain[0], chain[-1]))
    return first if first == last else f"{first} ({last})"


class SdkTransport:
    """POSTs through ``AsyncOpenAI.post`` (the SDK's documented way to call any route).

    The body is sent as given (the SDK serializes the same JSON document) and the answer is
    read back as bytes, so the provider parses it exactly as it parses the other transport's.
    The SDK raises on any status but 2xx (after following redirects, as it does by default);
    that status and body become the :class:`Reply`."""

    def __init__(self, client: openai.AsyncOpenAI, timeout_s: float):
        import openai  # the provider's client() has imported it already

        self.client = client
        self.timeout_s = timeout_s
        self._timeout_error = openai.APITimeoutError
        self._status_error = openai.APIStatusError
        self._connection_error = openai.APIConnectionError

    async def post(self, route: str, body: dict[str, Any]) -> Reply:
        try:
            async with asyncio.timeout(self.timeout_s):  # one total timeout, as Http1Pool has
                raw = await self.client.post(route, cast_to=bytes, body=body)
        except self._timeout_error:  # openai.APITimeoutError
            raise TimeoutError from None
        except self._status_error as exc:  # APIStatusError: RateLimitError, 5xx, 4xx, ...
            response = exc.response
            return Reply(response.status_code, _headers(response.headers), response.content)
        except self._connection_error as exc:  # refused, reset, dropped, TLS, proxy
            raise ConnectionError(_reason(exc)) from exc
        return Reply(200, {}, raw)  # 2xx: the SDK does not hand back the exact code

    async def close(self) -> None:
        await self.client.close()


class Http1Transport:
    """POSTs through :class:`Http1Pool`; the body encoded with :func:`json.dumps`."""

    def __init__(self, base_url: str, api_key: str, timeout_s: float):
        self.pool = Http1Pool(base_url, timeout_s=timeout_s, headers={
            "Authorization": f"Bearer {api_key}", "Content-Type": "application/json",
            "Accept": "application/json"})

    async def post(self, route: str, body: dict[str, Any]) -> Reply:
        return await self.pool.post(route, json.dumps(body).encode("utf-8"))

    async def close(self) -> None:
        await self.pool.close()
