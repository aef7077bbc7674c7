"""Judges checked against people (issue [human-labels]) without a browser: labels imported or
pulled from MLflow traces, validated, and each judge's agreement with them.

The browser half (a person adding feedback in the MLflow UI's trace view) is
tests/test_labels_ui.py.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest

from interviewsim.analysis.judged_items import CS, FC, PS, SCALES, ItemKey, JudgedItem
from interviewsim.analysis.labels import human_agreement, read_labels
from tests.reliability_kit import run_cli
from tests.stage_runner import offline_workspace, run_pipeline

PEOPLE = 60
pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy is deprecated")


def synthetic_items(seed: int = 3) -> list[JudgedItem]:
    """60 personalities × 4 answers judged on CS and FC, and 5 trait votes: a size at which
    the bootstrap over personalities covers, so intervals are printed."""
    rng = random.Random(seed)
    items = []
    for p in range(PEOPLE):
        pid = f"P{p:02d}"
        for q in range(4):
            for metric in (CS, FC):
                key = ItemKey(pid, "strategy:hybrid", f"{pid}-q{q}", metric, "local")
                items.append(JudgedItem(key, {"candidate": f"{pid} {q}"},
                                        rng.choice(SCALES[metric]), "why", "m"))
        for trait in ("openness", "conscientiousness"):
            key = ItemKey(pid, "strategy:hybrid", trait, PS, "local")
            items.append(JudgedItem(key, {"answers": [pid]}, rng.choice(SCALES[PS]), "", "m"))
    return items


def _csv(path: Path, rows: list[dict]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _rows(items, value) -> list[dict]:
    return [{**item.key.record(), "value": value(item)} for item in items]


def _import(root: Path, file: Path, *args: str):
    """`interviewsim labels import` through the console entry point (its exit codes)."""
    return run_cli(root, "labels", "import", str(file), *args)


@pytest.fixture
def params_root(tmp_path) -> Path:
    (tmp_path / "params.yaml").write_text("strategies: [hybrid]\ncontrols: []\n")
    return tmp_path


def test_a_rater_who_copies_the_judge_agrees_perfectly(params_root):
    items = synthetic_items()
    file = _csv(params_root / "copy.csv", _rows(items, lambda item: item.value))
    result = _import(params_root, file, "--rater", "copier")
    assert result.code == 0, result.stderr
    labels = read_labels(params_root / "data/labels")
    assert len(labels) == len(items)
    found = {(j.metric, j.judge): j for j in human_agreement(items, labels, 500, 7).judges}
    for metric in (CS, FC, PS):
        assert found[(metric, "local")].alpha == pytest.approx(1.0)
        assert found[(metric, "local")].n == sum(i.key.metric == metric for i in items)
    cs = found[(CS, "local")]
    assert cs.printable and cs.interval[0] > 0.95
    assert sum(cs.confusion.get((v, v), 0) for v in SCALES[CS]) == cs.n  # all on the diagonal


def test_a_rater_who_answers_at_random_agrees_at_chance_and_the_interval_says_so(params_root):
    items = synthetic_items()
    rng = random.Random(11)
    file = _csv(params_root / "random.csv",
                _rows(items, lambda item: rng.choice(SCALES[item.key.metric])))
    assert _import(params_root, file, "--rater", "coin").code == 0
    result = human_agreement(items, read_labels(params_root / "data/labels"), 1000, 7)
    for judge in result.judges:
        assert judge.printable, judge  # 60 personalities: the interval is printed
        low, high = judge.interval
        assert low < 0 < high and abs(judge.alpha) < 0.2, judge
    text = result.render()
    assert "alpha" in text and "n = 240 over 60 personalities" in text
    assert "**does not agree well enough with people**" in text


def test_an_out_of_scale_label_is_an_error_naming_it_and_nothing_is_written(params_root):
    items = synthetic_items()[:3]
    rows = _rows(items, lambda item: item.value)
    rows[1]["value"] = 7 if items[1].key.metric == CS else "maybe"
    result = _import(params_root, _csv(params_root / "bad.csv", rows), "--rater", "ann")
    assert result.code == 1 and "Traceback" not in result.stderr
    assert "bad.csv row 3: value:" in result.stderr and "not on the" in result.stderr
    assert not (params_root / "data/labels").exists()
    # a JSON Lines file without a rater anywhere is refused too
    lines = params_root / "norater.jsonl"
    lines.write_text(json.dumps(_rows(items, lambda item: item.value)[0]) + "\n")
    result = _import(params_root, lines)
    assert result.code == 1 and "--rater" in result.stderr


def test_a_stale_label_is_counted_and_not_used():
    items = synthetic_items()[:10]
    from interviewsim.analysis.labels import Label

    labels = [Label(item.key, "ann", item.value, item.digest) for item in items]
    labels[0] = Label(items[0].key, "ann", items[0].value, "0" * 16)  # labelled an old answer
    result = human_agreement(items, labels, 0, 1)
    cs = next(j for j in result.judges if j.metric == items[0].key.metric)
    assert cs.stale == 1
    assert sum(j.n for j in result.judges) == 9


# -- through MLflow traces (the offline pipeline) ---------------------------------------------

@pytest.fixture(scope="module")
def logged(tmp_path_factory) -> Path:
    """The offline pipeline, its aggregate logging to a workspace-local MLflow store."""
    root = offline_workspace(tmp_path_factory.mktemp("labels") / "ws")
    outcomes = run_pipeline(root)
    assert all(o.code == 0 for o in outcomes.values()), {k: o.stderr[-800:]
                                                        for k, o in outcomes.items() if o.code}
    return root


def _client(root: Path):
    import mlflow

    uri = f"sqlite:///{root / 'mlflow.db'}"
    mlflow.set_tracking_uri(uri)
    client = mlflow.MlflowClient(tracking_uri=uri)
    return client, client.get_experiment_by_name("interviewsim").experiment_id


def _traces(root: Path):
    from interviewsim.analysis.item_traces import read_traces

    client, experiment_id = _client(root)
    return list(read_traces(client, experiment_id))


def test_aggregate_twice_keeps_one_trace_per_item(logged):
    first = _traces(logged)
    assert first and len({t.key for t in first}) == len(first)
    outcome = run_cli(logged, "aggregate")
    assert outcome.code == 0, outcome.stderr
    assert "0 created" in outcome.stdout and "0 replaced" in outcome.stdout, outcome.stdout
    assert sorted(t.trace_id for t in _traces(logged)) == sorted(t.trace_id for t in first)


def test_pull_exports_human_feedback_byte_identically_and_the_report_uses_it(logged):
    import mlflow
    from mlflow.entities import AssessmentSource

    outcome = run_cli(logged, "labels", "sample", "--n", "6", "--rater", "ann")
    assert outcome.code == 0, outcome.stderr
    assert "marked 6 of" in outcome.stdout and "selectedEvaluationId=tr-" in outcome.stdout
    requested = [t for t in _traces(logged) if t.tags.get("interviewsim.label.ann")]
    assert len(requested) == 6
    assert len({t.key.stratum for t in requested}) >= 3  # balanced over conditions × metrics
    _client(logged)
    cs = [t for t in requested if t.key.metric == CS] or [
        t for t in _traces(logged) if t.key.metric == CS]
    for trace in cs[:2]:
        mlflow.log_feedback(trace_id=trace.trace_id, name=CS, value=4,
                            source=AssessmentSource(source_type="HUMAN", source_id="ann"))
    assert run_cli(logged, "labels", "pull").code == 0
    path = logged / "data/labels/ann.jsonl"
    first = path.read_bytes()
    assert len(first.splitlines()) == 2
    outcome = run_cli(logged, "labels", "pull")
    assert outcome.code == 0 and "0 file(s) changed" in outcome.stdout
    assert path.read_bytes() == first
    outcome = run_cli(logged, "aggregate", "--no-mlflow")
    assert outcome.code == 0, outcome.stderr
    report = (logged / "reports/report.md").read_text()
    assert "n = 2 over" in report.split("### Judges against people", 1)[1]
    metrics = json.loads((logged / "reports/metrics.json").read_text())
    assert metrics["validity.human_agreement.content_similarity.offline.n"] == 2


def test_an_out_of_scale_feedback_in_the_ui_is_an_error_naming_the_trace(logged, tmp_path):
    import mlflow
    from mlflow.entities import AssessmentSource

    _client(logged)
    trace = next(t for t in _traces(logged) if t.key.metric == FC)
    mlflow.log_feedback(trace_id=trace.trace_id, name=FC, value="maybe",
                        source=AssessmentSource(source_type="HUMAN", source_id="bob"))
    before = sorted((logged / "data/labels").glob("*.jsonl"))
    outcome = run_cli(logged, "labels", "pull")
    assert outcome.code == 1
    assert trace.trace_id in outcome.stderr and "maybe" in outcome.stderr, outcome.stderr
    assert sorted((logged / "data/labels").glob("*.jsonl")) == before  # nothing written
