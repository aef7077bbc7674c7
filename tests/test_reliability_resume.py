"""Crash and resume, and exact reproduction, through the real stages and the mock server.

SIGKILL lands in the middle of ``generate`` and of ``judge`` once a known number of calls has
been answered and committed to the response cache (the mock holds every later request, so the
process is mid-batch). The rerun repeats none of the answered calls (the mock's log of request
hashes proves it) and its artifacts are byte-identical to an uninterrupted run in a workspace
that shares nothing with this one. Rerunning every stage from scratch with the cache kept makes
zero model calls and rewrites every artifact, metrics.json and report.md byte for byte.
"""

from __future__ import annotations

import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mock_openai import MockOpenAI
from tests.reliability_kit import (
    AGGREGATE,
    ALL_STAGES,
    MODEL_STAGES,
    artifacts,
    cache_entries,
    contract_endpoint,
    deadline,
    make_workspace,
    reports,
    run_chain,
    run_cli,
    spawn_stage,
    temp_files,
    wait_until,
)

OUTPUT = {"generate": "data/artifacts/generated/answers.jsonl",
          "judge": "data/artifacts/judged/judgments.jsonl"}


@pytest.fixture(scope="module")
def server() -> Iterator[MockOpenAI]:
    with contract_endpoint(log_size=20_000) as mock:
        yield mock


@pytest.fixture(scope="module")
def uninterrupted(server: MockOpenAI, tmp_path_factory: pytest.TempPathFactory
                  ) -> tuple[dict[str, bytes], dict[str, int]]:
    """An uninterrupted run in its own workspace: artifacts and calls answered per stage."""
    root = make_workspace(tmp_path_factory.mktemp("uninterrupted") / "ws", server)
    calls = {}
    with deadline(120):
        for stage in MODEL_STAGES:
            mark = server.mark()
            assert run_cli(root, stage).code == 0
            calls[stage] = len(server.answered(mark))
    assert calls["generate"] == 18  # 2 people x 3 strategies x 3 held-out questions
    return artifacts(root), calls


@pytest.mark.parametrize(("stage", "answered_before_kill"), [("generate", 7), ("judge", 25)])
def test_sigkill_mid_stage_then_rerun_repeats_no_answered_call_and_matches_an_uninterrupted_run(
        stage: str, answered_before_kill: int, server: MockOpenAI,
        uninterrupted: tuple[dict[str, bytes], dict[str, int]], tmp_path: Path) -> None:
    expected, calls = uninterrupted
    root = make_workspace(tmp_path / "ws", server)
    upstream = MODEL_STAGES[:MODEL_STAGES.index(stage)]
    assert [o.code for o in run_chain(root, upstream)] == [0] * len(upstream)
    entries = cache_entries(root)
    mark = server.mark()
    server.hold_after(answered_before_kill)
    process = spawn_stage(root, stage)
    try:
        with deadline(90):
            wait_until(lambda: cache_entries(root) == entries + answered_before_kill
                       and any(e.outcome == "held" for e in server.exchanges(mark)),
                       60, f"{answered_before_kill} answers cached and the next call held")
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        server.release()
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.returncode == -signal.SIGKILL
    answered = server.answered(mark)
    assert len(answered) == answered_before_kill
    assert not (root / OUTPUT[stage]).exists(), "no partial artifact under the real name"
    [leftover] = temp_files(root)  # the killed writer's partial file, under a hidden name
    assert Path(leftover).name.startswith(f".{Path(OUTPUT[stage]).name}.{process.pid}.")

    resumed = server.mark()
    with deadline(90):
        outcome = run_cli(root, stage)
    assert outcome.code == 0, outcome.output
    sent_again = {e.key for e in server.exchanges(resumed)}
    assert not sent_again & set(answered), "an answered call was repeated"
    assert len(server.answered(resumed)) == calls[stage] - answered_before_kill
    produced = artifacts(root)
    assert produced == {name: expected[name] for name in produced}
    assert OUTPUT[stage] in produced
    assert temp_files(root) == [], "the killed writer's temp file was swept"


def test_every_stage_rerun_from_scratch_with_the_cache_kept_is_byte_identical_with_zero_calls(
        server: MockOpenAI, tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws", server)
    with deadline(180):
        first_run = run_chain(root, ALL_STAGES)
        assert [o.code for o in first_run] == [0] * len(ALL_STAGES)
        assert run_cli(root, *AGGREGATE, "--no-mlflow").code == 0
        first, first_reports = artifacts(root), reports(root)
        shutil.rmtree(root / "data/artifacts")
        shutil.rmtree(root / "reports")
        mark = server.mark()
        second_run = run_chain(root, ALL_STAGES)
        assert [o.code for o in second_run] == [0] * len(ALL_STAGES)
        assert run_cli(root, *AGGREGATE, "--no-mlflow").code == 0
    assert server.exchanges(mark, path=None) == [], "the second run made no model call"
    assert artifacts(root) == first
    assert reports(root) == first_reports
    assert {"reports/metrics.json", "reports/report.md"} <= set(first_reports)
