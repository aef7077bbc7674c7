"""Grouping a stage's work for the endpoint."""

from __future__ import annotations

from interviewsim.batching import fill_batches


def test_groups_fill_up_to_the_target_and_keep_order() -> None:
    sizes = [3, 4, 1, 9, 2, 2]
    groups = list(fill_batches(sizes, lambda n: n, 7))
    assert groups == [[3, 4], [1, 9], [2, 2]]
    assert list(fill_batches([], lambda n: n, 7)) == []
