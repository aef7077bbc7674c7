"""The pooled value beside the macro headline: in the cells, metrics.json, MLflow and the report.

Two personalities with 1 and 3 units make the two differ: macro (0 + 1) / 2 = 0.5, pooled
(0 × 1 + 1 × 3) / 4 = 0.75.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interviewsim.analysis.metrics import (
    NOT_POOLED,
    aggregate_rows,
    flat_metrics,
    summarise_usage,
)
from interviewsim.analysis.report import HEADLINE_NOTE, ReportData, render_report
from interviewsim.analysis.stats import confidence_intervals, pairwise_tests
from interviewsim.analysis.style import STYLE_METRICS
from interviewsim.analysis.tracking import child_runs
from interviewsim.data.records import PersonalityMetric

KEY = ("retrieval", "local", "contradiction_ratio")


def row(pid: str, value: float | None, n: int, *, metric: str = "contradiction_ratio",
        strategy: str = "retrieval", judge: str = "local", invalid: int = 0
        ) -> PersonalityMetric:
    return PersonalityMetric(personality_id=pid, strategy=strategy, judge=judge, metric=metric,
                             value=value, n=n, invalid=invalid)


def uneven_cells():
    """Macro 0.5, pooled 0.75; a personality without a value and one style cell."""
    return aggregate_rows([
        row("P1", 0.0, 1), row("P2", 1.0, 3), row("P3", None, 0, invalid=2),
        row("P1", 0.0, 1, metric="style_length_diff", judge="style"),
        row("P2", 10.0, 3, metric="style_length_diff", judge="style"),
    ])


def test_pooled_weighs_each_personality_by_its_units_and_macro_does_not():
    cell = uneven_cells()[KEY]
    assert cell.value == 0.5
    assert cell.pooled == 0.75
    assert (cell.n, cell.invalid, cell.missing) == (4, 2, 1)


def test_rows_without_a_value_or_units_are_left_out_of_the_pooled_value():
    cells = aggregate_rows([row("P1", 0.2, 0), row("P2", 0.6, 2), row("P3", None, 0)])
    assert cells[KEY].pooled == pytest.approx(0.6)
    empty = aggregate_rows([row("P1", None, 0, invalid=3)])[KEY]
    assert empty.value is None and empty.pooled is None


def test_style_metrics_are_differences_of_means_so_they_have_no_pooled_value():
    assert set(STYLE_METRICS) <= NOT_POOLED
    cell = uneven_cells()[("retrieval", "style", "style_length_diff")]
    assert cell.value == 5.0 and cell.pooled is None


@given(st.lists(st.tuples(st.floats(0, 1), st.integers(1, 50)), min_size=1, max_size=15))
def test_equal_unit_counts_make_pooled_and_macro_agree_and_pooled_stays_in_range(pairs):
    cells = aggregate_rows([row(f"P{i}", v, n) for i, (v, n) in enumerate(pairs)])
    cell = cells[KEY]
    values = [v for v, _ in pairs]
    assert min(values) - 1e-12 <= cell.pooled <= max(values) + 1e-12
    even = aggregate_rows([row(f"P{i}", v, 7) for i, (v, _) in enumerate(pairs)])[KEY]
    assert even.pooled == pytest.approx(even.value)


def test_metrics_json_keeps_the_headline_key_and_adds_the_pooled_one_beside_it():
    flat = flat_metrics(uneven_cells(), summarise_usage({}))
    assert flat["retrieval.local.contradiction_ratio"] == 0.5
    assert flat["retrieval.local.contradiction_ratio.pooled"] == 0.75
    assert flat["retrieval.style.style_length_diff"] == 5.0
    assert "retrieval.style.style_length_diff.pooled" not in flat
    keys = list(flat)
    headline = keys.index("retrieval.local.contradiction_ratio")
    assert keys[headline + 1] == "retrieval.local.contradiction_ratio.pooled"
    none_only = flat_metrics(aggregate_rows([row("P1", None, 0, invalid=1)]),
                             summarise_usage({}))
    assert not any(k.startswith("retrieval.local.") for k in none_only)


def test_mlflow_children_carry_the_pooled_value_beside_the_metric():
    [local, style] = sorted(child_runs(uneven_cells(), {}), key=lambda c: c.judge)
    assert local.metrics["contradiction_ratio"] == 0.5
    assert local.metrics["contradiction_ratio.pooled"] == 0.75
    assert "style_length_diff.pooled" not in style.metrics


def test_the_report_states_the_headline_and_shows_the_pooled_column():
    cells = uneven_cells()
    data = ReportData(title="t", cells=cells, intervals=confidence_intervals(cells),
                      tests=pairwise_tests(cells, ["retrieval"], 100, 1),
                      strategies=["retrieval"], baseline=None, usage=summarise_usage({}),
                      config={}, permutations=100, bootstrap=50)
    text = render_report(data)
    assert text.startswith("# t\n\n" + HEADLINE_NOTE + "\n\n## Results")
    assert "are macro averages" in HEADLINE_NOTE and "*Pooled* values" in HEADLINE_NOTE
    # two personalities of 0/1 labels: neither the t-interval nor the pooled binomial interval
    # covers at this design, so both say so (the pooled one with its simulated coverage)
    assert ("| contradiction_ratio | local | retrieval | 0.500 | 0.750 | too few to interpret "
            "| 2/3 | 4 | 2 excluded | too few to interpret (simulated coverage 0.") in text
    assert "| style_length_diff | style | retrieval | 5.000 | n/a |" in text
    assert "No pooled value (n/a) for style_length_diff" in text
