"""One background event loop per hub: stages stay synchronous while the async HTTP clients
keep their connection pools across batches."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

LOOP_SWITCH_INTERVAL_S = 0.0005
"""The interpreter's thread switch interval while a hub's event loop runs."""


class LoopThread:
    """An asyncio loop on a daemon thread, started on first use."""

    def __init__(self, name: str = "interviewsim-llm"):
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        return self._loop is not None

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the loop thread and wait for its result."""
        with self._lock:
            if self._loop is None:
                # The loop thread shares the interpreter lock with the stage's own threads
                # (building prompts, writing records). Every socket write releases the lock,
                # and at Python's default 5 ms switch interval the loop could then wait that
                # long to get it back, with hundreds of answers waiting on it; 0.5 ms keeps
                # the loop's turnaround short (benchmarks/README.md, "End to end").
                sys.setswitchinterval(min(sys.getswitchinterval(), LOOP_SWITCH_INTERVAL_S))
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, name=self._name,
                                                daemon=True)
                self._thread.start()
            loop = self._loop
        future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def stop(self) -> None:
        """Stop the loop and join its thread (after the caller closed what runs on it)."""
        if self._loop is None:
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join()
        self._loop.close()
        self._loop = None
        self._thread = None
