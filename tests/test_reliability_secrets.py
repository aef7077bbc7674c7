"""The API key lives only in the environment variable its provider names.

Stages run as real processes with the openai client's debug logging on, against a mock server
that injects faults, and against one that quotes the Authorization header back in its error
body: the recognisable fake key appears in no output line, artifact or cache entry. (The
whole-pipeline scan, dvc.lock and MLflow included, is in test_reliability_dvc.py.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mock_openai import Fault, MockOpenAI
from tests.reliability_kit import (
    FAKE_KEY,
    KEY_ENV,
    contract_endpoint,
    deadline,
    make_workspace,
    run_chain,
    run_stage,
    stage_env,
)

GENERATE = "You answer interview questions"


@pytest.fixture
def server() -> Iterator[MockOpenAI]:
    with contract_endpoint(lifetime_s=300) as mock:
        yield mock


def files_holding(root: Path, secret: str) -> list[str]:
    """Every file under ``root`` whose bytes contain ``secret``."""
    needle = secret.encode("utf-8")
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


@pytest.fixture
def workspace(server: MockOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(KEY_ENV, FAKE_KEY)
    root = make_workspace(tmp_path / "ws", server)
    assert [o.code for o in run_chain(root, ("prepare", "select-context"))] == [0, 0]
    return root


def test_debug_logs_of_a_stage_with_retried_faults_never_print_the_key(
        server: MockOpenAI, workspace: Path) -> None:
    server.enqueue(Fault.rate_limit(retry_after=0.05, match=GENERATE), Fault.http(503),
                   Fault.drop(match=GENERATE), Fault.malformed(match=GENERATE))
    with deadline(90):
        outcome = run_stage(workspace, "generate", timeout=60,
                            env=stage_env(OPENAI_LOG="debug", INTERVIEWSIM_LOG="debug"))
    assert outcome.code == 0, outcome.stderr[-2000:]
    assert "retrying" in outcome.stderr and "POST http" in outcome.stderr  # logs were on
    assert FAKE_KEY not in outcome.output
    assert files_holding(workspace, FAKE_KEY) == []


def test_an_endpoint_that_echoes_the_key_back_does_not_get_it_printed(
        server: MockOpenAI, workspace: Path) -> None:
    server.enqueue(Fault.http(401, match=GENERATE, echo_auth=True))
    with deadline(90):
        outcome = run_stage(workspace, "generate", timeout=60)
    assert outcome.code == 2
    assert "HTTP 401 (not retried)" in outcome.stderr
    assert "Authorization: Bearer <redacted>" in outcome.stderr  # the echo was there, masked
    assert FAKE_KEY not in outcome.output
    assert "Unclosed client session" not in outcome.stderr  # the stage closed its client
    assert files_holding(workspace, FAKE_KEY) == []
