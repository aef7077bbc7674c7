"""``interviewsim batch submit|collect``: a whole stage in one Batch API batch, then the stage
runs from the cache. Against the mock's /v1/files and /v1/batches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from stages.cli import cli
from tests.factories import make_doc, write_doc
from tests.mock_openai import MockOpenAI
from tests.stage_runner import chdir

CHAT = "/v1/chat/completions"
KEY_ENV = "INTERVIEWSIM_TEST_KEY"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-batch-test-123")
    monkeypatch.setenv("INTERVIEWSIM_PROGRESS", "0")


def workspace(root: Path, server: MockOpenAI, **provider: object) -> Path:
    for pid in ("P1", "P2", "P3"):
        write_doc(root / "data" / "personalities", make_doc(pid, interviews=5, pairs=3,
                                                             marker=pid.lower()))
    model = {"provider": "api", "model": "gpt-test", "max_tokens": 32}
    params = {
        "data": {"personalities": "data/personalities"},
        "strategies": ["no-context", "chronological", "retrieval"],
        "providers": {"api": {"kind": "openai", "base_url": server.base_url,
                              "api_key_env": KEY_ENV, "batch": True, "timeout_s": 2.0,
                              "backoff_initial_s": 0.001, "batch_poll_initial_s": 0.01,
                              "batch_poll_max_s": 0.02, **provider}},
        "models": {"generator": model, "judges": [{"name": "j", **model}],
                   "mcq_builder": model, "mcq_answerers": [{"name": "a", **model}]},
        "context": {"chronological_pairs": 3, "random_pairs": 3, "retrieval_pairs": 3,
                    "hybrid_retrieved": 2, "hybrid_recent": 2},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    for stage in ("prepare", "select-context"):
        assert run(root, stage).exit_code == 0
    return root


def run(root: Path, *args: str):
    with chdir(root):
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def batch_lines(server: MockOpenAI) -> list[int]:
    """Requests per submitted batch, in submission order."""
    api = server.batch_api
    return [len(api.files[b["input_file_id"]].splitlines()) for b in api.batches.values()]


def test_a_whole_stage_goes_in_one_batch_and_then_runs_from_the_cache(
        tmp_path: Path, server: MockOpenAI) -> None:
    root = workspace(tmp_path, server)
    server.batch_api.polls_to_complete = 3
    submitted = run(root, "batch", "submit", "generate")
    assert submitted.exit_code == 0, submitted.output
    # 3 personalities x 3 strategies x 1 held-out interview of 3 questions = 27 answers
    assert batch_lines(server) == [27] and server.count(CHAT) == 0
    assert "1 batch(es), 27 requests" in submitted.output
    again = run(root, "batch", "submit", "generate")  # everything is in flight: nothing sent
    assert "0 batch(es), 0 requests" in again.output and batch_lines(server) == [27]

    waiting = run(root, "batch", "collect")
    assert waiting.exit_code == 4 and "still running" in waiting.output
    server.batch_api.polls_to_complete = 1
    collected = run(root, "batch", "collect")
    assert collected.exit_code == 0, collected.output
    assert "completed (27 requests, 27 answers cached)" in collected.output
    assert not list((root / "data" / "cache" / "batches" / "submitted").iterdir())

    before = server.count()
    generated = run(root, "generate")
    assert generated.exit_code == 0, generated.output
    assert server.count() == before  # no chat call, no new batch: all from the cache
    answers = [json.loads(line) for line in
               (root / "data" / "artifacts" / "generated" / "answers.jsonl").open()]
    assert len(answers) == 27 and all(a["valid"] for a in answers)
    assert all(a["response"].startswith("echo:") for a in answers)


def test_batches_are_cut_at_the_request_limit_and_stages_share_a_submission(
        tmp_path: Path, server: MockOpenAI) -> None:
    root = workspace(tmp_path, server, batch_max_requests=10)
    submitted = run(root, "batch", "submit", "generate", "fact-summary")
    assert submitted.exit_code == 0, submitted.output
    assert batch_lines(server) == [10, 10, 7, 3]  # generate's 27 in three, 3 summaries in one
    assert server.count(CHAT) == 0


def test_a_batch_that_failed_is_forgotten_so_its_requests_can_be_submitted_again(
        tmp_path: Path, server: MockOpenAI) -> None:
    root = workspace(tmp_path, server)
    server.batch_api.fail = True
    assert run(root, "batch", "submit", "generate").exit_code == 0
    collected = run(root, "batch", "collect")
    assert collected.exit_code == 0 and "batch_1: failed" in collected.output
    server.batch_api.fail = False
    assert run(root, "batch", "submit", "generate").exit_code == 0
    assert batch_lines(server) == [27, 27]


def test_submitting_needs_a_batch_provider(tmp_path: Path, server: MockOpenAI) -> None:
    root = workspace(tmp_path, server, batch=False)
    with chdir(root):
        result = CliRunner().invoke(cli, ["batch", "submit", "generate"])
    assert result.exit_code != 0
    assert "batch: true" in str(result.exception)
