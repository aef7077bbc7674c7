"""Unit tests of the agent's deterministic parts: analyzer, composite, memory, follow-up check,
guardrail audit, signals, the tool validator, plans and the state machine."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interviewsim.agent.evaluator import Evaluator
from interviewsim.agent.followup import check_followup
from interviewsim.agent.guardrails import GuardrailAuditor, Rule, summarize_audits
from interviewsim.agent.memory import ConversationMemory, MemoryEntry
from interviewsim.agent.plan import load_plan, parse_plan
from interviewsim.agent.scoring import AnswerScore, Flag, composite
from interviewsim.agent.signals import Signal, detect_signals
from interviewsim.agent.state_machine import Facts, StateMachine
from interviewsim.agent.tools import (
    MAX_SCHEMA_LENGTH,
    ToolCall,
    ToolContext,
    action_schema,
    parse_action_output,
    validate_call,
)
from interviewsim.config.params import Params
from interviewsim.errors import ConfigError, ParseError
from interviewsim.text.speech import analyze_speech
from tests.test_agent_support import PersonaScript, flag, make_hub, score

DEFAULTS = Params()
"""The experiment settings the scripted hub's callers use (the hub itself knows none)."""

# ---- speech analyzer ---------------------------------------------------------------------


def test_analyzer_counts_fillers_and_hedges_and_penalises_confidence():
    text = "Um, basically I think maybe we, like, sharded it. I guess it was, you know, fine."
    analysis = analyze_speech(text)
    assert analysis.filler_count == 4
    assert analysis.fillers == ["um", "basically", "like", "you know"]
    assert analysis.hedge_count == 2
    assert analysis.hedges == ["i think maybe", "i guess"]
    assert analysis.confidence == pytest.approx(1 - 4 * 0.05 - 2 * 0.08)
    assert analysis.words_per_minute is None


def test_analyzer_does_not_count_like_as_content_as_a_filler():
    assert analyze_speech("I like kilns and I like glaze.").filler_count == 0


def test_analyzer_computes_pace_only_when_duration_is_known():
    assert analyze_speech("one two three four five six", duration_s=3.0).words_per_minute == 120
    assert analyze_speech("one two three", duration_s=0).words_per_minute is None


def test_analyzer_confidence_is_bounded_below_by_the_penalty_caps():
    analysis = analyze_speech("um " * 40 + "probably " * 40)
    assert analysis.confidence == pytest.approx(0.4)


@given(st.text(max_size=300), st.one_of(st.none(), st.floats(0, 600)))
def test_analyzer_confidence_stays_within_zero_and_one(text, duration):
    analysis = analyze_speech(text, duration)
    assert 0.4 <= analysis.confidence <= 1.0
    assert 0 <= analysis.filler_rate <= 1 or analysis.words == 0


# ---- composite -----------------------------------------------------------------------------


def test_composite_weights_accuracy_and_depth_above_delivery():
    assert composite(10, 0, 0, 0) == 3.5
    assert composite(0, 10, 0, 0) == 2.0
    assert composite(0, 0, 10, 0) == 3.0
    assert composite(0, 0, 0, 10) == 1.5
    assert composite(7, 6, 5, 8) == round(0.35 * 7 + 0.2 * 6 + 0.3 * 5 + 0.15 * 8, 2)


@given(*(st.integers(0, 10) for _ in range(4)))
def test_composite_stays_on_the_zero_to_ten_scale(a, c, d, r):
    value = composite(a, c, d, r)
    assert 0 <= value <= 10
    assert min(a, c, d, r) - 1e-9 <= value <= max(a, c, d, r) + 1e-9


# ---- memory compression ----------------------------------------------------------------------


def _score(turn: int, area: str = "background") -> AnswerScore:
    return AnswerScore(turn=turn, state="WARM_UP", question="q", rubric_area=area,
                       technical_accuracy=8, communication_clarity=6, depth_of_reasoning=7,
                       relevance=9, answer_summary="s")


def test_compression_summarises_the_oldest_half_and_keeps_recent_turns_verbatim():
    memory = ConversationMemory(max_messages=4)
    flag = Flag(flag_id=0, turn=1, state="WARM_UP", raised_by="evaluator",
                flag_type="claimed_expertise", answer_excerpt="expert in Kafka",
                suggested_followup="Which Kafka failure?", priority="low")
    summaries = []
    for turn in (1, 2, 3):
        summaries.append(memory.add(MemoryEntry(turn=turn, role="interviewer", state="WARM_UP",
                                                text=f"Question {turn}?"), [_score(1)], [flag]))
        summaries.append(memory.add(MemoryEntry(turn=turn, role="candidate", state="WARM_UP",
                                                text=f"I am an expert in Kafka. Turn {turn}."),
                                    [_score(1)], [flag]))
    produced = [s for s in summaries if s is not None]
    assert len(produced) == 1
    summary = produced[0]
    assert (summary.first_turn, summary.last_turn) == (1, 1)
    assert summary.claims == ["I am an expert in Kafka."]
    assert summary.topics == ["background"]
    assert summary.flags == ['claimed_expertise (low) on "expert in Kafka"']
    assert summary.scores == ["turn 1 background: 7.5/10"]
    assert [e.turn for e in memory.entries] == [2, 2, 3, 3]
    assert "score:" not in memory.summary_text(with_scores=False)


def test_compression_never_leaves_an_answer_without_its_question():
    memory = ConversationMemory(max_messages=3)
    for turn in (1, 2):
        memory.add(MemoryEntry(turn=turn, role="interviewer", state="S", text="Q?"))
        memory.add(MemoryEntry(turn=turn, role="candidate", state="S", text="A."))
    assert memory.entries[0].role == "interviewer"
    first = memory.chat_messages()[0]
    assert first.role == "assistant" and json.loads(first.content)["action"] == "say"


# ---- follow-up check -----------------------------------------------------------------------


def test_followup_check_requires_the_candidates_own_words():
    answer = "We cut p99 latency by moving the session cache to Redis."
    assert check_followup("Why Redis rather than keeping the cache local?", answer).passed
    generic = check_followup("Can you tell me more about that?", answer)
    assert not generic.passed and generic.shared_terms == []


def test_followup_check_counts_shared_terms_against_the_threshold():
    check = check_followup("How did the Redis cache behave?", "Redis cache misses rose.", 3)
    assert check.shared_terms == ["cache", "redis"] and not check.passed


# ---- signals and guardrails ----------------------------------------------------------------


@pytest.mark.parametrize(("reply", "signal"), [
    ("Could you give me a hint?", Signal.HINT_REQUEST),
    ("Am I on the right track here?", Signal.HINT_REQUEST),
    ("How am I doing so far?", Signal.PROGRESS_QUESTION),
    ("No more questions, thanks.", Signal.NO_MORE_QUESTIONS),
    ("What's the salary range?", Signal.OFF_LIMITS),
])
def test_signals_recognise_edge_case_replies(reply, signal):
    assert signal in detect_signals(reply)


def test_an_ordinary_answer_carries_no_signal():
    assert detect_signals("We replicated across three zones with a quorum of two.") == frozenset()


@pytest.mark.parametrize(("text", "rule"), [
    ("Great answer! What about partitions?", Rule.PRAISE),
    ("That's wrong. Try again?", Rule.DISMISSIVE),
    ("Hint: consider using consistent hashing.", Rule.HINT),
    ("You scored 7/10 on that one.", Rule.RUBRIC_LEAK),
    ("Your technical accuracy was fine.", Rule.RUBRIC_LEAK),
    ("We can discuss the salary later.", Rule.OFF_LIMITS),
    ("Why that store? And why that schema?", Rule.MULTIPLE_QUESTIONS),
    ("So you're saying the cache was local. Why?", Rule.RESTATING),
    ("Tell me about distributed_systems work you did.", Rule.RUBRIC_LEAK),
])
def test_audit_flags_each_rule(text, rule):
    audit = GuardrailAuditor(["distributed_systems"]).audit(3, "S", text)
    assert rule in {v.rule for v in audit.violations}


def test_audit_passes_a_neutral_probe_and_records_the_preceding_signal():
    auditor = GuardrailAuditor(["distributed_systems"])
    clean = auditor.audit(1, "S", "I see. How did you size the distributed systems cluster?")
    assert clean.violations == []
    hinted = auditor.audit(2, "S", "The answer is a quorum.", [Signal.HINT_REQUEST])
    assert hinted.violations[0].after == [Signal.HINT_REQUEST]
    summary = summarize_audits([clean, hinted])
    assert (summary.turns_audited, summary.turns_with_violations) == (2, 1)
    assert summary.violation_rate == 0.5 and summary.violations_by_rule == {"hint": 1}


# ---- tool validator ------------------------------------------------------------------------

EVALUATOR = ToolContext("evaluator", ("flag_followup", "score_answer"), ("background",),
                        answer="I led the Kafka migration in 2021.")
SCORE = {"technical_accuracy": 7, "communication_clarity": 6, "depth_of_reasoning": 5,
         "relevance": 8, "rubric_area": "background", "answer_summary": "led a migration",
         "notable_observations": ""}


def test_validator_accepts_a_valid_score_from_either_path():
    constrained = parse_action_output(json.dumps({"action": "score_answer", "arguments": SCORE}))
    native = ToolCall(name="score_answer", arguments=json.dumps(SCORE), call_id="call_1")
    for call in (constrained, native):
        verdict = validate_call(call, EVALUATOR)
        assert verdict.accepted and verdict.arguments.relevance == 8


@pytest.mark.parametrize(("name", "arguments", "reason"), [
    ("end_interview", {}, "unknown tool 'end_interview'"),
    ("say", {"text": "hi"}, "say is not available to the evaluator"),
    ("score_answer", {**SCORE, "relevance": 11}, "relevance: Input should be less than or equal"),
    ("score_answer", {**SCORE, "relevance": "8"}, "relevance: Input should be a valid integer"),
    ("score_answer", {**SCORE, "extra": 1}, "extra: Extra inputs are not permitted"),
    ("score_answer", {**SCORE, "rubric_area": "charm"}, "unknown rubric_area 'charm'"),
    ("flag_followup", {"flag_type": "vague_answer", "answer_excerpt": "led the Cassandra",
                       "suggested_followup": "Which?", "priority": "high"},
     "answer_excerpt must quote"),
    ("score_answer", "{not json", "arguments are not valid JSON"),
])
def test_validator_rejects_with_a_reason_the_model_can_act_on(name, arguments, reason):
    verdict = validate_call(ToolCall(name=name, arguments=arguments), EVALUATOR)
    assert not verdict.accepted and reason in verdict.reason


def test_validator_asks_the_state_machine_about_transitions():
    context = ToolContext("interviewer", ("say", "transition_section"),
                          refuse_transition=lambda f, t: None if f == "A" else "not current")
    ok = {"from_section": "A", "to_section": "B", "reason": "done", "topics_covered": []}
    assert validate_call(ToolCall(name="transition_section", arguments=ok), context).accepted
    bad = validate_call(ToolCall(name="transition_section",
                                 arguments={**ok, "from_section": "C"}), context)
    assert bad.reason == "transition refused: not current"


@pytest.mark.parametrize("text", ["", "say hi", "[]", '{"action": "say"}',
                                  '{"action": "say", "arguments": "hi"}',
                                  '{"action": "say", "arguments": {}, "action": "x"}'])
def test_unreadable_action_outputs_raise_parse_error(text):
    with pytest.raises(ParseError):
        parse_action_output(text)


@given(st.text(max_size=200))
def test_validator_never_raises_on_arbitrary_arguments(text):
    verdict = validate_call(ToolCall(name="score_answer", arguments=text), EVALUATOR)
    assert not verdict.accepted


def test_action_schema_lists_every_argument_as_required():
    schema = action_schema(["say", "score_answer"], {"rubric_area": ["background"]})
    assert schema["properties"]["action"]["enum"] == ["say", "score_answer"]
    score_schema = schema["properties"]["arguments"]["anyOf"][1]
    assert set(score_schema["required"]) == set(SCORE)
    assert score_schema["properties"]["rubric_area"] == {"type": "string", "enum": ["background"]}


# ---- plans and the state machine -------------------------------------------------------------


def test_shipped_plans_load_with_the_specified_sections():
    technical = load_plan("technical")
    assert [s.name for s in technical.states] == [
        "INTRODUCTION", "WARM_UP", "TECHNICAL_DEEP_DIVE", "SYSTEM_DESIGN", "BEHAVIORAL",
        "FOLLOW_UPS", "CANDIDATE_QA", "WRAP_UP"]
    assert technical.terminal_state == "COMPLETE"
    personality = load_plan("personality")
    assert [s.name for s in personality.states] == ["OPENING", "TOPICS", "FOLLOW_UPS", "CLOSING"]


def _plan(**overrides):
    data = {"name": "p", "title": "t", "total_minutes": 10, "max_total_turns": 5,
            "closing_state": "B", "rubric": [{"id": "a", "weight": 1, "description": "d"}],
            "states": [{"name": "A", "entry_instruction": "x", "max_turns": 2, "scored": False},
                       {"name": "B", "entry_instruction": "y", "max_turns": 1, "scored": False}]}
    data.update(overrides)
    return data


def test_a_plan_whose_transition_points_backwards_is_rejected():
    data = _plan()
    data["states"][1]["fallback"] = "A"
    with pytest.raises(ConfigError, match="is not a later state"):
        parse_plan(data, "p.yaml")


def test_a_plan_with_an_unknown_exit_condition_is_rejected():
    data = _plan()
    data["states"][0]["exit_conditions"] = ["vibes_are_good"]
    with pytest.raises(ConfigError, match="exit_conditions"):
        parse_plan(data, "p.yaml")


def test_a_plan_whose_waiting_follow_ups_could_never_be_asked_is_rejected():
    data = _plan()
    data["states"][0]["scored"] = True
    with pytest.raises(ConfigError, match="waiting follow-ups would never be asked"):
        parse_plan(data, "p.yaml")
    data["states"].insert(1, {"name": "F", "entry_instruction": "f", "max_turns": 2,
                              "question_source": "flags", "exit_conditions": ["flags_resolved"]})
    assert [s.name for s in parse_plan(data, "p.yaml").states] == ["A", "F", "B"]


def test_state_machine_refuses_illegal_requests_and_ends_sections_on_budget():
    machine = StateMachine(parse_plan(_plan(), "p.yaml"))
    assert machine.refusal("B", "COMPLETE") == "the current section is A, not B"
    assert "cannot follow A" in machine.refusal("A", "COMPLETE")
    machine.record_turn("Statement only.")
    assert machine.after_answer(Facts(), 1, 0.1, session_spent=False).reason == \
        "exit_conditions"
    machine.record_turn("Q?")
    step = machine.after_answer(Facts(), 2, 0.2, session_spent=False)
    assert (step.to_state, step.reason) == ("COMPLETE", "exit_conditions")
    assert machine.complete and machine.coverage() == 1.0


def test_constraint_schemas_keep_lengths_within_what_llama_cpp_compiles():
    schema = action_schema(["say", "score_answer", "flag_followup", "transition_section"])

    def lengths(node):
        if isinstance(node, dict):
            yield from ([node["maxLength"]] if "maxLength" in node else [])
            for value in node.values():
                yield from lengths(value)
        elif isinstance(node, list):
            for value in node:
                yield from lengths(value)

    found = list(lengths(schema))
    assert found and max(found) <= MAX_SCHEMA_LENGTH


# ---- evaluator -------------------------------------------------------------------------------


def test_evaluator_may_flag_only_first_and_must_then_score(tmp_path):
    answer = "I led the Kafka migration in 2021."
    script = PersonaScript(evaluator=[
        flag("led the Kafka migration", "Which part did you lead?", "high"),
        flag("in 2021", "Why then?", "low"),
        score(7, 6, 5, 8, "background")])
    hub = make_hub(tmp_path, script)
    try:
        evaluator = Evaluator(hub.client(DEFAULTS.models.generator), load_plan("technical"), 3)
        assessment = evaluator.assess(4, "WARM_UP", "What did you lead?", answer)
    finally:
        hub.close()
    assert [(e.tool, e.accepted, e.reason) for e in assessment.log] == [
        ("flag_followup", True, None),
        ("flag_followup", False, "flag_followup is not available to the evaluator; "
                                 "available: score_answer"),
        ("score_answer", True, None)]
    assert assessment.score.turn == 4 and assessment.score.composite == composite(7, 6, 5, 8)
    assert [f.answer_excerpt for f in assessment.flags] == ["led the Kafka migration"]
    requests = [r for _, r in script.requests]
    offered = [r.constraint.json_schema["properties"]["action"]["enum"] for r in requests]
    assert offered == [["score_answer", "flag_followup"], ["score_answer"], ["score_answer"]]


def test_constraint_schemas_spell_score_bounds_as_an_enum_the_runtime_enforces():
    properties = action_schema(["score_answer"])["properties"]["arguments"]["properties"]
    assert properties["relevance"] == {"type": "integer", "enum": list(range(11))}
