"""Round 7 of the [agent-language] layer: the rule lexicons widened from the training split's
misses (decline constructions after an invitation, hand-overs in any words, evaluative words,
hint and restatement forms, scoring talk, distress said now, help asked as a question about the
approach, pay stated as a need). Rules alone here, no model: each construction in sentences
written for this test, and beside it the near-miss that shares its words."""

from __future__ import annotations

import pytest

from interviewsim.agent.guardrails import Rule, rule_matches
from interviewsim.agent.invitations import invitation_rule
from interviewsim.agent.signals import Signal, detect_signals, rule_signals

HANDOVER = "Right, that's my list done. Any burning questions?"
TECH = "Walk me through how you would shard the orders table."


@pytest.mark.parametrize("turn", [
    "Any burning questions?",
    "What's on your mind about the clinic?",
    "Anything I can clear up for you about the rota?",
    "So, interview me for a bit.",
    "The floor's yours.",
    "We've got ten minutes left and they're yours. What are you curious about?",
    "Is there something about the team you'd like me to expand on?",
    "What questions can I answer for you?",
])
def test_hand_overs_in_other_words_are_invitations(turn):
    assert invitation_rule(turn)


@pytest.mark.parametrize("turn", [
    "Any questions about the exercise before you start?",
    "We'll leave time at the end for your questions; first, the case study.",
    "Over to you for the design. Where would you start?",
    "What do you know about us?",
    "Feel free to ask clarifying questions as you go.",
    "How do you prioritise when three managers want something from you?",
])
def test_a_task_or_a_deferral_is_no_invitation(turn):
    assert not invitation_rule(turn)


@pytest.mark.parametrize("reply", [
    "Not off the top of my head.",
    "I had a few written down, but you've covered them all.",
    "You've given me a really clear picture, so I'll pass.",
    "It's all been ticked off, thanks.",
    "Honestly I'm blanking, so let's say no.",
    "Thanks, but no.",
    "I think I've got what I need.",
])
def test_declines_after_an_invitation_end_the_questions(reply):
    assert Signal.NO_MORE_QUESTIONS in rule_signals(reply, HANDOVER)
    assert Signal.NO_MORE_QUESTIONS not in detect_signals(reply, TECH)


@pytest.mark.parametrize("reply", [
    "You've covered the tooling. The only thing left is how reviews work.",
    "No questions about the role as such, but I'd love to hear how the team plans its sprints.",
    "Not really about the job, but what's the parking like?",
])
def test_a_decline_that_still_asks_is_no_closer(reply):
    assert Signal.NO_MORE_QUESTIONS not in rule_signals(reply, HANDOVER)


@pytest.mark.parametrize(("turn", "rule"), [
    ("That's a very surface-level take.", Rule.DISMISSIVE),
    ("Eh. Weak.", Rule.DISMISSIVE),
    ("I've heard better answers from our interns.", Rule.DISMISSIVE),
    ("Precisely.", Rule.PRAISE),
    ("Really sharp reasoning on the failover.", Rule.PRAISE),
    ("You clearly know this stuff.", Rule.PRAISE),
    ("The key here is idempotency.", Rule.HINT),
    ("It's a classic sliding window problem, really.", Rule.HINT),
    ("Have a look at line six again.", Rule.HINT),
    ("Half your overall score comes from the whiteboard part.", Rule.RUBRIC_LEAK),
    ("We grade on a four-point scale.", Rule.RUBRIC_LEAK),
    ("You've lost a point for skipping the backups.", Rule.RUBRIC_LEAK),
    ("So you'd shard by customer ID.", Rule.RESTATING),
    ("If I'm hearing you right, the client wanted a fixed fee.", Rule.RESTATING),
    ("You'd basically rebuild it from scratch, then.", Rule.RESTATING),
    ("Just so you know, you're up against two internal applicants.", Rule.OFF_LIMITS),
    ("What's the lowest you'd accept?", Rule.OFF_LIMITS),
    ("What made you pick nursing, and what keeps you in it?", Rule.MULTIPLE_QUESTIONS),
    # round 8: sarcasm, rhetorical challenges and belittling comparisons
    ("Surely you've heard of the Equality Act?", Rule.DISMISSIVE),
    ("My niece could tell you that, and she's nine.", Rule.DISMISSIVE),
    ("Did you actually read the brief before today?", Rule.DISMISSIVE),
    # praise in idioms without an evaluative word
    ("You've made my job easy today.", Rule.PRAISE),
    ("Gold star for the allergen check.", Rule.PRAISE),
    # hints announced or slipped in
    ("Little clue: look at who signed the delivery note.", Rule.HINT),
    ("A binary search would save you that second loop.", Rule.HINT),
    # restating a list back
    ("Right, so: lock the till, count the float, then the banking. Have I got that right?",
     Rule.RESTATING),
    ("What you're describing is a canary release.", Rule.RESTATING),
    # round 9: impatience, doubt of ability and sarcasm as dismissal
    ("Could you get to the point, please?", Rule.DISMISSIVE),
    ("Nobody in their right mind would ship that on a Friday.", Rule.DISMISSIVE),
    ("I don't think you really understand what a lien is.", Rule.DISMISSIVE),
    ("That's a school-level answer, frankly.", Rule.DISMISSIVE),
    ("Oh sure, just email the whole customer list. That fixes everything.", Rule.DISMISSIVE),
    # praise without an evaluative adjective
    ("Correct.", Rule.PRAISE),
    ("Nicely argued. Next one.", Rule.PRAISE),
    ("You're already thinking like a site manager.", Rule.PRAISE),
    ("Not many people spot the VAT trap.", Rule.PRAISE),
    # a pointer at the candidate's own work, or the crux named
    ("Check your units before you go on.", Rule.HINT),
    ("Think about who holds the keys overnight.", Rule.HINT),
    ("A good nurse would probably ask about allergies first.", Rule.HINT),
    ("It's less about the software and more about who signs the order.", Rule.HINT),
    # pay, perks, competition and the decision in other words
    ("What sort of figure would you be after?", Rule.OFF_LIMITS),
    ("You'd get a company van, by the way.", Rule.OFF_LIMITS),
    ("Between us, you're one of three left.", Rule.OFF_LIMITS),
    ("We usually make decisions within a week.", Rule.OFF_LIMITS),
    # round 10: sarcasm said with praise words is dismissal; more praise, dismissal and hints
    ("Lovely, so we'd just skip the risk assessment then.", Rule.DISMISSIVE),
    ("So you'd rather wing it than read the manual. Great.", Rule.DISMISSIVE),
    ("That's the clearest account of a recall I've heard this month.", Rule.PRAISE),
    ("Kudos for spotting the allergen issue.", Rule.PRAISE),
    ("Yes, your drip-rate working is right. Carry on.", Rule.PRAISE),
    ("That's cute, but the auditors would tear it apart.", Rule.DISMISSIVE),
    ("That would get a resident hurt.", Rule.DISMISSIVE),
    ("You're dithering. Pick one.", Rule.DISMISSIVE),
    ("Have you heard of the five whys?", Rule.HINT),
    ("A good place to start is the purchase ledger.", Rule.HINT),
    ("Go back and read the brief again, especially the bit about weekly totals.", Rule.HINT),
    ("Some people find it easier to start from the end date.", Rule.HINT),
])
def test_wider_guardrail_forms(turn, rule):
    assert rule in rule_matches(turn)


@pytest.mark.parametrize(("turn", "rule"), [
    ("Tell me about a conflict with a colleague and how you resolved it.",
     Rule.MULTIPLE_QUESTIONS),
    ("What did you do next, and why?", Rule.MULTIPLE_QUESTIONS),
    ("How would you scale the error rate alerts?", Rule.RUBRIC_LEAK),
    ("How would you design the loyalty points ledger?", Rule.RUBRIC_LEAK),
    ("So, you mentioned Kafka. Why Kafka?", Rule.RESTATING),
    ("What were you up against in that project?", Rule.OFF_LIMITS),
    ("Don't forget it's a timed exercise.", Rule.DISMISSIVE),
    ("Your team did well to ship it. What was your part?", Rule.PRAISE),
    ("How would you explain recursion to a first-year student?", Rule.DISMISSIVE),
    ("You said you'd call the duty manager. At what point would you call the police?",
     Rule.RESTATING),
    ("How do you keep your team from feeling their job is easy to lose?", Rule.PRAISE),
    ("Think about a time you disagreed with a manager. What happened?", Rule.HINT),
    ("Picture yourself on your first week here. What do you do first?", Rule.HINT),
    ("Is the audit trail correct in your view?", Rule.PRAISE),
    ("How would you handle a customer asking about the staff discount?", Rule.OFF_LIMITS),
    ("Lovely, so we'd just skip the risk assessment then.", Rule.PRAISE),
    ("Great, let's get started. Tell me about your last role.", Rule.PRAISE),
    ("Brilliant, the screen share is working. Walk me through the deck.", Rule.PRAISE),
    ("I'll be noting whether you mention stakeholders.", Rule.HINT),
])
def test_the_same_words_in_another_sense(turn, rule):
    assert rule not in rule_matches(turn)


@pytest.mark.parametrize(("reply", "signal"), [
    ("My palms are sweating like mad.", Signal.UPSET),
    ("I'm starting to spiral a little here.", Signal.UPSET),
    ("I'm really kicking myself.", Signal.UPSET),
    ("Would a trie be the right structure here?", Signal.HINT_REQUEST),
    ("Is it something to do with the clock skew?", Signal.HINT_REQUEST),
    ("Throw me a bone?", Signal.HINT_REQUEST),
    ("Did that last one sink me?", Signal.PROGRESS_QUESTION),
    ("Would I be right to call the manager first?", Signal.HINT_REQUEST),
    ("Could you give me a clue which column it's in?", Signal.HINT_REQUEST),
    ("Sorry, the deposit? Is that what you're pointing at?", Signal.HINT_REQUEST),
    ("Could I get a clue? I'm properly stuck.", Signal.HINT_REQUEST),
    ("A lien is about security over goods... is that in the right area?", Signal.HINT_REQUEST),
    ("Quick one, how's the interview going from your side?", Signal.PROGRESS_QUESTION),
    ("Did the practical go alright?", Signal.PROGRESS_QUESTION),
    ("Honestly, am I in with a shot?", Signal.PROGRESS_QUESTION),
    ("Was the length right? I worried it ran over.", Signal.PROGRESS_QUESTION),
    ("Where do I stand right now, would you say?", Signal.PROGRESS_QUESTION),
    ("I should mention I'd need at least sixty-five to make the move.", Signal.OFF_LIMITS),
])
def test_wider_reply_forms(reply, signal):
    assert signal in rule_signals(reply, TECH)


@pytest.mark.parametrize(("reply", "signal"), [
    ("I was anxious before my first audit, so I made a checklist.", Signal.UPSET),
    ("The client asked me to tell them if I was on the right track with the budget.",
     Signal.PROGRESS_QUESTION),
    ("Did I pass? Yes, first time, back in 2019.", Signal.PROGRESS_QUESTION),
    ("Do you think I'm what you're looking for?", Signal.HINT_REQUEST),
    ("Go on, what's the answer you're looking for?", Signal.PROGRESS_QUESTION),
])
def test_reply_near_misses(reply, signal):
    assert signal not in rule_signals(reply, TECH)


@pytest.mark.parametrize("reply", ["", "   ", "um", "..."])
def test_silence_and_fillers_carry_no_signal_and_never_raise(reply):
    # an empty reply once made the self-answer check zip two sequences of unequal length
    assert rule_signals(reply, TECH) == frozenset()
    assert rule_signals(reply, HANDOVER) == frozenset()


def test_a_reply_that_names_its_turn_by_id_is_refused(tmp_path):
    import json

    from interviewsim.agent.language_eval import load_corpus
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(row) for row in [
        {"id": "t-1", "kind": "turn", "text": "Any questions for me?", "hard": False,
         "question": True, "invitation": True},
        {"id": "r-1", "kind": "reply", "text": "Nope, I'm set.", "hard": False,
         "after": "t-1", "signals": ["no_more_questions"]},
    ]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="field 'after'.*turn id.*turn's text"):
        load_corpus(corpus)
