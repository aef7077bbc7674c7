"""Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, a llama.cpp server) via ``openai``.

The client's own retries are disabled (``max_retries=0``) so that :mod:`interviewsim.llm.retry`
is the only retry loop and every attempt is counted once. The API key is read from the
environment when the client is built; it is never stored in settings, keys or logs.
"""

from __future__ import annotations

import os
import time
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from interviewsim.errors import ProviderError
from interviewsim.llm.provider import Provider, sampling_seed
from interviewsim.llm.retry import RetryableFault, RetryPolicy, parse_retry_after
from interviewsim.llm.settings import OpenAIProviderSettings
from interviewsim.llm.types import ChatRequest, ChatResult, Usage

_RETRYABLE_STATUS = {408, 409, 429}


def _fault(exc: Exception, timeout_s: float, where: str) -> Exception:
    """Translate a client exception into a retryable fault or a final ProviderError."""
    if isinstance(exc, openai.APITimeoutError):
        return RetryableFault(f"no response within {timeout_s:g}s")
    if isinstance(exc, openai.APIConnectionError):
        return RetryableFault(f"connection failed: {exc.__cause__ or exc}")
    if isinstance(exc, openai.APIResponseValidationError):
        return RetryableFault(f"HTTP {exc.status_code} with a malformed body")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status in _RETRYABLE_STATUS or status >= 500:
            return RetryableFault(f"HTTP {status}", parse_retry_after(exc.response.headers))
        return ProviderError(f"{where}: HTTP {status} (not retried): {exc.message}")
    if isinstance(exc, ValueError):  # json.JSONDecodeError: a body that is not JSON
        return RetryableFault(f"malformed response body ({exc})")
    return exc


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
        """The async client, built on first use inside the hub's event loop."""
        if self._client is None:
            self._client = openai.AsyncOpenAI(
                api_key=self._api_key(),
                base_url=self.settings.base_url,
                timeout=self.settings.timeout_s,
                max_retries=0,
            )
        return self._client

    def _options(self, request: ChatRequest) -> dict[str, Any]:
        """Fields beyond the messages: sampling, and the constraint in the endpoint's dialect."""
        options: dict[str, Any] = {
            "temperature": request.temperature,
            "seed": sampling_seed(request),
            "max_tokens": request.max_tokens,
        }
        constraint = request.constraint
        if constraint is None:
            return options
        if constraint.kind == "json_schema" and constraint.json_schema is not None:
            mode = self.settings.structured_output
            if mode == "json_schema":
                options["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {
                        "name": constraint.name,
                        "strict": True,
                        "schema": constraint.json_schema,
                    },
                }
            elif mode == "json_object":
                options["response_format"] = {
                    "type": "json_object",
                    "schema": constraint.json_schema,
                }
        elif constraint.kind == "grammar" and constraint.grammar and self.settings.grammar:
            options["extra_body"] = {"grammar": constraint.grammar}
        return options

    async def _attempt_chat(self, model: str, request: ChatRequest) -> ChatCompletion:
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        try:
            completion = await self.client().chat.completions.create(
                model=model, messages=messages, **self._options(request)
            )
        except Exception as exc:
            raise _fault(exc, self.settings.timeout_s, self._where(model)) from exc
        if not isinstance(completion, ChatCompletion):
            raise RetryableFault("malformed response body (not a chat completion)")
        if not completion.choices:
            raise RetryableFault("response has no choices")
        return completion

    async def complete(self, model: str, request: ChatRequest) -> ChatResult:
        start = time.perf_counter()
        completion = await self._policy.run(self._where(model), self._attempt_chat, model, request)
        choice = completion.choices[0]
        usage = completion.usage
        return ChatResult(
            text=choice.message.content or "",
            finish_reason=choice.finish_reason,
            usage=Usage(
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
            ),
            latency_s=time.perf_counter() - start,
            model=model,
        )

    async def _attempt_embed(self, model: str, texts: list[str]) -> list[list[float]]:
        try:
            response = await self.client().embeddings.create(
                model=model, input=texts, encoding_format="float"
            )
            vectors = [item.embedding for item in sorted(response.data, key=lambda d: d.index)]
        except (AttributeError, TypeError) as exc:
            raise RetryableFault(f"malformed embeddings body ({exc})") from exc
        except Exception as exc:
            raise _fault(exc, self.settings.timeout_s, self._where(model)) from exc
        if len(vectors) != len(texts):
            raise RetryableFault(f"{len(vectors)} embeddings returned for {len(texts)} inputs")
        return vectors

    async def embed(self, model: str, texts: list[str]) -> list[list[float]]:
        return await self._policy.run(self._where(model), self._attempt_embed, model, texts)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

