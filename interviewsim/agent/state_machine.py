"""The code-owned interview state machine: where the interview is and when it moves on.

The model never moves the state. After every answer the machine checks, in order: the session
budget (jump to the closing state), the section's exit conditions with its question minimum
(go to ``next``), and the section's budget (go to ``fallback``). The interviewer may *request* a
transition through the ``transition_section`` tool; :meth:`StateMachine.refusal` decides whether
that request is legal. On entering a section whose exit conditions already hold and that needs
no questions (follow-ups with nothing queued), the machine moves straight on.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.plan import InterviewPlan, StateConfig
from interviewsim.text.discourse import is_question


class Transition(BaseModel):
    """One entry of the state history."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    from_state: str | None
    to_state: str
    reason: str
    """``start``, ``exit_conditions``, ``budget``, ``session_budget``, ``nothing_to_do``,
    ``requested`` (an accepted tool call) or ``candidate_left``."""
    turn: int
    """Turns completed when the transition happened."""
    minute: float
    questions_in_state: int
    turns_in_state: int


@dataclass(frozen=True)
class Facts:
    """What the session knows that exit conditions depend on."""

    plan_questions_left: int = 0
    open_flags: int = 0
    unscored_required_areas: int = 0
    candidate_done: bool = False


class StateMachine:
    """Current section, its counters and the history of every transition."""

    def __init__(self, plan: InterviewPlan):
        self.plan = plan
        self.current: str = plan.states[0].name
        self.history: list[Transition] = []
        self.entered: list[str] = [self.current]
        self.turns_in_state = 0
        self.questions_in_state = 0
        self.entered_minute = 0.0
        self.history.append(Transition(from_state=None, to_state=self.current, reason="start",
                                       turn=0, minute=0.0, questions_in_state=0,
                                       turns_in_state=0))

    @property
    def state(self) -> StateConfig:
        return self.plan.state(self.current)

    @property
    def complete(self) -> bool:
        return self.current == self.plan.terminal_state

    def record_turn(self, utterance: str) -> None:
        """Count one interviewer turn; it is a question when it asks or requests an answer
        ("Why nine?", and equally "Tell me about a time you..." or "Walk me through...")."""
        self.turns_in_state += 1
        if is_question(utterance):
            self.questions_in_state += 1

    def conditions_met(self, facts: Facts) -> bool:
        state = self.state
        checks = {
            "turn_taken": self.turns_in_state > 0,
            "plan_questions_asked": facts.plan_questions_left == 0,
            "flags_resolved": facts.open_flags == 0,
            "rubric_areas_scored": facts.unscored_required_areas == 0,
            "candidate_done": facts.candidate_done,
        }
        return all(checks[c] for c in state.exit_conditions) and \
            self.questions_in_state >= state.min_questions

    def budget_spent(self, minute: float) -> bool:
        state = self.state
        if self.turns_in_state >= state.turn_budget():
            return True
        return state.max_minutes is not None and minute - self.entered_minute >= state.max_minutes

    def transition(self, to_state: str, reason: str, turn: int, minute: float) -> Transition:
        step = Transition(from_state=self.current, to_state=to_state, reason=reason, turn=turn,
                          minute=round(minute, 3), questions_in_state=self.questions_in_state,
                          turns_in_state=self.turns_in_state)
        self.history.append(step)
        self.current = to_state
        self.entered.append(to_state)
        self.turns_in_state = 0
        self.questions_in_state = 0
        self.entered_minute = minute
        return step

    def after_answer(self, facts: Facts, turn: int, minute: float,
                     session_spent: bool) -> Transition | None:
        """The transition (if any) that the latest answer triggers."""
        if self.complete:
            return None
        closing = self.plan.closing_state
        if session_spent and self.plan.index(self.current) < self.plan.index(closing):
            return self.transition(closing, "session_budget", turn, minute)
        if self.conditions_met(facts):
            return self.transition(self.plan.next_of(self.current), "exit_conditions", turn,
                                   minute)
        if self.budget_spent(minute):
            return self.transition(self.plan.fallback_of(self.current), "budget", turn, minute)
        return None

    def skip_if_done(self, facts: Facts, turn: int, minute: float) -> Transition | None:
        """On entry: leave a section that has nothing to do (conditions hold, no minimum)."""
        if self.complete or self.turns_in_state or self.state.min_questions:
            return None
        if "turn_taken" in self.state.exit_conditions or not self.conditions_met(facts):
            return None
        return self.transition(self.plan.next_of(self.current), "nothing_to_do", turn, minute)

    def allowed_targets(self) -> list[str]:
        if self.complete:
            return []
        return list(dict.fromkeys([self.plan.next_of(self.current),
                                   self.plan.fallback_of(self.current)]))

    def refusal(self, from_state: str, to_state: str) -> str | None:
        """Why a requested transition is illegal, or None when it may happen."""
        if from_state != self.current:
            return f"the current section is {self.current}, not {from_state}"
        targets = self.allowed_targets()
        if to_state not in targets:
            return f"{to_state} cannot follow {self.current}; allowed: {', '.join(targets)}"
        needed = self.state.min_questions
        if self.questions_in_state < needed:
            return (f"{self.current} needs {needed} question(s) before it ends; "
                    f"{self.questions_in_state} asked so far")
        return None

    def coverage(self) -> float:
        """Share of the plan's sections that were entered (the terminal state excluded)."""
        entered = {s for s in self.entered if s != self.plan.terminal_state}
        return len(entered) / len(self.plan.states)
