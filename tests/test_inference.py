"""The five control verdicts: what the issue's counter-examples now get, and that the rule
cannot fire where the design cannot support it."""

from __future__ import annotations

import numpy as np
import pytest

from interviewsim.analysis.inference import (
    VERDICT_CODES,
    ControlVerdict,
    control_test,
    one_sided_p,
    personalities_to_reach,
    smallest_p,
)
from interviewsim.analysis.intervals import (
    clopper_pearson,
    design_effect,
    pooled_proportion,
    t_interval,
    t_quantile,
    wilson,
)

PERMUTATIONS = 10_000


def _two_items(diffs: list[float]) -> tuple[list[list[float]], list[list[float]]]:
    """Personalities whose two items differ by d each (oracle 3 + d, impostor 3)."""
    return [[3 + d, 3 + d] for d in diffs], [[3.0, 3.0] for _ in diffs]


@pytest.mark.parametrize("diffs", [[-0.1, 1, 1, 1], [0.5] * 4])
def test_four_personalities_never_discriminate(diffs):
    oracle, impostor = _two_items(diffs)
    found = control_test(oracle, impostor, +1, 0.5, PERMUTATIONS, 1)
    assert found.verdict is ControlVerdict.INCONCLUSIVE
    assert not found.reachable and found.smallest_p == 1 / 16
    assert found.p_discriminates >= 1 / 16


def test_the_issue_counter_example_has_the_exact_sign_flip_p():
    # two-sided p of [-0.1, 1, 1, 1] is 0.25: one-sided 0.125
    oracle, impostor = _two_items([-0.1, 1, 1, 1])
    assert control_test(oracle, impostor, +1, None, PERMUTATIONS, 1).p_discriminates == 0.125


def test_an_inverted_judge_is_inverted():
    oracle, impostor = _two_items([-1.0, -0.5, -1.5, -1.0, -2.0, -0.5, -1.0])
    found = control_test(oracle, impostor, +1, 0.5, PERMUTATIONS, 1)
    assert found.verdict is ControlVerdict.INVERTED and found.p_inverted == 1 / 128


def test_lower_is_better_metrics_flip_the_sign():
    oracle = [[0.0, 0.0]] * 7
    impostor = [[1.0, 0.0]] * 7  # the impostor contradicts more: right way for contradictions
    found = control_test(oracle, impostor, -1, 0.1, PERMUTATIONS, 1)
    assert found.verdict is ControlVerdict.DISCRIMINATES and found.difference == 0.5


def test_constant_controls_are_no_variation():
    found = control_test([[0.0, 0.0]] * 8, [[0.0, 0.0]] * 8, -1, 0.1, PERMUTATIONS, 1)
    assert found.verdict is ControlVerdict.NO_VARIATION
    assert VERDICT_CODES[found.verdict] == 3


def test_equivalence_needs_a_margin_and_enough_personalities():
    rng = np.random.default_rng(3)
    small = rng.normal(0, 0.05, size=12)
    oracle, impostor = _two_items(list(small))
    assert control_test(oracle, impostor, +1, 0.5, PERMUTATIONS, 1).verdict is ControlVerdict.EQUIVALENT
    assert control_test(oracle, impostor, +1, None, PERMUTATIONS, 1).verdict is (
        ControlVerdict.INCONCLUSIVE)
    few = _two_items(list(small[:4]))
    assert control_test(*few, +1, 0.5, PERMUTATIONS, 1).verdict is ControlVerdict.INCONCLUSIVE


def test_a_judge_scoring_by_overlap_discriminates_at_ten_personalities():
    """Scores 1 + round(4 × word overlap with the reference): the oracle overlaps a lot, the
    impostor little, with noise from item to item."""
    rng = np.random.default_rng(7)
    overlap_oracle = rng.uniform(0.4, 0.9, size=(10, 2))
    overlap_impostor = rng.uniform(0.0, 0.5, size=(10, 2))
    oracle = (1 + np.round(4 * overlap_oracle)).tolist()
    impostor = (1 + np.round(4 * overlap_impostor)).tolist()
    found = control_test(oracle, impostor, +1, 0.5, PERMUTATIONS, 1)
    assert found.verdict is ControlVerdict.DISCRIMINATES and found.exact


def test_the_smallest_p_follows_the_design():
    assert smallest_p(4, PERMUTATIONS) == 1 / 16
    assert smallest_p(20, PERMUTATIONS) == 1 / (1 + PERMUTATIONS)
    assert personalities_to_reach(0.025, PERMUTATIONS) == 6
    assert personalities_to_reach(0.05, PERMUTATIONS) == 5


def test_monte_carlo_p_is_seeded_and_never_zero():
    means = np.full(30, 0.4)
    first = one_sided_p(means, 2000, 5)
    assert first == one_sided_p(means, 2000, 5)
    assert first[0] == 1 / 2001


def test_t_quantiles_match_the_tables():
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-3)
    assert t_quantile(0.975, 3) == pytest.approx(3.1824, abs=1e-3)
    assert t_quantile(0.975, 30) == pytest.approx(2.0423, abs=1e-3)


def test_a_t_interval_needs_two_values_and_widens_at_small_n():
    assert t_interval([1.0]) is None
    assert t_interval([0.0, 0.0, 0.0, 0.0]) is None  # no spread: not a zero-width interval
    low, high = t_interval([0.0, 1.0, 2.0])
    assert low == pytest.approx(1 - 4.303 / np.sqrt(3), abs=1e-3) and high > 2


def test_zero_events_get_a_clopper_pearson_upper_bound():
    assert clopper_pearson(0, 8)[1] == pytest.approx(0.369, abs=1e-3)
    found = pooled_proportion([0, 0, 0, 0], [2, 2, 2, 2])
    assert found.interval[0] == 0 and found.interval[1] == pytest.approx(0.369, abs=1e-3)
    assert found.method == "clopper-pearson, unadjusted"


def test_clustered_proportions_are_widened_by_the_design_effect():
    clustered = pooled_proportion([10, 0, 10, 0], [10, 10, 10, 10])
    assert design_effect([10, 0, 10, 0], [10] * 4) == pytest.approx(10.0)
    naive = wilson(20, 40)
    assert clustered.interval[1] - clustered.interval[0] > naive[1] - naive[0]
    assert "design effect" in clustered.method
