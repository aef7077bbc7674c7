"""Feeding an endpoint from a stage: groups big enough to keep it busy, built ahead of time.

A stage alternates between building requests (reading inputs, prompts, leakage checks) and
waiting for them. :func:`fill_batches` groups personalities until one ``complete_many`` holds
enough requests that its half-empty tail is a small part of it, and :func:`prefetched` builds
the next group in a background thread while the current one is in flight, so the endpoint
does not idle while the stage prepares (benchmarks/README.md, "End to end").
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def fill_batches(items: Iterable[T], size: Callable[[T], int], target: int
                 ) -> Iterator[list[T]]:
    """Consecutive items grouped until their summed ``size`` reaches ``target`` (the last
    group may be smaller); order is kept."""
    group: list[T] = []
    total = 0
    for item in items:
        group.append(item)
        total += size(item)
        if total >= target:
            yield group
            group, total = [], 0
    if group:
        yield group


_DONE = object()


def prefetched(items: Iterable[T], depth: int = 1) -> Iterator[T]:
    """``items`` in order, the next ``depth`` computed by a background thread meanwhile.

    An exception raised while producing is raised here, at the item it replaced. If the
    consumer stops early, the producer stops at its next item.
    """
    slots: queue.Queue[tuple[bool, object]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(value: tuple[bool, object]) -> bool:
        """Hand one value over; False once the consumer has gone."""
        while not stop.is_set():
            try:
                slots.put(value, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put((True, item)):
                    return
            put((True, _DONE))
        except BaseException as exc:  # re-raised in the consumer's thread
            put((False, exc))

    worker = threading.Thread(target=produce, name="prefetch", daemon=True)
    worker.start()
    try:
        while True:
            ok, item = slots.get()
            if not ok:
                assert isinstance(item, BaseException)
                raise item
            if item is _DONE:
                return
            yield item  # type: ignore[misc]
    finally:
        stop.set()
        worker.join(timeout=5)
