"""The headline (five metrics per strategy): reports/headline/ for `dvc metrics show`, the
report's first table, and one definition behind both."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from click.testing import CliRunner

from interviewsim.analysis.headline import HEADLINE_METRICS, SHORT_NAMES, headline_files
from interviewsim.analysis.inference import control_test
from interviewsim.analysis.metrics import aggregate_rows
from interviewsim.analysis.report import render_report
from interviewsim.analysis.stats import attainable
from interviewsim.analysis.trust import ColumnPower, TrustReport
from interviewsim.analysis.validity import Discrimination
from interviewsim.config.params import ALL_STRATEGIES, parse_params
from interviewsim.data.records import PersonalityMetric

ROOT = Path(__file__).resolve().parents[1]


def cells(strategies=ALL_STRATEGIES, judges=("local",)):
    """Values with four decimals and a minus sign where a metric can be negative: the widest
    a headline value gets."""
    rows = []
    for s in strategies:
        for j in judges:
            for m in (*HEADLINE_METRICS, "neutral_ratio"):
                scale = {"content_similarity": 4.0, "mcq_reward": -1.0}.get(m, 1.0)
                for p, v in (("P1", 0.1), ("P2", 0.2), ("P3", 0.4)):
                    rows.append(PersonalityMetric(personality_id=p, strategy=s, judge=j,
                                                  metric=m, value=scale * v + 0.0001, n=3))
    return aggregate_rows(rows)


def trust():
    return TrustReport(
        discrimination=[Discrimination("local", m, control_test(
            [[0.6], [0.3], [0.5], [0.6]], [[0.4], [0.5], [0.4], [0.3]], +1, 0.1, 10_000, 1),
            None, 0.5, 0.4) for m in HEADLINE_METRICS],
        power=[ColumnPower(m, "local", 4, 21, attainable(4, 21, 10_000, 0.05))
               for m in HEADLINE_METRICS])


def test_one_file_per_strategy_then_the_validity_rows_all_with_the_same_columns():
    files = headline_files(cells(), list(ALL_STRATEGIES), trust())
    assert list(files) == [f"{s}.json" for s in ALL_STRATEGIES] + [
        "validity_judge.json", "validity_power.json", "validity_verdict.json"]
    columns = sorted(SHORT_NAMES[m] for m in HEADLINE_METRICS)
    assert all(sorted(row) == columns for row in files.values())
    assert files["retrieval.json"]["mcq_reward"] == -0.2332  # 4 decimals
    assert files["validity_judge.json"]["cs_similarity"] == 0
    assert files["validity_power.json"]["mcq_accuracy"] == 0
    assert files["validity_verdict.json"]["cs_similarity"] == 0  # inconclusive at 4


def test_dvc_metrics_show_prints_a_strategy_per_row_within_120_columns(tmp_path):
    """The real `dvc metrics show`, in a DVC project without git holding the folder."""
    folder = tmp_path / "reports" / "headline"
    folder.mkdir(parents=True)
    for name, row in headline_files(cells(), list(ALL_STRATEGIES), trust()).items():
        (folder / name).write_text(json.dumps(row))
    (tmp_path / "dvc.yaml").write_text("metrics:\n  - reports/headline\n")
    dvc = [sys.executable, "-m", "dvc"]
    subprocess.run([*dvc, "init", "-q", "--no-scm"], cwd=tmp_path, check=True)
    shown = subprocess.run([*dvc, "metrics", "show"], cwd=tmp_path, check=True,
                           capture_output=True, text=True).stdout
    lines = shown.rstrip("\n").splitlines()
    assert lines[0].split() == ["Path", *sorted(SHORT_NAMES.values())]
    rows = [line.split()[0] for line in lines[1:]]
    # DVC lists the files by name: the strategies, then the validity rows
    assert rows == [f"reports/headline/{s}.json" for s in sorted(ALL_STRATEGIES)] + [
        "reports/headline/validity_judge.json", "reports/headline/validity_power.json",
        "reports/headline/validity_verdict.json"]
    assert max(len(line) for line in lines) <= 120, shown


def test_several_judges_nest_under_the_metric():
    files = headline_files(cells(judges=("a", "b")), list(ALL_STRATEGIES), TrustReport())
    assert set(files["hybrid.json"]["cs_similarity"]) == {"a", "b"}
    assert "validity_judge.json" not in files  # controls off: no discrimination row


def test_dvc_registers_the_headline_folder_as_metrics_and_ignores_dvc_plots():
    stage = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["aggregate"]
    metrics = {next(iter(m)) if isinstance(m, dict) else m for m in stage["metrics"]}
    assert {"reports/metrics.json", "reports/headline"} <= metrics
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "/dvc_plots/" in ignored


def test_the_report_opens_its_results_with_the_headline_table():
    from tests.test_report import report_data

    text = render_report(report_data())
    results = text[text.index("## Results"):text.index("## Confidence intervals")]
    headline, everything = results.split("All metrics:")
    assert "Headline metrics (also in `reports/headline/`" in headline
    assert "| strategy | contradiction_ratio (local) | personality_alignment (local) |" in headline


def test_the_aggregate_stage_writes_the_headline_folder(tmp_path):
    from stages.aggregate import aggregate
    from tests.test_report import write_stage_inputs

    args = [*write_stage_inputs(tmp_path), "--no-mlflow"]
    result = CliRunner().invoke(aggregate, args)
    assert result.exit_code == 0, result.output
    folder = tmp_path / "reports" / "headline"
    stale = folder / "short-profile.json"  # a strategy no longer run
    stale.write_text("{}")
    assert CliRunner().invoke(aggregate, args).exit_code == 0
    assert not stale.exists()
    names = {p.name for p in folder.iterdir()}
    assert {"no-context.json", "retrieval.json", "hybrid.json"} <= names
    row = json.loads((folder / "retrieval.json").read_text())
    assert row["mcq_accuracy"] == 0.6 and set(row) <= set(SHORT_NAMES.values())
    assert parse_params({}).strategies  # the defaults name every strategy
