"""Krippendorff's alpha against published worked examples and hand counts; judge and MCQ
answerer agreement computed from records shaped like the judge and mcq-answer stages' output."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interviewsim.analysis.agreement import (
    PS_LEVELS,
    AgreementResult,
    alpha_with_ci,
    answerer_agreement,
    answerer_alpha,
    judge_agreement,
    krippendorff_alpha,
)
from interviewsim.judges.parsers import LEVELS

N = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers (rows)
# by 12 units, 7 values missing; unit 12 has one value and is not pairable, so n = 40.
# Published: nominal .743, ordinal .815, interval .849 (the paper also gives ratio .797).
PAPER_C = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]
# Wikipedia, "Krippendorff's alpha", a computational example: 3 coders by 15 units;
# nominal 0.691, interval 0.811.
WIKIPEDIA = [
    [N, N, N, N, N, 3, 4, 1, 2, 1, 1, 3, 3, N, 3],
    [1, N, 2, 1, 3, 3, 4, 3, N, N, N, N, N, N, N],
    [N, N, 2, 1, 3, 4, 4, N, 2, 1, 1, 3, 3, N, 4],
]


def units(coders_by_units: list[list]) -> list[tuple]:
    """The papers tabulate coders by units; the library takes one row per unit."""
    return list(zip(*coders_by_units, strict=True))


@pytest.mark.parametrize(("level", "published"), [
    ("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_2011_four_observers_twelve_units_with_missing_values(level, published):
    assert round(krippendorff_alpha(units(PAPER_C), level), 3) == published
    assert krippendorff_alpha(units(PAPER_C), level, order=[1, 2, 3, 4, 5]) == \
        krippendorff_alpha(units(PAPER_C), level)
    estimate = alpha_with_ci(units(PAPER_C), level, n_boot=0)
    assert (estimate.units, estimate.values, estimate.ci) == (11, 40, None)


def test_nominal_alpha_of_the_paper_example_is_the_exact_fraction():
    # by hand: marginals n_1..n_5 = 9, 13, 10, 5, 3 (n = 40), off-diagonal coincidences sum to 8,
    # alpha = 1 - (n - 1) * 8 / (n^2 - sum n_c^2) = 1 - 39 * 8 / (1600 - 384) = 113/152
    assert krippendorff_alpha(units(PAPER_C), "nominal") == pytest.approx(113 / 152, abs=1e-12)


@pytest.mark.parametrize(("level", "published"), [("nominal", 0.691), ("interval", 0.811)])
def test_wikipedia_three_coders_fifteen_units(level, published):
    assert round(krippendorff_alpha(units(WIKIPEDIA), level), 3) == published


def test_two_observers_binary_by_hand():
    # Krippendorff (2011) section B (published alpha = .095). By hand: 10 units, pairs
    # (0,0) x5 -> o_00 = 10, (1,1) x1 -> o_11 = 2, (0,1)/(1,0) x4 -> o_01 = o_10 = 4;
    # n_0 = 14, n_1 = 6, n = 20; alpha = 1 - (n-1) * 2*o_01 / (2*n_0*n_1) = 1 - 152/168 = 2/21.
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert krippendorff_alpha(units([a, b]), "nominal") == pytest.approx(2 / 21, abs=1e-12)
    assert round(2 / 21, 3) == 0.095


def test_ordinal_and_interval_by_hand():
    # units (1,1), (2,3), (3,3): o_11 = 2, o_23 = o_32 = 1, o_33 = 2; n_1 = 2, n_2 = 1, n_3 = 3.
    # ordinal d_ck = sum_{g=c..k} n_g - (n_c + n_k)/2: d_12 = 1.5, d_13 = 3.5, d_23 = 2.
    # observed sum o*d2 = 2*4 = 8; expected sum n_c n_k d2 = 2*(2*2.25 + 6*12.25 + 3*4) = 180;
    # alpha = 1 - 5*8/180 = 7/9. Interval: 1 - 5*2 / (2*(2*1 + 6*4 + 3*1)) = 24/29.
    data = [(1, 1), (2, 3), (3, 3)]
    assert krippendorff_alpha(data, "ordinal") == pytest.approx(7 / 9, abs=1e-12)
    assert krippendorff_alpha(data, "interval") == pytest.approx(24 / 29, abs=1e-12)
    # ordinal depends on rank order only, through the values' frequencies
    labelled = [("Low", "Low"), ("Neutral", "High"), ("High", "High")]
    assert krippendorff_alpha(labelled, "ordinal", PS_LEVELS) == pytest.approx(7 / 9, abs=1e-12)


def test_missing_values_and_unpairable_units_are_ignored():
    data = [(1, 1, N), (2, 3, math.nan), (3, N, 3), (5, N, N), (N, N, N)]
    assert krippendorff_alpha(data, "interval") == krippendorff_alpha(
        [(1, 1), (2, 3), (3, 3)], "interval")


def test_not_computable_cases_return_none():
    assert krippendorff_alpha([], "nominal") is None
    assert krippendorff_alpha([(1, N), (N, 2)], "nominal") is None  # nothing pairable
    assert krippendorff_alpha([(4, 4), (4, 4, 4)], "ordinal") is None  # no variation
    estimate = alpha_with_ci([(4, 4), (4, 4)], "ordinal", n_boot=50, seed=0)
    assert (estimate.alpha, estimate.ci, estimate.n_boot_defined) == (None, None, 0)


def test_perfect_agreement_is_one_and_systematic_disagreement_is_negative():
    assert krippendorff_alpha([(1, 1), (2, 2), (3, 3)], "ordinal") == 1.0
    assert krippendorff_alpha([("a", "b"), ("b", "a")], "nominal") < 0


def test_bad_values_are_refused():
    with pytest.raises(ValueError, match="not in the given order"):
        krippendorff_alpha([("Low", "Medium")], "ordinal", PS_LEVELS)
    with pytest.raises(ValueError, match="comparable"):
        krippendorff_alpha([("a", 1)], "ordinal")
    with pytest.raises(ValueError, match="numbers"):
        krippendorff_alpha([("a", "b")], "interval")


def test_ps_level_order_is_the_judges_level_set():
    assert PS_LEVELS == LEVELS


def test_numpy_numbers_are_interval_values():
    assert krippendorff_alpha([(np.int64(1), 2.0), (3, np.float64(3))], "interval") == \
        krippendorff_alpha([(1, 2), (3, 3)], "interval")


def test_bootstrap_is_seeded_and_brackets_alpha():
    first = alpha_with_ci(units(PAPER_C), "ordinal", n_boot=500, seed=3)
    assert first == alpha_with_ci(units(PAPER_C), "ordinal", n_boot=500, seed=3)
    assert first != alpha_with_ci(units(PAPER_C), "ordinal", n_boot=500, seed=4)
    low, high = first.ci
    assert low <= first.alpha <= high <= 1.0
    assert first.n_boot == 500 and 0 < first.n_boot_defined <= 500


def test_bootstrap_interval_narrows_with_more_units():
    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, size=2000)
    noisy = np.clip(truth + rng.integers(-1, 2, size=2000), 1, 5)
    data = [(int(a), int(b)) for a, b in zip(truth, noisy, strict=True)]
    small = alpha_with_ci(data[:50], "ordinal", n_boot=400, seed=1)
    large = alpha_with_ci(data, "ordinal", n_boot=400, seed=1)
    assert large.ci[1] - large.ci[0] < small.ci[1] - small.ci[0]
    assert large.ci[0] <= large.alpha <= large.ci[1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.integers(1, 5)), min_size=2, max_size=4),
                min_size=1, max_size=25))
def test_alpha_is_invariant_to_coder_order_and_at_most_one(data):
    value = krippendorff_alpha(data, "ordinal", order=(1, 2, 3, 4, 5))
    assert value == krippendorff_alpha([row[::-1] for row in data], "ordinal", (1, 2, 3, 4, 5))
    if value is not None:
        assert value <= 1.0 + 1e-12


# ----------------------------------------------------------------- judge and answerer records


def judgment(judge: str, metric: str, pid: str, strategy: str, qa: str, value, valid=True):
    key = "score" if metric == "content_similarity" else "label"
    return {"personality_id": pid, "judge": judge, "model": f"judge-{judge[0]}", "metric": metric,
            "strategy": strategy, "qa_id": qa, "interview_id": "I1", "valid": valid,
            "parsed": {key: value, "explanation": "x"} if valid else None,
            "error": None if valid else "bad", "calls": []}


def vote(judge: str, pid: str, side: str, strategy, trait: str, level, valid=True):
    return {"personality_id": pid, "judge": judge, "model": "m", "side": side,
            "strategy": strategy, "trait": trait, "votes": [level] * 3,
            "level": level if valid else None, "confidence": 1.0 if valid else None,
            "valid": valid, "error": None if valid else "1 of 3 run(s) invalid"}


def test_judge_agreement_per_metric_treats_invalid_records_as_missing():
    judgments, votes = [], []
    scores = {"alpha": [5, 3, 4, 2, 1, 5], "beta": [5, 3, 3, 2, 2, 5]}
    labels = {"alpha": ["Entailment", "Contradiction", "Neutral", "Entailment"],
              "beta": ["Entailment", "Contradiction", "Entailment", "Entailment"]}
    for judge in ("alpha", "beta"):
        for i, score in enumerate(scores[judge]):
            judgments.append(judgment(judge, "content_similarity", "P1", "rag", f"Q{i}", score))
        for i, label in enumerate(labels[judge]):
            judgments.append(judgment(judge, "factual_consistency", "P1", "rag", f"Q{i}", label))
        judgments.append(judgment(judge, "content_similarity", "P2", "rag", "Q9", 1,
                                  valid=judge == "alpha"))
        for trait, level in (("openness", "High"), ("neuroticism", "Low")):
            votes.append(vote(judge, "P1", "reference", None, trait, level))
            votes.append(vote(judge, "P1", "generated", "rag", trait,
                              "Neutral" if judge == "beta" and trait == "openness" else level))
    votes.append(vote("alpha", "P2", "reference", None, "openness", None, valid=False))
    results = judge_agreement(reversed(judgments), votes, n_boot=200, seed=7)
    assert set(results) == {"content_similarity", "content_similarity_interval",
                            "factual_consistency", "ps_trait_votes"}
    interval = results["content_similarity_interval"]
    assert interval.level == "interval" and interval.units == 6
    cs = results["content_similarity"]
    assert isinstance(cs, AgreementResult) and cs.coders == ("alpha", "beta")
    assert (cs.level, cs.units, cs.values) == ("ordinal", 6, 12)  # P2/Q9: beta invalid
    alpha_scores = [scores["alpha"][i] for i in range(6)]
    beta_scores = [scores["beta"][i] for i in range(6)]
    assert cs.alpha == krippendorff_alpha(list(zip(alpha_scores, beta_scores, strict=True)),
                                          "ordinal", (1, 2, 3, 4, 5))
    fc = results["factual_consistency"]
    assert fc.level == "nominal" and fc.units == 4 and fc.alpha is not None
    ps = results["ps_trait_votes"]
    assert (ps.level, ps.units) == ("ordinal", 4)
    assert ps.alpha == krippendorff_alpha(
        [("High", "High"), ("High", "Neutral"), ("Low", "Low"), ("Low", "Low")],
        "ordinal", PS_LEVELS)
    # the record order does not matter, the seed does
    assert judge_agreement(judgments, votes, n_boot=200, seed=7) == results


def test_one_judge_has_nothing_to_agree_on():
    judgments = [judgment("alpha", "content_similarity", "P1", "rag", f"Q{i}", i % 5 + 1)
                 for i in range(5)]
    votes = [vote("alpha", "P1", "reference", None, "openness", "High")]
    assert judge_agreement(judgments, votes, n_boot=10, seed=0) == {}
    assert judge_agreement([], [], n_boot=10, seed=0) == {}


def test_a_metric_judged_by_one_judge_only_is_left_out():
    judgments = [judgment(j, "content_similarity", "P1", "rag", f"Q{i}", (i + k) % 5 + 1)
                 for k, j in enumerate(("alpha", "beta")) for i in range(4)]
    judgments.append(judgment("alpha", "factual_consistency", "P1", "rag", "Q0", "Neutral"))
    assert set(judge_agreement(judgments, [], n_boot=10, seed=0)) == {
        "content_similarity", "content_similarity_interval"}


def test_a_unit_judged_twice_by_one_judge_is_an_error():
    record = judgment("alpha", "content_similarity", "P1", "rag", "Q0", 3)
    with pytest.raises(ValueError, match="twice"):
        judge_agreement([record, record, judgment("beta", "content_similarity", "P1", "rag",
                                                  "Q0", 3)], [], n_boot=10, seed=0)


def group(answerer: str, strategy: str, labels: list, **extra) -> dict:
    return {"personality_id": "P1", "strategy": strategy, "answerer": answerer,
            "interview_id": "I1", "malformed": all(x is None for x in labels), **extra,
            "items": [{"number": i + 1, "item_id": f"M{i}", "qa_id": f"Q{i}",
                       "selected_label": label} for i, label in enumerate(labels)]}


def test_answerer_agreement_is_the_share_of_items_with_one_label():
    answers = [group("first", "rag", ["A", "B", "C", None]),
               group("second", "rag", ["A", "C", "C", "D"]),
               group("first", "none", ["B", "B", "A", "A"]),
               group("second", "none", [None, None, None, None]),  # malformed group
               group("second", "rag", ["D", "D", "D", "D"], rotation=1)]  # rotated: ignored
    assert answerer_agreement(answers) == 2 / 3


def test_answerer_agreement_with_three_answerers_needs_all_to_match():
    answers = [group("a", "rag", ["A", "B"]), group("b", "rag", ["A", "B"]),
               group("c", "rag", ["A", "C"], rotation=0)]
    assert answerer_agreement(answers) == 0.5


def test_answerer_agreement_is_not_measurable_with_one_answerer_or_no_shared_item():
    assert answerer_agreement([group("a", "rag", ["A"])]) is None
    assert answerer_agreement([group("a", "rag", ["A"]), group("b", "rag", [None])]) is None
    assert answerer_agreement([]) is None


def test_the_bootstrap_resamples_whole_personalities_when_told_them():
    """Ten items that agree in P1 and ten that disagree in P2: over items the interval is
    narrow, over the two personalities it spans nearly everything a resample can give."""
    units = [(s, s) for s in (1, 2, 3, 4, 5) * 2] + [(s, 6 - s) for s in (1, 2, 4, 5, 3) * 2]
    people = ["P1"] * 10 + ["P2"] * 10
    by_item = alpha_with_ci(units, "interval", None, 500, 3)
    by_person = alpha_with_ci(units, "interval", None, 500, 3, clusters=people)
    assert by_item.alpha == by_person.alpha
    assert by_person.ci[1] - by_person.ci[0] > by_item.ci[1] - by_item.ci[0]
    assert by_person.ci[1] == pytest.approx(1.0)


def test_answerer_alpha_corrects_for_a_shared_letter_habit():
    """Both answerers pick A on most items: raw agreement is high, alpha is near chance."""
    first = ["A"] * 8 + ["B", "A"]
    second = ["A"] * 8 + ["A", "B"]
    answers = [group("first", "rag", first), group("second", "rag", second)]
    assert answerer_agreement(answers) == 0.8
    found = answerer_alpha(answers, 100, 1)
    assert found is not None and found.alpha < 0.1
