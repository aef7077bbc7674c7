"""The agent's reading of what was said, on a labelled corpus and on the cases that used to fail.

tests/data/agent_language_corpus.jsonl holds interviewer turns (question or not, invitation or
not, guardrail rules broken) and candidate replies (signals, with the turn they answer), split
train / dev / holdout. The holdout was written by a separate pass from the class definitions
only, committed before any rule change and never used for tuning.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from interviewsim.agent.guardrails import GuardrailAuditor, Rule, rule_matches
from interviewsim.agent.language_eval import (
    REPLY_CLASSES,
    TURN_CLASSES,
    CorpusItem,
    agreement_report,
    load_corpus,
    score_classes,
    second_labels,
    wilson,
)
from interviewsim.agent.language_model import CODE_OWNED
from interviewsim.agent.language_train import CALIBRATION_WRITERS, PRECISION_FLOOR
from interviewsim.agent.plan import load_plan
from interviewsim.agent.signals import Signal, detect_signals, rule_signals
from interviewsim.agent.state_machine import Facts, StateMachine
from interviewsim.text.discourse import is_question, question_count

CORPUS = Path(__file__).parent / "data" / "agent_language_corpus.jsonl"
DOCS = Path(__file__).parents[1] / "docs" / "AGENT.md"
QA = "What would you like to know about the role or the team?"
TECH = "How would you keep a replicated store available during a network partition?"
LABELLED = tuple(c for c in (*TURN_CLASSES, *REPLY_CLASSES)
                 if c not in ("question", "not_question", "normal"))


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(CORPUS)


def test_corpus_is_large_split_three_ways_and_its_holdout_has_30_positives_per_class(corpus):
    assert len(corpus) >= 1500 and len({i.id for i in corpus}) == len(corpus)
    assert {i.split for i in corpus} == {"train", "dev", "holdout"}
    holdout = [i for i in corpus if i.split == "holdout"]
    support = {(s.kind, s.label): s.support for s in score_classes(holdout)}
    assert all(n >= 30 for (_, label), n in support.items() if label in LABELLED), support
    assert sum(i.hard for i in corpus) * 3 >= len(corpus)
    assert sum(len(i.text.split()) >= 100 for i in corpus if i.kind == "reply") >= 20


def test_no_text_of_more_than_three_words_is_in_two_splits(corpus):
    seen: dict[tuple[str, str], str] = {}
    for item in (i for i in corpus if len(i.text.split()) > 3):
        key = (item.text.strip().lower(), (item.after or "").strip().lower())
        assert seen.setdefault(key, item.split) == item.split, item.id


def test_wilson_interval_is_inside_0_1_and_contains_the_rate():
    assert wilson(0, 0) is None
    low, high = wilson(30, 30)
    assert 0.88 < low < 0.9 and high == 1.0
    low, high = wilson(9, 10)
    assert low < 0.9 < high


@pytest.mark.parametrize("writer", CALIBRATION_WRITERS)
def test_precision_on_each_calibration_writer_is_the_floor_it_was_set_for(corpus, writer):
    """The committed weights, thresholds and gates, run through the numpy path an interview
    uses, keep every class at least PRECISION_FLOOR precise on each writer they were calibrated
    on (which the fit never read): what ``language_train`` chose is what ships. The labels the
    state machine runs on are the exception: no gate overrules the rules' invitations and
    closers, so theirs is the rules' precision (the model adds a closer only after an
    invitation, and the rules' false closers answer task questions they take for one)."""
    items = [i for i in corpus if i.id.startswith(writer)]
    assert len(items) > 1000
    low = {(s.kind, s.label): s.precision for s in score_classes(items)
           if s.label in LABELLED and f"{s.kind}:{s.label}" not in CODE_OWNED
           and s.precision is not None and s.precision < PRECISION_FLOOR}
    assert low == {}


def test_docs_show_the_evaluation_command_output(language_eval_output):
    """What ``python -m interviewsim.agent.language_eval CORPUS`` prints (run beside the rest of
    the suite from the start, tests/conftest.py) is what docs/AGENT.md shows."""
    status, output = language_eval_output
    assert status == 0, output[-2000:]
    assert output.strip() and output.strip() in DOCS.read_text(encoding="utf-8")


# ---- every case the issue quotes --------------------------------------------------------------

BEHAVIORAL_FALLBACKS = load_plan("technical").state("BEHAVIORAL").questions


@pytest.mark.parametrize("turn", [
    "Tell me about a time you had to push back on a deadline.",
    "Walk me through how you rolled out the schema change.",
    "Describe the on-call rotation on your current team.",
    "Talk me through the incident you mentioned with the ledger service.",
    *BEHAVIORAL_FALLBACKS,
])
def test_imperative_questions_are_questions(turn):
    assert is_question(turn) and question_count(turn) == 1


@pytest.mark.parametrize("turn", ["Take your time.", "I'll describe the problem first.",
                                  "Don't worry about the exact numbers.", "Okay."])
def test_statements_and_non_request_imperatives_are_not_questions(turn):
    assert not is_question(turn)


def test_a_behavioral_section_of_imperatives_meets_its_minimum_and_ends_normally():
    plan = load_plan("technical")
    machine = StateMachine(plan)
    machine.transition("BEHAVIORAL", "requested", 0, 0.0)
    for question in BEHAVIORAL_FALLBACKS:
        machine.record_turn(question)
    step = machine.after_answer(Facts(), 2, 1.0, session_spent=False)
    assert (step.to_state, step.reason, step.questions_in_state) == \
        ("FOLLOW_UPS", "exit_conditions", 2)


@pytest.mark.parametrize(("reply", "after"), [
    ("It depends. When a junior engineer asks me what would you use for a ledger, I tell them "
     "to pick consistency, because a stale balance is worse than a failed request.", TECH),
    ("The outage started with a customer emailing support, literally 'can you help me, my "
     "balance shows zero', and we traced it to a stale replica.", TECH),
    ("Nothing else changed in that release, which is why the rollback confused us.", TECH),
    ("That's all I did on the migration itself; the platform team ran the cutover.", TECH),
    ("Nothing else changed in that release.", QA),
])
def test_answers_quoting_request_or_closing_phrases_carry_no_signal(reply, after):
    assert detect_signals(reply, after) == frozenset()


def test_the_encoder_takes_this_answer_to_an_invitation_for_a_closer():
    """The price of the model's closers (round 14, docs/AGENT.md): after an invitation, a
    reply that only sounds like one ("That's all ...") is a closer to the encoder (0.98 against
    its 0.90), as to the n-gram models of round 8. On five writers the weights never read the
    model's closers are as precise as the rules' (the false ones answer a task question the
    invitation rule takes for an invitation); a change that drops this false alarm changes
    this test, in the open. After a question that is no invitation it stays no closer."""
    reply = "That's all I did on the migration itself."
    assert Signal.NO_MORE_QUESTIONS not in rule_signals(reply, QA)
    assert detect_signals(reply, QA) == {Signal.NO_MORE_QUESTIONS}
    assert detect_signals(reply, TECH) == frozenset()


@pytest.mark.parametrize(("reply", "after", "signal"), [
    ("What would you use here? I'm stuck between a queue and a log.", TECH,
     Signal.HINT_REQUEST),
    ("Can you help me with this one? I really don't know where to start.", TECH,
     Signal.HINT_REQUEST),
    ("Nothing else, thanks.", QA, Signal.NO_MORE_QUESTIONS),
    ("That's all from me.", QA, Signal.NO_MORE_QUESTIONS),
    ("No more questions, thanks.", TECH, Signal.NO_MORE_QUESTIONS),
])
def test_the_real_requests_and_closings_are_still_recognised(reply, after, signal):
    assert signal in detect_signals(reply, after)


def test_a_rhetorical_question_the_speaker_answers_is_not_a_hint_request():
    reply = ("Start with one Postgres primary. What would you use for the queue? Honestly SQS, "
             "because nobody on that team wanted to run Kafka.")
    assert detect_signals(reply, TECH) == frozenset()


@pytest.mark.parametrize("turn", [
    "How did you compute player scores for the leaderboard?",
    "You mentioned a data centre in Great Britain; how far was it from the primary?",
    "How did you pick the perfect size for the connection pool?",
    "What happens when a client makes an incorrect assumption about message ordering?",
    "How would you grade the severity of an incident like that?",
])
def test_words_in_another_sense_break_no_guardrail(turn):
    assert GuardrailAuditor(["distributed_systems"]).audit(1, "S", turn).violations == []


@pytest.mark.parametrize(("turn", "rule"), [
    ("I see. So you are saying the cache was local. Why did you keep it there?",
     Rule.RESTATING),
    ("I'd grade that answer a six, honestly. What else would you add?", Rule.RUBRIC_LEAK),
    ("That's an incorrect assumption. Why would the follower accept it?", Rule.DISMISSIVE),
])
def test_the_same_words_as_verdicts_or_summaries_are_caught(turn, rule):
    violations = GuardrailAuditor().audit(1, "S", turn).violations
    assert [v.rule for v in violations] == [rule]


# True instances by the definitions that the rules find and the committed encoder overrules (it
# scores them under their gate): the price of the gates' precision on writers the model never
# read (docs/AGENT.md, round 12). A refit or a new calibration that changes any of them
# changes this list, in the open.
OVERRULED_TURNS = [
    ("Absolutely. Next question?", Rule.PRAISE),
    ("Great, let's continue. How did you roll it back?", Rule.PRAISE),
    ("Okay. In other words, the retries caused the overload. How did you find out?",
     Rule.RESTATING),
    ("If I follow you, the cache sits in front of the queue.", Rule.RESTATING),
]


@pytest.mark.parametrize(("turn", "rule"), OVERRULED_TURNS)
def test_the_rules_find_these_turns_and_the_encoder_overrules_them(turn, rule):
    assert rule in rule_matches(turn)
    assert rule not in {v.rule for v in GuardrailAuditor().audit(1, "S", turn).violations}


def test_the_rules_find_this_reply_and_the_encoder_overrules_it():
    reply = "How do I compare with the others?"
    assert Signal.OFF_LIMITS in rule_signals(reply, TECH)
    assert Signal.OFF_LIMITS not in detect_signals(reply, TECH)
    assert Signal.OFF_LIMITS in detect_signals(reply)  # no turn to read it with: the rules'


def test_a_second_annotator_is_scored_against_the_corpus_labels(tmp_path: Path) -> None:
    items = [CorpusItem(id="t1", kind="turn", text="Spot on.", hard=False, split="holdout",
                        question=False, invitation=False, guardrails=[Rule("praise")]),
             CorpusItem(id="t2", kind="turn", text="Okay.", hard=False, split="holdout",
                        question=False, invitation=False),
             CorpusItem(id="r1", kind="reply", text="Am I close?", hard=False, split="holdout",
                        after="Sort the list.", signals=[Signal("hint_request")])]
    second = tmp_path / "second.jsonl"
    second.write_text(
        '{"id": "t1", "question": false, "invitation": false, "guardrails": []}\n'
        '{"id": "t2", "question": false, "invitation": false, "guardrails": ["praise"]}\n'
        '{"id": "r1", "signals": ["hint_request"]}\n', encoding="utf-8")
    scores = {(s.kind, s.label): s for s in score_classes([], second_labels(items, second))}
    praise = scores[("turn", "praise")]
    assert (praise.tp, praise.fp, praise.fn) == (0, 1, 1)
    assert scores[("reply", "hint_request")].tp == 1
    assert "Second annotator on 3 items (2 turns, 1 replies)" in agreement_report(items, second)


def test_the_second_annotators_agreement_on_the_holdout_is_what_the_docs_show(corpus):
    second = CORPUS.with_name("agent_language_second_annotator.jsonl")
    shown = agreement_report(corpus, second)
    assert shown in DOCS.read_text(encoding="utf-8")
    assert {item.id for item, _ in second_labels(corpus, second)} == {
        i.id for i in corpus if i.id.startswith("h7-")}


def _eval(*argv: str):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "interviewsim.agent.language_eval", *argv],
                          capture_output=True, text=True, check=False)


def test_the_evaluation_command_explains_itself_and_refuses_bad_corpora_in_one_line(
        tmp_path: Path) -> None:
    shown = _eval("--help")
    assert shown.returncode == 0 and "--errors SPLIT" in shown.stdout
    missing = _eval(str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 1 and "nope.jsonl" in missing.stderr
    assert "Traceback" not in missing.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "t", "kind": "turn", "text": "Hi", "hard": false}\n'
                   '{"id": "u", "kind": "turn", "text": "Go on", "hard": "maybe"}\n',
                   encoding="utf-8")
    wrong = _eval(str(bad))
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr
    assert "bad.jsonl: line 2: field 'hard'" in wrong.stderr
    bad.write_text("not json\n", encoding="utf-8")
    broken = _eval(str(bad))
    assert broken.returncode == 1 and "line 1" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_errors_lists_every_disagreement_on_the_split_it_is_asked_for(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(item.model_dump_json() + "\n" for item in [
        CorpusItem(id="d-1", kind="turn", hard=False, question=True, split="dev",
                   text="Brilliant, you nailed it. Next: how would you test it?"),
        CorpusItem(id="d-2", kind="turn", hard=False, question=True, split="dev",
                   guardrails=[Rule.PRAISE], text="How would you test it?"),
        CorpusItem(id="t-1", kind="turn", hard=False, question=True, split="train",
                   guardrails=[Rule.PRAISE], text="How would you deploy it?"),
    ]), encoding="utf-8")
    listed = _eval(str(corpus), "--errors", "dev")
    assert listed.returncode == 0, listed.stderr
    assert "- praise, missed: `d-2`" in listed.stdout
    assert "- praise, false alarm: `d-1`" in listed.stdout
    assert "t-1" not in listed.stdout
