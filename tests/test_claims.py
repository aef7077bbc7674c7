"""Claim grounding: sentences of simulated answers traced to cited training qa_ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from interviewsim.analysis.claims import METRIC, ground_claims, split_claims, strategy_summary
from interviewsim.data.jsonio import read_jsonl, write_jsonl_atomic
from interviewsim.errors import InputError
from interviewsim.text.coverage import terms
from stages.cli import cli

TRAIN = [
    {"personality_id": "P1", "interview_id": "i1", "sequence": 1, "position": 0,
     "qa_id": "p1-q1", "question": "Pets?", "tags": [],
     "response": "My basset hound Torque sleeps under the drafting table all afternoon."},
    {"personality_id": "P1", "interview_id": "i1", "sequence": 1, "position": 1,
     "qa_id": "p1-q2", "question": "Work?", "tags": [],
     "response": "I designed steel truss bridges over the Garnet river for thirty years."},
    {"personality_id": "P2", "interview_id": "j1", "sequence": 1, "position": 0,
     "qa_id": "p2-q1", "question": "Food?", "tags": [],
     "response": "Sardine tacos from the bread van on the harbour."},
]


def answer(strategy: str, response: str | None, pid: str = "P1", qa_id: str = "p1-q9",
           valid: bool = True) -> dict:
    return {"personality_id": pid, "strategy": strategy, "qa_id": qa_id,
            "question": "Tell me about yourself?", "response": response, "valid": valid,
            "attempts": 1}


def test_claims_are_sentences_with_at_least_three_content_terms() -> None:
    text = ("Oh, absolutely! My basset hound Torque sleeps all day. Yes.\n"
            "Bridges were my life's work.")
    assert split_claims(text) == ["My basset hound Torque sleeps all day.",
                                  "Bridges were my life's work."]


@given(st.text(max_size=300))
def test_every_claim_is_a_stripped_piece_of_the_answer_with_enough_terms(text: str) -> None:
    for claim in split_claims(text):
        assert claim == claim.strip() and claim in text and len(terms(claim)) >= 3


def test_a_claim_restating_a_training_answer_is_grounded_with_its_qa_id() -> None:
    grounding = ground_claims(
        [answer("retrieval", "My basset hound Torque sleeps under my table. "
                             "I once won a national baking prize for rye sourdough.")], TRAIN)
    grounded, invented = grounding.links
    assert grounded.coverage == "FULL" and grounded.cited_qa_ids == ("p1-q1",)
    assert {"basset", "torque"} <= set(grounded.matched_terms)
    assert invented.coverage == "GAP" and invented.cited_qa_ids == ()
    [metric] = grounding.metrics
    assert (metric.metric, metric.judge, metric.value, metric.n) == (METRIC, "lexical", 0.5, 2)


def test_claims_are_only_matched_against_their_own_personality() -> None:
    grounding = ground_claims([answer("random", "Sardine tacos from the bread van daily.")],
                              TRAIN)
    assert grounding.links[0].coverage == "GAP"


def test_invalid_answers_are_counted_not_scored() -> None:
    grounding = ground_claims([answer("no-context", None, valid=False),
                               answer("no-context", "Torque the basset hound sleeps.",
                                      qa_id="p1-q8")], TRAIN)
    [metric] = grounding.metrics
    assert metric.invalid == 1 and metric.n == 1 and metric.value == 1.0


def test_an_answer_without_claims_yields_no_value_rather_than_zero() -> None:
    [metric] = ground_claims([answer("hybrid", "Yes. Indeed!")], TRAIN).metrics
    assert metric.value is None and metric.n == 0


def test_a_personality_without_training_pairs_is_an_input_error() -> None:
    with pytest.raises(InputError, match="no training pairs for personality 'P9'"):
        ground_claims([answer("random", "Some words here today.", pid="P9")], TRAIN)


def test_rows_are_sorted_and_the_summary_macro_averages_personalities() -> None:
    grounding = ground_claims([
        answer("retrieval", "Torque the basset hound sleeps. I flew planes in the navy."),
        answer("retrieval", "Sardine tacos from the bread van.", pid="P2", qa_id="p2-q9"),
        answer("no-context", "I flew planes in the navy."),
    ], TRAIN)
    assert [(m.strategy, m.personality_id) for m in grounding.metrics] == [
        ("no-context", "P1"), ("retrieval", "P1"), ("retrieval", "P2")]
    summary = strategy_summary(grounding)
    assert summary["retrieval"][METRIC] == pytest.approx((0.5 + 1.0) / 2)
    assert summary["retrieval"]["claims"] == 3 and summary["retrieval"]["grounded_claims"] == 2
    assert summary["no-context"][METRIC] == 0.0


def test_claims_stage_writes_links_metrics_and_summary(tmp_path: Path) -> None:
    answers, train = tmp_path / "answers.jsonl", tmp_path / "train_pairs.jsonl"
    write_jsonl_atomic(answers, [answer("retrieval", "Torque the basset hound sleeps.")])
    write_jsonl_atomic(train, TRAIN)
    out = tmp_path / "claims"
    result = CliRunner().invoke(cli, ["claims", "--answers", str(answers), "--train-pairs",
                                      str(train), "--out-dir", str(out)])
    assert result.exit_code == 0, result.output
    [link] = read_jsonl(out / "claims.jsonl")
    assert link["cited_qa_ids"] == ["p1-q1"] and link["claim_index"] == 0
    [row] = read_jsonl(out / "personality_metrics.jsonl")
    assert row["metric"] == METRIC and row["value"] == 1.0
    assert json.loads((out / "summary.json").read_text())["retrieval"][METRIC] == 1.0
