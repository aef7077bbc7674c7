"""The chronological interview-level split: latest ceil(f*N) interviews held out."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interviewsim.data.schema import load_prepared_input, parse_prepared_input
from interviewsim.data.split import SplitError, held_out_count, split_interviews
from tests.factories import make_doc


def test_latest_interviews_are_held_out_regardless_of_array_order():
    raw = make_doc(interviews=6)
    random.Random(3).shuffle(raw["interviews"])
    split = split_interviews(parse_prepared_input(raw, "x"), 0.2)
    assert [i.interview_id for i in split.test] == ["P1-I4", "P1-I5"]
    assert [i.interview_id for i in split.train] == [f"P1-I{i}" for i in range(4)]


def test_ceil_is_exact_for_fractions_that_are_inexact_in_binary():
    assert held_out_count(15, 0.2) == 3
    assert held_out_count(5, 0.2) == 1
    assert held_out_count(6, 0.2) == 2


def test_single_interview_document_is_rejected():
    with pytest.raises(SplitError, match="at least 2"):
        split_interviews(parse_prepared_input(make_doc(interviews=1), "x"), 0.2)


def test_fraction_that_empties_the_training_side_is_rejected():
    with pytest.raises(SplitError, match="each side"):
        split_interviews(parse_prepared_input(make_doc(interviews=2), "x"), 0.9)


@given(n=st.integers(2, 40), fraction=st.sampled_from([0.1, 0.2, 0.25, 0.3, 0.5]))
def test_pairs_never_leave_their_interview_and_nothing_is_lost(n, fraction):
    doc = parse_prepared_input(make_doc(interviews=n, pairs=2), "x")
    try:
        split = split_interviews(doc, fraction)
    except SplitError:
        assert held_out_count(n, fraction) > n - 1
        return
    assert len(split.test) == held_out_count(n, fraction)
    assert max(i.sequence for i in split.train) < min(i.sequence for i in split.test)
    ids = [p.qa_id for i in (*split.train, *split.test) for p in i.qa_pairs]
    assert sorted(ids) == sorted(p.qa_id for i in doc.interviews for p in i.qa_pairs)


def test_conformance_splits_are_reproduced_exactly(conformance_dir):
    for folder in sorted((conformance_dir / "personalities").iterdir()):
        expected = json.loads((folder / "split.json").read_text())
        split = split_interviews(load_prepared_input(folder / "prepared_input.json"), 0.2)
        assert [i.interview_id for i in split.train] == expected["train_interview_ids"]
        assert [i.interview_id for i in split.test] == expected["test_interview_ids"]
        assert [p.qa_id for i in split.train for p in i.qa_pairs] == expected["train_qa_ids"]
        assert [p.qa_id for i in split.test for p in i.qa_pairs] == expected["test_qa_ids"]
