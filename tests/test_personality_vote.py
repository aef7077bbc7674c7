"""PS aggregation: modal vote with the Neutral tie-break, vote confidence, and alignment."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interviewsim.judges.parsers import LEVELS, TraitRating
from interviewsim.judges.personality import LEVEL_VALUE, TRAITS, alignment, modal_vote
from interviewsim.judges.reduction import Key, personality_similarity, vote_runs
from interviewsim.llm.asking import Outcome

FAST = settings(max_examples=40, deadline=None)
"""Small and deadline-free: the suite shares two cores with other work."""

level = st.sampled_from(LEVELS)
profile = st.fixed_dictionaries({t: level for t in TRAITS})


@FAST
@given(st.lists(level, min_size=1, max_size=9))
def test_vote_is_the_unique_most_frequent_level_or_neutral_on_a_tie(levels):
    counts = Counter(levels)
    top = max(counts.values())
    leaders = [lv for lv, c in counts.items() if c == top]
    vote = modal_vote(levels)
    assert vote.level == (leaders[0] if len(leaders) == 1 else "Neutral")
    assert vote.confidence == pytest.approx(top / len(levels))


@FAST
@given(st.permutations(LEVELS))
def test_three_different_runs_resolve_to_neutral_with_one_third_confidence(runs):
    vote = modal_vote(runs)
    assert vote.level == "Neutral" and vote.confidence == pytest.approx(1 / 3)


@FAST
@given(level, level, st.permutations([0, 1, 2]))
def test_two_of_three_wins_whatever_the_order(major, minor, order):
    if major == minor:
        return
    runs = [[major, major, minor][i] for i in order]
    assert modal_vote(runs).level == major
    assert modal_vote(runs).confidence == pytest.approx(2 / 3)


def test_vote_rejects_no_runs_and_unknown_levels():
    with pytest.raises(ValueError):
        modal_vote([])
    with pytest.raises(ValueError):
        modal_vote(["High", "high", "High"])  # type: ignore[list-item]


@FAST
@given(profile)
def test_identical_profiles_align_perfectly(p):
    assert alignment(p, p) == 1.0


def test_all_low_against_all_high_aligns_to_zero():
    assert alignment(dict.fromkeys(TRAITS, "Low"), dict.fromkeys(TRAITS, "High")) == 0.0


@FAST
@given(profile, profile)
def test_alignment_is_symmetric_bounded_and_loses_a_tenth_per_step(a, b):
    steps = sum(abs(LEVEL_VALUE[a[t]] - LEVEL_VALUE[b[t]]) for t in TRAITS)
    assert alignment(a, b) == alignment(b, a) == pytest.approx(1 - steps / 10)
    assert 0.0 <= alignment(a, b) <= 1.0


def test_alignment_needs_exactly_the_five_traits():
    whole = dict.fromkeys(TRAITS, "Neutral")
    with pytest.raises(ValueError):
        alignment(whole, {t: "Neutral" for t in TRAITS[:4]})


def test_votes_and_alignment_reproduce_the_conformance_examples(conformance_dir):
    for path in sorted((conformance_dir / "personalities").glob("*/metrics.json")):
        ps = json.loads(path.read_text(encoding="utf-8"))["personality_similarity"]
        profiles = {}
        for side in ("reference", "generated"):
            runs = ps[side]["trait_runs"]
            profiles[side] = {t: modal_vote(runs[t]).level for t in TRAITS}
            assert profiles[side] == ps[side]["modal_profile"], path
        assert alignment(profiles["reference"], profiles["generated"]) == \
            pytest.approx(ps["alignment"]), path


def _runs(*levels: str | None) -> list[Outcome[TraitRating]]:
    return [Outcome(value=TraitRating(level=lv, justification="j")) if lv else
            Outcome(error="no <rate> tag") for lv in levels]


def test_a_vote_with_an_invalid_run_is_invalid_and_says_why():
    vote = vote_runs(_runs("High", None, "High"))
    assert vote.vote is None and "1 of 3" in vote.error
    assert vote.record()["votes"] == ["High", None, "High"]
    assert vote.record()["level"] is None and vote.record()["valid"] is False


def test_alignment_metric_is_none_and_counted_when_a_vote_is_invalid():
    key = Key("P", "retrieval", "judge-a")
    good = {t: vote_runs(_runs("High", "High", "Low")) for t in TRAITS}
    broken = {**good, "openness": vote_runs(_runs("High", None, "Low"))}
    aligned, confidence = personality_similarity(key, good, good)
    assert (aligned.value, aligned.n, aligned.invalid) == (1.0, 1, 0)
    assert confidence.value == pytest.approx(2 / 3) and confidence.n == 5  # generated only
    aligned, confidence = personality_similarity(key, good, broken)
    assert (aligned.value, aligned.n, aligned.invalid) == (None, 0, 1)
    assert (confidence.n, confidence.invalid) == (4, 1)
    # the reference profile is not part of a strategy's confidence
    _, reference_broken = personality_similarity(key, broken, good)
    assert (reference_broken.n, reference_broken.invalid) == (5, 0)
