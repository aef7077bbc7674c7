"""The coach persona: feedback on one answer as "what worked, what to improve, how".

The coach is handed the deterministic speech analysis (fillers, hedges, pace, confidence)
with the answer, so its remarks on delivery rest on counts the candidate can check. Its output
is one JSON object with exactly three non-blank fields; anything else is re-asked, then
recorded as invalid with the parse error.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.prompts import coach_request
from interviewsim.data.records import CallRecord
from interviewsim.errors import ParseError
from interviewsim.llm import ModelClient
from interviewsim.llm.contract_json import parse_contract_object, require_text
from interviewsim.llm.types import Message, OutputConstraint
from interviewsim.text.speech import SpeechAnalysis

FIELDS = ("what_worked", "what_to_improve", "how_to_improve")
FEEDBACK_SCHEMA = {
    "type": "object",
    "properties": {name: {"type": "string"} for name in FIELDS},
    "required": list(FIELDS),
    "additionalProperties": False,
}


class Feedback(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    what_worked: str
    what_to_improve: str
    how_to_improve: str

    def render(self) -> str:
        return (f"What worked: {self.what_worked}\nWhat to improve: {self.what_to_improve}\n"
                f"How: {self.how_to_improve}")


class CoachNote(BaseModel):
    """The coach's record for one answer (``feedback`` None when every attempt was invalid)."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    question: str
    answer: str
    analysis: SpeechAnalysis
    feedback: Feedback | None
    error: str | None
    calls: list[CallRecord]


def parse_feedback(text: str) -> Feedback:
    value = parse_contract_object(text, FIELDS)
    return Feedback(**{name: require_text(value[name], name).strip() for name in FIELDS})


def describe(analysis: SpeechAnalysis) -> str:
    parts = [f"{analysis.words} words"]
    if analysis.filler_count:
        parts.append(f"{analysis.filler_count} filler(s): {', '.join(analysis.fillers)}")
    if analysis.hedge_count:
        parts.append(f"{analysis.hedge_count} hedge(s): {', '.join(analysis.hedges)}")
    if analysis.words_per_minute is not None:
        parts.append(f"{analysis.words_per_minute:.0f} words per minute")
    parts.append(f"confidence {analysis.confidence:.2f} of 1")
    return "; ".join(parts)


class Coach:
    def __init__(self, client: ModelClient, max_attempts: int):
        self.client = client
        self.max_attempts = max_attempts

    def advise(self, system: str, turn: int, question: str, answer: str,
               analysis: SpeechAnalysis) -> CoachNote:
        messages = [Message(role="system", content=system),
                    Message(role="user", content=coach_request(question, answer,
                                                               describe(analysis)))]
        constraint = OutputConstraint(kind="json_schema", name="feedback",
                                      json_schema=FEEDBACK_SCHEMA) \
            if self.client.supports_json_schema else None
        calls: list[CallRecord] = []
        error: str | None = None
        for attempt in range(self.max_attempts):
            request = self.client.request(messages, constraint, sample_index=attempt)
            result = self.client.complete(request)
            calls.append(CallRecord.of(request, result))
            try:
                feedback = parse_feedback(result.text)
            except ParseError as exc:
                error = str(exc)
                continue
            return CoachNote(turn=turn, question=question, answer=answer, analysis=analysis,
                             feedback=feedback, error=None, calls=calls)
        return CoachNote(turn=turn, question=question, answer=answer, analysis=analysis,
                         feedback=None, error=error, calls=calls)
