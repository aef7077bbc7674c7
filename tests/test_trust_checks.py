"""The smaller checks of "Can these numbers be trusted?": the Holm family counts only the
tests that ran, PS alignment is read against its chance level, a constant PS judge is flagged,
and the MCQ section prints the rotation-robust chance level."""

from __future__ import annotations

from dataclasses import asdict

from interviewsim.analysis.agreement import AgreementResult, alpha_with_ci
from interviewsim.analysis.ps_checks import chance_alignment, level_shares, render_ps
from interviewsim.analysis.stats import PairedTest
from interviewsim.analysis.trust import TrustReport, column_power


def _test(a: str, b: str, p: float | None, n: int) -> PairedTest:
    return PairedTest(metric="m", judge="j", strategy_a=a, strategy_b=b, n_pairs=n,
                      mean_diff=None if p is None else 0.1, p_value=p, exact=True)


def test_the_holm_family_counts_only_the_tests_that_ran():
    tests = [_test("a", "b", 0.5, 8), _test("a", "c", None, 0), _test("b", "c", None, 0)]
    [column] = column_power(tests, 10_000)
    assert column.comparisons == 1 and column.reach.min_p_holm == 2 / 256


def test_random_profiles_align_at_five_ninths():
    assert round(chance_alignment(), 3) == 0.556
    assert "0.556" in render_ps({})


def test_a_judge_voting_neutral_on_nearly_every_trait_is_flagged():
    votes = ([{"judge": "flat", "valid": True, "level": "Neutral"}] * 19
             + [{"judge": "flat", "valid": True, "level": "High"}]
             + [{"judge": "mixed", "valid": True, "level": lv}
                for lv in ("Low", "Neutral", "High") * 5]
             + [{"judge": "flat", "valid": False, "level": None}])
    shares = level_shares(votes)
    assert shares["flat"]["Neutral"] == 0.95
    text = render_ps(shares)
    assert "⚠️ flat votes Neutral on 95% of traits" in text
    assert "⚠️ mixed" not in text
    flat = TrustReport(ps_levels=shares).flat()
    assert flat["validity.ps_levels.flat.constant"] == 1
    assert flat["validity.ps_levels.mixed.constant"] == 0


def test_the_mcq_section_prints_the_rotation_robust_chance():
    bias = {"option_count": 4, "chance": 0.25, "rotations": 2, "robust_chance": 0.0625,
            "answerers": {"a": {"letters": {"A": 6, "B": 0, "C": 0, "D": 0},
                                "top_letter_share": 1.0, "position_baseline_accuracy": 0.5,
                                "position_p": 1.0, "accuracy": 0.5, "robust_accuracy": 0.0}}}
    text = TrustReport(position_bias=bias).render()
    assert "rotation-robust (chance 0.0625)" in text and "it is 0.0625" in text
    assert "⚠️ a: accuracy not shown to beat the letter habit alone" in text


def test_an_agreement_interval_over_four_personalities_is_not_printed():
    found = alpha_with_ci([(s, s) for s in (1, 2, 3, 4, 5, 4, 3, 2)], "ordinal",
                          (1, 2, 3, 4, 5), 200, 1, clusters=["P1", "P1", "P2", "P2", "P3",
                                                              "P3", "P4", "P4"])
    result = AgreementResult(**asdict(found), metric="content_similarity", coders=("a", "b"))
    text = TrustReport(judge_agreement={"content_similarity": result}, judges=2).render()
    assert result.groups == 4 and result.ci is not None
    assert ("content_similarity (ordinal): 1.000 (interval: too few to interpret, "
            "4 personalities) over 8 items of 4 personalities") in text
