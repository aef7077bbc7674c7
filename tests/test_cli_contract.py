"""The command line is the DAG: every dvc.yaml stage runs the command named after it, every
stage that calls a model has ``--dry-run``, and a stage run before its inputs exist exits 1 with
a message naming the stage to run first, never a traceback (README "Exit codes")."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from stages.cli import COMMANDS, cli
from tests.reliability_kit import run_cli, stage_env
from tests.stage_runner import REPO, offline_workspace, run_pipeline

DAG = yaml.safe_load((REPO / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
MODEL_PARAMS = ("models", "providers", "embedder")
"""A stage whose params name a model (a chat model or the embedder) can make model calls."""


def _paths(entries) -> list[str]:
    return [next(iter(e)) if isinstance(e, dict) else e for e in entries or []]


def _producer(path: str) -> str | None:
    for name, stage in DAG.items():
        for out in _paths(stage.get("outs")):
            if path == out or path.startswith(out.rstrip("/") + "/"):
                return name
    return None


UPSTREAM = sorted({(name, producer) for name, stage in DAG.items()
                   for dep in _paths(stage.get("deps"))
                   if (producer := _producer(dep)) not in (None, "validate-params", name)})
"""(stage, a stage whose outputs it reads), from dvc.yaml."""


def test_every_dvc_stage_runs_the_command_named_after_it():
    for name, stage in DAG.items():
        words = shlex.split(stage["cmd"])
        assert words[:2] == ["interviewsim", name], (name, stage["cmd"])
        assert name in COMMANDS


@pytest.mark.parametrize("name", [n for n, s in DAG.items()
                                  if any(str(p).split(".")[0] in MODEL_PARAMS
                                         for p in s.get("params", []))])
def test_every_stage_that_can_call_a_model_has_a_dry_run(name):
    command = cli.get_command(None, name)  # type: ignore[arg-type]
    assert "dry_run" in {param.name for param in command.params}, name


@pytest.fixture
def empty(tmp_path) -> Path:
    """Params, personalities and the agent's plans; no stage has run."""
    return offline_workspace(tmp_path / "ws")


def assert_names_first(outcome, stage: str) -> None:
    assert outcome.code == 1, outcome.output
    assert "Traceback" not in outcome.output
    assert f"`interviewsim {stage}`" in outcome.stderr, outcome.stderr


def _ancestors(name: str) -> set[str]:
    found = {upstream for stage, upstream in UPSTREAM if stage == name}
    return found.union(*(_ancestors(upstream) for upstream in found))


@pytest.mark.parametrize("name", [n for n in DAG if n not in ("validate-params", "prepare")])
def test_a_stage_before_anything_ran_names_a_stage_to_run_first(empty, name):
    outcome = run_cli(empty, *shlex.split(DAG[name]["cmd"])[1:])
    assert outcome.code == 1, outcome.output
    assert "Traceback" not in outcome.output
    named = {stage for stage in DAG if f"`interviewsim {stage}`" in outcome.stderr}
    assert named and named <= _ancestors(name), outcome.stderr
    # the central message (stages/cli.py) starts from prepare; mcq-answer checks its
    # controls first with a message of its own
    assert "prepare" in named or name == "mcq-answer", outcome.stderr


def test_prepare_without_its_input_folder_names_the_params_key(empty):
    shutil.rmtree(empty / "data/personalities")
    outcome = run_cli(empty, "prepare")
    assert outcome.code == 1 and "data.personalities" in outcome.stderr, outcome.output


def test_validate_params_without_params_yaml_exits_1(empty):
    (empty / "params.yaml").unlink()
    outcome = run_cli(empty, "validate-params")
    assert outcome.code == 1 and "params.yaml" in outcome.stderr, outcome.output


@pytest.fixture(scope="module")
def complete(tmp_path_factory) -> Path:
    """Every stage run (the offline model)."""
    root = offline_workspace(tmp_path_factory.mktemp("complete") / "ws")
    assert all(o.code == 0 for o in run_pipeline(root, "--no-mlflow").values())
    return root


@pytest.mark.parametrize(("name", "upstream"), UPSTREAM)
def test_a_stage_whose_input_is_gone_names_the_stage_that_writes_it(complete, tmp_path, name,
                                                                    upstream):
    root = tmp_path / "ws"
    shutil.copytree(complete, root)
    for out in _paths(DAG[upstream]["outs"]):
        target = root / out
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)
    outcome = run_cli(root, *shlex.split(DAG[name]["cmd"])[1:])
    assert_names_first(outcome, upstream)


def test_the_console_script_prints_no_traceback(empty):
    done = subprocess.run([sys.executable, "-m", "stages", "generate"], cwd=empty,
                          env=stage_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "`interviewsim prepare`" in done.stderr


def test_a_usage_error_exits_1_not_2(empty):
    outcome = run_cli(empty, "claims", "--no-such-option")
    assert outcome.code == 1 and "no such option" in outcome.stderr.lower(), outcome.output


def test_params_check_needs_the_input_folder(empty):
    assert run_cli(empty, "params", "check").code == 0
    shutil.rmtree(empty / "data/personalities")
    outcome = run_cli(empty, "params", "check")
    assert outcome.code == 1
    assert "data.personalities" in outcome.stderr and "data/personalities" in outcome.stderr


def test_dry_runs_write_nothing_and_the_interview_estimate_is_the_plans(empty):
    assert run_cli(empty, "prepare").code == 0
    before = sorted(p for p in (empty / "data/artifacts").rglob("*"))
    for stage in ("select-context", "controls", "interview"):
        outcome = run_cli(empty, stage, "--dry-run")
        assert outcome.code == 0 and f"{stage} (dry run)" in outcome.stdout, outcome.output
    assert sorted(p for p in (empty / "data/artifacts").rglob("*")) == before
    assert "texts to embed" in run_cli(empty, "controls", "--dry-run").stdout  # the impostor
    assert run_cli(empty, "plan", "--no-cache", "--json", "plan.json").code == 0
    lines = json.loads((empty / "plan.json").read_text())["stages"]
    calls = sum(line["calls"] for line in lines if line["stage"] == "interview")
    assert calls > 0
    assert f"~{calls} calls" in run_cli(empty, "interview", "--dry-run").stdout
