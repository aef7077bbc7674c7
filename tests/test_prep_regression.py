"""Behavioural regression suite: frozen scenarios driven through the real prep graph.

Each scenario runs the compiled graph through its interrupts with the deterministic fixture
model behind the production seam, and is scored on three layers: trajectory (every turn's node
sequence, strictly), state (which gaps were processed, admitted, rejected, left; audit
completeness; the final verdicts: coverage, citations, confidence) and outcome (package validity,
stop reason). The templates were recorded from this code; a frozen behaviour can be a frozen
mistake, but it cannot change silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from interviewsim.prep import gates, pipeline
from interviewsim.prep.clarify import ScriptedAnswers
from interviewsim.prep.extraction import Extractor
from interviewsim.prep.fixture_model import Handler
from interviewsim.prep.models import EvidenceItem, PrepSettings
from interviewsim.prep.pipeline import PrepOutcome, PrepState, run_prep
from tests.test_prep_support import SAMPLE_ANSWERS, fixture_client, posting, sample_evidence

W = ["extract", "extraction_gate", "match", "match_gate", "assess", "strategy", "questions",
     "package_gate"]
"""The workflow segment, run once before the clarification queue and once after it."""
ASKED = ["ask", "assess_answer", "admit", "select_gap"]
"""A turn whose answer met the length floor, so the assessor was consulted."""
TOO_SHORT = ["ask", "admit", "select_gap"]
"""A turn whose answer was rejected on length before any model judgment."""

EXTRA_EVIDENCE = [
    ("EV-007", "Outreach budget", "Managed a programme budget of £280,000 for the outreach "
     "service, reporting spend each month."),
    ("EV-008", "Uptake dashboards", "Built spreadsheets and dashboards analysing uptake data "
     "for every village."),
    ("EV-009", "Driving", "Full driving licence; travel across the district every week."),
    ("EV-010", "Welsh", "Fluent Welsh language skills, spoken and written."),
    ("EV-011", "Qualification", "Nursing degree and a public-health qualification."),
]


def complete_evidence() -> list[EvidenceItem]:
    return sample_evidence() + [EvidenceItem(id=i, kind="file", title=t, text=x)
                                for i, t, x in EXTRA_EVIDENCE]


def mixed_answers() -> dict[str, str]:
    return ScriptedAnswers.load(SAMPLE_ANSWERS).answers


REJECTED_ANSWERS = {
    "REQ-005": "I have not managed a budget myself, only helped the treasurer with receipts.",
    "REQ-006": "Not really.",
    "REQ-008": "I can't drive yet, but I am booked on lessons for next spring in Ashby.",
    "REQ-010": "Some nursing modules.",
}


def _wrong_target(payload: Any) -> dict[str, Any]:
    """An assessor that credits every answer to REQ-001 instead of the requirement asked."""
    return {"target_requirement_id": "REQ-001", "verdict": "supports",
            "relevance_reason": "relevant", "specificity_reason": "specific",
            "claim": payload["answer"][:200]}


def _strategy_without_risks(payload: Any) -> dict[str, Any]:
    """A well-formed strategy that leaves every gap out of the risks."""
    first = payload["focus_areas"][-1]
    return {"priorities": [{"requirement_id": first["requirement_id"], "note": "lead",
                            "evidence_ids": [e["id"] for e in first["evidence"]][:1]}],
            "positioning": "Lead with strengths.", "stories": [], "risks": []}


def _ungrounded_extraction(payload: Any) -> dict[str, Any]:
    return {"requirements": [{"id": "REQ-001", "text": "Ten years of Kubernetes",
                              "source_quote": "Ten years of Kubernetes", "importance": 5,
                              "category": "technical"}]}


def _ungrounded_text(payload: Any) -> dict[str, Any]:
    """A real quote beside an invented requirement text."""
    return {"requirements": [{"id": "REQ-001", "text": "Ten years of Kubernetes and Rust",
                              "source_quote": "Welsh language skills", "importance": 5,
                              "category": "technical"}]}


FrozenVerdicts = dict[str, tuple[str, tuple[str, ...], float]]
"""Per requirement: coverage, cited evidence ids, confidence."""

SAMPLE_VERDICTS: FrozenVerdicts = {
    "REQ-001": ("FULL", ("EV-001",), 0.416), "REQ-002": ("FULL", ("EV-002",), 1.0),
    "REQ-003": ("FULL", ("EV-004",), 0.6812), "REQ-004": ("FULL", ("EV-003",), 0.7299),
    "REQ-005": ("GAP", (), 0.0), "REQ-006": ("GAP", (), 0.1512),
    "REQ-007": ("FULL", ("EV-005",), 0.7735), "REQ-008": ("GAP", (), 0.0),
    "REQ-009": ("GAP", (), 0.0), "REQ-010": ("FULL", ("EV-006",), 0.5324)}
"""The sample's verdicts before any clarification. REQ-010 ("A nursing or public-health
qualification") is FULL on EV-006 ("Registered nurse … certificate in public health"): with
suffixes aside "nursing" meets "nurse" (it was a GAP at 0.2986 when only exact words counted)."""
MIXED_FINAL: FrozenVerdicts = {
    **SAMPLE_VERDICTS, "REQ-004": ("FULL", ("EV-003", "CL-002"), 0.7299),
    "REQ-005": ("FULL", ("CL-001",), 1.0), "REQ-008": ("FULL", ("CL-002",), 0.75)}
"""Only the admitted claims change anything."""
COMPLETE_FINAL: FrozenVerdicts = {
    "REQ-001": ("FULL", ("EV-001",), 0.4296), "REQ-002": ("FULL", ("EV-002",), 1.0),
    "REQ-003": ("FULL", ("EV-004",), 0.6932), "REQ-004": ("FULL", ("EV-003",), 0.7363),
    "REQ-005": ("FULL", ("EV-007",), 1.0), "REQ-006": ("FULL", ("EV-008",), 1.0),
    "REQ-007": ("FULL", ("EV-005",), 0.7842), "REQ-008": ("FULL", ("EV-009",), 0.6932),
    "REQ-009": ("FULL", ("EV-010",), 1.0), "REQ-010": ("FULL", ("EV-011", "EV-006"), 1.0)}

ROUND = ("A panel interview by video with the hiring manager and a parish councillor; it will "
         "focus on volunteer training and budget planning.")


@dataclass(frozen=True)
class Scenario:
    name: str
    evidence: list[EvidenceItem]
    answers: dict[str, str]
    trajectory: list[list[str]]
    processed: list[str]
    accepted: list[str]
    rejected: list[str]
    remaining: list[str]
    package_valid: bool
    stop_reason: str
    final_verdicts: FrozenVerdicts
    overrides: dict[str, Handler] = field(default_factory=dict)
    extractor: Extractor = "lexical"
    round_text: str | None = None
    max_clarifications: int = 10


MIXED_TRAJECTORY = [["round_context", *W, "select_gap"], ASKED, TOO_SHORT, ASKED,
                    [*ASKED, "close_queue", *W, "assemble"]]

SCENARIOS = [
    Scenario("complete_evidence", complete_evidence(), {},
             [["round_context", *W, "select_gap", "close_queue", *W, "assemble"]],
             [], [], [], [], True, "completed", COMPLETE_FINAL),
    Scenario("mixed_clarifications", sample_evidence(), mixed_answers(), MIXED_TRAJECTORY,
             ["REQ-005", "REQ-006", "REQ-008", "REQ-009"], ["REQ-005", "REQ-008"],
             ["REQ-006", "REQ-009"], [], True, "completed", MIXED_FINAL),
    Scenario("all_clarifications_rejected", sample_evidence(), REJECTED_ANSWERS,
             [["round_context", *W, "select_gap"], ASKED, TOO_SHORT, ASKED,
              [*TOO_SHORT, "close_queue", *W, "assemble"]],
             ["REQ-005", "REQ-006", "REQ-008", "REQ-009"], [],
             ["REQ-005", "REQ-006", "REQ-008", "REQ-009"], [], True, "completed",
             SAMPLE_VERDICTS),
    Scenario("wrong_target_assessment", sample_evidence(), mixed_answers(),
             [["round_context", *W, "select_gap"], ASKED, ASKED, TOO_SHORT,
              [*ASKED, "close_queue", *W, "assemble"]],
             ["REQ-005", "REQ-008", "REQ-006", "REQ-009"], [],
             ["REQ-005", "REQ-008", "REQ-006", "REQ-009"], [], True, "completed",
             SAMPLE_VERDICTS, overrides={"assess-answer": _wrong_target}, extractor="llm"),
    Scenario("round_context_present", sample_evidence(), mixed_answers(), MIXED_TRAJECTORY,
             ["REQ-005", "REQ-006", "REQ-008", "REQ-009"], ["REQ-005", "REQ-008"],
             ["REQ-006", "REQ-009"], [], True, "completed", MIXED_FINAL,
             round_text=ROUND),
    Scenario("question_budget_exhausted", sample_evidence(), mixed_answers(),
             [["round_context", *W, "select_gap"], ASKED,
              [*TOO_SHORT, "close_queue", *W, "assemble"]],
             ["REQ-005", "REQ-006"], ["REQ-005"], ["REQ-006"], ["REQ-008", "REQ-009"],
             True, "budget_exhausted", {**SAMPLE_VERDICTS, "REQ-005": MIXED_FINAL["REQ-005"]},
             max_clarifications=2),
    Scenario("invalid_initial_package", sample_evidence(), mixed_answers(),
             [["round_context", *W, "error_report"]], [], [], [], [], False, "package_rejected",
             SAMPLE_VERDICTS, overrides={"strategy": _strategy_without_risks}),
    Scenario("ungrounded_extraction", sample_evidence(), {},
             [["round_context", "extract", "extraction_gate", "error_report"]], [], [], [], [],
             False, "extraction_rejected", {}, overrides={"extract-requirements":
                                                          _ungrounded_extraction},
             extractor="llm"),
    Scenario("ungrounded_requirement_text", sample_evidence(), {},
             [["round_context", "extract", "extraction_gate", "error_report"]], [], [], [], [],
             False, "extraction_rejected", {},
             overrides={"extract-requirements": _ungrounded_text}, extractor="llm"),
]


def drive(scenario: Scenario, tmp_path: Path, round_text: str | None = None) -> PrepOutcome:
    state = PrepState(posting=posting(), base_evidence=list(scenario.evidence),
                      settings=PrepSettings(max_clarifications=scenario.max_clarifications),
                      extractor=scenario.extractor, round_text=round_text)
    with fixture_client(tmp_path, scenario.overrides) as client:
        return run_prep(state, client, ScriptedAnswers(scenario.answers))


def trajectory_problems(outcome: PrepOutcome, scenario: Scenario) -> list[str]:
    """Strict, turn-by-turn comparison with the frozen template."""
    problems = []
    if len(outcome.trajectory) != len(scenario.trajectory):
        problems.append(f"{len(outcome.trajectory)} turns; frozen {len(scenario.trajectory)}")
    for number, (got, want) in enumerate(zip(outcome.trajectory, scenario.trajectory,
                                             strict=False), start=1):
        if got != want:
            problems.append(f"turn {number}: {got} != frozen {want}")
    if outcome.interrupts != len(scenario.trajectory) - 1:
        problems.append(f"{outcome.interrupts} interrupts")
    return problems


def state_problems(outcome: PrepOutcome, scenario: Scenario) -> list[str]:
    state = outcome.state
    problems = [f"{name}: {got} != {want}" for name, got, want in (
        ("processed", state.processed, scenario.processed),
        ("accepted", state.accepted, scenario.accepted),
        ("rejected", state.rejected, scenario.rejected),
        ("remaining", state.remaining, scenario.remaining)) if got != want]
    if set(state.accepted) & set(state.rejected):
        problems.append("an id is both accepted and rejected")
    if [r.requirement_id for r in state.records] != state.processed:
        problems.append("audit records do not match the processed gaps one to one")
    for record in state.records:
        if record.accepted != (record.requirement_id in state.accepted):
            problems.append(f"record {record.requirement_id}: accepted flag disagrees")
        if record.accepted != (record.evidence_id is not None):
            problems.append(f"record {record.requirement_id}: evidence id disagrees")
    admitted = {item.id: item for item in state.admitted}
    for record in (r for r in state.records if r.accepted):
        item = admitted[record.evidence_id or ""]
        if item.text != record.accepted_claim or item.provenance is None:
            problems.append(f"{item.id} does not hold the accepted claim with provenance")
    return problems


def verdict_problems(outcome: PrepOutcome, scenario: Scenario) -> list[str]:
    """The final verdicts against the frozen ones: coverage, citations and confidence."""
    got = {v.requirement_id: (v.coverage, v.evidence_ids, v.confidence)
           for v in outcome.state.matches}
    problems = [f"{rid}: {got.get(rid)} != frozen {want}"
                for rid, want in scenario.final_verdicts.items() if got.get(rid) != want]
    problems += [f"{rid}: not frozen" for rid in got if rid not in scenario.final_verdicts]
    return problems


def outcome_problems(outcome: PrepOutcome, scenario: Scenario) -> list[str]:
    problems = []
    if (outcome.state.package is not None) != scenario.package_valid:
        problems.append(f"package present: {outcome.state.package is not None}")
    if outcome.state.stop_reason != scenario.stop_reason:
        problems.append(f"stop reason {outcome.state.stop_reason}")
    return problems


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_scenario_keeps_its_frozen_trajectory_state_and_outcome(scenario: Scenario,
                                                                 tmp_path: Path) -> None:
    outcome = drive(scenario, tmp_path, scenario.round_text)
    assert trajectory_problems(outcome, scenario) == []
    assert state_problems(outcome, scenario) == []
    assert verdict_problems(outcome, scenario) == []
    assert outcome_problems(outcome, scenario) == []


def test_on_the_sample_no_verdict_changes_without_new_evidence_about_it(tmp_path: Path) -> None:
    """The bundled sample with its bundled answers: a verdict that cites no admitted claim is
    the initial one, field for field, and each coverage change cites the claim admitted for
    that very requirement — which the package names. (Before the term weights were fixed,
    REQ-010 turned FULL at 0.3062 on EV-006 although its own clarification was rejected.)"""
    state = drive(_scenario("mixed_clarifications"), tmp_path).state
    initial = {v.requirement_id: v for v in state.initial_matches}
    admitted = {item.id: item for item in state.admitted}
    for verdict in state.matches:
        if not admitted.keys() & set(verdict.evidence_ids):
            assert verdict == initial[verdict.requirement_id]
    changes = gates.verdict_changes(state.initial_matches, state.matches, state.evidence)
    assert [(c.requirement_id, c.before, c.after) for c in changes] == [
        ("REQ-005", "GAP", "FULL"), ("REQ-008", "GAP", "FULL")]
    for change in changes:
        [claim] = change.new_evidence_ids
        assert admitted[claim].provenance.requirement_id == change.requirement_id
    assert state.package is not None and state.package.verdict_changes == tuple(changes)
    rejected = {r.requirement_id for r in state.records if not r.accepted}
    assert all(initial[rid] in state.matches for rid in rejected)


def _scenario(name: str) -> Scenario:
    return next(s for s in SCENARIOS if s.name == name)


def test_round_context_changes_guidance_but_never_evidence_or_coverage(tmp_path: Path) -> None:
    scenario = _scenario("round_context_present")
    with_round = drive(scenario, tmp_path / "with", ROUND).state
    without = drive(scenario, tmp_path / "without", None).state
    assert without.round_context is None
    assert with_round.round_context is not None and with_round.round_context.focus
    assert with_round.initial_matches == without.initial_matches
    assert with_round.matches == without.matches
    assert with_round.evidence == without.evidence
    assert with_round.strategy != without.strategy
    assert with_round.questions != without.questions


def test_wrong_target_is_rejected_by_code_even_when_the_model_says_supports(
        tmp_path: Path) -> None:
    state = drive(_scenario("wrong_target_assessment"), tmp_path).state
    assessed = [r for r in state.records if r.assessment is not None]
    assert assessed and all(r.assessment.verdict == "supports" for r in assessed)
    assert all("targets 'REQ-001'" in r.reason for r in assessed)
    assert state.admitted == []


def test_essential_gaps_are_asked_first_then_by_id(tmp_path: Path) -> None:
    state = drive(_scenario("wrong_target_assessment"), tmp_path).state
    importance = {r.id: r.importance for r in state.requirements}
    assert [importance[rid] for rid in state.processed] == [5, 5, 3, 3]


def test_invalid_initial_package_stops_before_any_question(tmp_path: Path) -> None:
    outcome = drive(_scenario("invalid_initial_package"), tmp_path)
    assert outcome.state.initial_package_valid is False
    assert any("missing from the risks" in p for p in outcome.state.gate_problems["package"])


def test_fire_drill_one_line_change_is_caught_by_trajectory_not_outcome(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Consulting the assessor before the length floor changes no verdict, only the path.

    Every outcome-level check (and even the admission sets) still passes; only the frozen
    trajectory notices that short answers now cost a model call.
    """
    scenario = _scenario("mixed_clarifications")
    monkeypatch.setattr(pipeline, "answer_long_enough", lambda state: True)
    outcome = drive(scenario, tmp_path)
    assert outcome_problems(outcome, scenario) == []
    assert state_problems(outcome, scenario) == []
    caught = trajectory_problems(outcome, scenario)
    assert caught and "assess_answer" in caught[0]
