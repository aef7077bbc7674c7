"""Group commits of fresh results to the response cache, while the calls are still running."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from interviewsim.llm.cache import ResponseCache
from interviewsim.llm.types import ChatResult


class GroupWriter:
    """Commits fresh results to the cache in groups and reports each one once it is durable:
    whatever finished while one transaction was being written goes into the next, so a busy
    endpoint costs one transaction per group, not per call.

    ``on_stored(key, stored, paid)`` gets the result to use (another process's, when it
    stored the same key first) and the one this process paid for: a call that loses the
    first-writer race was still paid, and is counted as such."""

    def __init__(self, cache: ResponseCache,
                 on_stored: Callable[[str, ChatResult, ChatResult], None]):
        self._cache = cache
        self._on_stored = on_stored
        self._pending: dict[str, ChatResult] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.stored = 0
        """Results added so far."""

    def add(self, key: str, result: ChatResult) -> None:
        self.stored += 1
        self._pending[key] = result
        if not self._tasks or self._tasks[-1].done():
            self._tasks.append(asyncio.create_task(self._drain()))

    async def _drain(self) -> None:
        while self._pending:
            group, self._pending = self._pending, {}
            winners = await asyncio.to_thread(self._cache.store_results, group)
            for key, paid in group.items():
                self._on_stored(key, winners.get(key, paid), paid)

    async def flush(self) -> None:
        for outcome in await asyncio.gather(*self._tasks, return_exceptions=True):
            if isinstance(outcome, BaseException):
                raise outcome
