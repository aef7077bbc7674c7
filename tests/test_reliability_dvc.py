"""`dvc repro aggregate` (every stage it needs) in a temp copy of the repo, every model served by the mock.

One pipeline run, recorded once for the module: `dvc repro` is SIGKILLed (its whole process
group) in the middle of `judge`, then rerun to completion; the response cache is shared the
documented way (`dvc add data/cache/responses.sqlite`, `dvc push` to a local directory remote);
a fresh `git clone` pulls only the cache and runs `dvc repro` from scratch. The tests check that
no answered call was repeated, that both runs match an uninterrupted in-process run byte for
byte (artifacts, metrics.json, report), that the clone made zero model calls, and that the fake
API key is nowhere: not in any file of the repo, the clone or the remote (artifacts, cache,
dvc.lock, MLflow's database and artifacts, DVC's own cache) and not in any line of output.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from interviewsim.judges.prompts import CS_SYSTEM
from tests.mock_openai import MockOpenAI, contract_answer
from tests.reliability_kit import (
    AGGREGATE,
    ALL_STAGES,
    CACHE,
    DVC_STAGES,
    FAKE_KEY,
    KEY_ENV,
    REPO,
    artifacts,
    cache_entries,
    docs,
    make_workspace,
    mock_params,
    reports,
    run_chain,
    run_cli,
    stage_env,
    wait_until,
    write_params,
)

pytestmark = pytest.mark.pipeline

NOT_COPIED = ("data/personalities/", "data/prep/", "tests/", "benchmarks/", "docs/", ".github/",
              "data/sample-cache/", "data/remote/")
"""The copy runs its own experiment: the committed one's shipped responses are not part of it."""
REPRO = ("dvc", "repro", "aggregate")
"""Everything aggregate needs, which is every stage of dvc.yaml."""
HELD_AFTER = 10
"""Content-similarity answers judge gets before the mock holds the rest and dvc is killed."""


def full_params(server: MockOpenAI) -> dict[str, Any]:
    """The repo's params.yaml (DVC needs every section a stage names) with the mock's models
    and the reduced configuration on top."""
    data = yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8"))
    data.update(mock_params(server))
    return data


def env() -> dict[str, str]:
    return {**stage_env(), "DVC_NO_ANALYTICS": "1", "GIT_AUTHOR_NAME": "ci",
            "GIT_AUTHOR_EMAIL": "ci@example.invalid", "GIT_COMMITTER_NAME": "ci",
            "GIT_COMMITTER_EMAIL": "ci@example.invalid"}


@dataclass
class Run:
    """What the module's pipeline run left behind."""

    base: Path
    repo: Path
    clone: Path
    output: list[str] = field(default_factory=list)
    killed_code: int | None = None
    answered_before_kill: list[str] = field(default_factory=list)
    sent_after_kill: list[str] = field(default_factory=list)
    answered_after_kill: list[str] = field(default_factory=list)
    clone_requests: int = -1

    def sh(self, *args: str, cwd: Path, timeout: float = 300) -> str:
        result = subprocess.run(args, cwd=cwd, env=env(), capture_output=True, text=True,
                                timeout=timeout)
        self.output += [result.stdout, result.stderr]
        assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        return result.stdout


@pytest.fixture(scope="module")
def server() -> Iterator[MockOpenAI]:
    with MockOpenAI(responder=contract_answer, log_size=20_000, lifetime_s=900) as mock:
        yield mock


@pytest.fixture(scope="module")
def reference(server: MockOpenAI, tmp_path_factory: pytest.TempPathFactory
              ) -> tuple[dict[str, bytes], dict[str, bytes], int]:
    """The same experiment run uninterrupted, in process, in a workspace sharing nothing."""
    root = make_workspace(tmp_path_factory.mktemp("reference") / "ws", server)
    write_params(root, full_params(server))
    os.environ[KEY_ENV] = FAKE_KEY
    mark = server.mark()
    try:
        assert [o.code for o in run_chain(root, ALL_STAGES)] == [0] * len(ALL_STAGES)
        assert run_cli(root, *AGGREGATE, "--no-mlflow").code == 0
    finally:
        os.environ.pop(KEY_ENV, None)
    return artifacts(root), reports(root), len(server.answered(mark))


def copy_repo(target: Path) -> None:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                             check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        source = REPO / name
        if name == "dvc.lock" or name.startswith(NOT_COPIED) or not source.is_file():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)
    for stale in (target / "data/artifacts").glob("*/"):
        shutil.rmtree(stale)


def kill_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(30)


@pytest.fixture(scope="module")
def pipeline(server: MockOpenAI, tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp("dvc")
    run = Run(base=base, repo=base / "repo", clone=base / "clone")
    repo = run.repo
    copy_repo(repo)
    make_workspace(repo, server, people=docs())
    write_params(repo, full_params(server))
    run.sh("git", "init", "-q", cwd=repo)
    run.sh("dvc", "remote", "add", "-d", "store", str(base / "remote"), cwd=repo)
    run.sh("git", "add", "-A", cwd=repo)
    run.sh("git", "commit", "-qm", "experiment", cwd=repo)

    # 1. dvc repro, SIGKILLed (dvc and its stage process) once judge is mid-batch
    mark = server.mark()
    server.hold_after(HELD_AFTER, match=CS_SYSTEM[:40])
    log = (base / "killed.log").open("w")
    process = subprocess.Popen(REPRO, cwd=repo, env=env(), stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_until(lambda: process.poll() is not None
                   or any(e.outcome == "held" for e in server.exchanges(mark))
                   and cache_entries(repo) == len(server.answered(mark)), 240,
                   "judge mid-batch with every answer so far cached")
        ended_early = process.poll() is not None
    finally:
        kill_group(process)
        server.release()
        log.close()
    run.output.append((base / "killed.log").read_text())
    assert not ended_early, f"dvc repro ended before judge:\n{run.output[-1][-3000:]}"
    run.killed_code = process.returncode
    run.answered_before_kill = server.answered(mark)

    # 2. dvc repro again: resumes from DVC's lock and the response cache
    resumed = server.mark()
    run.sh(*REPRO, cwd=repo, timeout=600)
    run.sent_after_kill = [e.key for e in server.exchanges(resumed)]
    run.answered_after_kill = server.answered(resumed)

    # 3. share the response cache through the DVC remote, as the README says
    run.sh("dvc", "add", CACHE, cwd=repo)
    run.sh("git", "add", "-A", cwd=repo)
    run.sh("git", "commit", "-qm", "results and the response cache", cwd=repo)
    run.sh("dvc", "push", cwd=repo)

    # 4. a fresh clone pulls only the cache and reproduces everything from scratch
    run.sh("git", "clone", "-q", str(repo), str(run.clone), cwd=base)
    run.sh("dvc", "pull", f"{CACHE}.dvc", cwd=run.clone)
    assert not (run.clone / "data/artifacts/generated/answers.jsonl").exists()
    fresh = server.mark()
    run.sh(*REPRO, cwd=run.clone, timeout=600)
    run.clone_requests = len(server.exchanges(fresh, path=None))
    return run


def test_dvc_repro_killed_mid_judge_resumes_without_repeating_an_answered_call(
        pipeline: Run, reference: tuple[dict[str, bytes], dict[str, bytes], int]) -> None:
    expected, expected_reports, calls = reference
    assert pipeline.killed_code == -signal.SIGKILL
    before = set(pipeline.answered_before_kill)
    assert len(before) >= HELD_AFTER  # every stage before judge, and 10 judge answers
    assert not before & set(pipeline.sent_after_kill), "an answered call was sent again"
    assert len(before) + len(pipeline.answered_after_kill) == calls
    assert artifacts(pipeline.repo) == expected
    assert reports(pipeline.repo) == expected_reports


def test_a_fresh_clone_with_the_cache_pulled_reproduces_everything_with_zero_calls(
        pipeline: Run) -> None:
    assert pipeline.clone_requests == 0
    assert artifacts(pipeline.clone) == artifacts(pipeline.repo)
    assert reports(pipeline.clone) == reports(pipeline.repo)
    lock = yaml.safe_load((pipeline.clone / "dvc.lock").read_text())
    assert set(lock["stages"]) == set(DVC_STAGES)


def test_the_api_key_is_in_no_file_and_no_output_line(pipeline: Run) -> None:
    needle = FAKE_KEY.encode("utf-8")
    scanned = [p for p in pipeline.base.rglob("*") if p.is_file()]
    assert [str(p) for p in scanned if needle in p.read_bytes()] == []
    assert not any(FAKE_KEY in text for text in pipeline.output)
    names = {p.name for p in scanned}
    assert {"dvc.lock", "responses.sqlite", "mlflow.db", "metrics.json", "answers.jsonl",
            "judgments.jsonl", "report.md"} <= names, "the scan covered every kind of output"
    for root in (pipeline.repo, pipeline.clone):
        with contextlib.closing(sqlite3.connect(root / "mlflow.db")) as db:
            params = db.execute("SELECT key, value FROM params").fetchall()
            tags = db.execute("SELECT key, value FROM tags").fetchall()
        assert params and tags, "MLflow recorded params and tags"
        assert not any(FAKE_KEY in f"{k}={v}" for k, v in params + tags)
        assert ("providers.mock.api_key_env", KEY_ENV) in params
    logged = {p.name for p in scanned if "mlruns" in p.parts}
    assert {"report.md", "judgment_sample.jsonl"} <= logged, "MLflow's artifacts were scanned"
