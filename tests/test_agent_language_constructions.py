"""Every construction the [agent-language] issue names, and the near-misses of the class
definitions: recognised by the language layer (rules and n-gram model together), whatever the
phrasing, and the same words in another sense left alone."""

from __future__ import annotations

import pytest

from interviewsim.agent.config import AgentSettings
from interviewsim.agent.guardrails import GuardrailAuditor, Rule
from interviewsim.agent.invitations import invites_questions
from interviewsim.agent.plan import load_plan
from interviewsim.agent.results import CandidateInfo
from interviewsim.agent.setup import open_clients, run_session
from interviewsim.agent.signals import Signal, detect_signals
from interviewsim.config.params import Params
from interviewsim.llm.types import ChatRequest
from tests.test_agent_support import (
    PersonaScript,
    ScriptedCandidate,
    default_response,
    make_hub,
    say,
)

TECH = "How would you keep a replicated store available during a network partition?"
HANDOVER = "What questions do you have for me?"


def rules_of(turn: str) -> set[Rule]:
    return {v.rule for v in GuardrailAuditor(["distributed_systems"]).audit(1, "S", turn)
            .violations}


@pytest.mark.parametrize(("turn", "rule"), [
    # hints: imperative, question, modal suggestion, aside
    ("Think about what happens if two writers grab the lock at once.", Rule.HINT),
    ("Maybe a min-heap would help here.", Rule.HINT),
    ("Here's a nudge: the input is already sorted.", Rule.HINT),
    ("What if you sorted it first?", Rule.HINT),
    ("Don't forget the empty case.", Rule.HINT),
    ("A common trick is two pointers.", Rule.HINT),
    ("You could start by counting the frequencies.", Rule.HINT),
    # grading and scale vocabulary
    ("I'm grading this on clarity.", Rule.RUBRIC_LEAK),
    ("You're at about a seven so far.", Rule.RUBRIC_LEAK),
    ("This section is worth a third of the total.", Rule.RUBRIC_LEAK),
    ("Communication is one of the things on my sheet.", Rule.RUBRIC_LEAK),
    # pay and headcount in any person
    ("What kind of salary are you looking for?", Rule.OFF_LIMITS),
    ("The range for this role is ninety to a hundred and ten.", Rule.OFF_LIMITS),
    ("We're hiring three nurses for this ward this quarter.", Rule.OFF_LIMITS),
    # verdicts, by lexicon and by fixed form
    ("You've got that backwards.", Rule.DISMISSIVE),
    ("No, that's wrong.", Rule.DISMISSIVE),
    ("That isn't how TCP works.", Rule.DISMISSIVE),
    ("Not quite.", Rule.DISMISSIVE),
    ("That doesn't make sense.", Rule.DISMISSIVE),
    ("You nailed it.", Rule.PRAISE),
    ("Correct.", Rule.PRAISE),
    ("Spot on.", Rule.PRAISE),
    ("Love that.", Rule.PRAISE),
    ("That's exactly what I was hoping to hear.", Rule.PRAISE),
    ("Impressive.", Rule.PRAISE),
    # restating
    ("Let me make sure I've got this: the cache sits in front of the database.",
     Rule.RESTATING),
    ("So what you're telling me is the retries caused the overload.", Rule.RESTATING),
    ("In other words, you rolled back before you knew the cause.", Rule.RESTATING),
])
def test_each_named_construction_breaks_its_guardrail(turn, rule):
    assert rule in rules_of(turn)


@pytest.mark.parametrize("turn", [
    "Tell me about a great handover process you set up.",
    "You mentioned a data centre in Great Britain; how far was it from the primary?",
    "How would you build the perfect hash for a fixed set of keys?",
    "Okay.", "Thanks.", "Got it.", "Understood.", "Mm-hm.",
    "Tell me about a time the migration went wrong.",
    "Your users said the report was incorrect; what did you do first?",
    "What went wrong in that incident?",
    "What would you do next?", "Why that choice?", "What do you think the answer is?",
    "Take your time.",
    "How did you compute a relevance score for the search results?",
    "How would you grade the severity of a bug?",
    "What was your model's F1 score on the held-out set?",
    "How does the salary microservice talk to the ledger?",
    "How do leader candidates in Raft ask for votes?",
    "Walk me through the payroll database schema.",
])
def test_the_definitions_near_misses_break_no_guardrail(turn):
    assert rules_of(turn) == set()


@pytest.mark.parametrize(("reply", "signal"), [
    ("Am I close?", Signal.HINT_REQUEST),
    ("Sorry, I'm stuck. Where would you begin?", Signal.HINT_REQUEST),
    ("Is it a heap?", Signal.HINT_REQUEST),
    ("Could you point me somewhere?", Signal.HINT_REQUEST),
    ("What would you use?", Signal.HINT_REQUEST),
    ("How's my performance so far?", Signal.PROGRESS_QUESTION),
    ("Was that what you were looking for?", Signal.PROGRESS_QUESTION),
    ("Did I pass that part?", Signal.PROGRESS_QUESTION),
    ("How am I coming across?", Signal.PROGRESS_QUESTION),
    ("What's the salary band?", Signal.OFF_LIMITS),
    ("How many people are you hiring?", Signal.OFF_LIMITS),
    ("My head is spinning.", Signal.UPSET),
    ("I'm starting to panic.", Signal.UPSET),
    ("This is really stressing me out.", Signal.UPSET),
    ("Ugh, I'm blanking.", Signal.UPSET),
])
def test_each_named_reply_construction_carries_its_signal(reply, signal):
    assert signal in detect_signals(reply, TECH)


@pytest.mark.parametrize("reply", [
    "My junior asked me what I'd use, and I told her a queue, because the writes were bursty.",
    "I was panicking during the outage, so I paged my lead.",
    "No questions came up in the design review, so we shipped it on Friday.",
    "That's all I did on that project; the platform team ran the cutover.",
])
def test_the_definitions_reply_near_misses_carry_no_signal(reply):
    assert detect_signals(reply, TECH) == frozenset()


def test_a_twin_saying_it_is_ready_is_not_upset():
    """The embedded model's twins open with "I'm ready to start." (repeated): the reply model
    once read "start" as the "starting to panic" of distress and derailed every interview."""
    opening = "Hello, thanks for joining. Shall we get started?"
    assert detect_signals("I'm ready to start. " * 8, opening) == frozenset()


@pytest.mark.parametrize("turn", [
    HANDOVER, "The floor is yours.", "Over to you - what would you like to know?",
    "Anything you'd like to ask me?", "Any questions for me?",
])
def test_every_common_hand_over_is_an_invitation(turn):
    assert invites_questions(turn)


@pytest.mark.parametrize("turn", [
    TECH, "Any questions about the exercise before you begin?",
    "What questions would you ask a patient on admission?",
    "I'll describe the problem first, and then it's over to you.",
])
def test_questions_about_the_task_are_not_invitations(turn):
    assert not invites_questions(turn)


@pytest.mark.parametrize("reply", ["Nope, I'm set.", "That's it from my side.",
                                   "I can't think of anything right now.",
                                   "No, you've covered everything."])
def test_closers_count_only_after_an_invitation(reply):
    assert Signal.NO_MORE_QUESTIONS in detect_signals(reply, HANDOVER)
    assert Signal.NO_MORE_QUESTIONS not in detect_signals(reply, TECH)


def _hands_over_in_candidate_qa(request: ChatRequest) -> str:
    """The interviewer: the commonest hand-over in the candidate-questions section (whose
    entry instruction the prompt carries), the offline default everywhere else."""
    if any("Invite the candidate's questions" in m.content for m in request.messages[:1]):
        return say(HANDOVER)
    return default_response("interviewer", request)


def test_nope_im_set_after_what_questions_do_you_have_ends_the_candidate_questions(tmp_path):
    """The technical plan's candidate-questions section, opened with the commonest hand-over:
    the closer ends the section after one turn instead of running out its turn budget."""
    answers = [f"Answer {i}: we replicated the ledger across three zones and measured lag."
               for i in range(2, 11)]
    replies = ["Ready when you are.", *answers, "Nope, I'm set.", "Thank you."]
    script = PersonaScript(interviewer=[_hands_over_in_candidate_qa] * 40)
    hub = make_hub(tmp_path, script)
    try:
        result = run_session(load_plan("technical"), AgentSettings(),
                             open_clients(hub, Params(), AgentSettings()),
                             ScriptedCandidate(replies), CandidateInfo(kind="scripted"))
    finally:
        hub.close()
    qa = [t for t in result.transcript if t.state == "CANDIDATE_QA"]
    assert [(t.speaker, t.text) for t in qa] == [("interviewer", HANDOVER),
                                                  ("candidate", "Nope, I'm set.")]
    assert qa[1].signals == ["no_more_questions"]
    leaving = next(t for t in result.state_history if t.from_state == "CANDIDATE_QA")
    assert (leaving.to_state, leaving.reason, leaving.turns_in_state) == \
        ("WRAP_UP", "exit_conditions", 1)
