"""The coach persona: feedback on one answer as "what worked, what to improve, how".

The coach is handed the deterministic speech analysis (fillers, hedges, pace, confidence) and
the code's verdict on the answer's length (measured, or estimated from its words: too short
under ``coach_short_answer_s``, too long over ``coach_long_answer_s``) with the answer, so its
remarks on delivery rest on numbers the candidate can check. Besides the three feedback fields
it rates the answer 1-10 on its topic, says what would move that up and names one thing to
study; :func:`topic_scores` averages the ratings per topic. Its output is one JSON object with
exactly those six fields; anything else is re-asked, then recorded as invalid with the parse
error.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from interviewsim.agent.prompts import coach_request
from interviewsim.errors import ParseError
from interviewsim.llm import ModelClient
from interviewsim.llm.contract_json import parse_contract_object, require_text
from interviewsim.llm.types import CallRecord, Message, OutputConstraint
from interviewsim.text.speech import SpeechAnalysis

TEXT_FIELDS = ("what_worked", "what_to_improve", "how_to_improve", "to_raise_score", "study")
FIELDS = ("what_worked", "what_to_improve", "how_to_improve", "score", "to_raise_score", "study")
FEEDBACK_SCHEMA = {
    "type": "object",
    "properties": {name: ({"type": "integer", "enum": list(range(1, 11))} if name == "score"
                          else {"type": "string", "maxLength": 400}) for name in FIELDS},
    "required": list(FIELDS),
    "additionalProperties": False,
}


class Feedback(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    what_worked: str
    what_to_improve: str
    how_to_improve: str
    score: int = Field(ge=1, le=10)
    """The coach's 1-10 rating of the answer on its topic (practice feedback, not the
    evaluator's score)."""
    to_raise_score: str
    """What would move that score up."""
    study: str
    """One specific thing to study or practise."""

    def render(self) -> str:
        return (f"What worked: {self.what_worked}\nWhat to improve: {self.what_to_improve}\n"
                f"How: {self.how_to_improve}\nThis answer: {self.score}/10; to move it up: "
                f"{self.to_raise_score}\nStudy: {self.study}")


class AnswerLength(BaseModel):
    """How long an answer took, judged against the coach's thresholds by code."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seconds: float
    estimated: bool
    """True when no duration was measured and the time is the words at a speaking pace."""
    verdict: Literal["too_short", "ok", "too_long"]

    def describe(self, short_s: float, long_s: float) -> str:
        how = "estimated from its words" if self.estimated else "measured"
        text = f"about {self.seconds:.0f} s ({how})"
        if self.verdict == "too_short":
            return f"{text}, too short: under {short_s:.0f} s, expand on the reasoning"
        if self.verdict == "too_long":
            return f"{text}, too long: over {long_s:.0f} s, practise a 90-second version"
        return f"{text}, a good length"


def answer_length(analysis: SpeechAnalysis, words_per_minute: float, short_s: float,
                  long_s: float) -> AnswerLength:
    """The answer's duration (measured, else its words at ``words_per_minute``) and verdict."""
    measured = analysis.duration_s is not None and analysis.duration_s > 0
    seconds = analysis.duration_s if measured else analysis.words / words_per_minute * 60
    verdict = "too_short" if seconds < short_s else "too_long" if seconds > long_s else "ok"
    return AnswerLength(seconds=round(seconds, 1), estimated=not measured, verdict=verdict)


class CoachNote(BaseModel):
    """The coach's record for one answer (``feedback`` None when every attempt was invalid)."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    topic: str
    """The rubric area the evaluator scored the answer in, else the section."""
    question: str
    answer: str
    analysis: SpeechAnalysis
    length: AnswerLength
    feedback: Feedback | None
    error: str | None
    calls: list[CallRecord]


def parse_feedback(text: str) -> Feedback:
    value = parse_contract_object(text, FIELDS)
    score = value["score"]
    if not isinstance(score, int) or isinstance(score, bool) or not 1 <= score <= 10:
        raise ParseError(f"score must be an integer from 1 to 10, got {score!r}")
    return Feedback(score=score, **{name: require_text(value[name], name).strip()
                                    for name in TEXT_FIELDS})


def describe(analysis: SpeechAnalysis, length: str = "") -> str:
    parts = [f"{analysis.words} words"]
    if analysis.filler_count:
        parts.append(f"{analysis.filler_count} filler(s): {', '.join(analysis.fillers)}")
    if analysis.hedge_count:
        parts.append(f"{analysis.hedge_count} hedge(s): {', '.join(analysis.hedges)}")
    if analysis.words_per_minute is not None:
        parts.append(f"{analysis.words_per_minute:.0f} words per minute")
    parts.append(f"confidence {analysis.confidence:.2f} of 1")
    if length:
        parts.append(f"length {length}")
    return "; ".join(parts)


class TopicScore(BaseModel):
    """The coach's rating of one topic: the mean of its answers' 1-10 scores."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    topic: str
    answers: int
    score: float
    to_raise_score: str
    """The latest advice on what would move it up."""
    study: list[str]
    """Every distinct study suggestion on the topic, in order."""

    def render(self) -> str:
        return (f"{self.topic.replace('_', ' ')}: {self.score:.1f}/10 over {self.answers} "
                f"answer(s). To move it up: {self.to_raise_score} Study: "
                f"{'; '.join(self.study)}")


def topic_scores(notes: Sequence[CoachNote]) -> list[TopicScore]:
    """Per topic (first-seen order), over the notes with valid feedback."""
    by_topic: dict[str, list[Feedback]] = {}
    for note in notes:
        if note.feedback is not None:
            by_topic.setdefault(note.topic, []).append(note.feedback)
    return [TopicScore(topic=topic, answers=len(items),
                       score=round(fmean(f.score for f in items), 2),
                       to_raise_score=items[-1].to_raise_score,
                       study=list(dict.fromkeys(f.study for f in items)))
            for topic, items in by_topic.items()]


class Coach:
    def __init__(self, client: ModelClient, max_attempts: int, words_per_minute: float = 150.0,
                 short_s: float = 45.0, long_s: float = 180.0):
        self.client = client
        self.max_attempts = max_attempts
        self.words_per_minute = words_per_minute
        self.short_s = short_s
        self.long_s = long_s

    def advise(self, system: str, turn: int, topic: str, question: str, answer: str,
               analysis: SpeechAnalysis) -> CoachNote:
        length = answer_length(analysis, self.words_per_minute, self.short_s, self.long_s)
        request_text = coach_request(question, answer, describe(
            analysis, length.describe(self.short_s, self.long_s)))
        messages = [Message(role="system", content=system),
                    Message(role="user", content=request_text)]
        constraint = OutputConstraint(kind="json_schema", name="feedback",
                                      json_schema=FEEDBACK_SCHEMA) \
            if self.client.supports_json_schema else None
        calls: list[CallRecord] = []
        error: str | None = None
        note = {"turn": turn, "topic": topic, "question": question, "answer": answer,
                "analysis": analysis, "length": length}
        for attempt in range(self.max_attempts):
            request = self.client.request(messages, constraint, sample_index=attempt)
            result = self.client.complete(request)
            calls.append(CallRecord.of(request, result))
            try:
                feedback = parse_feedback(result.text)
            except ParseError as exc:
                error = str(exc)
                continue
            return CoachNote(**note, feedback=feedback, error=None, calls=calls)
        return CoachNote(**note, feedback=None, error=error, calls=calls)
