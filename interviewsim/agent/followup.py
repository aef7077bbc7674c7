"""Follow-ups: the generator that writes them and the check that they use the candidate's words.

"Can you tell me more?" probes nothing; "You said the kiln ran nine hours: why nine?" probes
what was said. :class:`FollowupGenerator` is a separate model call that turns a flag (the
evaluator's or the interviewer's) into one question about the flagged words; whether a
follow-up does that is checked lexically, without a model: it must share content terms
(stopwords removed, see :func:`interviewsim.text.coverage.terms`) with the answer it follows up.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.guardrails import GuardrailAuditor
from interviewsim.agent.prompts import FOLLOWUP, followup_request
from interviewsim.agent.scoring import Flag
from interviewsim.errors import ParseError
from interviewsim.llm import ModelClient
from interviewsim.llm.contract_json import parse_contract_object, require_text
from interviewsim.llm.types import CallRecord, Message, OutputConstraint
from interviewsim.text.coverage import terms
from interviewsim.text.discourse import question_count

GENERIC_TERMS = frozenset({
    "tell", "say", "said", "mention", "mentioned", "talk", "talked", "explain", "describe",
    "think", "thought", "like", "know", "walk", "yes", "okay", "ok", "really", "something",
    "thing", "things", "bit", "little", "lot", "more", "much",
})
"""Words a generic probe uses whatever the answer was; sharing only these proves nothing."""


class FollowupCheck(BaseModel):
    """Whether one follow-up references the answer it follows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shared_terms: list[str]
    """Content terms of the follow-up that also occur in the answer, sorted."""
    required: int
    """How many shared terms the check requires."""

    @property
    def passed(self) -> bool:
        return len(self.shared_terms) >= self.required


def check_followup(followup: str, answer: str, min_shared_terms: int = 1) -> FollowupCheck:
    """Shared content terms between a follow-up and the answer it follows up."""
    shared = (terms(followup) & terms(answer)) - GENERIC_TERMS
    return FollowupCheck(shared_terms=sorted(shared), required=min_shared_terms)


FOLLOWUP_SCHEMA = {
    "type": "object",
    "properties": {"question": {"type": "string", "maxLength": 300}},
    "required": ["question"],
    "additionalProperties": False,
}


class GeneratedFollowup(BaseModel):
    """One run of the follow-up generator for one flag: the question, or why there is none."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    """The turn the follow-up was generated for."""
    flag_id: int
    question: str | None
    """None when every attempt failed a check; the interviewer model then takes the turn."""
    rejections: list[str]
    """Why each rejected attempt failed (unreadable, not one question, no candidate words,
    broke a guardrail)."""
    calls: list[CallRecord]


class FollowupGenerator:
    """A model call of its own that turns a flag into a question about the candidate's words.

    The output is checked by code before anyone hears it: one JSON object, exactly one
    question (:func:`~interviewsim.text.discourse.question_count`), at least
    ``min_shared_terms`` content terms of the flagged answer (:func:`check_followup`), and a
    clean guardrail audit (no hint, praise or verdict). A failed check is re-asked with the
    next sample index, up to ``max_attempts``.
    """

    def __init__(self, client: ModelClient, max_attempts: int, min_shared_terms: int,
                 auditor: GuardrailAuditor):
        self.client = client
        self.max_attempts = max_attempts
        self.min_shared_terms = min_shared_terms
        self.auditor = auditor

    def generate(self, turn: int, flag: Flag, question: str, answer: str) -> GeneratedFollowup:
        messages = [Message(role="system", content=FOLLOWUP),
                    Message(role="user", content=followup_request(
                        question, answer, flag.flag_type, flag.answer_excerpt))]
        constraint = OutputConstraint(kind="json_schema", name="followup",
                                      json_schema=FOLLOWUP_SCHEMA) \
            if self.client.supports_json_schema else None
        record = GeneratedFollowup(turn=turn, flag_id=flag.flag_id, question=None,
                                   rejections=[], calls=[])
        for attempt in range(self.max_attempts):
            request = self.client.request(messages, constraint, sample_index=attempt)
            result = self.client.complete(request)
            record.calls.append(CallRecord.of(request, result))
            problem, text = self._check(result.text, answer)
            if problem is None:
                record.question = text
                return record
            record.rejections.append(problem)
        return record

    def _check(self, output: str, answer: str) -> tuple[str | None, str]:
        try:
            text = require_text(parse_contract_object(output, ("question",))["question"],
                                "question").strip()
        except ParseError as exc:
            return f"unreadable: {exc}", ""
        if question_count(text) != 1:
            return f"not exactly one question ({question_count(text)})", text
        if not check_followup(text, answer, self.min_shared_terms).passed:
            return "uses none of the candidate's words", text
        broken = [v.rule.value for v in self.auditor.audit(0, "", text).violations]
        if broken:
            return f"breaks guardrail(s): {', '.join(broken)}", text
        return None, text
