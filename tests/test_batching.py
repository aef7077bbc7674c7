"""Grouping a stage's work for the endpoint, and building the next group ahead of time."""

from __future__ import annotations

import threading
import time

import pytest

from interviewsim.batching import fill_batches, prefetched


def test_groups_fill_up_to_the_target_and_keep_order() -> None:
    sizes = [3, 4, 1, 9, 2, 2]
    groups = list(fill_batches(sizes, lambda n: n, 7))
    assert groups == [[3, 4], [1, 9], [2, 2]]
    assert list(fill_batches([], lambda n: n, 7)) == []


def test_prefetched_yields_every_item_in_order_while_the_next_is_built() -> None:
    built: list[int] = []

    def produce():
        for i in range(5):
            built.append(i)
            yield i

    seen = []
    for item in prefetched(produce()):
        time.sleep(0.02)  # the consumer is busy: the producer runs ahead meanwhile
        seen.append((item, len(built)))
    assert [item for item, _ in seen] == [0, 1, 2, 3, 4]
    assert any(ahead > item + 1 for item, ahead in seen)  # built before it was asked for


def test_a_producer_error_is_raised_in_the_consumer_at_its_place() -> None:
    def produce():
        yield 1
        raise KeyError("held-out text in a prompt")

    items = prefetched(produce())
    assert next(items) == 1
    with pytest.raises(KeyError, match="held-out"):
        next(items)


def test_a_consumer_that_stops_early_stops_the_producer() -> None:
    def endless():
        i = 0
        while True:
            yield i
            i += 1

    for item in prefetched(endless()):
        if item == 2:
            break
    time.sleep(0.3)
    assert not [t for t in threading.enumerate() if t.name == "prefetch"]
