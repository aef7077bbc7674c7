"""What a candidate's reply asks of the interviewer, detected by code rather than by the model.

Edge cases ("can I get a hint?", "how am I doing?") are where a model interviewer fails most,
so the code recognises them, tells the interviewer persona how to handle them, does not score
them as answers, and audits the interviewer's next turn against the matching rule.
"""

from __future__ import annotations

import re
from enum import StrEnum


class Signal(StrEnum):
    HINT_REQUEST = "hint_request"
    """Asks for a hint, the right answer or whether they are on the right track."""
    PROGRESS_QUESTION = "progress_question"
    """Asks how they are doing or whether an answer was good."""
    NO_MORE_QUESTIONS = "no_more_questions"
    """Says they have no (more) questions: closes a candidate-questions section."""
    OFF_LIMITS = "off_limits"
    """Asks about pay, headcount or other candidates."""


OFF_LIMITS_TOPICS = (
    r"\b(?:salary|compensation|pay (?:range|band)|equity|headcount|other candidates?)\b")
"""Topics outside an interview's scope, one vocabulary for both sides: a candidate who raises
one sends a signal; an interviewer who raises one breaks a guardrail."""

_PATTERNS: dict[Signal, re.Pattern[str]] = {
    Signal.HINT_REQUEST: re.compile(
        r"\b(?:(?:give|get|have|need|use) (?:me )?(?:a |some |any )?(?:hint|clue|tip|pointer)s?"
        r"|hint\?|what(?:'s| is) the (?:right|correct|expected) answer"
        r"|(?:am i|i'm) on the right track|point me in the right direction"
        r"|what (?:would|should) you (?:do|use)|can you help me)\b",
        re.IGNORECASE,
    ),
    Signal.PROGRESS_QUESTION: re.compile(
        r"\b(?:how am i doing|how did i do|how'?s it going so far|was that (?:a )?(?:good|right"
        r"|correct|ok(?:ay)?)(?: answer)?|did i (?:pass|get (?:it|that) right)|what(?:'s| is) my "
        r"score)\b",
        re.IGNORECASE,
    ),
    Signal.NO_MORE_QUESTIONS: re.compile(
        r"\b(?:no(?:,)? (?:more |further |other )?questions|nothing (?:else|more)|i'?m all set"
        r"|that'?s all(?: from me)?|i don'?t have (?:any )?(?:more |further |other )?questions)\b",
        re.IGNORECASE,
    ),
    Signal.OFF_LIMITS: re.compile(OFF_LIMITS_TOPICS, re.IGNORECASE),
}


def detect_signals(reply: str) -> frozenset[Signal]:
    """Every signal present in one candidate reply (usually none)."""
    text = reply.replace("’", "'")
    return frozenset(signal for signal, pattern in _PATTERNS.items() if pattern.search(text))


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
"""Instruction added to the interviewer's prompt for the turn after a signal."""
