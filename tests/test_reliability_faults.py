"""Fault injection through the real stages: prepare → select-context → generate →
fact-summary → judge against the mock OpenAI server.

A transient fault (429 storm with Retry-After, 500/502/503, read timeout, dropped connection,
malformed body, empty ``choices``) is retried within the budget and the artifacts come out
byte-identical to a fault-free run. A fault that outlasts the budget stops the stage with exit
code 2 and a message naming the endpoint, the fault and the attempts; the previous artifacts
are untouched, no temporary file is left, and every call answered before the failure is in the
response cache. Every test runs under a hard deadline, so a hang fails instead of blocking.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from interviewsim.data.jsonio import read_jsonl
from tests.mock_openai import Fault, MockOpenAI
from tests.reliability_kit import (
    CACHE,
    GENERATE_SYSTEM_START,
    STAGE_MARKS,
    TRANSIENT_FAULTS,
    artifacts,
    cache_entries,
    contract_endpoint,
    deadline,
    make_workspace,
    run_chain,
    run_cli,
    temp_files,
)

TRANSIENT = {kind: make for kind, (_, make) in TRANSIENT_FAULTS.items()}


@pytest.fixture(scope="module")
def server() -> Iterator[MockOpenAI]:
    with contract_endpoint(log_size=20_000) as mock:
        yield mock


@pytest.fixture(scope="module")
def reference(server: MockOpenAI, tmp_path_factory: pytest.TempPathFactory
              ) -> tuple[dict[str, bytes], int]:
    """A fault-free run: its artifacts and how many calls it made."""
    root = make_workspace(tmp_path_factory.mktemp("reference") / "ws", server)
    mark = server.mark()
    with deadline(120):
        outcomes = run_chain(root)
    assert [o.code for o in outcomes] == [0] * 5, outcomes[-1].output
    return artifacts(root), len(server.answered(mark))


@pytest.mark.parametrize("kind", sorted(TRANSIENT))
def test_transient_faults_in_every_model_stage_leave_artifacts_byte_identical(
        kind: str, server: MockOpenAI, reference: tuple[dict[str, bytes], int],
        tmp_path: Path) -> None:
    expected, reference_calls = reference
    provider = {"timeout_s": 1} if kind == "read-timeout" else {}
    root = make_workspace(tmp_path / "ws", server, provider=provider)
    per_stage = 1 if kind == "read-timeout" else 2
    faults = [TRANSIENT[kind](mark) for mark in STAGE_MARKS.values() for _ in range(per_stage)]
    server.enqueue(*faults)
    mark = server.mark()
    with deadline(90):
        outcomes = run_chain(root)
    assert [o.code for o in outcomes] == [0] * 5, outcomes[-1].output
    assert server.pending_faults() == 0, "every injected fault was served"
    seen = server.exchanges(mark)
    assert sum(not e.answered for e in seen) == len(faults)
    assert len(server.answered(mark)) == reference_calls, "no call was answered twice"
    assert artifacts(root) == expected
    assert temp_files(root) == []


def test_a_429_storm_honours_retry_after_before_each_retry(
        server: MockOpenAI, reference: tuple[dict[str, bytes], int], tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws", server, provider={"max_concurrency": 1,
                                                            "backoff_max_s": 1.0})
    run_chain(root, ("prepare", "select-context"))
    storm = [Fault.rate_limit(retry_after=0.3, match=GENERATE_SYSTEM_START)] * 3
    server.enqueue(*storm)
    mark = server.mark()
    with deadline(60):
        outcome = run_cli(root, "generate")
    assert outcome.code == 0, outcome.output
    first = server.exchanges(mark)[:4]
    assert [e.outcome for e in first] == ["429", "429", "429", "ok"]
    assert len({e.key for e in first}) == 1, "the same request was retried"
    gaps = [b.at - a.at for a, b in zip(first, first[1:], strict=False)]
    assert all(gap >= 0.3 for gap in gaps), gaps
    expected = reference[0]
    name = "data/artifacts/generated/answers.jsonl"
    assert artifacts(root)[name] == expected[name]


def previous_run(server: MockOpenAI, root: Path, **provider: object) -> None:
    """A completed chain, then the response cache deleted so the next run must call again:
    the artifacts on disk are the 'previous outputs' a failed run must leave intact."""
    make_workspace(root, server, provider={"max_concurrency": 1, **provider})
    outcomes = run_chain(root)
    assert [o.code for o in outcomes] == [0] * 5, outcomes[-1].output
    for suffix in ("", "-wal", "-shm"):
        Path(f"{root / CACHE}{suffix}").unlink(missing_ok=True)


EXHAUSTING = {
    "429": (lambda m: Fault.rate_limit(retry_after=0.01, match=m), "HTTP 429"),
    "503": (lambda m: Fault.http(503, match=m), "HTTP 503"),
    "read-timeout": (lambda m: Fault.timeout(sleep_s=1.5, match=m), "no response within 1s"),
    "dropped-connection": (lambda m: Fault.drop(match=m), "connection failed"),
    "malformed-json": (lambda m: Fault.malformed(match=m), "malformed"),
    "empty-choices": (lambda m: Fault.empty_choices(match=m), "malformed chat completion"),
}


@pytest.mark.parametrize(("stage", "kind"), [
    *(("generate", kind) for kind in sorted(EXHAUSTING)),
    ("judge", "503"), ("judge", "dropped-connection"), ("fact-summary", "malformed-json"),
])
def test_a_fault_outlasting_the_retry_budget_stops_with_exit_2_and_loses_nothing(
        stage: str, kind: str, server: MockOpenAI, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    with deadline(90):
        previous_run(server, root, timeout_s=1, max_attempts=3)
        upstream = {"generate": (), "fact-summary": (), "judge": ("generate", "fact-summary")}
        assert all(run_cli(root, s).code == 0 for s in upstream[stage])
        before = artifacts(root, include_logs=True)
        make_fault, named = EXHAUSTING[kind]
        match = STAGE_MARKS["judge/cs" if stage == "judge" else stage]
        server.enqueue(*[make_fault(match)] * 3)
        entries = cache_entries(root)
        mark = server.mark()
        start = time.perf_counter()
        outcome = run_cli(root, stage)
        elapsed = time.perf_counter() - start
    assert outcome.code == 2, outcome.output
    message = outcome.stderr
    assert server.base_url in message and named in message, message
    assert "gave up after 3 attempts" in message, message
    assert server.pending_faults() == 0
    assert elapsed < 30
    after = artifacts(root, include_logs=True)
    assert after == before, "the failed stage changed no artifact"
    assert temp_files(root) == []
    answered = server.answered(mark)
    assert cache_entries(root) == entries + len(set(answered)), "every answer was cached"


def test_a_rejected_key_is_not_retried_and_stops_with_exit_2(server: MockOpenAI,
                                                               tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws", server)
    run_chain(root, ("prepare", "select-context"))
    server.enqueue(Fault.http(401, match=GENERATE_SYSTEM_START))
    mark = server.mark()
    with deadline(60):
        outcome = run_cli(root, "generate")
    assert outcome.code == 2
    assert "HTTP 401 (not retried)" in outcome.stderr and server.base_url in outcome.stderr
    assert [e.outcome for e in server.exchanges(mark)].count("401") == 1
    assert not (root / "data/artifacts/generated/answers.jsonl").exists()
    assert temp_files(root) == []


def test_an_endpoint_that_never_answers_ends_the_run_within_the_retry_budget(
        server: MockOpenAI, tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws", server,
                          provider={"timeout_s": 0.5, "max_attempts": 2})
    run_chain(root, ("prepare", "select-context"))
    server.hold_after(0)
    try:
        start = time.perf_counter()
        with deadline(60):
            outcome = run_cli(root, "generate")
        elapsed = time.perf_counter() - start
    finally:
        server.release()
    assert outcome.code == 2 and "no response within 0.5s" in outcome.stderr
    assert elapsed < 2 * 0.5 + 0.2 + 10  # attempts x timeout + backoff, plus start-up slack
    assert not (root / "data/artifacts/generated").exists() or temp_files(root) == []


def test_a_closed_port_ends_the_run_with_exit_2_naming_the_endpoint(server: MockOpenAI,
                                                                     tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws", server, provider={
        "base_url": "http://127.0.0.1:9/v1", "max_attempts": 2})
    run_chain(root, ("prepare", "select-context"))
    with deadline(60):
        outcome = run_cli(root, "generate")
    assert outcome.code == 2
    assert "http://127.0.0.1:9/v1" in outcome.stderr and "connection failed" in outcome.stderr
    assert "gave up after 2 attempts" in outcome.stderr


def test_a_truncated_judge_output_is_reasked_and_the_cut_answer_kept_for_audit(
        server: MockOpenAI, reference: tuple[dict[str, bytes], int], tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws", server, provider={"max_concurrency": 1})
    server.enqueue(Fault.length(match=STAGE_MARKS["judge/cs"]))
    with deadline(60):
        outcomes = run_chain(root)
    assert [o.code for o in outcomes] == [0] * 5
    judgments = list(read_jsonl(root / "data/artifacts/judged/judgments.jsonl"))
    [cut] = [j for j in judgments if len(j["calls"]) > 1]
    assert cut["valid"] and cut["metric"] == "content_similarity"
    assert [c["finish_reason"] for c in cut["calls"]] == ["length", "stop"]
    assert [c["sample_index"] for c in cut["calls"]] == [0, 1]
    expected = {k: v for k, v in reference[0].items() if "judged" not in k}
    assert {k: v for k, v in artifacts(root).items() if "judged" not in k} == expected


def test_a_judge_truncated_on_every_attempt_is_kept_invalid_and_not_scored(
        server: MockOpenAI, tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws", server, provider={"max_concurrency": 1})
    run_chain(root, ("prepare", "select-context", "generate", "fact-summary"))
    answers = [a["response"] for a in read_jsonl(root / "data/artifacts/generated/answers.jsonl")]
    target = next(a for a in answers if answers.count(a) == 1)  # one FC prompt holds it
    # Every prompt holding the answer is cut, on both attempts: its CS and FC asks and the
    # five PS asks (one run per trait) of its strategy's collection, 7 per attempt.
    server.enqueue(*[Fault.length(match=target)] * 14)
    with deadline(60):
        outcome = run_cli(root, "judge")
    assert outcome.code == 0, outcome.output
    assert server.pending_faults() == 0
    judgments = list(read_jsonl(root / "data/artifacts/judged/judgments.jsonl"))
    bad = [j for j in judgments if not j["valid"]]
    assert sorted(j["metric"] for j in bad) == ["content_similarity", "factual_consistency"]
    for judgment in bad:
        assert judgment["parsed"] is None and "JSON" in judgment["error"]
        assert [c["finish_reason"] for c in judgment["calls"]] == ["length", "length"]
    metrics = list(read_jsonl(root / "data/artifacts/judged/personality_metrics.jsonl"))
    for metric in ("content_similarity", "contradiction_ratio"):
        assert sum(m["invalid"] for m in metrics if m["metric"] == metric) == 1


def test_a_truncated_generation_is_kept_with_its_finish_reason(server: MockOpenAI,
                                                                tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws", server, provider={"max_concurrency": 1})
    run_chain(root, ("prepare", "select-context"))
    server.enqueue(Fault.length(match=GENERATE_SYSTEM_START))
    with deadline(60):
        assert run_cli(root, "generate").code == 0
    answers = list(read_jsonl(root / "data/artifacts/generated/answers.jsonl"))
    [cut] = [a for a in answers if a["calls"][0]["finish_reason"] == "length"]
    assert cut["valid"] and len(cut["calls"]) == 1
    assert len(cut["response"]) < len("Speaking for myself, the kiln takes 1 hours")
    # the cut answer is the model's answer: it is cached, so a rerun reproduces it exactly
    first = (root / "data/artifacts/generated/answers.jsonl").read_bytes()
    shutil.rmtree(root / "data/artifacts/generated")
    assert run_cli(root, "generate").code == 0
    assert (root / "data/artifacts/generated/answers.jsonl").read_bytes() == first
