"""The evaluator persona: scores one answer at a time, silently, through its two tools.

An assessment is a short action loop: an optional ``flag_followup``, closed by an accepted
``score_answer``. The evaluator sees the question and the answer and nothing else of the
session, so the same call scores a twin's answer inside an interview and the real person's
answer to the same question outside it (the fidelity gap compares exactly these).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from interviewsim.agent.actions import ToolLogEntry, ask_action, feedback, rejection
from interviewsim.agent.personas import PERSONA_TOOLS, PersonaManager
from interviewsim.agent.plan import InterviewPlan
from interviewsim.agent.prompts import evaluator_request
from interviewsim.agent.scoring import AnswerScore
from interviewsim.agent.tools import FlagFollowupArgs, ScoreAnswerArgs, ToolContext
from interviewsim.llm import ModelClient
from interviewsim.llm.types import Message


@dataclass
class Assessment:
    """What one assessment produced: a score (None when every attempt failed) and flags."""

    score: AnswerScore | None
    flags: list[FlagFollowupArgs] = field(default_factory=list)
    log: list[ToolLogEntry] = field(default_factory=list)


class Evaluator:
    """Scores answers against a plan's rubric with one model client."""

    def __init__(self, client: ModelClient, plan: InterviewPlan, max_calls: int):
        self.client = client
        self.plan = plan
        self.max_calls = max_calls
        self.system = PersonaManager(plan).evaluator_prompt()
        self.enums = {"rubric_area": plan.area_ids()}

    def assess(self, turn: int, state: str, question: str, answer: str) -> Assessment:
        """Up to ``max_calls`` actions; the first accepted score ends the assessment.

        Only the first output may flag; every later one is offered (and allowed) nothing but
        the closing ``score_answer``, so a model that keeps flagging still ends up scoring.
        """
        first = ToolContext(persona="evaluator", allowed=PERSONA_TOOLS["evaluator"],
                            rubric_areas=tuple(self.plan.area_ids()), answer=answer)
        closing = dataclasses.replace(first, allowed=("score_answer",))
        messages = [Message(role="system", content=self.system),
                    Message(role="user", content=evaluator_request(state, question, answer))]
        assessment = Assessment(score=None)
        for attempt in range(self.max_calls):
            context = first if attempt == 0 else closing
            verdict, entry = ask_action(self.client, messages, context, self.enums,
                                        (turn, state))
            assessment.log.append(entry)
            if verdict is None or not verdict.accepted:
                messages += feedback(entry.call.raw, rejection(entry))
                continue
            args = verdict.arguments
            if isinstance(args, ScoreAnswerArgs):
                assessment.score = AnswerScore(turn=turn, state=state, question=question,
                                               **args.model_dump())
                return assessment
            if isinstance(args, FlagFollowupArgs):
                assessment.flags.append(args)
                messages += feedback(entry.call.raw, {"status": "flagged",
                                                      "next": "call score_answer"})
        return assessment
