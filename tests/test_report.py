"""report.md's paper-style table and the per-metric plots."""

from __future__ import annotations

from interviewsim.metrics import aggregate_rows, summarise_usage
from interviewsim.records import PersonalityMetric
from interviewsim.report import ReportData, plot_metric, plot_rows, render_report, results_table
from interviewsim.stats import confidence_intervals, pairwise_tests

PIDS = [f"P{i:02d}" for i in range(12)]


def report_data(judges=("local",), baseline="no-context") -> ReportData:
    rows = []
    for pid_index, pid in enumerate(PIDS):
        for strategy, shift in (("no-context", 0.0), ("retrieval", 0.4), ("hybrid", 0.41)):
            for judge in judges:
                base = 0.1 + 0.01 * pid_index
                rows.append(PersonalityMetric(personality_id=pid, strategy=strategy, judge=judge,
                                              metric="personality_alignment", value=base + shift,
                                              n=5, invalid=1))
                rows.append(PersonalityMetric(personality_id=pid, strategy=strategy, judge=judge,
                                              metric="contradiction_ratio",
                                              value=0.5 - shift / 2, n=5))
    cells = aggregate_rows(rows)
    strategies = ["no-context", "retrieval", "hybrid"]
    usage = summarise_usage({"generate": {"counts": {"answers": 36}, "usage": {
        "generator/m": {"model": "m", "calls": 36, "cache_hits": 0, "prompt_tokens": 900,
                        "completion_tokens": 90, "wall_s": 3.0, "est_cost_usd": None}}}})
    return ReportData(title="InterviewSim results", cells=cells,
                      intervals=confidence_intervals(cells, 200, 1),
                      tests=pairwise_tests(cells, strategies, 10_000, 1),
                      strategies=strategies, baseline=baseline, usage=usage,
                      config={"mcq": {"option_count": 4}}, permutations=10_000, bootstrap=200)


def test_strategies_are_rows_and_each_metric_under_each_judge_is_a_column():
    table = results_table(report_data(judges=("a", "b"))).splitlines()
    assert table[0] == ("| strategy | contradiction_ratio (a) | contradiction_ratio (b) | "
                        "personality_alignment (a) | personality_alignment (b) |")
    assert [line.split(" | ")[0] for line in table[2:]] == ["| no-context", "| retrieval",
                                                            "| hybrid"]


def test_the_best_value_is_bold_and_differences_from_the_baseline_are_marked():
    lines = results_table(report_data()).splitlines()
    no_context, retrieval, hybrid = (line.split(" | ") for line in lines[2:])
    # contradiction: lower is better (hybrid 0.295); alignment: higher is better (hybrid).
    assert hybrid[1] == "**0.295**\\*\\*" and hybrid[2] == "**0.565**\\*\\* |"
    assert retrieval[1] == "0.300\\*\\*"
    assert no_context[1] == "0.500" and "*" not in no_context[2]


def test_without_a_baseline_there_are_no_marks():
    table = results_table(report_data(baseline=None))
    assert "\\*" not in table


def test_the_report_shows_intervals_counts_usage_and_configuration():
    text = render_report(report_data())
    for heading in ("## Results", "## Confidence intervals and counts", "## Pairwise tests",
                    "## Usage and cost", "## Configuration"):
        assert heading in text
    assert "| personality_alignment | local | retrieval | 0.555 | [" in text
    assert "| 12/12 | 60 | 12 |" in text
    assert "Models without a price in `params.prices` (not in the cost): m." in text
    assert "option_count: 4" in text


def test_plot_rows_label_bars_by_judge_only_when_there_are_several():
    data = report_data(judges=("a", "b"))
    rows = plot_rows(data.cells, data.intervals, data.strategies)
    assert [r["label"] for r in rows["personality_alignment"]][:2] == ["no-context / a",
                                                                      "retrieval / a"]
    single = report_data()
    first = plot_rows(single.cells, single.intervals, single.strategies)["contradiction_ratio"][0]
    assert first["label"] == "no-context" and first["ci_low"] <= first["value"]


def test_plots_are_pngs_with_identical_bytes_for_identical_numbers(tmp_path):
    data = report_data(judges=("a", "b"))
    rows = plot_rows(data.cells, data.intervals, data.strategies)["personality_alignment"]
    plot_metric("personality_alignment", rows, tmp_path / "one.png")
    plot_metric("personality_alignment", rows, tmp_path / "two.png")
    one = (tmp_path / "one.png").read_bytes()
    assert one.startswith(b"\x89PNG") and one == (tmp_path / "two.png").read_bytes()
