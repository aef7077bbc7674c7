"""Group commits of fresh results to the response cache, while the calls are still running."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from interviewsim.llm.cache import ResponseCache
from interviewsim.llm.types import ChatResult


class GroupWriter:
    """Commits fresh results to the cache in groups and reports each one once it is durable:
    whatever finished while one transaction was being written goes into the next, so a busy
    endpoint costs one transaction per group, not per call."""

    def __init__(self, cache: ResponseCache, on_stored: Callable[[str, ChatResult], None]):
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
            group.update(await asyncio.to_thread(self._cache.store_results, group))
            for key, result in group.items():
                self._on_stored(key, result)

    async def flush(self) -> None:
        for outcome in await asyncio.gather(*self._tasks, return_exceptions=True):
            if isinstance(outcome, BaseException):
                raise outcome
