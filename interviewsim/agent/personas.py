"""The persona manager: three personas, one shared session context, compact hand-overs.

Switching persona never switches context. The interviewer, the evaluator and the coach read
and write one :class:`SessionContext` (questions, answers, sections, topics, scores, flags);
what a newly active persona receives is a compact summary of it rendered into its system
prompt, not the whole transcript. The summary differs by persona on purpose: the interviewer
sees how the candidate is doing only as a qualitative level, never as numbers it could
repeat, and the evaluator sees no summary at all, so every answer is scored on its own and a
twin's answer is scored exactly like the real person's answer to the same question.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean
from typing import Literal

from pydantic import BaseModel, ConfigDict

from interviewsim.agent import prompts
from interviewsim.agent.plan import InterviewPlan, StateConfig
from interviewsim.agent.scoring import AnswerScore, Flag

Persona = Literal["interviewer", "evaluator", "coach"]
PERSONA_TOOLS: dict[str, tuple[str, ...]] = {
    # Order matters to a small model: it tends to pick the first action of the menu and
    # the schema, so the evaluator sees score_answer (short, bounded) before flag_followup.
    "interviewer": ("say", "transition_section", "flag_followup"),
    "evaluator": ("score_answer", "flag_followup"),
    "coach": (),
}


class PersonaSwitch(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int
    from_persona: str | None
    to_persona: str
    summary_chars: int
    """Size of the summary handed to the new persona (0 when there was nothing to hand over)."""


@dataclass
class SessionContext:
    """What every persona shares; survives every switch."""

    questions_asked: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    sections_covered: list[str] = field(default_factory=list)
    topics_covered: list[str] = field(default_factory=list)
    scores: list[AnswerScore] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)

    def add_score(self, score: AnswerScore) -> None:
        self.scores.append(score)
        if score.rubric_area not in self.topics_covered:
            self.topics_covered.append(score.rubric_area)

    def open_flags(self) -> list[Flag]:
        return [f for f in self.flags if not f.resolved]

    def level(self) -> str | None:
        """A qualitative reading of the scores so far, for difficulty calibration."""
        if not self.scores:
            return None
        mean = fmean(s.composite for s in self.scores)
        return "strong" if mean >= 7 else "mixed" if mean >= 4.5 else "struggling"


@dataclass(frozen=True)
class Situation:
    """Where the session stands when a persona is prompted."""

    state: StateConfig
    turns_left: int
    minutes_left: float | None = None
    memory_summary: str = ""
    instructions: tuple[str, ...] = ()


class PersonaManager:
    """Renders each persona's system prompt from the plan and the shared context."""

    def __init__(self, plan: InterviewPlan):
        self.plan = plan
        self.context = SessionContext()
        self.active: str | None = None
        self.switches: list[PersonaSwitch] = []

    def activate(self, persona: Persona, turn: int, summary: str) -> None:
        """Record a hand-over when ``persona`` differs from the active one."""
        if persona != self.active:
            self.switches.append(PersonaSwitch(turn=turn, from_persona=self.active,
                                               to_persona=persona, summary_chars=len(summary)))
            self.active = persona

    def compact_summary(self, persona: Persona, memory_summary: str = "") -> str:
        """The hand-over: counts, the last question, coverage, open flags, earlier turns."""
        ctx = self.context
        lines: list[str] = []
        if ctx.questions_asked:
            lines.append(f"Questions asked so far: {len(ctx.questions_asked)}; "
                         f"last: {ctx.questions_asked[-1]}")
        if ctx.sections_covered:
            lines.append(f"Sections so far: {', '.join(ctx.sections_covered)}")
        if ctx.topics_covered and persona == "coach":
            lines.append(f"Topics with evidence: {', '.join(ctx.topics_covered)}")
        if persona == "coach" and ctx.scores:
            lines.append(f"Average composite so far: {fmean(s.composite for s in ctx.scores):.1f}"
                         "/10")
        level = ctx.level()
        if persona == "interviewer" and level is not None:
            lines.append(f"Candidate so far: {level}")
        open_flags = ctx.open_flags()
        if open_flags and persona == "interviewer":
            lines.append("Open follow-ups: " + "; ".join(
                f"\"{f.answer_excerpt}\" ({f.flag_type})" for f in open_flags[-3:]))
        if memory_summary:
            lines.append(f"Earlier in this interview:\n{memory_summary}")
        return "\n".join(lines)

    def interviewer_prompt(self, situation: Situation) -> str:
        state = situation.state
        summary = self.compact_summary("interviewer", situation.memory_summary)
        minutes = "" if situation.minutes_left is None else \
            f" and about {max(situation.minutes_left, 0):.0f} more minute(s)"
        areas = [a for a in self.plan.rubric if a.id in state.rubric_areas] or self.plan.rubric
        instructions = "".join(f"\nNow: {text}" for text in situation.instructions)
        return prompts.INTERVIEWER.format(
            title=self.plan.title,
            total_minutes=self.plan.total_minutes,
            section=state.name,
            section_number=self.plan.index(state.name) + 1,
            section_count=len(self.plan.states),
            turns_left=situation.turns_left,
            minutes_note=minutes,
            instruction=state.entry_instruction,
            areas=prompts.rubric_lines(areas, with_ids=False),
            summary=f"\nSession summary:\n{summary}\n" if summary else "",
            instructions=instructions + ("\n" if instructions else ""),
            menu=prompts.action_menu(PERSONA_TOOLS["interviewer"]),
        )

    def evaluator_prompt(self) -> str:
        return prompts.EVALUATOR.format(
            title=self.plan.title,
            rubric=prompts.rubric_lines(self.plan.rubric, with_ids=True),
            menu=prompts.action_menu(PERSONA_TOOLS["evaluator"]),
        )

    def coach_prompt(self) -> str:
        summary = self.compact_summary("coach")
        return prompts.COACH.format(summary=f"\nSession so far:\n{summary}\n" if summary else "")
