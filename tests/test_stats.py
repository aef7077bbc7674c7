"""The paired sign-flip test and bootstrap intervals: exact where cheap, seeded, symmetric."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interviewsim.analysis.metrics import MetricCell
from interviewsim.analysis.stats import (
    Attainable,
    attainable,
    confidence_intervals,
    holm_adjust,
    min_sign_flip_p,
    pairwise_tests,
    personalities_needed,
    sign_flip_p_value,
    significance_mark,
)

finite = st.floats(-1e3, 1e3, allow_nan=False)


def cell(strategy: str, values: dict[str, float], metric: str = "m",
         judge: str = "j") -> MetricCell:
    return MetricCell(strategy=strategy, judge=judge, metric=metric,
                      value=float(np.mean(list(values.values()))) if values else None,
                      per_personality=values, personalities=len(values), n=len(values),
                      invalid=0)


def test_identical_strategies_give_p_equal_to_one():
    assert sign_flip_p_value(np.zeros(12), 10_000, seed=1) == 1.0
    assert sign_flip_p_value(np.zeros(20), 1_000, seed=1) == 1.0


def test_a_large_consistent_difference_over_twelve_personalities_is_significant():
    rng = np.random.default_rng(0)
    diffs = 0.3 + rng.normal(0, 0.05, size=12)
    p = sign_flip_p_value(diffs, 10_000, seed=1)
    assert p < 0.01
    assert p == 2 / 4096  # exact: only all-plus and all-minus are as extreme


def test_exact_enumeration_matches_a_hand_count():
    # d = (1, 2): sign sums 3, 1, -1, -3; |.| >= 3 for two of four labellings.
    assert sign_flip_p_value([1.0, 2.0], 10_000, seed=0) == 0.5


def test_sampled_p_values_are_reproducible_with_the_seed_and_vary_without_it():
    diffs = np.random.default_rng(3).normal(0.1, 1.0, size=40)
    first = sign_flip_p_value(diffs, 2_000, seed=7)
    assert first == sign_flip_p_value(diffs, 2_000, seed=7)
    assert {sign_flip_p_value(diffs, 2_000, seed=s) for s in range(5)} != {first}


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=0, max_size=24), st.integers(1, 3_000), st.integers(0, 2**32))
def test_p_is_in_the_unit_interval_and_symmetric_in_argument_order(diffs, permutations, seed):
    p = sign_flip_p_value(diffs, permutations, seed)
    assert 0.0 < p <= 1.0
    assert p == sign_flip_p_value([-d for d in diffs], permutations, seed)


def test_pairwise_tests_cover_every_strategy_pair_in_configured_order_on_shared_personalities():
    a = cell("no-context", {"P1": 0.1, "P2": 0.2, "P3": 0.3})
    b = cell("retrieval", {"P1": 0.5, "P2": 0.6})
    c = cell("hybrid", {"P1": 0.5, "P2": 0.6, "P3": 0.7})
    cells = {x.key: x for x in (a, b, c)}
    tests = pairwise_tests(cells, ["no-context", "retrieval", "hybrid"], 10_000, seed=1)
    assert [(t.strategy_a, t.strategy_b, t.n_pairs) for t in tests] == [
        ("no-context", "retrieval", 2), ("no-context", "hybrid", 3), ("retrieval", "hybrid", 2)]
    assert tests[0].mean_diff == -0.4 and tests[0].exact
    assert all(t.p_holm >= t.p_value for t in tests)


def test_a_pair_without_shared_personalities_has_no_p_value():
    cells = {x.key: x for x in (cell("a", {"P1": 1.0}), cell("b", {"P2": 1.0}))}
    [test] = pairwise_tests(cells, ["a", "b"], 100, seed=0)
    assert test.p_value is None and test.n_pairs == 0


def test_holm_adjustment_is_monotone_and_capped_at_one():
    assert holm_adjust([0.01, 0.04, 0.03, 0.5]) == [0.04, 0.09, 0.09, 0.5]
    assert holm_adjust([0.6, 0.6]) == [1.0, 1.0]


def test_confidence_intervals_are_t_intervals_printed_only_where_they_cover():
    three = cell("a", {"P1": 0.0, "P2": 1.0, "P3": 0.5})
    one = cell("b", {"P1": 0.5})
    found = confidence_intervals({three.key: three, one.key: one})
    assert found[one.key] is None  # one personality: too few to interpret
    low, high = found[three.key]
    assert (low + high) / 2 == pytest.approx(0.5) and high - low > 1


def test_significance_marks():
    assert [significance_mark(p) for p in (0.001, 0.02, 0.2, None)] == ["**", "*", "", ""]


@pytest.mark.parametrize("n", range(1, 13))
def test_the_smallest_exact_p_is_two_over_two_to_the_n(n):
    # all differences of one sign: only the all-plus and all-minus sign vectors are as extreme
    assert min_sign_flip_p(n, 10_000) == 2 / 2**n
    for diffs in (np.ones(n), np.arange(1.0, n + 1), -np.linspace(0.1, 0.9, n)):
        assert sign_flip_p_value(diffs, 10_000, seed=0) == min_sign_flip_p(n, 10_000)
    # the boundary: 2**n permutations still enumerate, one fewer samples
    assert min_sign_flip_p(n, 2**n) == 2 / 2**n
    assert min_sign_flip_p(n, 2**n - 1) == 1 / 2**n  # floor 1 / (1 + permutations)


@pytest.mark.parametrize("n", range(1, 13))
def test_the_sampled_p_never_falls_below_its_floor_and_a_lucky_draw_reaches_it(n):
    permutations = 100
    floor = min_sign_flip_p(n, permutations)
    p_values = [sign_flip_p_value(np.ones(n), permutations, seed) for seed in range(50)]
    assert min(p_values) >= floor
    if 2**n > permutations:  # Monte-Carlo branch: (1 + extreme) / (1 + permutations)
        assert floor == 1 / (1 + permutations) and floor in p_values
    else:
        assert set(p_values) == {2 / 2**n}


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=0, max_size=16), st.integers(1, 3_000), st.integers(0, 2**32))
def test_no_p_value_is_below_the_attainable_minimum(diffs, permutations, seed):
    assert sign_flip_p_value(diffs, permutations, seed) >= min_sign_flip_p(len(diffs),
                                                                           permutations)


def test_no_personality_means_p_one():
    assert min_sign_flip_p(0, 10_000) == sign_flip_p_value([], 10_000, seed=0) == 1.0


def test_six_personalities_are_the_fewest_that_can_reach_five_percent():
    assert min_sign_flip_p(5, 10_000) == 0.0625 > 0.05
    assert min_sign_flip_p(6, 10_000) == 0.03125 <= 0.05
    assert personalities_needed(1, 10_000) == 6
    assert attainable(6, 1, 10_000) == Attainable(
        min_p=0.03125, min_p_holm=0.03125, significant_possible=True, personalities_needed=6,
        exact=True)
    assert not attainable(5, 1, 10_000).significant_possible


@pytest.mark.parametrize(("comparisons", "needed"), [(1, 6), (3, 7), (6, 8), (21, 10)])
def test_holm_multiplies_the_smallest_p_by_the_column_size(comparisons, needed):
    # 3 strategies -> 3 pairs: 6/128 = 0.047; 7 strategies -> 21 pairs: 42/1024 = 0.041
    assert personalities_needed(comparisons, 10_000) == needed
    for n in range(1, 14):
        result = attainable(n, comparisons, 10_000)
        column = [result.min_p] + [0.5] * (comparisons - 1)
        assert result.min_p_holm == holm_adjust(column)[0] == min(1.0, comparisons * result.min_p)
        assert result.significant_possible == (n >= needed)


def test_too_few_permutations_can_make_significance_unreachable():
    # 21 comparisons x 1/101 > 0.05 at any number of personalities
    assert personalities_needed(21, 100) is None
    result = attainable(40, 21, 100)
    assert (result.min_p, result.exact, result.personalities_needed) == (1 / 101, False, None)
    assert not result.significant_possible
    # the Monte-Carlo floor can be what first reaches alpha: 1/20 <= 0.05 at n = 5 (2**5 > 19)
    assert personalities_needed(1, 19) == 5 and attainable(4, 1, 19).min_p == 0.125


def test_attainable_refuses_meaningless_arguments():
    with pytest.raises(ValueError):
        attainable(5, 0, 10_000)
    with pytest.raises(ValueError):
        min_sign_flip_p(-1, 10_000)
    with pytest.raises(ValueError):
        min_sign_flip_p(3, 0)
