"""The brief's features beyond the core loop, each through the scripted model seam: the coach's
topic scores, length verdicts and study suggestions; the follow-up generator; the rubric's
signal questions and red flags; the live guardrails; waiting follow-ups in the technical plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interviewsim.agent.candidates import CandidateReply
from interviewsim.agent.coach import answer_length, parse_feedback
from interviewsim.agent.config import AgentSettings
from interviewsim.agent.live import LINES
from interviewsim.agent.plan import load_plan
from interviewsim.agent.results import CandidateInfo
from interviewsim.agent.setup import open_clients, run_session
from interviewsim.config.params import Params
from interviewsim.errors import ParseError
from interviewsim.text.speech import analyze_speech
from tests.test_agent_support import (
    PersonaScript,
    ScriptedCandidate,
    flag,
    make_hub,
    say,
    score,
)

DEFAULTS = Params()
ANSWER = "We replicated the ledger across three zones and measured the lag at p99."
IV, EV, CO, FU = "interviewer", "evaluator", "coach", "followup"


def feedback(rating: int, raise_by: str = "Name the trade-off first.",
             study: str = "Read about quorum systems.") -> str:
    return json.dumps({"what_worked": "You gave numbers.", "what_to_improve": "Structure.",
                       "how_to_improve": "Lead with the decision.", "score": rating,
                       "to_raise_score": raise_by, "study": study})


def question(text: str) -> str:
    return json.dumps({"question": text})


class TimedCandidate(ScriptedCandidate):
    """Replies with measured durations, as a person at the terminal gives them."""

    def __init__(self, replies: list[tuple[str, float | None]]):
        super().__init__([])
        self.timed = list(replies)

    def answer(self, utterance: str) -> CandidateReply:
        self.asked.append(utterance)
        text, seconds = self.timed.pop(0) if self.timed else (ANSWER, 60.0)
        return CandidateReply(text=text, duration_s=seconds)


def run(tmp_path: Path, script: PersonaScript, candidate, plan_name: str = "technical",
        **settings: object):
    hub = make_hub(tmp_path, script)
    config = AgentSettings(**{"coach_mode": "off", **settings})
    try:
        return run_session(load_plan(plan_name), config, open_clients(hub, DEFAULTS, config),
                           candidate, CandidateInfo(kind="scripted"))
    finally:
        hub.close()


def prompts_of(script: PersonaScript, persona: str) -> list[str]:
    return ["\n".join(m.content for m in r.messages) for p, r in script.requests if p == persona]


# ---- the coach ---------------------------------------------------------------------------------


def test_coach_rates_topics_judges_length_and_suggests_what_to_study(tmp_path):
    coach = [feedback(4, "Say what you measured.", "Percentiles"), feedback(7),
             *[feedback(6)] * 12]
    candidate = TimedCandidate([("Ready.", 2.0), (ANSWER, 20.0), (ANSWER, 240.0)])
    script = PersonaScript(coach=coach)
    result = run(tmp_path, script, candidate, coach_mode="live")
    first, second = result.coach_notes[:2]
    assert (first.topic, first.length.verdict, first.length.estimated) == \
        ("background", "too_short", False)
    assert second.length.verdict == "too_long"
    requests = prompts_of(script, CO)
    assert "length about 20 s (measured), too short: under 45 s" in requests[0]
    assert "too long: over 180 s, practise a 90-second version" in requests[1]
    topic_lines = [text for speaker, text in candidate.heard if text.startswith("Topic ")]
    assert topic_lines[0] == ("Topic background: 5.5/10 over 2 answer(s). To move it up: Name "
                              "the trade-off first. Study: Percentiles; Read about quorum "
                              "systems.")
    assert any("This answer: 4/10; to move it up: Say what you measured." in text
               for _, text in candidate.heard)


def test_answer_length_is_measured_or_estimated_from_the_words():
    words = " ".join(["word"] * 300)
    estimated = answer_length(analyze_speech(words), 150, 45, 180)
    assert (estimated.seconds, estimated.estimated, estimated.verdict) == (120.0, True, "ok")
    assert answer_length(analyze_speech("short", 200.0), 150, 45, 180).verdict == "too_long"


@pytest.mark.parametrize("rating", [0, 11, "7", True])
def test_a_coach_rating_outside_one_to_ten_is_rejected(rating):
    with pytest.raises(ParseError, match="score"):
        parse_feedback(feedback(1).replace('"score": 1', f'"score": {json.dumps(rating)}'))


# ---- the follow-up generator --------------------------------------------------------------------


def test_the_generator_turns_a_flag_into_a_checked_question_on_the_candidates_words(tmp_path):
    evaluator = [flag("measured the lag at p99", "Why p99?", "high"),
                 score(6, 6, 6, 6, "background")]
    generator = [question("Can you tell me more about that?"),
                 question("Have you considered using p999 for the lag?"),
                 question("You measured the lag at p99: what did that number drive?")]
    script = PersonaScript(evaluator=evaluator, followup=generator)
    result = run(tmp_path, script, ScriptedCandidate(["Ready.", ANSWER]),
                 followup_max_attempts=2)
    [generation] = result.generated_followups
    assert (generation.turn, generation.flag_id, generation.question) == (3, 0, None)
    assert generation.rejections == ["uses none of the candidate's words",
                                     "breaks guardrail(s): hint"]
    followup = next(e for e in result.transcript if e.kind == "followup")
    assert followup.turn == 3 and followup.flag_id == 0  # the interviewer model took over
    assert result.flags[0].resolved_turn == 3
    request = prompts_of(script, FU)[0]
    assert "Candidate's answer: " + ANSWER in request and '"measured the lag at p99"' in request
    assert len(prompts_of(script, FU)) == 2 and script.queues[FU] == generator[2:]


def test_a_generated_follow_up_is_asked_verbatim_and_passes_the_words_check(tmp_path):
    evaluator = [flag("measured the lag at p99", "Why p99?", "high")]
    generator = [question("You measured the lag at p99: what did that number drive?")]
    result = run(tmp_path, PersonaScript(evaluator=evaluator, followup=generator),
                 ScriptedCandidate(["Ready.", ANSWER]))
    followup = next(e for e in result.transcript if e.kind == "followup")
    assert followup.text == "You measured the lag at p99: what did that number drive?"
    assert result.followups[0].passed and result.followups[0].check.shared_terms == [
        "lag", "measured", "p99"]


# ---- rubric signal questions and red flags ---------------------------------------------------


def test_signal_questions_reach_the_interviewer_and_red_flags_the_evaluator(tmp_path):
    script = PersonaScript()
    run(tmp_path, script, ScriptedCandidate(["Ready.", *[ANSWER] * 5]))
    deep_dive = next(p for p in prompts_of(script, IV) if "TECHNICAL_DEEP_DIVE" in p)
    assert "starting points, adapt rather than read out: How would you handle a network " \
           "partition in a payment system?" in deep_dive
    evaluator = prompts_of(script, EV)[0]
    assert "red flag (flag it as potential_red_flag): cannot explain what eventual " \
           "consistency gives up" in evaluator
    personality = PersonaScript()
    run(tmp_path / "p", personality, ScriptedCandidate([ANSWER] * 3), plan_name="personality")
    assert "red flag (flag it" not in prompts_of(personality, EV)[0]


# ---- live guardrails ------------------------------------------------------------------------------


def test_silence_in_a_plan_section_gets_time_and_another_angle_not_the_next_question(tmp_path):
    candidate = TimedCandidate([(ANSWER, 30.0), ("", 25.0), (ANSWER, 40.0), ("um", 31.0)])
    result = run(tmp_path, PersonaScript(), candidate, plan_name="personality")
    topics = load_plan("personality").state("TOPICS").questions
    assert candidate.asked[1:6] == [topics[0], LINES["silence"], topics[1], LINES["silence"],
                                    topics[2]]
    assert [(a.turn, a.event.value, a.detail) for a in result.live_actions[:2]] == [
        (2, "silence", "0 words in 25 s"), (4, "silence", "1 words in 31 s")]
    kinds = [e.kind for e in result.transcript if e.speaker == IV]
    assert kinds[2] == "guardrail" and 2 not in {s.turn for s in result.scores}


def test_an_upset_candidate_changes_the_next_turn_and_is_not_scored(tmp_path):
    replies = ["Ready.", ANSWER, ANSWER, "This is ridiculous, I've answered this already!",
               ANSWER]
    interviewer = [None, None, None, None, "not an action", "still not", "nor this"]
    script = PersonaScript(interviewer=interviewer)
    result = run(tmp_path, script, ScriptedCandidate(replies))
    assert [(a.turn, a.event.value) for a in result.live_actions] == [(4, "upset")]
    assert "sounds frustrated or upset" in prompts_of(script, IV)[4]
    turn5 = next(e for e in result.transcript if e.turn == 5 and e.speaker == IV)
    assert (turn5.kind, turn5.text) == ("guardrail", LINES["upset"])
    assert 4 not in {s.turn for s in result.scores}


def test_drift_off_the_section_tells_the_interviewer_to_bring_it_back(tmp_path):
    interviewer = [None, None, None, say("What do you do on weekends?"),
                   say("Which bakery taught you sourdough?")]
    replies = ["Ready.", ANSWER, ANSWER, "I bake sourdough bread most weekends.",
               "A small bakery near my flat, years ago."]
    script = PersonaScript(interviewer=interviewer)
    result = run(tmp_path, script, ScriptedCandidate(replies))
    assert [(a.turn, a.event.value, a.state) for a in result.live_actions] == [
        (5, "drift", "TECHNICAL_DEEP_DIVE")]
    prompts = prompts_of(script, IV)
    assert "bring the conversation back to its goal" in prompts[5]
    assert "bring the conversation back" not in prompts[4]


# ---- waiting follow-ups in the technical plan -----------------------------------------------------


def test_waiting_follow_ups_are_asked_before_the_candidates_questions(tmp_path):
    evaluator = [flag("measured the lag at p99", "Why p99?", "low"),
                 score(7, 7, 7, 7, "background")]
    generator = [question("You measured the lag at p99: why that percentile?")]
    replies = ["Ready.", ANSWER, *[ANSWER] * 8, "No more questions, thanks.", "Thanks."]
    result = run(tmp_path, PersonaScript(evaluator=evaluator, followup=generator),
                 ScriptedCandidate(replies))
    entered = [(t.to_state, t.reason) for t in result.state_history]
    assert ("FOLLOW_UPS", "exit_conditions") in entered
    asked = next(e for e in result.transcript if e.kind == "followup")
    assert (asked.state, asked.text) == ("FOLLOW_UPS",
                                         "You measured the lag at p99: why that percentile?")
    assert result.flags[0].resolved and result.flags[0].priority == "low"
    assert entered.index(("CANDIDATE_QA", "exit_conditions")) > entered.index(
        ("FOLLOW_UPS", "exit_conditions"))


def test_the_interviewer_calibrates_on_a_qualitative_level_never_numbers(tmp_path):
    script = PersonaScript(evaluator=[score(9, 9, 9, 9, "background")] * 3)
    run(tmp_path, script, ScriptedCandidate(["Ready.", ANSWER, ANSWER, ANSWER]))
    later = prompts_of(script, IV)[3]
    assert "Candidate so far: strong" in later and "/10" not in later
