"""Each deterministic gate, one rule at a time, plus the arithmetic the gates rely on."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interviewsim.prep.assessment import assess
from interviewsim.prep.clarify import admit, clarification_question, gap_queue
from interviewsim.prep.gates import (
    Draft,
    extraction_gate,
    match_gate,
    package_gate,
    verdict_changes,
)
from interviewsim.prep.models import (
    AnswerAssessment,
    ClarificationProvenance,
    EvidenceItem,
    PracticeQuestion,
    PrepSettings,
    PriorityItem,
    Requirement,
    Risk,
    Story,
    Strategy,
    Verdict,
    normalize,
)

POSTING = "Requirements:\n- Python for data pipelines\n- Welsh language skills\n- Kiln repair"
SETTINGS = PrepSettings()


def req(number: int, text: str, quote: str | None = None,
        importance: int | None = None) -> Requirement:
    return Requirement(id=f"REQ-{number:03d}", text=text, normalized=normalize(text),
                       source_quote=quote or text, importance=importance)


REQS = [req(1, "Python for data pipelines"), req(2, "Welsh language skills"),
        req(3, "Kiln repair")]
EVIDENCE = [EvidenceItem(id="EV-001", kind="file", title="t", text="Python pipelines"),
            EvidenceItem(id="EV-002", kind="file", title="t", text="Kilns")]
VERDICTS = [
    Verdict(requirement_id="REQ-001", coverage="FULL", evidence_ids=("EV-001",),
            explanation="x", confidence=0.9),
    Verdict(requirement_id="REQ-002", coverage="GAP", explanation="x", confidence=0.0),
    Verdict(requirement_id="REQ-003", coverage="PARTIAL", evidence_ids=("EV-002",),
            explanation="x", confidence=0.4, missing="repair"),
]


def test_extraction_gate_accepts_quotes_differing_only_in_case_and_whitespace() -> None:
    requirements = [req(1, "Python for data pipelines", "python  FOR\ndata pipelines")]
    assert extraction_gate(requirements, POSTING, SETTINGS) == []


def test_extraction_gate_forgives_nothing_but_case_and_whitespace() -> None:
    requirements = [req(1, "Python for data pipelines", "Python for data-pipelines")]
    [problem] = extraction_gate(requirements, POSTING, SETTINGS)
    assert "does not appear in the posting" in problem


def test_extraction_gate_requires_sequential_ids_from_req_001() -> None:
    requirements = [req(2, "Python for data pipelines")]
    assert any("expected REQ-001" in p for p in extraction_gate(requirements, POSTING, SETTINGS))


def test_extraction_gate_rejects_a_repeated_statement() -> None:
    requirements = [req(1, "Kiln repair"), req(2, "KILN  repair")]
    assert extraction_gate(requirements, POSTING, SETTINGS) == ["extraction: REQ-002 repeats "
                                                                "REQ-001"]


@pytest.mark.parametrize("text, settings, problem", [
    ("Welsh speaker", SETTINGS, None),  # reworded: "welsh" carries 41% of the weight
    ("welsh   LANGUAGE skills", SETTINGS, None),  # verbatim, case and spacing aside
    ("Welsh speaker", PrepSettings(grounding_threshold=0.5), "coverage 0.41 < 0.50"),
    ("Ten years of Kubernetes and Rust", SETTINGS, "coverage 0.00 < 0.30 (absent: "
                                                   "kubernetes, rust, ten, years)"),
    ("++ ++ ++", SETTINGS, "coverage 0.00"),  # no content term and not in the posting
])
def test_extraction_gate_grounds_the_text_beside_a_real_quote(
        text: str, settings: PrepSettings, problem: str | None) -> None:
    requirements = [req(1, text, "Welsh language skills")]
    problems = extraction_gate(requirements, POSTING, settings)
    if problem is None:
        assert problems == []
    else:
        [found] = problems
        assert found.startswith(f"extraction: REQ-001 text {text!r} is not grounded") \
            and problem in found


@pytest.mark.parametrize(("count", "expected"), [(0, "expected at least 1"),
                                               (3, "expected at most 2")])
def test_extraction_gate_bounds_the_count_only_where_asked(count: int, expected: str) -> None:
    bounds = PrepSettings(min_requirements=1, max_requirements=2)
    problems = extraction_gate(REQS[:count], POSTING, bounds)
    assert any(f"{count} requirements; {expected}" in p for p in problems)
    unbounded = extraction_gate(REQS[:count], POSTING, PrepSettings())
    assert any("requirements; expected" in p for p in unbounded) == (count == 0)


def test_match_gate_accepts_well_formed_verdicts() -> None:
    assert match_gate(REQS, VERDICTS, EVIDENCE) == []


@pytest.mark.parametrize("verdicts, expected", [
    (VERDICTS[:2], "missing REQ-003"),
    ([VERDICTS[0], VERDICTS[0], VERDICTS[2]], "repeated REQ-001"),
    ([VERDICTS[1], VERDICTS[0], VERDICTS[2]], "out of order"),
])
def test_match_gate_requires_each_requirement_judged_once_in_order(verdicts: list[Verdict],
                                                                   expected: str) -> None:
    assert any(expected in p for p in match_gate(REQS, verdicts, EVIDENCE))


@pytest.mark.parametrize("change, expected", [
    ({"evidence_ids": ("EV-404",)}, "cites unknown evidence EV-404"),
    ({"coverage": "GAP"}, "is a GAP but cites evidence"),
    ({"evidence_ids": ()}, "cites no evidence"),
    ({"evidence_ids": ("EV-001", "EV-001")}, "cites an item twice"),
])
def test_match_gate_checks_every_citation(change: dict, expected: str) -> None:
    verdicts = [VERDICTS[0].model_copy(update=change), *VERDICTS[1:]]
    assert any(expected in p for p in match_gate(REQS, verdicts, EVIDENCE))


def test_match_gate_wants_partial_to_name_what_is_missing() -> None:
    verdicts = [*VERDICTS[:2], VERDICTS[2].model_copy(update={"missing": " "})]
    assert match_gate(REQS, verdicts, EVIDENCE) == [
        "matching: REQ-003 is PARTIAL but does not name the missing dimension"]


def test_focus_priority_is_importance_times_coverage_weight_ties_in_source_order() -> None:
    requirements = [req(1, "a" * 9, importance=2), req(2, "b" * 9, importance=1),
                    req(3, "c" * 9), req(4, "d" * 9, importance=5)]
    verdicts = [VERDICTS[1].model_copy(update={"requirement_id": "REQ-001"}),  # GAP: 2*3
                VERDICTS[1].model_copy(update={"requirement_id": "REQ-002"}),  # GAP: 1*3
                VERDICTS[2].model_copy(update={"requirement_id": "REQ-003"}),  # PARTIAL: 1*2
                VERDICTS[0].model_copy(update={"requirement_id": "REQ-004"})]  # FULL: 5*1
    areas = assess(requirements, verdicts)
    assert [(a.requirement_id, a.priority) for a in areas] == [
        ("REQ-001", 6), ("REQ-004", 5), ("REQ-002", 3), ("REQ-003", 2)]


@given(st.lists(st.sampled_from(["FULL", "PARTIAL", "GAP"]), min_size=1, max_size=8))
def test_without_importance_gaps_come_first_in_source_order(coverages: list[str]) -> None:
    requirements = [req(i + 1, f"requirement {i}") for i in range(len(coverages))]
    verdicts = [Verdict(requirement_id=r.id, coverage=c, explanation="x", confidence=0.0)
                for r, c in zip(requirements, coverages, strict=True)]
    order = [a.requirement_id for a in assess(requirements, verdicts)]
    rank = {"GAP": 0, "PARTIAL": 1, "FULL": 2}
    expected = sorted((r.id for r in requirements),
                      key=lambda rid: (rank[coverages[int(rid[4:]) - 1]], rid))
    assert order == expected


def good_draft() -> Draft:
    strategy = Strategy(
        priorities=[PriorityItem(requirement_id="REQ-001", note="lead",
                                 evidence_ids=["EV-001"])],
        positioning="Pipelines first.",
        stories=[Story(requirement_id="REQ-003", title="Kilns", outline="Fixed one",
                       evidence_ids=["EV-002"])],
        risks=[Risk(requirement_id="REQ-002", mitigation="Learning Welsh")])
    questions = [PracticeQuestion(requirement_id=f"REQ-00{1 + i % 3}", question=f"Q{i}?",
                                  evidence_ids=["EV-001"] if i % 3 == 0 else [])
                 for i in range(8)]
    return Draft(POSTING, EVIDENCE, REQS, VERDICTS, assess(REQS, VERDICTS), strategy, questions)


def test_package_gate_passes_a_consistent_draft() -> None:
    assert package_gate(good_draft(), SETTINGS) == []


def _with_strategy(**change: object) -> Draft:
    draft = good_draft()
    assert draft.strategy is not None
    return replace(draft, strategy=draft.strategy.model_copy(update=change))


@pytest.mark.parametrize("draft, expected", [
    (replace(good_draft(), strategy=None), "section strategy is missing"),
    (replace(good_draft(), evidence=[]), "section evidence is empty"),
    (replace(good_draft(), questions=good_draft().questions[:7]), "7 practice questions"),
    (replace(good_draft(), focus_areas=good_draft().focus_areas[:2]), "0 focus areas"),
    (replace(good_draft(), focus_areas=[a.model_copy(update={"coverage": "FULL"})
                                        for a in good_draft().focus_areas]),
     "says FULL but its verdict is GAP"),
    (_with_strategy(risks=[]), "gap REQ-002 is missing from the risks"),
    (_with_strategy(priorities=[PriorityItem(requirement_id="REQ-009", note="n",
                                             evidence_ids=[])]),
     "names unknown requirement REQ-009"),
    (_with_strategy(stories=[Story(requirement_id="REQ-002", title="t", outline="o",
                                   evidence_ids=["EV-001"])]),
     "story 1 cites evidence for gap REQ-002"),
    (_with_strategy(stories=[Story(requirement_id="REQ-003", title="t", outline="o",
                                   evidence_ids=["EV-001"])]),
     "story 1 cites EV-001, not matched to REQ-003"),
    (replace(good_draft(), questions=[*good_draft().questions[:7], PracticeQuestion(
        requirement_id="REQ-002", question="q?", evidence_ids=["EV-002"])]),
     "question 8 cites evidence for gap REQ-002"),
    (replace(good_draft(), posting="nothing here"), "does not appear in the posting"),
    (replace(good_draft(), matches=VERDICTS[:2]), "missing REQ-003"),
])
def test_package_gate_catches_each_broken_invariant(draft: Draft, expected: str) -> None:
    assert any(expected in p for p in package_gate(draft, SETTINGS))


CLAIM = EvidenceItem(id="CL-001", kind="clarification", title="Clarification for REQ-001",
                     text="Python pipelines at work",
                     provenance=ClarificationProvenance(requirement_id="REQ-001", question="q"))
WAS_GAP = [VERDICTS[1].model_copy(update={"requirement_id": "REQ-001"}), *VERDICTS[1:]]
"""An initial pass in which REQ-001 was still a gap."""


def test_package_gate_rejects_a_verdict_that_changed_without_new_evidence() -> None:
    draft = replace(good_draft(), initial_matches=WAS_GAP)
    assert package_gate(draft, SETTINGS) == [
        "package: REQ-001 went GAP → FULL between the passes without citing any admitted "
        "clarification (no new evidence about it)"]


def test_package_gate_accepts_a_verdict_changed_by_an_admitted_claim() -> None:
    cited = VERDICTS[0].model_copy(update={"evidence_ids": ("EV-001", "CL-001")})
    draft = replace(good_draft(), evidence=[*EVIDENCE, CLAIM],
                    matches=[cited, *VERDICTS[1:]], initial_matches=WAS_GAP)
    assert package_gate(draft, SETTINGS) == []
    [change] = verdict_changes(WAS_GAP, draft.matches, draft.evidence)
    assert (change.requirement_id, change.new_evidence_ids) == ("REQ-001", ("CL-001",))


def assessment(target: str = "REQ-002", verdict: str = "supports",
               claim: str = "Took a Welsh course") -> AnswerAssessment:
    return AnswerAssessment(target_requirement_id=target, verdict=verdict,  # type: ignore[arg-type]
                            relevance_reason="r", specificity_reason="s", claim=claim)


LONG = "I completed a year-long evening course in Welsh at the library."


@pytest.mark.parametrize("answer, judged, reason", [
    ("   too short   padding   ", assessment(), "shorter than 24"),
    (LONG, None, "broke its schema"),
    (LONG, assessment(target="REQ-001"), "targets 'REQ-001'"),
    (LONG, assessment(verdict="does_not_support"), "does_not_support"),
    (LONG, assessment(claim="   "), "claim is empty"),
])
def test_admission_gates_reject_in_order(answer: str, judged: AnswerAssessment | None,
                                         reason: str) -> None:
    decision = admit("REQ-002", answer, judged, SETTINGS)
    assert not decision.accepted and reason in decision.reason


def test_length_floor_applies_before_anything_the_model_said() -> None:
    decision = admit("REQ-002", "x" * 23, assessment(target="REQ-999"), SETTINGS)
    assert "shorter than 24" in decision.reason


def test_admitted_answer_yields_the_stripped_claim_not_the_answer() -> None:
    decision = admit("REQ-002", LONG, assessment(claim="  Took a Welsh course.  "), SETTINGS)
    assert decision.accepted and decision.claim == "Took a Welsh course."


def test_gap_queue_orders_by_importance_then_id_and_skips_processed() -> None:
    requirements = [req(1, "a" * 9), req(2, "b" * 9, importance=2),
                    req(3, "c" * 9, importance=5), req(4, "d" * 9, importance=2)]
    verdicts = [Verdict(requirement_id=r.id, coverage="GAP", explanation="x", confidence=0)
                for r in requirements]
    assert gap_queue(requirements, verdicts, []) == ["REQ-003", "REQ-002", "REQ-004", "REQ-001"]
    assert gap_queue(requirements, verdicts, ["REQ-003"]) == ["REQ-002", "REQ-004", "REQ-001"]


def test_gap_queue_ignores_verdicts_for_unknown_requirements_and_covered_ones() -> None:
    verdicts = [*VERDICTS, Verdict(requirement_id="REQ-077", coverage="GAP", explanation="x",
                                   confidence=0)]
    assert gap_queue(REQS, verdicts, []) == ["REQ-002"]


def test_clarification_question_is_built_from_the_requirement_text() -> None:
    question = clarification_question(REQS[1])
    assert "Welsh language skills" in question
    assert all(word in question for word in ("specific", "how you went about it", "came of it"))
