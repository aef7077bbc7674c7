"""report.md's paper-style table and the per-metric plots."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from interviewsim.analysis.calibration import interval_printable
from interviewsim.analysis.metrics import aggregate_rows, summarise_usage
from interviewsim.analysis.report import (
    ReportData,
    intervals_table,
    pairwise_table,
    permutation_rule,
    plot_metric,
    plot_rows,
    render_report,
    results_table,
)
from interviewsim.analysis.stats import PairedTest, confidence_intervals, pairwise_tests
from interviewsim.data.records import PersonalityMetric

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
                      intervals=confidence_intervals(cells),
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
    # the interval where its simulated coverage at 12 personalities holds, else the reason
    shown = ("[" if interval_printable("levels", 12, 5, target="mean")
             else "too few to interpret")
    assert f"| personality_alignment | local | retrieval | 0.555 | 0.555 | {shown}" in text
    assert "| 12/12 | 60 | 12 excluded |" in text
    assert "Models without a price in `params.prices` (not in the cost): m." in text
    assert "option_count: 4" in text


def test_plot_rows_label_bars_by_judge_only_when_there_are_several():
    data = report_data(judges=("a", "b"))
    rows = plot_rows(data.cells, data.intervals, data.strategies)
    assert [r["label"] for r in rows["personality_alignment"]][:2] == ["no-context / a",
                                                                      "retrieval / a"]
    single = report_data()
    first = plot_rows(single.cells, single.intervals, single.strategies)["contradiction_ratio"][0]
    interval = single.intervals[("no-context", "local", "contradiction_ratio")]
    assert first["label"] == "no-context"
    assert (first["ci_low"], first["ci_high"]) == ((None, None) if interval is None else tuple(
        round(x, 6) for x in interval))


def test_plots_are_pngs_with_identical_bytes_for_identical_numbers(tmp_path):
    data = report_data(judges=("a", "b"))
    rows = plot_rows(data.cells, data.intervals, data.strategies)["personality_alignment"]
    plot_metric("personality_alignment", rows, tmp_path / "one.png")
    plot_metric("personality_alignment", rows, tmp_path / "two.png")
    one = (tmp_path / "one.png").read_bytes()
    assert one.startswith(b"\x89PNG") and one == (tmp_path / "two.png").read_bytes()


def test_the_pairwise_section_lists_only_pairs_that_differ_after_adjustment():
    def test(b: str, p_holm: float) -> PairedTest:
        return PairedTest(metric="m", judge="j", strategy_a="a", strategy_b=b, n_pairs=12,
                          mean_diff=0.1, p_value=p_holm / 2, p_holm=p_holm, exact=True)

    lines = pairwise_table([test("b", 0.01), test("c", 0.2)]).splitlines()
    assert lines[2:] == ["| m | j | a | b | 12 | 0.100 | 0.0050 | 0.0100 |"]
    assert pairwise_table([test("c", 0.2)]).startswith("No pair of strategies differs")


def results_paragraph(report: str) -> str:
    """The sentence under '## Results' that says how the marks were tested."""
    return report.split("## Results\n\n")[1].split("\n\n")[0]


def paired(n_pairs: int, exact: bool) -> PairedTest:
    return PairedTest(metric="m", judge="j", strategy_a="a", strategy_b="b", n_pairs=n_pairs,
                      mean_diff=0.1, p_value=0.5, exact=exact)


def test_the_report_says_exact_enumeration_with_its_n_rather_than_a_permutation_count():
    text = results_paragraph(render_report(report_data()))  # 12 personalities, 2^12 <= 10,000
    assert "all 2^12 = 4096 sign patterns (exact)" in text
    assert "permutations" not in text and "random" not in text
    assert permutation_rule([paired(12, True), paired(10, True)], 10_000) == (
        "all 2^n sign patterns (exact; n = 10 to 12 paired personalities)")


def test_the_report_says_random_sign_patterns_when_2_to_the_n_exceeds_the_budget():
    data = report_data()
    tests = pairwise_tests(data.cells, data.strategies, 1000, 1)
    text = results_paragraph(render_report(data.model_copy(update={"tests": tests,
                                                                   "permutations": 1000})))
    assert "1000 random sign patterns" in text and "exact" not in text


def test_mixed_cells_state_the_rule_precisely():
    rule = permutation_rule([paired(12, True), paired(20, False)], 10_000)
    assert rule == ("exact over all 2^n sign patterns when 2^n ≤ 10000 (n: paired "
                    "personalities), else 10000 random ones")
    assert permutation_rule([], 10_000) == rule
    untestable = PairedTest(metric="m", judge="j", strategy_a="a", strategy_b="b", n_pairs=0,
                            mean_diff=None, p_value=None, exact=False)
    assert permutation_rule([paired(5, True), untestable], 10_000) == (
        "all 2^5 = 32 sign patterns (exact)")


def mcq_and_judge_cells():
    rows = [PersonalityMetric(personality_id=pid, strategy="retrieval", judge="local",
                              metric=metric, value=value, n=n, invalid=invalid)
            for pid, n, invalid in (("P1", 6, 3), ("P2", 6, 0))
            for metric, value in (("mcq_accuracy", 0.5), ("mcq_reward", 0.25))]
    rows += [PersonalityMetric(personality_id=pid, strategy="retrieval", judge="local",
                               metric="content_similarity", value=3.0, n=4, invalid=1)
             for pid in ("P1", "P2")]
    return aggregate_rows(rows)


def test_mcq_rows_show_malformed_answers_as_scored_and_judge_rows_as_excluded():
    cells = mcq_and_judge_cells()
    data = ReportData(title="t", cells=cells, intervals={}, tests=[], strategies=["retrieval"],
                      baseline=None, usage=summarise_usage({}), config={}, permutations=100,
                      bootstrap=50)
    table = intervals_table(data)
    assert "| mcq_accuracy | local | retrieval | 0.500 | 0.500 | too few to interpret | 2/2 | " \
           "12 | malformed 3 (scored as wrong) |" in table
    assert "| mcq_reward | local | retrieval | 0.250 | 0.250 | too few to interpret | 2/2 | " \
           "12 | malformed 3 (scored as wrong) |" in table
    assert "| content_similarity | local | retrieval | 3.000 | 3.000 | too few to interpret | " \
           "2/2 | 8 | 2 excluded |" in table
    text = render_report(data)
    assert "invalid outputs are excluded, never scored" not in text
    assert ("the rows of mcq_accuracy, mcq_reward score malformed grouped answers as wrong "
            "(accuracy 0, reward -0.5)") in text
    assert "the judge metrics and every other row exclude invalid outputs from n" in text


def write_stage_inputs(root: Path) -> list[str]:
    """Handcrafted judged and MCQ metric files plus a stage summary; returns CLI arguments."""
    judged, mcq = root / "judged.jsonl", root / "mcq.jsonl"
    data = report_data()
    judged.write_text("".join(
        PersonalityMetric(personality_id=pid, strategy=s, judge=j, metric=m, value=v, n=1)
        .model_dump_json() + "\n"
        for (s, j, m), cell in data.cells.items() for pid, v in cell.per_personality.items()))
    mcq.write_text("".join(
        PersonalityMetric(personality_id=pid, strategy=s, judge="local", metric=m,
                          value=0.5 + 0.1 * (s == "retrieval"), n=4).model_dump_json() + "\n"
        for pid in PIDS for s in ("no-context", "retrieval", "hybrid")
        for m in ("mcq_accuracy", "mcq_reward")))
    claims = root / "claims.jsonl"
    claims.write_text(PersonalityMetric(personality_id="P00", strategy="hybrid", judge="local",
                                        metric="grounded_claim_rate", value=0.9, n=10)
                      .model_dump_json() + "\n")
    summary = root / "generated" / "summary.json"
    summary.parent.mkdir()
    summary.write_text(json.dumps({"counts": {"answers": 36}, "usage": {}}))
    fidelity = root / "fidelity"  # the fidelity stage ran on no answers
    fidelity.mkdir()
    for name in ("answers.jsonl", "ceiling.jsonl"):
        (fidelity / name).write_text("")
    params = root / "params.yaml"
    params.write_text(f"strategies: [no-context, retrieval, hybrid]\n"
                      f"controls: []\n"
                      f"aggregate: {{permutations: 1000, bootstrap: 200}}\n"
                      f"mlflow: {{tracking_uri: 'sqlite:///{root / 'mlflow.db'}'}}\n")
    return ["--params", str(params), "--judged", str(judged), "--mcq", str(mcq),
            "--metrics-file", str(claims), "--summary", str(summary),
            "--fidelity-dir", str(fidelity), "--out-dir", str(root / "reports")]


def test_the_aggregate_stage_writes_every_report_file(tmp_path):
    from stages.aggregate import aggregate

    result = CliRunner().invoke(aggregate, [*write_stage_inputs(tmp_path), "--no-mlflow"])
    assert result.exit_code == 0, result.output
    reports = tmp_path / "reports"
    metrics = json.loads((reports / "metrics.json").read_text())
    assert metrics["retrieval.local.mcq_accuracy"] == 0.6
    assert metrics["hybrid.local.personality_alignment"] == 0.565
    assert metrics["counts.generated.answers"] == 36
    assert sorted(p.name for p in (reports / "plots").iterdir()) == [
        f"{m}.{ext}" for m in ("contradiction_ratio", "grounded_claim_rate", "mcq_accuracy",
                               "mcq_reward", "personalities_contradiction_ratio",
                               "personalities_mcq_accuracy", "personalities_mcq_reward",
                               "personalities_personality_alignment", "personality_alignment")
        for ext in ("json", "png")]
    assert metrics["hybrid.local.grounded_claim_rate"] == 0.9
    assert metrics["hybrid.local.grounded_claim_rate.pooled"] == 0.9
    assert metrics["retrieval.local.mcq_accuracy.pooled"] == 0.6
    assert "| strategy | contradiction_ratio (local) |" in (reports / "report.md").read_text()
    significance = json.loads((reports / "significance.json").read_text())
    assert significance["baseline"] == "no-context" and len(significance["tests"]) == 12
    assert (reports / "per_personality.csv").read_text().startswith("metric,judge,strategy")
