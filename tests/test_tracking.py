"""MLflow logging: a parent per execution, a child per (strategy, judge), no duplicates on rerun.

One sqlite store serves the whole module (creating one costs seconds); each test uses its own
experiment name so the tests stay independent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from interviewsim.analysis.metrics import aggregate_rows, flat_metrics, summarise_usage
from interviewsim.analysis.tracking import (
    PENDING_TAG,
    RunIdentity,
    child_runs,
    flatten_params,
    log_aggregate,
    run_identity,
)
from interviewsim.data.records import PersonalityMetric

# MLflow's own SQLAlchemy usage, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy is deprecated")

FIVE = ("personality_alignment", "contradiction_ratio", "mcq_accuracy", "mcq_reward",
        "content_similarity")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    import mlflow

    root = tmp_path_factory.mktemp("mlflow")
    uri = f"sqlite:///{root / 'mlflow.db'}"
    previous = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(uri)
    yield uri, (root / "artifacts").as_uri()
    mlflow.set_tracking_uri(previous)


def search(experiment: str):
    import mlflow

    return mlflow.search_runs(experiment_names=[experiment])


def cells():
    rows = [PersonalityMetric(personality_id=p, strategy=s, judge="local", metric=m,
                              value=v, n=3, invalid=1 if m == "contradiction_ratio" else 0)
            for p, v in (("P1", 0.2), ("P2", 0.4), ("P3", 0.9))
            for s in ("no-context", "retrieval") for m in FIVE]
    return aggregate_rows(rows)


def identity(inputs_hash: str, name: str = "exp-a") -> RunIdentity:
    return RunIdentity(name=name, git_commit="abc1234def", git_dirty=False, dvc_exp_name=name,
                       inputs_hash=inputs_hash)


def log(store, experiment: str, inputs_hash: str, tmp_path=None):
    uri, artifacts = store
    files = []
    if tmp_path is not None:
        (tmp_path / "report.md").write_text("# report\n")
        (tmp_path / "plots").mkdir()
        (tmp_path / "plots" / "m.png").write_bytes(b"png")
        files = [tmp_path / "report.md", tmp_path / "plots"]
    return log_aggregate(uri, experiment, identity(inputs_hash),
                         params=flatten_params({"mcq": {"option_count": 4}}),
                         parent_metrics={"usage.calls": 12},
                         children=child_runs(cells(), {}), artifacts=files,
                         artifact_location=f"{artifacts}/{experiment}")


def test_parent_and_children_are_readable_with_search_runs(store, tmp_path):
    import mlflow

    result = log(store, "layout", "h1", tmp_path)
    runs = search("layout")
    assert len(runs) == 3
    parent = runs[runs["run_id"] == result.parent_run_id].iloc[0]
    assert parent["tags.mlflow.runName"] == "exp-a"
    assert parent["tags.git_commit"] == "abc1234def"
    assert parent["tags.dvc_exp_name"] == "exp-a"
    assert parent["metrics.usage.calls"] == 12
    children = runs[runs["tags.mlflow.parentRunId"] == result.parent_run_id]
    assert sorted(children["tags.mlflow.runName"]) == ["no-context · local", "retrieval · local"]
    for _, child in children.iterrows():
        assert all(child[f"metrics.{name}"] == pytest.approx(0.5) for name in FIVE)
        assert child["metrics.contradiction_ratio_invalid"] == 3
        assert child["params.mcq.option_count"] == "4"
        assert child["params.strategy"] in ("no-context", "retrieval")
    client = mlflow.MlflowClient(store[0])
    names = {a.path for a in client.list_artifacts(result.parent_run_id)}
    assert names == {"report.md", "plots"}


def test_children_and_parent_log_the_pooled_value_beside_the_macro_one(store):
    """P1 has 1 item, P2 has 3: macro (0 + 1) / 2 = 0.5, pooled 3 / 4 = 0.75."""
    uri, artifacts = store
    uneven = aggregate_rows([
        PersonalityMetric(personality_id=p, strategy="retrieval", judge="local",
                          metric="mcq_accuracy", value=v, n=n, invalid=m)
        for p, v, n, m in (("P1", 0.0, 1, 1), ("P2", 1.0, 3, 0))])
    result = log_aggregate(uri, "pooled", identity("hp"), params={},
                           parent_metrics=flat_metrics(uneven, summarise_usage({})),
                           children=child_runs(uneven, {}),
                           artifact_location=f"{artifacts}/pooled")
    runs = search("pooled")
    parent = runs[runs["run_id"] == result.parent_run_id].iloc[0]
    assert parent["metrics.retrieval.local.mcq_accuracy"] == 0.5
    assert parent["metrics.retrieval.local.mcq_accuracy.pooled"] == 0.75
    child = runs[runs["tags.mlflow.parentRunId"] == result.parent_run_id].iloc[0]
    assert child["metrics.mcq_accuracy"] == 0.5
    assert child["metrics.mcq_accuracy.pooled"] == 0.75
    assert (child["metrics.mcq_accuracy_n"], child["metrics.mcq_accuracy_invalid"]) == (4, 1)
    assert child["params.strategy"] == "retrieval"


def test_rerunning_on_identical_inputs_reuses_the_run_instead_of_duplicating_it(store):
    first = log(store, "rerun", "same")
    second = log(store, "rerun", "same")
    assert second.reused and second.parent_run_id == first.parent_run_id
    assert sorted(second.child_run_ids) == sorted(first.child_run_ids)
    assert len(search("rerun")) == 3
    third = log(store, "rerun", "changed")
    assert not third.reused
    assert len(search("rerun")) == 6


def test_a_parent_left_incomplete_by_a_crash_is_replaced(store):
    import mlflow

    client = mlflow.MlflowClient(store[0])
    first = log(store, "crash", "h")
    experiment_id = first.experiment_id
    crashed = client.create_run(experiment_id, run_name="exp-a", tags={PENDING_TAG: "h2"})
    client.create_run(experiment_id, tags={"mlflow.parentRunId": crashed.info.run_id})
    result = log(store, "crash", "h2")
    assert not result.reused
    ids = set(search("crash")["run_id"])
    assert crashed.info.run_id not in ids and len(ids) == 6


def test_params_flatten_to_dotted_keys_with_list_items_by_index():
    flat = flatten_params({"seed": 1, "strategies": ["a", "b"], "prices": {},
                           "models": {"judges": [{"name": "x", "temperature": 0.0}]},
                           "embedder": {"provider": None}})
    assert flat == {"seed": "1", "strategies": '["a", "b"]', "prices": "{}",
                    "models.judges.0.name": "x", "models.judges.0.temperature": "0.0",
                    "embedder.provider": "null"}


def test_runs_are_named_after_a_chosen_dvc_name_else_what_differs_from_the_commit(tmp_path):
    chosen = run_identity("h", cwd=tmp_path, environ={"DVC_EXP_NAME": "retr-50"},
                          diff={"retrieval_pairs": "50"})
    assert chosen.name == "retr-50" and chosen.dvc_exp_name == "retr-50"
    # `dvc exp run` without -n: DVC's random adjective-noun name says nothing, the diff does
    drawn = run_identity("h", cwd=tmp_path, environ={"DVC_EXP_NAME": "gusty-fern"},
                         diff={"retrieval_pairs": "4"})
    assert drawn.name == "retrieval_pairs=4" and drawn.dvc_exp_name == "gusty-fern"
    assert run_identity("h", cwd=tmp_path, environ={}, diff={}).name == "defaults"
    # committed params unknown (diff None): the DVC name, else the commit, else this
    unknown = run_identity("h", cwd=tmp_path, environ={"DVC_EXP_NAME": "gusty-fern"})
    assert unknown.name == "gusty-fern"
    outside_git = run_identity("h", cwd=tmp_path, environ={})
    assert outside_git.name == "unversioned" and outside_git.git_commit is None
    assert "dvc_exp_name" not in outside_git.tags()


def test_the_aggregate_stage_logs_once_per_set_of_inputs(store, tmp_path, monkeypatch):
    import mlflow
    from click.testing import CliRunner

    from stages.aggregate import aggregate
    from tests.test_report import write_stage_inputs

    args = write_stage_inputs(tmp_path)
    uri, artifacts = store
    params = tmp_path / "params.yaml"
    params.write_text(params.read_text().replace(f"sqlite:///{tmp_path / 'mlflow.db'}", uri))
    # Created here so its artifacts land in the temp store, not in ./mlruns of the repo.
    mlflow.MlflowClient(uri).create_experiment("interviewsim", f"{artifacts}/stage")
    monkeypatch.setenv("DVC_EXP_NAME", "sunny-oak")
    first = CliRunner().invoke(aggregate, args)
    assert first.exit_code == 0, first.output
    assert "run 'sunny-oak' logged" in first.output
    again = CliRunner().invoke(aggregate, args)
    assert "already logged, reused" in again.output
    runs = search("interviewsim")
    parent = runs[runs["tags.mlflow.runName"] == "sunny-oak"]
    assert len(parent) == 1 and parent.iloc[0]["tags.dvc_exp_name"] == "sunny-oak"
    children = runs[runs["tags.mlflow.parentRunId"] == parent.iloc[0]["run_id"]]
    assert len(children) == 3
    assert set(children["params.strategy"]) == {"no-context", "retrieval", "hybrid"}
    assert children["metrics.mcq_accuracy"].notna().all()


def test_the_parent_shows_dataset_description_table_and_a_headline_view_not_bookkeeping(
        store, tmp_path):
    import base64
    import json
    import zlib

    import mlflow

    from interviewsim.analysis.tracking import HASH_TAG, ParentExtras
    from interviewsim.analysis.tracking_view import VIEW_KEY, folder_dataset

    (tmp_path / "personalities" / "p1").mkdir(parents=True)
    (tmp_path / "personalities" / "p1" / "prepared_input.json").write_text("{}")
    dataset = folder_dataset(tmp_path / "personalities")
    uri, artifacts = store
    extras = ParentExtras(description="**exp-a**", dataset=dataset,
                          table={"personality": ["p1"], "cs_score": [4]},
                          view_metrics=["content_similarity/retrieval"])
    result = log_aggregate(uri, "shown", identity("hs"), params={}, parent_metrics={},
                           children=child_runs(cells(), {}), extras=extras,
                           artifact_location=f"{artifacts}/shown")
    client = mlflow.MlflowClient(uri)
    parent = client.get_run(result.parent_run_id)
    assert parent.data.tags["mlflow.note.content"] == "**exp-a**"
    # bookkeeping is under mlflow., which the UI hides; what a researcher reads is not
    visible = {k for k in parent.data.tags if not k.startswith("mlflow.")}
    assert visible == {"git_commit", "git_dirty", "dvc_exp_name"}
    assert parent.data.tags[HASH_TAG] == "hs"
    for run_id in (result.parent_run_id, *result.child_run_ids):
        used = client.get_run(run_id).inputs.dataset_inputs
        assert [(d.dataset.name, d.dataset.digest) for d in used] == [
            ("personalities", dataset.digest)]
    table = client.download_artifacts(result.parent_run_id, "evaluation/items.json", tmp_path)
    assert json.loads(Path(table).read_text())["columns"] == ["personality", "cs_score"]
    experiment = client.get_experiment(result.experiment_id)
    assert experiment.tags["mlflow.experimentKind"] == "custom_model_development"
    view = json.loads(experiment.tags[f"mlflow.sharedViewState.{VIEW_KEY}"])
    state = json.loads(zlib.decompress(base64.b64decode(view["state"].split(";", 1)[1])))
    assert "metrics.`content_similarity/retrieval`" in state["selectedColumns"]


def test_child_metrics_are_rounded_to_four_decimals():
    third = aggregate_rows([
        PersonalityMetric(personality_id=p, strategy="retrieval", judge="local",
                          metric="mcq_accuracy", value=v, n=1)
        for p, v in (("P1", 0.0), ("P2", 0.0), ("P3", 1.0))])
    child, = child_runs(third, {("retrieval", "local", "mcq_accuracy"): (0.123456, 0.987654)})
    assert child.metrics["mcq_accuracy"] == 0.3333
    assert (child.metrics["mcq_accuracy_ci_low"], child.metrics["mcq_accuracy_ci_high"]) == (
        0.1235, 0.9877)
