"""Fixed-seed calibration of the verdict rule and the printed intervals (a reduced run of
benchmarks/bench_inference.py): under the null the new rule fires at most at its level, and
every interval the report would print covers at least 93%, both up to Monte-Carlo error."""

from __future__ import annotations

import math

import pytest

from interviewsim.analysis.calibration import (
    EFFECT,
    MIN_COVERAGE,
    PROPORTION_TRUTHS,
    RHOS,
    interval_printable,
    proportion_coverage,
    proportion_printable,
    worst_proportion_coverage,
)
from interviewsim.analysis.rule_simulation import ALPHA_ONE_SIDED, simulate_design

REPS = 600
DESIGNS = [(kind, rho, n, items) for kind in ("likert", "binary") for rho in (0.0, 0.5)
           for n in (3, 4, 6, 10) for items in (2, 5)]


def _slack(rate: float) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / REPS)


@pytest.fixture(scope="module")
def simulated() -> dict[tuple, tuple[dict[str, float], dict[str, float]]]:
    found = {}
    for index, (kind, rho, n, items) in enumerate(DESIGNS):
        null = simulate_design(kind, n, items, rho, 0.0, REPS, 100 + index, 1000, 200,
                               stratified=False)
        alt = simulate_design(kind, n, items, rho, EFFECT, REPS, 500 + index, 1000, 200,
                              stratified=False)
        found[(kind, rho, n, items)] = (null, alt)
    return found


def test_the_rule_fires_at_most_at_its_level_and_printed_intervals_cover(simulated):
    limit = ALPHA_ONE_SIDED + _slack(ALPHA_ONE_SIDED)
    floor = MIN_COVERAGE - _slack(MIN_COVERAGE)
    for (kind, rho, n, items), (null, alt) in simulated.items():
        assert null["discriminates"] <= limit, (kind, rho, n, items, null)
        assert null["inverted"] <= limit, (kind, rho, n, items, null)
        if interval_printable(kind, n, items):
            assert min(null["t_coverage"], alt["t_coverage"]) >= floor, (kind, rho, n, items)


def test_the_former_rule_fired_above_its_level_at_four_personalities(simulated):
    old = [simulated[(kind, rho, 4, items)][0]["old_discriminates"]
           for kind in ("likert", "binary") for rho in (0.0, 0.5) for items in (2, 5)]
    assert sum(old) / len(old) > ALPHA_ONE_SIDED + _slack(ALPHA_ONE_SIDED) / 2


def test_no_verdict_is_possible_below_six_personalities_and_power_comes_after(simulated):
    for design, (_, alt) in simulated.items():
        if design[2] < 6:
            assert alt["discriminates"] == 0.0, design
    assert simulated[("likert", 0.0, 10, 5)][1]["discriminates"] > 0.8


def test_a_pooled_proportion_interval_is_printed_only_where_it_covers():
    """The report's gate for the pooled binomial interval: at the sample's design (4
    personalities × 2 items) it covers and is printed; with clustered items at 4 × 20 the
    design effect is estimated from too few personalities, the interval under-covers, and the
    report says "too few to interpret"; every printed design covers at an independent seed."""
    assert proportion_printable(4, 2)
    assert not proportion_printable(4, 20)
    assert worst_proportion_coverage(4, 20) < MIN_COVERAGE
    floor = MIN_COVERAGE - _slack(MIN_COVERAGE)
    for n, items in [(3, 2), (4, 2), (4, 5), (6, 5), (10, 2), (4, 20)]:
        if proportion_printable(n, items):
            for p in PROPORTION_TRUTHS:
                for rho in RHOS:
                    assert proportion_coverage(p, rho, n, items, REPS, seed=7 + n + items
                                               ) >= floor, (p, rho, n, items)
