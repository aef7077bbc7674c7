"""Frozen-trajectory regression tests: whole interviews with a scripted model.

Each scenario freezes three layers, in the manner of a behavioural regression suite:
trajectory (every transition with its reason and turn), tool calls (every persona output,
accepted or rejected, in order) and outcome (the scorecard's numbers). The expectations were
recorded by running this code and then checked by hand against the plan and the script; a
change that alters the agent's path, its admissions or its scores cannot pass silently.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from interviewsim.agent.artifacts import FILES, write_session
from interviewsim.agent.config import AgentSettings
from interviewsim.agent.plan import load_plan
from interviewsim.agent.results import CandidateInfo
from interviewsim.agent.setup import open_clients, personality_plan, run_session, twin
from interviewsim.config.params import Params
from interviewsim.data.corpus import load_personality
from interviewsim.data.jsonio import read_jsonl
from interviewsim.data.prepare import prepare_corpus
from tests.factories import make_doc, write_doc
from tests.test_agent_support import (
    TWIN_ANSWER,
    PersonaScript,
    ScriptedCandidate,
    action,
    flag,
    make_hub,
    say,
    score,
    transition,
)

DEFAULTS = Params()
"""The experiment settings the scripted hub's callers use (the hub itself knows none)."""

SUBSTANTIVE = [f"Answer {i}: we replicated the ledger across three zones and measured lag."
               for i in range(2, 11)]
IV, EV, CO = "interviewer", "evaluator", "coach"


def run(tmp_path: Path, script: PersonaScript, replies: list[str], plan=None,
        **settings: object):
    hub = make_hub(tmp_path, script)
    config = AgentSettings(**settings)
    try:
        result = run_session(plan or load_plan("technical"), config,
                             open_clients(hub, DEFAULTS, config), ScriptedCandidate(replies),
                             CandidateInfo(kind="scripted"))
    finally:
        hub.close()
    return result, write_session(result, tmp_path / "out")


def steps(result) -> list[tuple[str, str, int]]:
    return [(t.to_state, t.reason, t.turn) for t in result.state_history]


def test_smooth_interview_walks_every_section_in_order(tmp_path):
    replies = ["Ready when you are.", *SUBSTANTIVE,
               "What does on-call look like for the team?", "No more questions, thanks.",
               "Thank you."]
    evaluator = [score(8, 7, 6, 9, "background"), score(7, 7, 7, 7, "background"),
                 *[score(6, 6, 6, 6, "distributed_systems")] * 4,
                 score(9, 8, 9, 9, "system_design"), score(5, 6, 4, 7, "collaboration"),
                 score(5, 5, 5, 5, "collaboration")]
    script = PersonaScript(evaluator=evaluator)
    result, card = run(tmp_path, script, replies)
    assert steps(result) == [
        ("INTRODUCTION", "start", 0), ("WARM_UP", "exit_conditions", 1),
        ("TECHNICAL_DEEP_DIVE", "exit_conditions", 3), ("SYSTEM_DESIGN", "exit_conditions", 7),
        ("BEHAVIORAL", "exit_conditions", 8), ("FOLLOW_UPS", "exit_conditions", 10),
        ("CANDIDATE_QA", "nothing_to_do", 10), ("WRAP_UP", "exit_conditions", 12),
        ("COMPLETE", "exit_conditions", 13)]
    assert result.tool_verdicts() == [
        (IV, "say", True), (IV, "say", True), (EV, "score_answer", True), (IV, "say", True),
        (EV, "score_answer", True), *[(IV, "say", True), (EV, "score_answer", True)] * 7,
        (IV, "say", True), (IV, "say", True), (IV, "say", True)]
    assert (card.stop_reason, card.turns, card.answers_scored, card.answers_unscored) == \
        ("completed", 13, 9, 0)
    assert {a.area: (a.answers, a.composite) for a in card.areas} == {
        "background": (2, 7.175), "distributed_systems": (4, 6.0), "system_design": (1, 8.8),
        "collaboration": (2, 5.1), "communication": (0, None)}
    assert card.composite_mean == pytest.approx((7.35 + 7.0 + 4 * 6.0 + 8.8 + 5.2 + 5.0) / 9,
                                                abs=1e-3)
    assert card.weighted_composite == pytest.approx(
        (0.1 * 7.175 + 0.3 * 6.0 + 0.25 * 8.8 + 0.2 * 5.1) / 0.85, abs=1e-3)
    assert (card.state_coverage, card.flags_raised, card.coach_notes) == (1.0, 0, 9)
    assert card.guardrails.turns_with_violations == 0
    assert card.live_guardrails == {} and card.followups_generated == 0
    assert [(t.topic, t.answers, t.score) for t in card.coach_topics] == [
        ("background", 2, 6.0), ("distributed_systems", 4, 6.0), ("system_design", 1, 6.0),
        ("collaboration", 2, 6.0)]
    assert card.memory_compressions == 3
    last_prompt = [r for p, r in script.requests if p == IV][-1].messages[0].content
    assert "Earlier in this interview:" in last_prompt and "/10" not in last_prompt
    assert [(s.from_persona, s.to_persona) for s in result.persona_switches[:4]] == [
        (None, IV), (IV, EV), (EV, CO), (CO, IV)]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(FILES.values())


def test_candidate_asking_for_hints_is_not_scored_and_a_hint_is_caught(tmp_path):
    replies = ["Ready.", SUBSTANTIVE[0], SUBSTANTIVE[1], "Could you give me a hint?",
               "How am I doing so far?", *SUBSTANTIVE[2:]]
    interviewer = [None, None, None, None,
                   say("Hint: consider using quorum reads. What would you choose?"),
                   say("The team will follow up after the interview. What would you choose?")]
    script = PersonaScript(interviewer=interviewer)
    result, card = run(tmp_path, script, replies)
    assert steps(result)[:4] == [
        ("INTRODUCTION", "start", 0), ("WARM_UP", "exit_conditions", 1),
        ("TECHNICAL_DEEP_DIVE", "exit_conditions", 3), ("SYSTEM_DESIGN", "exit_conditions", 7)]
    hint_turns = [e.turn for e in result.transcript if e.signals]
    assert hint_turns == [4, 5]
    assert 4 not in {s.turn for s in result.scores} and 5 not in {s.turn for s in result.scores}
    assert result.unscored_turns == []
    prompts = [r.messages[0].content for p, r in script.requests if p == IV]
    assert "asked for help" in prompts[4] and "asked how they are doing" in prompts[5]
    violations = [(v.turn, v.rule.value, v.after) for a in result.audits for v in a.violations]
    assert violations == [(5, "hint", ["hint_request"])]
    assert card.guardrails.violations_by_rule == {"hint": 1}
    assert card.guardrail_violation_rate == pytest.approx(1 / card.turns, abs=1e-3)


def test_illegal_transitions_and_bad_tool_calls_are_rejected_with_reasons(tmp_path):
    interviewer = [
        None,
        transition("WARM_UP", "SYSTEM_DESIGN"), transition("INTRODUCTION", "WARM_UP"),
        say("What do you work on at the moment?"),
        transition("WARM_UP", "TECHNICAL_DEEP_DIVE"), action("end_interview", now=True),
        "I think we should move on.",
        None, None, None, None, None,
        transition("SYSTEM_DESIGN", "BEHAVIORAL", "design covered"),
    ]
    evaluator = [action("say", text="Nice."), score(7, 7, 7, 11, "background"),
                 score(7, 7, 7, 7, "background"), None, None, None, None, None,
                 score(8, 8, 8, 8, "communication")]
    result, card = run(tmp_path, PersonaScript(interviewer=interviewer, evaluator=evaluator),
                       ["Ready.", *SUBSTANTIVE], coach_mode="off")
    assert steps(result)[:6] == [
        ("INTRODUCTION", "start", 0), ("WARM_UP", "exit_conditions", 1),
        ("TECHNICAL_DEEP_DIVE", "exit_conditions", 3), ("SYSTEM_DESIGN", "exit_conditions", 7),
        ("BEHAVIORAL", "requested", 8), ("FOLLOW_UPS", "exit_conditions", 10)]
    log = [(e.persona, e.tool, e.accepted, e.reason) for e in result.tool_log]
    assert log[:10] == [
        (IV, "say", True, None),
        (IV, "transition_section", False, "transition refused: SYSTEM_DESIGN cannot follow "
                                         "WARM_UP; allowed: TECHNICAL_DEEP_DIVE"),
        (IV, "transition_section", False, "transition refused: the current section is "
                                         "WARM_UP, not INTRODUCTION"),
        (IV, "say", True, None),
        (EV, "say", False, "say is not available to the evaluator; available: score_answer, "
                          "flag_followup"),
        (EV, "score_answer", False, "invalid arguments: relevance: Input should be less than "
                                   "or equal to 10"),
        (EV, "score_answer", True, None),
        (IV, "transition_section", False, "transition refused: WARM_UP needs 2 question(s) "
                                         "before it ends; 1 asked so far"),
        (IV, "end_interview", False, "unknown tool 'end_interview'; available: say, "
                                    "transition_section, flag_followup"),
        (IV, None, False, "unreadable action: not valid JSON (Expecting value at line 1 "
                         "column 1)"),
    ]
    turn3 = next(e for e in result.transcript if e.turn == 3 and e.speaker == "interviewer")
    assert (turn3.kind, turn3.text) == ("fallback", "What does your current role involve day "
                                                    "to day?")
    requested = [e for e in result.tool_log if e.tool == "transition_section" and e.accepted]
    assert len(requested) == 1 and requested[0].state == "SYSTEM_DESIGN"
    assert card.tool_calls[IV]["transition_section"].model_dump() == {"accepted": 1,
                                                                     "rejected": 3}
    assert card.tool_calls[EV]["score_answer"].model_dump() == {"accepted": 9, "rejected": 1}
    assert card.stop_reason == "completed" and card.state_coverage == 1.0


def test_budget_running_out_forces_fallbacks_and_the_session_cut(tmp_path):
    plan = load_plan("technical").model_copy(update={"max_total_turns": 10})
    script = PersonaScript(evaluator=["not an action"] * 40)
    result, card = run(tmp_path, script, ["Ready.", *SUBSTANTIVE], plan=plan,
                       evaluator_max_calls=2, coach_mode="off")
    assert steps(result) == [
        ("INTRODUCTION", "start", 0), ("WARM_UP", "exit_conditions", 1),
        ("TECHNICAL_DEEP_DIVE", "exit_conditions", 3), ("SYSTEM_DESIGN", "budget", 9),
        ("WRAP_UP", "session_budget", 10), ("COMPLETE", "exit_conditions", 11)]
    evaluator_outputs = [v for v in result.tool_verdicts() if v[0] == EV]
    assert evaluator_outputs == [(EV, None, False)] * 18
    assert result.unscored_turns == list(range(2, 11))
    assert (card.answers_scored, card.answers_unscored, card.composite_mean,
            card.weighted_composite) == (0, 9, None, None)
    assert card.states_entered == ["INTRODUCTION", "WARM_UP", "TECHNICAL_DEEP_DIVE",
                                   "SYSTEM_DESIGN", "WRAP_UP", "COMPLETE"]
    assert card.state_coverage == pytest.approx(5 / 8, abs=1e-4)


@pytest.fixture
def person(tmp_path):
    root = tmp_path / "personalities"
    write_doc(root, make_doc("P1", interviews=5, pairs=3, marker="SECRET"))
    prepare_corpus(root, tmp_path / "prepared", 0.2)
    return load_personality(tmp_path / "prepared", "P1")


def test_personality_interview_follows_up_flags_and_checks_the_candidates_words(tmp_path,
                                                                                  person):
    evaluator = [flag("nine days", "Why nine days?", "high"), score(7, 8, 6, 9, "experience"),
                 flag("my neighbours", "Who were they?", "low", "needs_verification"),
                 score(5, 6, 5, 7, "views")]
    interviewer = [None, say("You said nine days in the anagama kiln; why nine days?")]
    script = PersonaScript(interviewer=interviewer, evaluator=evaluator)
    hub = make_hub(tmp_path, script)
    settings = AgentSettings(coach_mode="off", followup_generator=False)
    plan = personality_plan(load_plan("personality"), person)
    try:
        clients = open_clients(hub, DEFAULTS, settings)
        candidate = twin(person, "chronological", clients, DEFAULTS, settings, None)
        result = run_session(plan, settings, clients, candidate,
                             CandidateInfo(kind="simulated", personality_id="P1",
                                           strategy="chronological"))
    finally:
        hub.close()
    card = write_session(result, tmp_path / "out")
    assert steps(result) == [
        ("OPENING", "start", 0), ("TOPICS", "exit_conditions", 1),
        ("FOLLOW_UPS", "exit_conditions", 5), ("CLOSING", "exit_conditions", 6),
        ("COMPLETE", "exit_conditions", 7)]
    kinds = [(e.turn, e.state, e.kind) for e in result.transcript if e.speaker == IV]
    assert kinds == [(1, "OPENING", "question"), (2, "TOPICS", "plan_question"),
                     (3, "TOPICS", "followup"), (4, "TOPICS", "plan_question"),
                     (5, "TOPICS", "plan_question"), (6, "FOLLOW_UPS", "followup"),
                     (7, "CLOSING", "question")]
    asked = [e.text for e in result.transcript if e.kind == "plan_question"]
    assert asked == [p.question for p in person.heldout]
    assert [(f.flag_id, f.priority, f.turn, f.resolved_turn) for f in result.flags] == [
        (0, "high", 2, 3), (1, "low", 3, 6)]
    assert [(f.turn, f.passed, f.check.shared_terms) for f in result.followups] == [
        (3, True, ["anagama", "days", "kiln", "nine"]), (6, False, [])]
    assert (card.followups_asked, card.followups_without_candidate_words) == (2, 1)
    assert all(e.text == TWIN_ANSWER for e in result.transcript if e.speaker == "candidate")
    assert card.answers_scored == 5 and card.flags_open == 0
    records = list(read_jsonl(tmp_path / "out" / FILES["flags"]))
    assert [r["resolved"] for r in records] == [True, True]
