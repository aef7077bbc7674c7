"""Bounded retries: exponential backoff with jitter that honours a server's Retry-After.

Providers translate their own failures into :class:`RetryableFault` (worth another attempt: 429,
5xx, timeouts, dropped connections, malformed bodies) or :class:`ProviderError` (not worth one:
a bad request, a wrong key). The attempt budget is fixed, so a dead endpoint ends a run with a
message naming the endpoint, the last fault and the attempt count instead of hanging it.
"""

from __future__ import annotations

import email.utils
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    RetryError,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from interviewsim.errors import ProviderError

log = logging.getLogger("interviewsim.llm")
T = TypeVar("T")


class RetryableFault(Exception):
    """A transient failure; ``retry_after`` is the server's requested wait in seconds, if any."""

    def __init__(self, description: str, retry_after: float | None = None):
        super().__init__(description)
        self.description = description
        self.retry_after = retry_after


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms``, ``retry-after`` (seconds or an HTTP date)."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        seconds = email.utils.mktime_tz(parsed) - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None


class RetryPolicy:
    """How many attempts, and how long to wait between them."""

    def __init__(self, max_attempts: int, backoff_initial_s: float, backoff_max_s: float):
        self.max_attempts = max_attempts
        self.backoff_max_s = backoff_max_s
        self._backoff = wait_exponential_jitter(
            multiplier=backoff_initial_s, max=backoff_max_s, jitter=backoff_initial_s
        )

    def _wait(self, state: RetryCallState) -> float:
        fault = state.outcome.exception() if state.outcome else None
        if isinstance(fault, RetryableFault) and fault.retry_after is not None:
            return min(fault.retry_after, self.backoff_max_s)
        return self._backoff(state)

    @staticmethod
    def _log(state: RetryCallState) -> None:
        fault = state.outcome.exception() if state.outcome else None
        log.warning("attempt %d failed (%s); retrying", state.attempt_number, fault)

    async def run(self, where: str, attempt: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Await ``attempt(*args)`` until it succeeds, raises a non-retryable error, or the budget
        ends. ``where`` names the endpoint in the final error (never a secret)."""
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            retry=retry_if_exception_type(RetryableFault),
            before_sleep=self._log,
        )
        try:
            return await retrying(attempt, *args)
        except RetryError as exc:
            last = exc.last_attempt
            raise ProviderError(
                f"{where}: gave up after {last.attempt_number} attempts; "
                f"last fault: {last.exception()}"
            ) from None
