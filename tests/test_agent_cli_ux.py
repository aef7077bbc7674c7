"""The ``session`` command's promises: what --help says is what happens, and paths do not depend
on the working directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from interviewsim.agent.config import SETTINGS_PATH, load_agent_settings
from interviewsim.agent.plan import load_plan
from interviewsim.data.jsonio import read_jsonl
from interviewsim.errors import ConfigError
from stages.cli import cli
from tests.test_agent_support import scripted_params_file

END_LINE = "That's the end of the interview."


@pytest.fixture
def params_file(tmp_path: Path) -> Path:
    return scripted_params_file(tmp_path)


def session(params_file: Path, out: Path, answers: str, *extra: str):
    return CliRunner().invoke(cli, ["session", "--human", "--params", str(params_file),
                                    "--out-dir", str(out), *extra], input=answers)


def test_help_describes_what_an_empty_line_and_quit_do():
    text = " ".join(CliRunner().invoke(cli, ["session", "--help"]).output.split())
    assert "an empty line is silence" in text and "/quit or end of input (Ctrl-D) ends" in text
    assert "--out-dir" in text and "--out " not in text and "empty input" not in text


def test_an_empty_line_is_silence_not_the_end(tmp_path, params_file):
    out = tmp_path / "silent"
    result = session(params_file, out, "Ready.\n\n/quit\n")
    assert result.exit_code == 0, result.output
    assert "(candidate_left): 3 turns" in result.output
    events = [(r["turn"], r["event"]) for r in read_jsonl(out / "live_guardrails.jsonl")]
    assert events == [(2, "silence")]
    transcript = list(read_jsonl(out / "transcript.jsonl"))
    assert transcript[-1]["speaker"] == "interviewer" and transcript[-1]["turn"] == 3


def test_quitting_does_not_announce_the_end_but_finishing_does(tmp_path, params_file):
    quit_early = session(params_file, tmp_path / "q", "Ready.\n/quit\n")
    assert quit_early.exit_code == 0 and END_LINE not in quit_early.output
    answers = ["Ready.", *["We sharded the ledger by account id."] * 9,
               "No more questions, thanks.", "Thank you."]
    finished = session(params_file, tmp_path / "f", "\n".join(answers) + "\n")
    assert finished.exit_code == 0, finished.output
    assert "(completed)" in finished.output and END_LINE in finished.output


def test_the_old_out_option_still_works_hidden_and_warns(tmp_path, params_file):
    out = tmp_path / "legacy"
    result = CliRunner().invoke(cli, ["session", "--human", "--params", str(params_file),
                                      "--out", str(out)], input="/quit\n")
    assert result.exit_code == 0, result.output
    assert "--out is deprecated; use --out-dir" in result.output
    assert json.loads((out / "scorecard.json").read_text())["stop_reason"] == "candidate_left"


def test_plans_and_settings_resolve_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_plan("technical").name == "technical"
    assert SETTINGS_PATH.is_absolute() and load_agent_settings().judge_name == "agent"
    with pytest.raises(ConfigError, match="known plans: personality, technical"):
        load_plan("nonexistent")


def test_a_missing_settings_file_given_explicitly_is_an_error_naming_it(tmp_path, params_file):
    missing = tmp_path / "nowhere" / "agent.yaml"
    with pytest.raises(ConfigError, match="agent settings file not found") as caught:
        load_agent_settings(missing)
    assert str(missing) in str(caught.value)
    result = session(params_file, tmp_path / "x", "/quit\n", "--agent-settings", str(missing))
    assert result.exit_code != 0 and str(missing) in result.output + str(result.exception)
    assert not (tmp_path / "x").exists()
