"""What a candidate's reply asks of the interviewer, detected by code rather than by the model.

Edge cases ("can I get a hint?", "how am I doing?") are where a model interviewer fails most,
so the code recognises them, tells the interviewer persona how to handle them, does not score
them as answers, and audits the interviewer's next turn against the matching rule.

Recognition is sentence-level (:mod:`interviewsim.text.discourse`), not a phrase search over
the whole reply. A request for help counts only in a sentence that is a request to the
interviewer (a direct question, an imperative, or "I need a hint"), never in reported speech,
and only where it is not the speaker's own rhetorical question that the reply goes on to
answer. "No more questions" needs a declaration of having no questions that is not followed by
a question; the elliptical forms ("That's all.", "No, I'm good.") count only as the answer to
an invitation to ask questions. After such an invitation there is no open problem, so nothing
in the reply is a hint request.
"""

from __future__ import annotations

import re
from enum import StrEnum

from interviewsim.text.discourse import Sentence, head_noun, sentences


class Signal(StrEnum):
    HINT_REQUEST = "hint_request"
    """Asks for a hint, the right answer or whether they are on the right track."""
    PROGRESS_QUESTION = "progress_question"
    """Asks how they are doing or whether an answer was good."""
    NO_MORE_QUESTIONS = "no_more_questions"
    """Says they have no (more) questions: closes a candidate-questions section."""
    OFF_LIMITS = "off_limits"
    """Asks about pay, headcount or other candidates."""
    UPSET = "upset"
    """Says they are frustrated, stressed or fed up with the interview, now."""


INVITATION = re.compile(
    r"\b(?:any|more|other|further) questions\b|\bquestions (?:for|about) (?:me|us|the)\b"
    r"|\b(?:like|want|wish) to (?:ask|know|add)\b|\banything (?:else|to add|more)\b"
    r"|\bwhat (?:else )?would you like to\b"
)
"""An interviewer turn that hands the floor to the candidate's own questions."""


def invites_questions(turn: str | None) -> bool:
    """Whether ``turn`` asks if the candidate has questions or anything to add."""
    if not turn:
        return False
    return any(s.is_question and INVITATION.search(s.core) for s in sentences(turn))


_PAY = r"(?:salary|salaries|compensation|equity|bonus|stock options|headcount|pay)"
PAY_TOPIC = (
    rf"\b(?:do|does|did|will|would|is|was) (?:the|your|this|our) {_PAY}\b|" + head_noun(
        rf"\b{_PAY}(?: (?:range|ranges|band|bands|package|expectations|details|levels?|split"
        r"|structure|scale))?"))
"""Pay and headcount as the head of their noun phrase ("the salary band", not "the salary
service"; after an inverted auxiliary the next word is the verb, "does the compensation
look"): one vocabulary for both sides, a candidate who asks sends a signal, an interviewer who
raises it breaks a guardrail."""
OTHER_CANDIDATES = (
    r"\b(?:ahead of|behind|than|compared (?:to|with)|against|versus) (?:the |all the )?other "
    r"candidates\b|\bother candidates (?:for|in) (?:this|the) (?:role|position|job|process)\b"
    r"|\bother candidates (?:are |is )?(?:you|we)(?:'re| are)? (?:talking to|interviewing|seeing"
    r"|considering|meeting)\b")
"""Other candidates *for this job*: a comparison or the hiring process, not Raft's candidates."""

_HELP = re.compile(
    head_noun(r"\b(?:hint|clue|tip|pointer|nudge|trick)s?") + r"(?! of\b)"
    r"|" + head_noun(r"\b(?:the|an?) (?:(?:right|correct|expected|best|ideal|real) )?answer")
    + r"|\bon the right track\b|\bin the right direction\b"
    r"|\b(?:would|should) you (?:do|use|choose|pick|go with|approach|start)\b"
    r"|\bshould (?:i|we) (?:use|do|choose|pick|go with|start|focus|consider|think about"
    r"|be (?:thinking|using|looking))\b"
    r"|\b(?:can|could|would) you (?:help|assist) (?:me|us)\b"
    r"(?! understand (?:what you|the question|what the question|what you're))"
)
"""What a hint request asks for: a hint, the answer, a direction, the interviewer's choice."""
_IMPERATIVE_HELP = re.compile(r"^(?:just )?(?:give|get|tell|show|point|help) (?:me|us)\b")
_NEED = re.compile(r"^(?:i|we) (?:really )?(?:need|could use|would like|'d like|want)\b")
_NEGATED = re.compile(r"\b(?:don't|do not|doesn't|never|no longer|won't)\b")
_FIRST_PERSON = re.compile(r"^(?:i|i'm|i've|i'd|i'll|my|me)\b")
_COMMITMENT = re.compile(r"\b(?:i'd|i would|i'll|i will|we'd|we would)\b")

_PROGRESS = re.compile(
    r"\bhow (?:am i|have i been) doing\b|\bhow did i do\b|\bhow'?s it going so far\b"
    r"|\b(?:was|is) (?:that|this|it|my answer) (?:an? )?(?:good|right|correct|ok|okay|fine"
    r"|acceptable|what you (?:were|are) looking for)\b|\bdid i (?:pass|get (?:it|that|this) right"
    r"|do (?:ok|okay|well|alright))\b|\bwhat(?:'s| is| was) my (?:score|grade|result)\b")
_UPSET = re.compile(
    r"\bi(?:'m| am) (?:(?:getting|feeling|so|really|a bit|very|quite|just|kind of) )*"
    r"(?:frustrated|annoyed|stressed|nervous|upset|angry|overwhelmed|anxious|panicking|blanking"
    r"|fed up)\b|\b(?:this|these)(?: whole)?(?: \w+)? (?:is|are|feels?|seems?)"
    r"(?: (?:so|really|just|completely|totally|a|an|like))* (?:ridiculous|stupid|pointless"
    r"|unfair|absurd|annoying|stressful|waste|trick)\b|\bi (?:hate|can't stand) (?:this|these)\b")
"""Present-tense distress or hostility about *this* interview: first person now ("I'm getting
frustrated") or a deictic verdict ("this is ridiculous"); a past or third-person story ("I was
frustrated with the old pipeline", "the customer was furious") is an answer, not a signal."""

_DECLARES_NONE = re.compile(
    r"^(?:(?:no|nope),? )?no (?:more |further |other )?questions\b"
    r"|^(?:i|we) (?:have|'ve got|have got|got) no (?:more |further |other )?questions\b"
    r"|^i (?:don't|do not) (?:have|think i have) any (?:more |further |other )?questions\b"
    r"|^i(?:'m| am) (?:done|finished) with (?:my )?questions\b"
    r"|^(?:none|nothing|no questions) (?:else )?from me\b|^that's all (?:from me|my questions)\b")
"""Saying outright that there are no (more) questions."""
_CLOSER = re.compile(
    r"(?:i think )?(?:no|nope|nah|not really|none|nothing(?: else| more)?|that's (?:all|it"
    r"|everything)|that covers it|all good|i(?:'m| am) (?:all set|good|fine|done)"
    r"|(?:thanks|thank you)(?: (?:so|very) much)?(?: for your time)?)")
"""Elliptical closers: a complete answer only to "any (more) questions?"."""


def _politeness(sentence: Sentence) -> bool:
    return bool(re.fullmatch(r"(?:thanks|thank you)(?: (?:so|very) much)?(?: for (?:your|the)"
                             r" time)?(?: again)?", sentence.core))


def _elliptical_closer(sentence: Sentence) -> bool:
    chunks = [c.strip() for c in sentence.core.split(",") if c.strip()]
    return bool(chunks) and all(_CLOSER.fullmatch(c) for c in chunks)


def _requests_help(reply: tuple[Sentence, ...]) -> bool:
    for i, s in enumerate(reply):
        if s.reports or not _HELP.search(s.core):
            continue
        asking = s.asks or _IMPERATIVE_HELP.match(s.core) or \
            (_NEED.match(s.core) and not _NEGATED.search(s.core))
        after = reply[i + 1:]
        # A question the speaker goes on to answer is rhetorical: what follows a real request
        # is the speaker's own state ("I'm stuck between..."), not a committed answer.
        genuine = all(_FIRST_PERSON.match(t.core) and not _COMMITMENT.search(t.core)
                      for t in after)
        if asking and genuine:
            return True
    return False


def _declares_done(reply: tuple[Sentence, ...], invited: bool) -> bool:
    for i, s in enumerate(reply):
        if s.is_question:
            continue
        if _DECLARES_NONE.match(s.core) or (invited and _elliptical_closer(s)):
            return not any(t.is_question for t in reply[i + 1:])
    return False


def detect_signals(reply: str, question: str | None = None) -> frozenset[Signal]:
    """Every signal present in one candidate reply (usually none).

    ``question`` is the interviewer turn the reply answers: an invitation to ask questions
    makes "That's all." a closing and rules out hint requests.
    """
    said = sentences(reply)
    invited = invites_questions(question)
    asked = [s for s in said if s.asks and not s.reports]
    found: set[Signal] = set()
    if not invited and _requests_help(said):
        found.add(Signal.HINT_REQUEST)
    if any(_PROGRESS.search(s.core) for s in asked):
        found.add(Signal.PROGRESS_QUESTION)
    if _declares_done(said, invited):
        found.add(Signal.NO_MORE_QUESTIONS)
    if any(re.search(PAY_TOPIC, s.core) or re.search(OTHER_CANDIDATES, s.core) for s in asked):
        found.add(Signal.OFF_LIMITS)
    if any(_UPSET.search(s.core) for s in said if not s.reports):
        found.add(Signal.UPSET)
    return frozenset(found)


HANDLING: dict[Signal, str] = {
    Signal.HINT_REQUEST: (
        "The candidate just asked for help. Give no hint, no approach and no answer; ask for "
        "their current thinking on the question instead."
    ),
    Signal.PROGRESS_QUESTION: (
        "The candidate asked how they are doing. Do not evaluate anything; say the team will "
        "follow up after the interview, then continue."
    ),
    Signal.OFF_LIMITS: (
        "The candidate raised a topic outside this interview (pay, headcount or other "
        "candidates). Say it is outside today's scope and continue."
    ),
}
"""Instruction added to the interviewer's prompt for the turn after a signal (the live
guardrails, :mod:`interviewsim.agent.live`, handle an upset candidate)."""
