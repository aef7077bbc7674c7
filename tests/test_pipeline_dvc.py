"""The whole DAG under `dvc repro`, in a temp copy of the repo, with the embedded model.

This is the CI check that a change of code or parameters still runs end to end: a reduced
configuration (two sample personalities trimmed to three short interviews, two evaluated
questions each, one PS run, short completions) keeps
it to a few minutes on 2 cores, while every stage, every strategy and every metric is real.
A second `dvc exp run -S mcq.option_count=3` must produce a distinct experiment.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from interviewsim.config.params import ALL_STRATEGIES
from tests.stage_runner import copy_tracked

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PEOPLE = ("ada-okonkwo", "wendell-park")

pytestmark = [pytest.mark.pipeline, pytest.mark.model]


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "INTERVIEWSIM_PROGRESS": "0"}
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def trimmed(doc: dict) -> dict:
    """The three latest interviews, three pairs each: one held-out interview of three questions."""
    latest = sorted(doc["interviews"], key=lambda i: i["sequence"])[-3:]
    for interview in latest:
        interview["qa_pairs"] = interview["qa_pairs"][:3]
    return {**doc, "interviews": latest}


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory) -> Path:
    root = copy_tracked(tmp_path_factory.mktemp("pipeline") / "repo")
    shutil.rmtree(root / "data" / "personalities")
    for pid in PEOPLE:
        doc = json.loads((REPO / "data/personalities" / pid / "prepared_input.json").read_text())
        target = root / "data/personalities" / pid / "prepared_input.json"
        target.parent.mkdir(parents=True)
        target.write_text(json.dumps(trimmed(doc)))
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["data"]["max_heldout_pairs"] = 2
    params["judge"]["ps_runs"] = 1
    params["models"]["generator"]["max_tokens"] = 48
    for judge in params["models"]["judges"]:
        judge["max_tokens"] = 64
    params["aggregate"]["permutations"] = 200
    params["aggregate"]["bootstrap"] = 200
    # Whole interviews cost minutes each on the embedded model: the stage runs here as the
    # no-op it is with no strategy (tests/test_agent_experiment.py drives it through a scripted
    # provider into aggregate; the committed dvc.lock and reports/ hold the embedded run).
    params["interview"]["strategies"] = []
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    shared_cache = REPO / "data" / "cache"
    if (shared_cache / "gguf-hashes.json").exists():  # skip re-hashing the GGUF, nothing else
        (root / "data/cache").mkdir(parents=True, exist_ok=True)
        shutil.copy2(shared_cache / "gguf-hashes.json", root / "data/cache")
    for command in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "-c", "user.email=ci@example.invalid", "-c", "user.name=ci",
                     "commit", "-qm", "copy"]):
        run(command, root)
    return root


def test_dvc_repro_runs_every_stage_and_reports_every_metric(repo_copy):
    run(["dvc", "repro"], repo_copy)
    metrics = json.loads((repo_copy / "reports/metrics.json").read_text())
    for strategy in ALL_STRATEGIES:
        for metric in ("content_similarity", "contradiction_ratio", "personality_alignment"):
            assert any(k.startswith(f"{strategy}.") and k.endswith(f".{metric}")
                       for k in metrics), (strategy, metric, sorted(metrics)[:20])
        for metric in ("mcq_accuracy", "mcq_reward"):
            assert f"{strategy}.local.{metric}" in metrics, (strategy, metric)
    assert "| strategy |" in (repo_copy / "reports/report.md").read_text()
    interview = repo_copy / "data/artifacts/interview/personality_metrics.jsonl"
    assert interview.read_text() == ""  # the stage ran, as a no-op
    assert not any(".agent." in key for key in metrics)
    status = run(["dvc", "status", "dvc.yaml"], repo_copy)
    assert "up to date" in status.stdout


def test_option_count_3_is_a_distinct_experiment(repo_copy):
    run(["dvc", "exp", "run", "-S", "mcq.option_count=3", "-n", "three-options"], repo_copy)
    shown = run(["dvc", "exp", "show", "--json"], repo_copy).stdout
    assert "three-options" in shown
