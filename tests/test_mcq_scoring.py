"""Scoring by retained role, the seeded shuffle, item validity, and the official examples."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from interviewsim.mcq.models import (
    GeneratedMcq,
    GeneratedOption,
    McqItem,
    McqOption,
    labels_for,
    roles_for,
)
from interviewsim.mcq.scoring import mean, score_answer, score_role
from interviewsim.mcq.shuffle import shuffle_options


def generated(option_count: int) -> GeneratedMcq:
    texts = ["Fourteen hours", "It never ran", "Twelve hours", "Fourteen days"]
    return GeneratedMcq(question="How long?", options=tuple(
        GeneratedOption(role=r, text=t) for r, t in zip(roles_for(option_count), texts,
                                                        strict=False)))


def item(option_count: int = 4, seed: int = 7, item_id: str = "P1/Q1") -> McqItem:
    options, correct = shuffle_options(generated(option_count), seed, item_id)
    return McqItem(item_id=item_id, personality_id="P1", qa_id="Q1", interview_id="I1",
                   option_count=option_count, question="How long?", options=options,
                   correct_label=correct)


# --- scoring table ----------------------------------------------------------------------------

@pytest.mark.parametrize("role, accuracy, reward", [
    ("correct", 1, 1.0),
    ("opposite_negation", 0, -1.0),
    ("near_miss", 0, -0.5),
    ("plausible_misconception", 0, -0.5),
    (None, 0, -0.5),  # a label the item does not have
])
def test_scoring_table(role, accuracy, reward):
    score = score_role(role)
    assert (score.accuracy, score.reward) == (accuracy, reward)


def test_malformed_output_scores_minus_half_and_zero_accuracy():
    score = score_answer(item(), None)
    assert (score.outcome, score.accuracy, score.reward) == ("malformed", 0, -0.5)


def test_unavailable_label_scores_minus_half():
    score = score_answer(item(3), "D")
    assert (score.outcome, score.role, score.reward) == ("unavailable", None, -0.5)


@given(st.sampled_from([3, 4]), st.integers(0, 2**32), st.integers(0, 3))
def test_score_follows_the_role_not_the_position(option_count, seed, pick):
    shuffled = item(option_count, seed=seed)
    chosen = shuffled.options[pick % option_count]
    score = score_answer(shuffled, chosen.label)
    assert score.role == chosen.role
    assert score.accuracy == (chosen.role == "correct") == (chosen.label == shuffled.correct_label)
    assert score.reward == {"correct": 1.0, "opposite_negation": -1.0}.get(chosen.role, -0.5)


def test_mean_of_nothing_is_none():
    assert mean([]) is None and mean([1, 0, 0, 1]) == 0.5


# --- shuffle ----------------------------------------------------------------------------------

@given(st.sampled_from([3, 4]), st.integers(0, 2**32), st.text(max_size=20))
def test_shuffle_is_reproducible_and_every_option_keeps_its_role(option_count, seed, item_id):
    first = shuffle_options(generated(option_count), seed, item_id)
    assert first == shuffle_options(generated(option_count), seed, item_id)
    options, correct = first
    assert [o.label for o in options] == list(labels_for(option_count))
    before = {(o.role, o.text) for o in generated(option_count).options}
    assert {(o.role, o.text) for o in options} == before
    assert next(o.role for o in options if o.label == correct) == "correct"


def test_shuffle_depends_on_seed_and_item_not_on_call_order():
    orders = {tuple(o.role for o in shuffle_options(generated(4), seed, "P1/Q1")[0])
              for seed in range(40)}
    assert len(orders) > 10  # the seed moves options around
    by_item = {tuple(o.role for o in shuffle_options(generated(4), 7, f"P1/Q{i}")[0])
               for i in range(40)}
    assert len(by_item) > 10  # so does the item identity
    correct_positions = {shuffle_options(generated(4), 7, f"P1/Q{i}")[1] for i in range(40)}
    assert correct_positions == {"A", "B", "C", "D"}


# --- item validity ----------------------------------------------------------------------------

def _options(roles: list[str]) -> list[McqOption]:
    return [McqOption(label=label, role=role, text=f"option {i}")
            for i, (label, role) in enumerate(zip("ABCD", roles, strict=False))]


@pytest.mark.parametrize("count, roles, correct, reason", [
    (3, ["correct", "near_miss", "plausible_misconception"], "A",
     "role\\(s\\) not allowed: plausible_misconception; missing: opposite_negation"),
    (4, ["correct", "near_miss", "near_miss", "opposite_negation"], "A",
     "missing: plausible_misconception; repeated: near_miss"),
    (3, ["near_miss", "correct", "opposite_negation"], "A", "correct_label 'A' is not"),
    (4, ["correct", "near_miss", "opposite_negation"], "A", "labels must be exactly A, B, C, D"),
])
def test_items_breaking_the_role_rules_are_invalid(count, roles, correct, reason):
    with pytest.raises(ValidationError, match=reason):
        McqItem(item_id="x", personality_id="P", qa_id="q", interview_id="i", option_count=count,
                question="?", options=_options(roles), correct_label=correct)


# --- official examples ------------------------------------------------------------------------

def _official_items(conformance_dir, name: str) -> list[dict]:
    items = []
    for path in sorted((conformance_dir / "personalities").glob(f"*/{name}")):
        items.extend(json.loads(path.read_text(encoding="utf-8"))["mcqs"])
    assert items, f"no {name} found"
    return items


def _as_item(official: dict) -> McqItem:
    """An official item in this project's shape: labels from option position (A, B, ...)."""
    options = [McqOption(label=label, role=o["kind"], text=o["text"])
               for label, o in zip("ABCD", official["options"], strict=False)]
    for option, raw in zip(options, official["options"], strict=False):
        assert raw["option_id"].endswith(f"_{option.label}")
    correct = next(o.label for o, raw in zip(options, official["options"], strict=True)
                   if raw["option_id"] == official["correct_option_id"])
    return McqItem(item_id=official["mcq_id"], personality_id=official["personality_id"],
                   qa_id=official["qa_id"], interview_id="unknown",
                   option_count=official["option_count"], question=official["question"],
                   options=options, correct_label=correct)


def test_official_four_option_results_are_reproduced_from_the_selected_role(conformance_dir):
    officials = _official_items(conformance_dir, "mcqs_4_option.json")
    items = {o["mcq_id"]: _as_item(o) for o in officials}
    checked = 0
    for path in sorted((conformance_dir / "personalities").glob("*/metrics.json")):
        metrics = json.loads(path.read_text(encoding="utf-8"))
        rewards, accuracies = [], []
        for result in metrics["mcq_evaluation"]["four_option"]:
            label = result["selected_option_id"].rsplit("_", 1)[1]
            score = score_answer(items[result["mcq_id"]], label)
            assert score.role == result["selected_option_kind"]
            assert (score.accuracy, score.reward) == (result["accuracy"], result["reward"])
            rewards.append(score.reward)
            accuracies.append(score.accuracy)
            checked += 1
        aggregates = metrics["aggregates"]
        assert round(mean(accuracies), 3) == aggregates["mcq_4_option_accuracy"]
        assert round(mean(rewards), 3) == aggregates["mcq_4_option_mean_reward"]
    assert checked >= 10


def test_official_three_option_items_are_rejected_for_their_misconception_role(conformance_dir):
    officials = _official_items(conformance_dir, "mcqs_3_option.json")
    for official in officials:
        with pytest.raises(ValidationError) as info:
            _as_item(official)
        message = str(info.value)
        assert f"invalid 3-option item {official['mcq_id']}" in message
        assert "role(s) not allowed: plausible_misconception" in message
        assert "missing: opposite_negation" in message
