"""Grouping a stage's work for the endpoint."""

from __future__ import annotations

import threading
import time

import pytest

from stages.runner.batching import fill_batches, overlapped


def test_groups_fill_up_to_the_target_and_keep_order() -> None:
    sizes = [3, 4, 1, 9, 2, 2]
    groups = list(fill_batches(sizes, lambda n: n, 7))
    assert groups == [[3, 4], [1, 9], [2, 2]]
    assert list(fill_batches([], lambda n: n, 7)) == []


def test_overlapped_runs_the_next_item_while_one_is_consumed_and_keeps_order():
    started = []
    release = threading.Event()

    def work(n):
        started.append(n)
        if n == 0:
            assert release.wait(5)  # item 0 finishes only once item 1 has started
        return n * 10

    results = []
    for n, value in overlapped(range(4), lambda n: (n == 1 and release.set(), work(n))[1]):
        results.append((n, value))
    assert results == [(0, 0), (1, 10), (2, 20), (3, 30)]
    assert started[:2] in ([0, 1], [1, 0])


def test_overlapped_stops_waits_for_running_work_and_raises_the_first_failure():
    finished, stopped = [], []

    def work(n):
        if n == 1:
            raise ValueError("item 1 failed")
        time.sleep(0.2)
        finished.append(n)
        return n

    def items():
        yield 0
        yield 1
        yield 2

    seen = []
    with pytest.raises(ValueError, match="item 1 failed"):
        for n, _ in overlapped(items(), work, stop=stopped.append):
            seen.append(n)
    assert seen == [0]
    assert [type(r) for r in stopped] == [ValueError]
    # item 2 was started while item 1 ran; it finished before the error surfaced
    assert sorted(finished) == [0, 2]


def test_overlapped_stops_when_building_an_item_fails():
    finished, stopped = [], []

    def work(n):
        time.sleep(0.2)
        finished.append(n)
        return n

    def items():
        yield 0
        raise KeyError("bad item")

    with pytest.raises(KeyError):
        list(overlapped(items(), work, stop=stopped.append))
    assert finished == [0], "the work in flight finished before the error surfaced"
    assert [type(r) for r in stopped] == [KeyError]


def test_the_first_group_can_be_smaller_so_the_endpoint_starts_early() -> None:
    assert list(fill_batches([3, 4, 1, 9, 2], lambda n: n, 7, first=3)) == [[3], [4, 1, 9], [2]]
