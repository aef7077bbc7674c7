"""Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, a llama.cpp server).

:mod:`interviewsim.llm.retry` is the only retry loop, so every attempt is counted once. The API
key is read from the environment when the first request is built; it is never stored in
settings, keys or logs.

Chat and embedding requests are plain JSON POSTs, the JSON body built here and the answer read
here (four fields read by hand, so every malformed body is an explicit, retryable fault). They
travel over the provider's ``transport`` (:mod:`interviewsim.llm.transport`): by default the
official ``openai`` client on its httpx pool, which honours proxy and CA-bundle environment
variables; ``transport: http1`` opts into :class:`~interviewsim.llm.http1.Http1Pool`, which
spends less client CPU per request and ignores them (benchmarks/README.md, "Transports"). Either
way the ``openai`` client's own retries are off (``max_retries=0``); batch mode uses that client
for the Files and Batches routes.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any

from interviewsim.config.settings import OpenAIProviderSettings
from interviewsim.errors import ProviderError
from interviewsim.llm.provider import Provider, sampling_seed
from interviewsim.llm.retry import RetryableFault, RetryPolicy, log, parse_retry_after
from interviewsim.llm.transport import Http1Transport, SdkTransport, Transport
from interviewsim.llm.types import ChatRequest, ChatResult, Usage

if TYPE_CHECKING:
    import openai

_RETRYABLE_STATUS = {408, 409, 429}


def _error_message(raw: bytes) -> str:
    """The ``error.message`` of an error body, else the start of the body."""
    try:
        data = json.loads(raw)
        message = data["error"]["message"]
        if isinstance(message, str):
            return message
    except (ValueError, LookupError, TypeError):
        pass
    return raw[:300].decode("utf-8", "replace")


class OpenAIProvider(Provider):
    """Chat completions and embeddings over HTTP with bounded retries."""

    kind = "openai"

    def __init__(self, settings: OpenAIProviderSettings, name: str):
        self.settings = settings
        self.name = name
        self.max_concurrency = settings.max_concurrency
        self.supports_json_schema = settings.structured_output != "none"
        self.supports_grammar = settings.grammar
        self._policy = RetryPolicy(
            settings.max_attempts, settings.backoff_initial_s, settings.backoff_max_s
        )
        self._client: openai.AsyncOpenAI | None = None
        self._transport: Transport | None = None  # built inside the hub's loop
        self._key = ""

    def _api_key(self) -> str:
        key = os.environ.get(self.settings.api_key_env)
        if not key:
            raise ProviderError(
                f"provider {self.name!r}: environment variable {self.settings.api_key_env} is not "
                f"set; it must hold the API key for {self.settings.base_url} (for a local server "
                "that ignores keys, set it to any value)"
            )
        return key

    def check(self) -> None:
        self._api_key()

    def identity(self, model: str) -> dict[str, str]:
        return {"kind": self.kind, "base_url": self.settings.base_url.rstrip("/"), "model": model}

    def _where(self, model: str) -> str:
        return f"provider {self.name!r} at {self.settings.base_url} (model {model})"

    def client(self) -> openai.AsyncOpenAI:
        """The ``openai`` async client, built on first use inside the hub's event loop, on the
        SDK's default httpx pool (proxies, CA bundle and ``NO_PROXY`` from the environment).
        ``openai`` is imported here, not at module level: the package takes 1.3-1.8 s to
        import, which a run on the ``http1`` transport without batch mode never pays."""
        if self._client is None:
            import openai

            self._client = openai.AsyncOpenAI(
                api_key=self._api_key(),
                base_url=self.settings.base_url,
                timeout=self.settings.timeout_s,
                max_retries=0,
            )
        return self._client

    def _body(self, model: str, request: ChatRequest) -> dict[str, Any]:
        """The request body, with the constraint in the endpoint's dialect."""
        body: dict[str, Any] = {
            "model": model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "seed": sampling_seed(request),
            "max_tokens": request.max_tokens,
        }
        constraint = request.constraint
        if constraint is None:
            return body
        if constraint.kind == "json_schema" and constraint.json_schema is not None:
            mode = self.settings.structured_output
            if mode == "json_schema":
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {
                        "name": constraint.name,
                        "strict": True,
                        "schema": constraint.json_schema,
                    },
                }
            elif mode == "json_object":
                body["response_format"] = {"type": "json_object", "schema": constraint.json_schema}
        elif constraint.kind == "grammar" and constraint.grammar and self.settings.grammar:
            body["grammar"] = constraint.grammar
        return body

    def _redacted(self, fault: Exception) -> Exception:
        """``fault`` without the API key in its message: an endpoint that echoes the key in an
        error body (some proxies do) must not put it into logs or the final error."""
        key = self._key or (self._client.api_key if self._client is not None else "")
        if len(key) >= 8 and key in str(fault):
            fault.args = tuple(str(arg).replace(key, "<redacted>") for arg in fault.args)
            if isinstance(fault, RetryableFault):
                fault.description = fault.description.replace(key, "<redacted>")
        return fault

    def transport(self) -> Transport:
        """The transport for chat and embeddings (``settings.transport``), built on first use
        in the hub's loop. Either opens connections as requests need them (the SDK's pool up
        to 1,000); the hub's semaphore is what limits concurrency."""
        if self._transport is None:
            self._key = self._api_key()
            if self.settings.transport == "http1":
                self._transport = Http1Transport(self.settings.base_url, self._key,
                                                 self.settings.timeout_s)
            else:
                self._transport = SdkTransport(self.client(), self.settings.timeout_s)
        return self._transport

    async def _post(self, model: str, route: str, body: dict[str, Any]) -> dict[str, Any]:
        """One attempt: the decoded JSON object, or a fault for the retry loop."""
        try:
            reply = await self.transport().post(route, body)
            status, headers, raw = reply.status, reply.headers, reply.body
            log.debug("POST %s%s -> HTTP %d, %d bytes", self.settings.base_url, route, status,
                      len(raw))
        except TimeoutError:
            raise RetryableFault(f"no response within {self.settings.timeout_s:g}s") from None
        except OSError as exc:  # refused, reset, closed early, TLS, proxy, or not HTTP
            raise self._redacted(RetryableFault(f"connection failed: {exc}")) from exc
        if status >= 300:
            if status in _RETRYABLE_STATUS or status >= 500:
                raise RetryableFault(f"HTTP {status}", parse_retry_after(headers))
            raise self._redacted(ProviderError(
                f"{self._where(model)}: HTTP {status} (not retried): {_error_message(raw)}"))
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise RetryableFault(f"malformed response body ({exc})") from None
        if not isinstance(data, dict):
            raise RetryableFault("malformed response body (not a JSON object)")
        return data

    async def _attempt_chat(self, model: str, body: dict[str, Any]) -> ChatResult:
        data = await self._post(model, "/chat/completions", body)
        try:
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
            usage = data.get("usage") or {}
            return ChatResult(
                text=text,
                finish_reason=choice.get("finish_reason"),
                usage=Usage(prompt_tokens=usage.get("prompt_tokens") or 0,
                            completion_tokens=usage.get("completion_tokens") or 0),
                model=model,
            )
        except (LookupError, TypeError, AttributeError, ValueError) as exc:
            raise RetryableFault(f"malformed chat completion ({type(exc).__name__}: {exc})"
                                 ) from exc

    async def complete(self, model: str, request: ChatRequest) -> ChatResult:
        start = time.perf_counter()
        result = await self._policy.run(
            self._where(model), self._attempt_chat, model, self._body(model, request)
        )
        return result.model_copy(update={"latency_s": time.perf_counter() - start})

    async def _attempt_embed(self, model: str, texts: list[str]) -> list[list[float]]:
        body = {"model": model, "input": texts, "encoding_format": "float"}
        data = await self._post(model, "/embeddings", body)
        try:
            items = sorted(data["data"], key=lambda item: item["index"])
            vectors = [[float(x) for x in item["embedding"]] for item in items]
        except (LookupError, TypeError, ValueError) as exc:
            raise RetryableFault(f"malformed embeddings body ({type(exc).__name__}: {exc})"
                                 ) from exc
        if len(vectors) != len(texts):
            raise RetryableFault(f"{len(vectors)} embeddings returned for {len(texts)} inputs")
        return vectors

    async def embed(self, model: str, texts: list[str]) -> list[list[float]]:
        return await self._policy.run(self._where(model), self._attempt_embed, model, texts)

    async def aclose(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None and not isinstance(transport, SdkTransport):
            await transport.close()  # an SdkTransport's client is closed just below
        if self._client is not None:
            await self._client.close()
            self._client = None

