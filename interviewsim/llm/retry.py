"""Bounded retries: exponential backoff with jitter that honours a server's Retry-After.

Providers translate their own failures into :class:`RetryableFault` (worth another attempt: 429,
5xx, timeouts, dropped connections, malformed bodies) or :class:`ProviderError` (not worth one:
a bad request, a wrong key). The attempt budget is fixed, so a dead endpoint ends a run with a
message naming the endpoint, the last fault and the attempt count instead of hanging it.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

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
    """How many attempts, and how long to wait between them.

    A plain loop rather than a retry library: it runs once per model request, and at a few
    hundred requests in flight a generic decorator's introspection was a fifth of the client's
    CPU per request (benchmarks/README.md)."""

    def __init__(self, max_attempts: int, backoff_initial_s: float, backoff_max_s: float):
        self.max_attempts = max_attempts
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s

    def wait_s(self, fault: RetryableFault, attempt: int) -> float:
        """The server's Retry-After if it gave one, else ``initial × 2^(attempt-1)`` plus up to
        ``initial`` of jitter; both capped at ``backoff_max_s``."""
        if fault.retry_after is not None:
            return min(fault.retry_after, self.backoff_max_s)
        backoff = self.backoff_initial_s * 2 ** (attempt - 1)
        return min(backoff + random.uniform(0, self.backoff_initial_s), self.backoff_max_s)

    async def run(self, where: str, attempt: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Await ``attempt(*args)`` until it succeeds, raises a non-retryable error, or the budget
        ends. ``where`` names the endpoint in the final error (never a secret)."""
        for number in range(1, self.max_attempts + 1):
            try:
                return await attempt(*args)
            except RetryableFault as fault:
                if number == self.max_attempts:
                    raise ProviderError(f"{where}: gave up after {number} attempts; "
                                        f"last fault: {fault}") from None
                log.warning("attempt %d failed (%s); retrying", number, fault)
                await asyncio.sleep(self.wait_s(fault, number))
        raise AssertionError("unreachable: max_attempts is at least 1")
