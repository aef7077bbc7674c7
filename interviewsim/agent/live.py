"""Live guardrails: what the candidate just did changes what the interviewer does next.

The audit (:mod:`guardrails`) judges the interviewer after the fact; these checks act during
the interview. After every reply the code looks for three situations and, when one holds, the
next interviewer turn handles it instead of carrying on:

- **silence**: the reply has no words, or took at least ``silence_threshold_s`` and is shorter
  than a substantive answer. The interviewer offers time and another angle on the same
  question, never a hint.
- **upset**: the reply carries the :attr:`~Signal.UPSET` signal. The interviewer acknowledges
  it without judging and lets the candidate choose what to focus on.
- **drift**: in a section whose questions the model chooses, ``drift_max_exchanges``
  consecutive exchanges (question and answer together) shared no content term with the
  section's scope (its rubric areas, their signal questions, its plan questions). The
  interviewer is told to bring the conversation back to the section's goal. Sections that
  ask plan questions or follow-ups are on the plan by construction.

Upset comes before silence, silence before drift, and any of them before a pending follow-up
(a distressed candidate is not probed). In a model section the instruction goes into the
interviewer's prompt, with the fixed line below as its fallback; in a plan or follow-up
section the fixed line is said directly.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.plan import InterviewPlan, StateConfig
from interviewsim.agent.signals import Signal
from interviewsim.text.coverage import terms
from interviewsim.text.speech import count_words


class LiveEvent(StrEnum):
    SILENCE = "silence"
    UPSET = "upset"
    DRIFT = "drift"


LINES: dict[LiveEvent, str] = {
    LiveEvent.SILENCE: "Take your time. Would it help to approach it from a different angle?",
    LiveEvent.UPSET: ("Let's take a breath; this is a difficult topic. Which part of it would you "
                      "like to focus on?"),
}
"""What the interviewer says when it has no model turn for the situation."""


class LiveAction(BaseModel):
    """One live guardrail that fired after a reply, and what the next turn must do."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int
    """The turn of the reply that triggered it."""
    state: str
    event: LiveEvent
    instruction: str
    """Added to the interviewer's prompt for the next turn."""
    line: str | None
    """Said directly in a plan or follow-up section, and the model's fallback elsewhere."""
    detail: str
    """Why it fired (seconds of silence, exchanges off the plan)."""


def section_scope(plan: InterviewPlan, state: StateConfig) -> frozenset[str]:
    """Content terms of what a section is about: its areas, their signal questions, its
    questions."""
    areas = [a for a in plan.rubric if a.id in state.rubric_areas]
    texts = [*state.questions, *(a.description for a in areas),
             *(q for a in areas for q in a.signal_questions)]
    return frozenset().union(*(terms(t) for t in texts)) if texts else frozenset()


class LiveGuard:
    """Decides, after each reply, whether the next turn must handle silence, upset or drift."""

    def __init__(self, plan: InterviewPlan, silence_threshold_s: float, min_words: int,
                 drift_max_exchanges: int):
        self.plan = plan
        self.silence_threshold_s = silence_threshold_s
        self.min_words = min_words
        self.drift_max_exchanges = drift_max_exchanges
        self.off_plan = 0
        self.section: str | None = None

    def after_reply(self, turn: int, state: StateConfig, question: str, reply: str,
                    duration_s: float | None, valid: bool,
                    signals: frozenset[Signal]) -> LiveAction | None:
        if state.name != self.section:
            self.section, self.off_plan = state.name, 0
        words = count_words(reply)
        if Signal.UPSET in signals:
            return self._action(turn, state, LiveEvent.UPSET, "the reply says so", (
                "The candidate sounds frustrated or upset. Acknowledge it in one short, neutral "
                "sentence (it is a difficult topic), do not judge or reassure about their "
                "performance, then ask which part they would like to focus on."))
        timed_out = duration_s is not None and duration_s >= self.silence_threshold_s
        if valid and (words == 0 or (timed_out and words < self.min_words)):
            detail = f"{words} words" + ("" if duration_s is None else f" in {duration_s:.0f} s")
            return self._action(turn, state, LiveEvent.SILENCE, detail, (
                "The candidate has not answered. Do not move on and give no hint: tell them to "
                "take their time and offer to approach the same question from another angle."))
        return self._drift(turn, state, question, reply)

    def _drift(self, turn: int, state: StateConfig, question: str,
               reply: str) -> LiveAction | None:
        scope = section_scope(self.plan, state)
        if state.question_source != "model" or not scope:
            return None
        on_plan = bool((terms(question) | terms(reply)) & scope)
        self.off_plan = 0 if on_plan else self.off_plan + 1
        if self.off_plan < self.drift_max_exchanges:
            return None
        self.off_plan = 0
        return self._action(turn, state, LiveEvent.DRIFT,
                            f"{self.drift_max_exchanges} exchanges off the section's scope", (
                                "The last exchanges strayed from this section. Briefly bring "
                                f"the conversation back to its goal: {state.entry_instruction}"))

    @staticmethod
    def _action(turn: int, state: StateConfig, event: LiveEvent, detail: str,
                instruction: str) -> LiveAction:
        return LiveAction(turn=turn, state=state.name, event=event, instruction=instruction,
                          line=LINES.get(event), detail=detail)
