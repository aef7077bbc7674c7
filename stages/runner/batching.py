"""Feeding an endpoint from a stage: groups of requests big enough to keep it busy, and the
next group already in flight while one is written.

:func:`fill_batches` groups personalities until one ``complete_many`` holds enough requests
that its half-empty tail is a small part of it (benchmarks/README.md, "End to end").
:func:`overlapped` sends group N+1 while the stage still waits for group N and writes it: both
share the provider's concurrency limit, so when group N's last requests are in flight the
free slots already carry group N+1's — no drained tail, no idle endpoint while the stage builds
prompts or writes records. Results still come back in group order, and a request two groups
share is answered once for both (the cache keeps the first answer stored).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def fill_batches(items: Iterable[T], size: Callable[[T], int], target: int,
                 first: int | None = None) -> Iterator[list[T]]:
    """Consecutive items grouped until their summed ``size`` reaches ``target`` (``first``
    for the first group; the last group may be smaller); order is kept."""
    group: list[T] = []
    total = 0
    goal = target if first is None else first
    for item in items:
        group.append(item)
        total += size(item)
        if total >= goal:
            yield group
            group, total, goal = [], 0, target
    if group:
        yield group


def overlapped(items: Iterable[T], work: Callable[[T], R], ahead: int = 1,
               stop: Callable[[BaseException], None] | None = None
               ) -> Iterator[tuple[T, R]]:
    """``(item, work(item))`` in item order, with ``work`` already running on the next
    ``ahead`` items, each in a daemon thread (``work`` is expected to wait on the model hub's
    event loop). When anything fails — a ``work``, building the items, or the consumer —
    ``stop`` is called (the hub's: no new request starts), the work still running is waited
    for, so that every answer already on its way is cached, and the first failure is raised."""
    pending: deque[tuple[T, Future[R]]] = deque()
    try:
        for item in items:
            pending.append((item, _started(work, item)))
            if len(pending) > ahead:
                first, future = pending.popleft()
                yield first, future.result()
        while pending:
            first, future = pending.popleft()
            yield first, future.result()
    except BaseException as exc:
        if stop is not None:
            stop(exc)
        for _, future in pending:
            future.exception()  # wait; the first failure is the one raised
        raise


def _started(work: Callable[[T], R], item: T) -> Future[R]:
    future: Future[R] = Future()

    def run() -> None:
        future.set_running_or_notify_cancel()
        try:
            future.set_result(work(item))
        except BaseException as exc:  # handed to the consumer, in order
            future.set_exception(exc)

    threading.Thread(target=run, name="interviewsim-overlapped", daemon=True).start()
    return future
