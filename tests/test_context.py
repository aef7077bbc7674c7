"""Exact selection rules of the seven strategies (PROMPTS.md), on handcrafted data."""

from __future__ import annotations

import numpy as np
import pytest

from interviewsim.config.params import ContextParams
from interviewsim.context.strategies import (
    RetrievalIndex,
    chronological,
    random_sample,
    select_context,
)
from interviewsim.data.corpus import Pair, PersonalityData


def pair(i: int, sequence: int, position: int, question: str = "", response: str = "r") -> Pair:
    return Pair("P", f"I{sequence}", sequence, position, f"q{i:02d}", question or f"question {i}",
                response)


TRAIN = tuple(pair(i, sequence=i // 3, position=i % 3) for i in range(12))
HELDOUT = (pair(90, 9, 0), pair(91, 9, 1))
PERSON = PersonalityData("P", "short text", "long text", TRAIN, HELDOUT)


def params(**overrides) -> ContextParams:
    base = dict(chronological_pairs=4, random_pairs=4, retrieval_pairs=3, hybrid_retrieved=2,
                hybrid_recent=3, max_context_tokens=10_000)
    return ContextParams(**{**base, **overrides})


def axis_embed(texts):
    """Each text is a vector on the axis named by its first word's number (handcrafted)."""
    out = np.zeros((len(texts), 16), dtype=np.float32)
    for row, text in enumerate(texts):
        for token in text.replace("\n", " ").split():
            if token.startswith("axis"):
                out[row, int(token[4:])] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)


def test_no_context_and_profiles_select_only_their_text():
    assert select_context("no-context", PERSON, ["x"], params(), 1) .pair_ids == ()
    assert select_context("no-context", PERSON, ["x"], params(), 1).profile is None
    assert select_context("short-profile", PERSON, ["x"], params(), 1).profile == "short text"
    long = select_context("long-profile", PERSON, ["x"], params(), 1)
    assert long.profile == "long text" and long.pair_ids == ()


def test_chronological_takes_the_latest_n_oldest_first_regardless_of_input_order():
    shuffled = tuple(reversed(TRAIN))
    assert [p.qa_id for p in chronological(shuffled, 4)] == ["q08", "q09", "q10", "q11"]
    assert chronological(TRAIN, 0) == []
    assert len(chronological(TRAIN, 100)) == 12


def test_random_is_reproducible_seed_dependent_and_independent_of_other_people():
    first = [p.qa_id for p in random_sample(TRAIN, 5, seed=1, personality_id="P")]
    assert first == [p.qa_id for p in random_sample(TRAIN, 5, seed=1, personality_id="P")]
    assert first != [p.qa_id for p in random_sample(TRAIN, 5, seed=2, personality_id="P")]
    assert first != [p.qa_id for p in random_sample(TRAIN, 5, seed=1, personality_id="Q")]
    # the sample depends on (seed, personality) only, so adding people cannot change it
    assert set(first) <= {p.qa_id for p in TRAIN}


def test_retrieval_ranks_by_cosine_and_breaks_ties_by_qa_id():
    train = (
        pair(1, 0, 0, "axis1 axis2"),
        pair(2, 0, 1, "axis1"),
        pair(3, 0, 2, "axis1"),  # ties with q02
        pair(4, 1, 0, "axis5"),
    )
    person = PersonalityData("P", "", "", train, HELDOUT)
    index = RetrievalIndex.build(train, axis_embed, "question")
    chosen = select_context("retrieval", person, ["axis1"], params(retrieval_pairs=3), 1, index)
    assert chosen.pair_ids == ("q02", "q03", "q01")
    assert chosen.scores[0] == pytest.approx(1.0)


def test_hybrid_puts_retrieved_first_then_recent_deduplicated_with_retrieval_priority():
    train = tuple(pair(i, i, 0, f"axis{i}") for i in range(6))
    person = PersonalityData("P", "profile", "long", train, HELDOUT)
    index = RetrievalIndex.build(train, axis_embed, "question")
    chosen = select_context("hybrid", person, ["axis5 axis1"], params(), 1, index)
    # retrieved: q05, q01 (tie on score, qa_id order puts q01 first)
    assert chosen.pair_ids == ("q01", "q05", "q03", "q04")
    assert chosen.profile is None
    assert chosen.scores[2:] == (None, None)


def test_mcq_union_of_retrievals_is_ordered_and_deduplicated():
    train = tuple(pair(i, i, 0, f"axis{i}") for i in range(6))
    person = PersonalityData("P", "", "", train, HELDOUT)
    index = RetrievalIndex.build(train, axis_embed, "question")
    chosen = select_context("retrieval", person, ["axis2", "axis4", "axis2"],
                            params(retrieval_pairs=1), 1, index)
    assert chosen.pair_ids == ("q02", "q04")


@pytest.mark.parametrize(
    ("strategy", "kept"),
    [
        ("chronological", ("q10", "q11")),  # oldest dropped first
        ("retrieval", None),  # lowest ranked dropped first
    ],
)
def test_budget_drops_lowest_priority_pairs_whole_and_counts_them(strategy, kept):
    long_train = tuple(pair(i, i, 0, f"axis{i % 16}", response="x" * 80) for i in range(12))
    person = PersonalityData("P", "", "", long_train, HELDOUT)
    index = RetrievalIndex.build(long_train, axis_embed, "question")
    budget = 2 * 30  # each pair is about 27 tokens
    chosen = select_context(strategy, person, ["axis11 axis3"],
                            params(chronological_pairs=4, retrieval_pairs=4,
                                   max_context_tokens=budget), 1, index)
    assert len(chosen.pair_ids) == 2 and chosen.dropped_for_budget == 2
    assert chosen.requested == 4 and chosen.estimated_tokens <= budget
    if kept:
        assert chosen.pair_ids == kept
    else:
        assert chosen.pair_ids == ("q03", "q11")


def test_hybrid_budget_drops_the_recent_part_first():
    train = tuple(pair(i, i, 0, f"axis{i}", response="x" * 80) for i in range(8))
    person = PersonalityData("P", "", "", train, HELDOUT)
    index = RetrievalIndex.build(train, axis_embed, "question")
    chosen = select_context("hybrid", person, ["axis0 axis1"],
                            params(hybrid_retrieved=2, hybrid_recent=3, max_context_tokens=90),
                            1, index)
    assert chosen.pair_ids == ("q00", "q01", "q07")
    assert chosen.dropped_for_budget == 2


def test_only_training_pairs_are_ever_selected():
    index = RetrievalIndex.build(TRAIN, axis_embed, "question+response")
    train_ids = {p.qa_id for p in TRAIN}
    for strategy in ("chronological", "random", "retrieval", "hybrid"):
        chosen = select_context(strategy, PERSON, ["question 90"], params(), 3, index)
        assert set(chosen.pair_ids) <= train_ids
