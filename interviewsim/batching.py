"""Feeding an endpoint from a stage: groups of requests big enough to keep it busy.

:func:`fill_batches` groups personalities until one ``complete_many`` holds enough requests
that its half-empty tail is a small part of it (benchmarks/README.md, "End to end"). Building
the next group in a background thread while one is in flight was tried and measured: no gain
(generate 42.9% vs 42.5-43.0% of ideal, judge 59.5-64.6% vs 62.2-62.5%), because the stage is
CPU-bound and a second thread only competes for the interpreter lock; it was removed.
"""

from __future__ import annotations

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
