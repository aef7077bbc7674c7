"""What every provider implements, and the small rules they share.

A provider turns one :class:`ChatRequest` into one :class:`ChatResult`. It does not cache,
count usage or limit concurrency: :mod:`interviewsim.llm.hub` does that once for all of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from interviewsim.data.jsonio import sha256_hex
from interviewsim.errors import ProviderError
from interviewsim.llm.types import ChatRequest, ChatResult
from interviewsim.text.tokens import estimate_tokens

MESSAGE_OVERHEAD_TOKENS = 4
"""Chat-template tokens around each message (role markers, separators), for estimates."""


def estimate_prompt_tokens(request: ChatRequest) -> int:
    """Estimated prompt size of a request: its text at 4 characters a token plus per-message
    template overhead. Good to ~20% on English; enough to size a run before paying for it."""
    return sum(estimate_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in request.messages)


def sampling_seed(request: ChatRequest) -> int:
    """The seed sent to the model: the request's seed for sample 0, and a different seed derived
    from (seed, sample_index) for every later sample, so repeated samples at temperature > 0 are
    independent draws rather than copies, and still reproducible."""
    if request.sample_index == 0:
        return request.seed
    return int(sha256_hex(f"{request.seed}:{request.sample_index}")[:8], 16) & 0x7FFFFFFF


class Provider(ABC):
    """One model endpoint or runtime, named in ``params.providers``."""

    kind: str
    max_concurrency: int = 1
    """Requests the hub keeps in flight at once against this provider."""
    supports_json_schema: bool = False
    supports_grammar: bool = False

    def check(self) -> None:
        """Raise :class:`ProviderError` now if a call could not succeed (missing key, missing
        model file), so a misconfigured run fails before its first call, not midway."""
        return None

    def validate(self, model: str, requests: list[ChatRequest]) -> None:
        """Raise :class:`ProviderError` before a batch starts if a request cannot be served
        (a prompt too long for the context window), rather than after part of it ran."""
        return None

    @abstractmethod
    def identity(self, model: str) -> dict[str, str]:
        """What identifies this provider and model in a cache key (never a secret)."""

    @abstractmethod
    async def complete(self, model: str, request: ChatRequest) -> ChatResult:
        """Answer one request. Raise :class:`ProviderError` when it cannot be answered."""

    async def embed(self, model: str, texts: list[str]) -> list[list[float]]:
        """Embedding vectors for texts, for providers that serve them."""
        raise ProviderError(f"provider kind {self.kind!r} does not serve embeddings")

    async def aclose(self) -> None:
        """Release connections or model memory."""
        return None
