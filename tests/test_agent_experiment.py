"""The interview experiment stage and the deterministic style metric."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from interviewsim.analysis.style import style_metrics
from interviewsim.data.jsonio import read_jsonl, write_jsonl_atomic
from interviewsim.data.prepare import prepare_corpus
from stages.cli import cli as main
from tests.factories import make_doc, write_doc


@pytest.fixture
def prepared(tmp_path: Path) -> Path:
    root = tmp_path / "personalities"
    write_doc(root, make_doc("P1", interviews=5, pairs=3))
    prepare_corpus(root, tmp_path / "prepared", 0.2)
    return tmp_path / "prepared"


def test_style_metric_is_the_absolute_difference_of_collection_means():
    answers = [
        {"personality_id": "P", "strategy": "s", "qa_id": "q1", "valid": True,
         "response": "Um, basically it was fine."},
        {"personality_id": "P", "strategy": "s", "qa_id": "q2", "valid": True,
         "response": "It was fine."},
        {"personality_id": "P", "strategy": "s", "qa_id": "q3", "valid": False,
         "response": None},
    ]
    references = {("P", "q1"): "It was probably fine, I guess.", ("P", "q2"): "Fine.",
                  ("P", "q3"): "Never used."}
    rows = {r.metric: r for r in style_metrics(answers, references)}
    filler = rows["style_filler_rate_diff"]
    assert filler.value == pytest.approx(abs((2 / 5 + 0) / 2 - 0), abs=1e-6)
    assert (filler.judge, filler.n, filler.invalid) == ("style", 2, 1)
    assert rows["style_hedge_rate_diff"].value == pytest.approx(abs(0 - (2 / 6 + 0) / 2), abs=1e-6)
    assert rows["style_length_diff"].value == pytest.approx(abs((5 + 3) / 2 - (6 + 1) / 2))


def test_style_metric_refuses_an_answer_without_a_reference():
    with pytest.raises(KeyError, match="no held-out reference"):
        style_metrics([{"personality_id": "P", "strategy": "s", "qa_id": "x", "valid": True,
                        "response": "hi"}], {})


def test_style_metrics_command_writes_rows_for_every_strategy(tmp_path, prepared):
    heldout = list(read_jsonl(prepared / "heldout_pairs.jsonl"))
    answers = tmp_path / "answers.jsonl"
    write_jsonl_atomic(answers, [
        {"personality_id": p["personality_id"], "strategy": strategy, "qa_id": p["qa_id"],
         "question": p["question"], "response": p["response"], "valid": True}
        for strategy in ("no-context", "hybrid") for p in heldout])
    out = tmp_path / "style"
    result = CliRunner().invoke(main, ["style", "--answers", str(answers),
                                       "--prepared-dir", str(prepared), "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(read_jsonl(out / "personality_metrics.jsonl"))
    assert len(rows) == 6 and {r["value"] for r in rows} == {0.0}
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["style"]["style_length_diff"] == {"hybrid": 0.0, "no-context": 0.0}


def test_interview_experiment_reports_fidelity_gap_guardrails_and_coverage(tmp_path, prepared):
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({
        "strategies": ["no-context", "random", "hybrid"],
        "cache": {"path": str(tmp_path / "cache.sqlite"),
                  "embeddings_dir": str(tmp_path / "emb")},
        "providers": {"local": {"kind": "scripted",
                                "script": "tests.test_agent_support:fidelity_model"}},
    }), encoding="utf-8")
    out = tmp_path / "interview"
    result = CliRunner().invoke(main, [
        "interview", "--params", str(params), "--prepared-dir", str(prepared),
        "--out-dir", str(out), "--strategy", "hybrid", "--strategy", "no-context"])
    assert result.exit_code == 0, result.output
    rows = [(r["strategy"], r["metric"], r["value"], r["n"], r["invalid"])
            for r in read_jsonl(out / "personality_metrics.jsonl")]
    assert rows == [
        ("hybrid", "fidelity_gap", 1.8, 3, 0), ("no-context", "fidelity_gap", 1.8, 3, 0),
        ("hybrid", "guardrail_violation_rate", 0.0, 5, 0),
        ("no-context", "guardrail_violation_rate", 0.0, 5, 0),
        ("hybrid", "state_coverage", 1.0, 4, 0), ("no-context", "state_coverage", 1.0, 4, 0)]
    fidelity = list(read_jsonl(out / "fidelity.jsonl"))
    assert [(f["twin_composite"], f["real_composite"]) for f in fidelity] == [(6.2, 8.0)] * 6
    references = list(read_jsonl(out / "references.jsonl"))
    assert [r["composite"] for r in references] == [8.0, 8.0, 8.0]
    assert (out / "sessions" / "P1" / "hybrid" / "scorecard.json").exists()
    metrics = json.loads((out / "metrics.json").read_text())["interview"]
    assert metrics["fidelity_gap"] == {"hybrid": 1.8, "no-context": 1.8}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"] == {"interviews": 2, "turns": 10, "scored": 6, "unscored": 0}


def _interview_params(tmp_path: Path, strategies: list[str]) -> Path:
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({
        "strategies": ["no-context", "retrieval", "hybrid"],
        "interview": {"strategies": strategies},
        "cache": {"path": str(tmp_path / "cache.sqlite"),
                  "embeddings_dir": str(tmp_path / "emb")},
        "providers": {"local": {"kind": "scripted",
                                "script": "tests.test_agent_support:fidelity_model"}},
    }), encoding="utf-8")
    return params


def test_with_no_interview_strategy_the_stage_calls_no_model_and_writes_empty_results(
        tmp_path, prepared):
    out = tmp_path / "interview"
    result = CliRunner().invoke(main, [
        "interview", "--params", str(_interview_params(tmp_path, [])),
        "--prepared-dir", str(prepared), "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    assert list(read_jsonl(out / "personality_metrics.jsonl")) == []
    assert json.loads((out / "metrics.json").read_text()) == {"interview": {}}
    assert json.loads((out / "summary.json").read_text())["usage"] == {}


@pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy is deprecated")
def test_interview_metrics_reach_metrics_json_and_mlflow_through_aggregate(tmp_path, prepared):
    """The DVC wiring in miniature: params.yaml interview.strategies picks the interviews, and
    aggregate's --metrics-file carries their three metrics into metrics.json and MLflow."""
    import mlflow

    from stages.aggregate import aggregate
    from tests.test_report import write_stage_inputs

    out = tmp_path / "interview"
    result = CliRunner().invoke(main, [
        "interview", "--params", str(_interview_params(tmp_path, ["hybrid"])),
        "--prepared-dir", str(prepared), "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    assert {r["strategy"] for r in read_jsonl(out / "personality_metrics.jsonl")} == {"hybrid"}
    inputs = tmp_path / "aggregate"
    inputs.mkdir()
    args = write_stage_inputs(inputs)
    result = CliRunner().invoke(aggregate, [
        *args, "--metrics-file", str(out / "personality_metrics.jsonl"),
        "--summary", str(out / "summary.json")])
    assert result.exit_code == 0, result.output
    metrics = json.loads((inputs / "reports" / "metrics.json").read_text())
    assert metrics["hybrid.agent.fidelity_gap"] == 1.8
    assert metrics["hybrid.agent.state_coverage"] == 1.0
    assert metrics["counts.interview.interviews"] == 1
    client = mlflow.MlflowClient(f"sqlite:///{inputs / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("interviewsim")
    child = client.search_runs([experiment.experiment_id],
                               "tags.strategy = 'hybrid' and tags.judge = 'agent'")[0]
    assert child.data.metrics["fidelity_gap"] == 1.8
    assert child.data.metrics["guardrail_violation_rate"] == 0.0


def test_personalities_are_interviewed_together_and_written_in_their_order(
        tmp_path, monkeypatch):
    """Each personality's interviews run in a thread of their own, up to the interviewer
    endpoint's concurrency (so an engine decoding several requests together can batch their
    turns): a barrier that two sessions must reach
    at the same time passes; the outputs keep personality order whichever finishes first."""
    import threading

    import stages.interview as stage
    from interviewsim.llm.scripted import ScriptedProvider

    monkeypatch.setattr(ScriptedProvider, "max_concurrency", 4)  # an endpoint serving 4 at once
    root = tmp_path / "personalities"
    for pid in ("P1", "P2"):
        write_doc(root, make_doc(pid, interviews=5, pairs=3))
    prepare_corpus(root, tmp_path / "prepared", 0.2)
    barrier = threading.Barrier(2, timeout=30)
    real = stage.run_session

    def together(plan, settings, clients, candidate, info):
        barrier.wait()  # raises BrokenBarrierError if the sessions ran one after the other
        if info.personality_id == "P1":  # P1 finishes last
            threading.Event().wait(0.3)
        return real(plan, settings, clients, candidate, info)

    monkeypatch.setattr(stage, "run_session", together)
    out = tmp_path / "interview"
    result = CliRunner().invoke(main, [
        "interview", "--params", str(_interview_params(tmp_path, ["hybrid"])),
        "--prepared-dir", str(tmp_path / "prepared"), "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    fidelity = [f["personality_id"] for f in read_jsonl(out / "fidelity.jsonl")]
    assert fidelity == sorted(fidelity) and set(fidelity) == {"P1", "P2"}
    references = [r["personality_id"] for r in read_jsonl(out / "references.jsonl")]
    assert references == sorted(references)
