"""params.yaml is validated up front: every problem reported with its key path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from interviewsim.config.params import ALL_STRATEGIES, load_params, parse_params
from interviewsim.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]


def problems_of(data) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_params(data)
    return [f"{p.path}: {p.message}" for p in info.value.problems]


def test_repository_params_are_valid():
    params = load_params(REPO / "params.yaml")
    assert set(params.strategies) == set(ALL_STRATEGIES)


def test_defaults_apply_to_an_empty_file():
    assert parse_params(None).mcq.option_count == 4


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"colour": 1}, "colour: unknown key"),
        ({"context": {"retreival_pairs": 5}}, "context.retreival_pairs: unknown key"),
        ({"mcq": {"option_count": 5}}, "mcq.option_count: Input should be 3 or 4"),
        ({"strategies": ["hybrid", "sideways"]}, "strategies[1]: unknown strategy 'sideways'"),
        ({"data": {"test_fraction": 0}}, "data.test_fraction: Input should be greater than 0"),
        ({"data": {"test_fraction": 1.5}}, "data.test_fraction: Input should be less than 1"),
        ({"context": {"random_pairs": -2}}, "context.random_pairs: Input should be greater than or equal to 0"),
        ({"context": {"random_pairs": "many"}}, "context.random_pairs: Input should be a valid integer"),
        ({"models": {"generator": {"provider": "nowhere", "model": "m"}}},
         "models.generator.provider: unknown provider 'nowhere'"),
        ({"providers": {"x": {"kind": "telepathy"}}}, "providers.x: Input tag 'telepathy'"),
        ({"strategies": ["random", "random"]}, "strategies: a strategy is listed twice"),
    ],
)
def test_invalid_params_name_the_key_path(data, expected):
    problems = problems_of(data)
    assert any(p.startswith(expected) for p in problems), problems


def test_params_check_cli_exit_codes(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text((REPO / "params.yaml").read_text())
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"mcq": {"option_count": 5}, "strategies": ["nope"]}))
    run = [sys.executable, "-m", "stages", "params", "check"]
    ok = subprocess.run([*run, str(good)], capture_output=True, text=True, cwd=REPO)
    assert ok.returncode == 0, ok.stderr
    failed = subprocess.run([*run, str(bad)], capture_output=True, text=True, cwd=REPO)
    assert failed.returncode == 1
    assert "mcq.option_count" in failed.stderr and "strategies[0]" in failed.stderr


def test_greedy_ps_runs_are_rejected():
    with pytest.raises(ConfigError) as caught:
        parse_params({"judge": {"ps_runs": 3, "ps_temperature": 0}})
    assert "ps_temperature: 0 makes the 3 PS runs one greedy answer repeated" in str(
        caught.value.problems)
    assert parse_params({"judge": {"ps_runs": 1, "ps_temperature": 0}}).judge.ps_runs == 1
