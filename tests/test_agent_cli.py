"""``interviewsim session`` end to end: a person driven through stdin, and a twin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from interviewsim.agent.artifacts import FILES
from interviewsim.data.jsonio import read_jsonl
from interviewsim.data.prepare import prepare_corpus
from stages.cli import cli
from tests.factories import make_doc, write_doc
from tests.test_agent_support import scripted_params_file

HUMAN_ANSWERS = [
    "Ready.",
    "I run the payments platform team and own the ledger service.",
    "The ledger service, which replicates across three zones.",
    "Could you give me a hint?",
    "We use quorum writes with two of three replicas acknowledging.",
    "A partition once split the zones and we served stale balances.",
    "We shard by account id and rebalance with consistent hashing.",
    "A token bucket per client kept in Redis with a local fallback.",
    "I disagreed with a rewrite and proposed an incremental migration.",
    "A launch slipped; I split the scope and shipped the core first.",
    "How does on-call work on the team?",
    "No more questions, thanks.",
    "Thank you.",
]


@pytest.fixture
def params_file(tmp_path: Path) -> Path:
    return scripted_params_file(tmp_path)


def test_human_interview_through_stdin_writes_every_artifact(tmp_path, params_file):
    out = tmp_path / "human"
    result = CliRunner().invoke(cli, [
        "session", "--human", "--coach", "live", "--params", str(params_file),
        "--out-dir", str(out)], input="\n".join(HUMAN_ANSWERS) + "\n")
    assert result.exit_code == 0, result.output
    assert "Interviewer: Question 1 on introduction" in result.output
    assert "Coach: What worked:" in result.output
    assert "interview technical (completed): 13 turns" in result.output
    assert sorted(p.name for p in out.iterdir()) == sorted([*FILES.values(), "run_log.json"])
    card = json.loads((out / "scorecard.json").read_text())
    assert card["candidate"] == {"kind": "human", "personality_id": None, "strategy": None}
    assert card["states_entered"][-1] == "COMPLETE"
    answers = [r for r in read_jsonl(out / "transcript.jsonl") if r["speaker"] == "candidate"]
    assert [a["text"] for a in answers] == HUMAN_ANSWERS
    assert answers[3]["signals"] == ["hint_request"]
    assert all(a["duration_s"] is not None for a in answers)


def test_human_leaving_early_still_gets_the_artifacts(tmp_path, params_file):
    out = tmp_path / "early"
    result = CliRunner().invoke(cli, ["session", "--human", "--params", str(params_file),
                                      "--out-dir", str(out)], input="Ready.\n/quit\n")
    assert result.exit_code == 0, result.output
    assert "(candidate_left): 2 turns" in result.output
    history = list(read_jsonl(out / "state_history.jsonl"))
    assert (history[-1]["to_state"], history[-1]["reason"]) == ("COMPLETE", "candidate_left")


def test_twin_interview_runs_the_personality_plan(tmp_path, params_file):
    root = tmp_path / "personalities"
    write_doc(root, make_doc("P1", interviews=5, pairs=3))
    prepare_corpus(root, tmp_path / "prepared", 0.2)
    out = tmp_path / "twin"
    result = CliRunner().invoke(cli, [
        "session", "--personality", "P1", "--strategy", "hybrid", "--params", str(params_file),
        "--prepared-dir", str(tmp_path / "prepared"), "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    card = json.loads((out / "scorecard.json").read_text())
    assert card["plan"] == "personality"
    assert card["candidate"] == {"kind": "simulated", "personality_id": "P1",
                                 "strategy": "hybrid"}
    assert card["states_entered"] == ["OPENING", "TOPICS", "FOLLOW_UPS", "CLOSING", "COMPLETE"]
    assert card["answers_scored"] == 3


@pytest.mark.parametrize("args", [[], ["--human", "--personality", "P1"]])
def test_interview_needs_exactly_one_candidate(params_file, args):
    result = CliRunner().invoke(cli, ["session", "--params", str(params_file), *args])
    assert result.exit_code == 1 and "exactly one of --personality ID or --human" in result.output


def test_unknown_personality_is_a_usage_error(tmp_path, params_file):
    root = tmp_path / "personalities"
    write_doc(root, make_doc("P1", interviews=5, pairs=2))
    prepare_corpus(root, tmp_path / "prepared", 0.2)
    result = CliRunner().invoke(cli, [
        "session", "--personality", "nobody", "--params", str(params_file),
        "--prepared-dir", str(tmp_path / "prepared"), "--out-dir", str(tmp_path / "x")])
    assert result.exit_code == 1 and "nobody" in result.output
