"""The personality-shard recipe (docs/examples/sharded.dvc.yaml, docs/SCALE.md section 3) run
with `dvc repro` in a temp copy of the repo, every model served by the mock: it must report
exactly what the unsharded stages report for the same personalities."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.factories import write_doc
from tests.mock_openai import MockOpenAI, contract_answer
from tests.reliability_kit import (
    FAKE_KEY,
    KEY_ENV,
    REPO,
    docs,
    make_workspace,
    run_chain,
    run_cli,
    write_params,
)
from tests.test_reliability_dvc import copy_repo, env, full_params

pytestmark = pytest.mark.pipeline

STAGES = ("prepare", "select-context", "generate", "fact-summary", "judge", "mcq-build",
          "mcq-answer")


@pytest.fixture(scope="module")
def server() -> Iterator[MockOpenAI]:
    with MockOpenAI(responder=contract_answer, log_size=5_000, lifetime_s=600) as mock:
        yield mock


def unsharded(root: Path, server: MockOpenAI) -> Path:
    make_workspace(root, server)
    write_params(root, full_params(server))
    os.environ[KEY_ENV] = FAKE_KEY
    try:
        assert [o.code for o in run_chain(root, STAGES)] == [0] * len(STAGES)
        assert run_cli(root, "aggregate", "--no-mlflow", "--no-fidelity",
                       "--judged", "data/artifacts/judged/personality_metrics.jsonl",
                       "--mcq", "data/artifacts/mcq_answers/personality_metrics.jsonl",
                       "--summary", "data/artifacts/generated/summary.json").code == 0
    finally:
        os.environ.pop(KEY_ENV, None)
    return root / "reports"


def sharded(root: Path, server: MockOpenAI) -> Path:
    root.mkdir(parents=True)
    copy_repo(root)
    shutil.copy2(REPO / "docs/examples/sharded.dvc.yaml", root / "dvc.yaml")
    shutil.rmtree(root / "data/personalities", ignore_errors=True)
    first, second = docs()
    write_doc(root / "data/shards/s0", first)
    write_doc(root / "data/shards/s1", second)
    write_params(root, full_params(server))
    for command in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "commit", "-qm", "sharded copy"], ["dvc", "repro"]):
        result = subprocess.run(command, cwd=root, env=env(), capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr}"
    return root / "reports"


def test_shards_run_as_separate_stages_and_aggregate_to_the_unsharded_result(
        server: MockOpenAI, tmp_path: Path) -> None:
    reference = unsharded(tmp_path / "unsharded", server)
    reports = sharded(tmp_path / "sharded", server)
    base = tmp_path / "sharded" / "data/artifacts"
    assert sorted(p.name for p in base.iterdir() if p.is_dir()) == ["s0", "s1"]
    assert (base / "s0/generated/answers.jsonl").read_text().count('"P1"') > 0
    assert '"P2"' not in (base / "s0/generated/answers.jsonl").read_text()
    for name in ("per_personality.csv", "significance.json"):
        assert (reports / name).read_bytes() == (reference / name).read_bytes(), name
    status = subprocess.run(["dvc", "status"], cwd=tmp_path / "sharded", env=env(),
                            capture_output=True, text=True, timeout=120)
    assert "up to date" in status.stdout
