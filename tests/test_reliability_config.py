"""Bad configuration fails before any model call, names the key path, and keeps the exit codes
of ``stages/cli.py``: 1 for invalid configuration, 2 for a provider that cannot be used (here:
its API-key variable is unset).

Each bad params.yaml is tried on every model stage of a workspace whose inputs are all in place
(so nothing but the params can stop it); the mock server must see zero requests.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mock_openai import MockOpenAI
from tests.reliability_kit import (
    ALL_STAGES,
    FAKE_KEY,
    KEY_ENV,
    contract_endpoint,
    deadline,
    make_workspace,
    mock_params,
    run_chain,
    run_cli,
    run_stage,
    stage_env,
    write_params,
)

MODEL_STAGES = ("generate", "fact-summary", "judge", "mcq-build", "mcq-answer")


@pytest.fixture(scope="module")
def server() -> Iterator[MockOpenAI]:
    with contract_endpoint() as mock:
        yield mock


@pytest.fixture(scope="module")
def ready(server: MockOpenAI, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace where every stage has run once, so every input a stage reads exists."""
    root = make_workspace(tmp_path_factory.mktemp("ready") / "ws", server)
    os.environ[KEY_ENV] = FAKE_KEY
    try:
        with deadline(120):
            assert [o.code for o in run_chain(root, ALL_STAGES)] == [0] * len(ALL_STAGES)
    finally:
        os.environ.pop(KEY_ENV, None)
    return root


def _set(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Set a dotted path (``models.judges.0.provider``) in nested params."""
    *parents, last = path.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part)] if part.isdigit() else node.setdefault(part, {})
    if last.isdigit():
        node[int(last)] = value
    else:
        node[last] = value
    return data


BAD = {
    "wrong type": ("context.chronological_pairs", "many",
                   "context.chronological_pairs: Input should be a valid integer"),
    "float where an integer belongs": ("judge.ps_runs", 1.5,
                                       "judge.ps_runs: Input should be a valid integer"),
    "unknown top-level key": ("strategy", ["no-context"], "strategy: unknown key"),
    "unknown nested key": ("judge.runs", 3, "judge.runs: unknown key"),
    "unknown strategy": ("strategies", ["no-context", "telepathy"],
                         "strategies[1]: unknown strategy 'telepathy'"),
    "mcq.option_count 5": ("mcq.option_count", 5, "mcq.option_count: Input should be 3 or 4"),
    "negative count": ("context.retrieval_pairs", -1,
                       "context.retrieval_pairs: Input should be greater than or equal to 0"),
    "negative temperature": ("models.generator.temperature", -0.5,
                             "models.generator.temperature: Input should be greater than"),
    "zero judge runs": ("judge.ps_runs", 0, "judge.ps_runs: Input should be greater than 0"),
    "judge naming an undefined provider": (
        "models.judges.0.provider", "nowhere",
        "models.judges[0].provider: unknown provider 'nowhere' (defined: mock)"),
    "answerer naming an undefined provider": (
        "models.mcq_answerers.0.provider", "openai",
        "models.mcq_answerers[0].provider: unknown provider 'openai' (defined: mock)"),
    "unknown provider kind": ("providers.mock.kind", "anthropic",
                              "providers.mock: Input tag 'anthropic' found using 'kind'"),
    "timeout of zero": ("providers.mock.timeout_s", 0,
                        "providers.mock.openai.timeout_s: Input should be greater than 0"),
    "empty strategy list": ("strategies", [], "strategies: List should have at least 1 item"),
    "test fraction of 1": ("data.test_fraction", 1.0,
                           "data.test_fraction: Input should be less than 1"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_params_stop_every_model_stage_with_exit_1_before_any_call(
        case: str, server: MockOpenAI, ready: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, FAKE_KEY)
    root = tmp_path / "ws"
    shutil.copytree(ready, root)
    path, value, expected = BAD[case]
    write_params(root, _set(mock_params(server), path, value))
    before = server.count()
    with deadline(60):
        outcomes = {stage: run_cli(root, stage) for stage in MODEL_STAGES}
    for stage, outcome in outcomes.items():
        assert outcome.code == 1, (stage, outcome.output)
        assert expected in outcome.stderr, (stage, outcome.stderr)
        assert "Traceback" not in outcome.output
    assert server.count() == before, "no request reached the model"


def test_several_problems_are_all_listed_at_once(server: MockOpenAI, ready: Path,
                                                 tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(ready, root)
    data = mock_params(server)
    for path, value, _ in (BAD["unknown strategy"], BAD["mcq.option_count 5"],
                           BAD["negative count"]):
        _set(data, path, value)
    write_params(root, data)
    outcome = run_cli(root, "generate")
    assert outcome.code == 1 and "3 problem(s)" in outcome.stderr
    for path in ("strategies[1]", "mcq.option_count", "context.retrieval_pairs"):
        assert f"params.yaml: {path}:" in outcome.stderr


def test_a_key_pasted_into_params_is_rejected_without_echoing_it(server: MockOpenAI,
                                                                  ready: Path,
                                                                  tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(ready, root)
    write_params(root, _set(mock_params(server), "providers.mock.api_key", FAKE_KEY))
    outcome = run_cli(root, "generate")
    assert outcome.code == 1
    assert "providers.mock.openai.api_key: unknown key" in outcome.stderr
    assert FAKE_KEY not in outcome.output


def test_invalid_yaml_and_a_missing_params_file_exit_1(server: MockOpenAI, ready: Path,
                                                       tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(ready, root)
    (root / "params.yaml").write_text("strategies: [no-context\nseed: 1\n")
    outcome = run_cli(root, "judge")
    assert outcome.code == 1 and "params.yaml: invalid YAML" in outcome.stderr
    outcome = run_cli(root, "judge", "--params", "nowhere.yaml")
    assert outcome.code == 1 and "nowhere.yaml: cannot read" in outcome.stderr


def test_an_unset_api_key_variable_stops_every_model_stage_with_exit_2_before_any_call(
        server: MockOpenAI, ready: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    root = tmp_path / "ws"
    shutil.copytree(ready, root)
    before = server.count()
    with deadline(60):
        outcomes = {stage: run_cli(root, stage) for stage in MODEL_STAGES}
    for stage, outcome in outcomes.items():
        assert outcome.code == 2, (stage, outcome.output)
        assert f"environment variable {KEY_ENV} is not set" in outcome.stderr, stage
        assert "provider 'mock'" in outcome.stderr and server.base_url in outcome.stderr
    assert server.count() == before


def test_exit_codes_are_the_same_in_a_real_process(server: MockOpenAI, ready: Path,
                                                   tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(ready, root)
    env = stage_env()
    del env[KEY_ENV]
    with deadline(60):
        unset = run_stage(root, "generate", env=env, timeout=45)
        write_params(root, _set(mock_params(server), *BAD["mcq.option_count 5"][:2]))
        invalid = run_stage(root, "generate", timeout=45)
    assert unset.code == 2 and f"{KEY_ENV} is not set" in unset.stderr
    assert invalid.code == 1 and "mcq.option_count" in invalid.stderr
    assert "Traceback" not in unset.stderr + invalid.stderr
