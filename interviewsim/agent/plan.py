"""Interview plans as configuration: the states, their budgets and the rubric, read from YAML.

A plan is data, not code branches: the technical and the personality interview are two YAML
files run by the same state machine. Loading validates what the machine relies on, so a bad
plan fails at start-up rather than mid-interview: unknown keys, unknown exit conditions, and
``next``/``fallback`` targets that are not *later* states. The last rule is what guarantees an
interview terminates: every transition moves forward and every state has a turn budget.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from interviewsim.agent.config import AGENT_DATA_DIR
from interviewsim.errors import ConfigError, Problem, validation_problems

PLANS_DIR = AGENT_DATA_DIR / "plans"
"""Where ``--plan NAME`` looks for ``NAME.yaml`` (the repository's, from any directory)."""

ExitCondition = Literal[
    "turn_taken",
    "plan_questions_asked",
    "flags_resolved",
    "rubric_areas_scored",
    "candidate_done",
]
"""Conditions the code can decide by itself (see :mod:`interviewsim.agent.state_machine`)."""

QuestionSource = Literal["model", "plan", "flags"]


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class RubricArea(_Config):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    """Identifier the evaluator's ``rubric_area`` must use; never shown to the candidate."""
    weight: float = Field(gt=0)
    """Share of this area in the scorecard's weighted composite (renormalised over areas
    that got evidence)."""
    description: str
    """What evidence in this area looks like; shown to the evaluator and interviewer."""
    required: bool = True
    """Whether ``rubric_areas_scored`` waits for this area."""
    signal_questions: list[str] = []
    """Questions that tend to produce evidence here: starting points the interviewer may adapt,
    not a script (shown to the interviewer, never asked verbatim by the code)."""
    red_flags: list[str] = []
    """What a worrying answer in this area looks like; shown to the evaluator, which flags it
    as ``potential_red_flag``."""


class StateConfig(_Config):
    name: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    entry_instruction: str
    """Goal of the section, injected into the interviewer's prompt while it lasts."""
    question_source: QuestionSource = "model"
    """``model``: the interviewer phrases questions; ``plan``: ``questions`` are asked verbatim
    (so answers can be compared with reference answers); ``flags``: queued follow-ups."""
    questions: list[str] = []
    """Verbatim questions for ``plan``; fallback questions for ``model`` when the interviewer
    model fails to produce a valid turn."""
    questions_from: Literal["heldout"] | None = None
    """``heldout``: replace ``questions`` with a personality's held-out questions at start."""
    min_questions: int = Field(0, ge=0)
    """Questions to ask before the section may end (except on budget)."""
    max_turns: int | None = Field(None, gt=0)
    """Turn budget of the section."""
    turns_per_question: int | None = Field(None, gt=0)
    """Budget per plan question, for sections whose length depends on the questions."""
    max_minutes: float | None = Field(None, gt=0)
    """Optional time budget of the section (simulated sessions use a virtual clock)."""
    exit_conditions: list[ExitCondition] = ["turn_taken"]
    """All must hold (and ``min_questions`` be met) for the section to end normally."""
    next: str | None = None
    """Where a normal exit goes; default: the following state."""
    fallback: str | None = None
    """Where an exhausted budget goes; default: ``next``."""
    scored: bool = True
    """Whether the evaluator scores substantive answers given in this section."""
    allow_followups: bool = True
    """Whether a pending high-priority follow-up may be asked in this section."""
    rubric_areas: list[str] = []
    """Areas this section is meant to gather evidence on."""

    @model_validator(mode="after")
    def _one_budget(self) -> StateConfig:
        if (self.max_turns is None) == (self.turns_per_question is None):
            raise ValueError(f"{self.name}: set exactly one of max_turns, turns_per_question")
        if self.question_source == "plan" and self.turns_per_question is None and \
                self.max_turns is not None and self.max_turns < len(self.questions):
            raise ValueError(f"{self.name}: max_turns is smaller than its plan questions")
        return self

    def turn_budget(self) -> int:
        """Turns this section may take (a plan section always gets at least one)."""
        if self.max_turns is not None:
            return self.max_turns
        return max(1, (self.turns_per_question or 1) * len(self.questions))


class InterviewPlan(_Config):
    name: str
    title: str
    """What kind of interview this is, in the interviewer's words."""
    total_minutes: float = Field(gt=0)
    """Time the whole interview is meant to take; told to the interviewer."""
    max_total_turns: int = Field(gt=0)
    """Session budget: past it, the interview jumps to ``closing_state``."""
    closing_state: str
    terminal_state: str = "COMPLETE"
    rubric: Annotated[list[RubricArea], Field(min_length=1)]
    states: Annotated[list[StateConfig], Field(min_length=1)]

    @model_validator(mode="after")
    def _graph_moves_forward(self) -> InterviewPlan:
        problems: list[str] = []
        names = [s.name for s in self.states]
        areas = {a.id for a in self.rubric}
        if len(set(names)) != len(names):
            problems.append("states: a state name is used twice")
        if len(areas) != len(self.rubric):
            problems.append("rubric: an area id is used twice")
        if self.terminal_state in names:
            problems.append(f"terminal_state {self.terminal_state!r} must not be a listed state")
        if self.closing_state not in names:
            problems.append(f"closing_state {self.closing_state!r} is not a state")
        order = {name: i for i, name in enumerate([*names, self.terminal_state])}
        for i, state in enumerate(self.states):
            for key in ("next", "fallback"):
                target = getattr(state, key)
                if target is not None and order.get(target, -1) <= i:
                    problems.append(f"states[{i}].{key}: {target!r} is not a later state")
            unknown = [a for a in state.rubric_areas if a not in areas]
            if unknown:
                problems.append(f"states[{i}].rubric_areas: unknown area(s) {unknown}")
        problems += self._waiting_flags_problems()
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def _waiting_flags_problems(self) -> list[str]:
        """A section that scores answers can raise low and medium flags, which wait for a
        ``question_source: flags`` section: one must come after the last such section, or
        those flags are never asked."""
        raising = [i for i, s in enumerate(self.states)
                   if s.scored and s.question_source != "flags"]
        if not raising:
            return []
        if any(s.question_source == "flags" for s in self.states[raising[-1] + 1:]):
            return []
        return [f"states: {self.states[raising[-1]].name} scores answers that can be flagged "
                "for a later follow-up, but no `question_source: flags` section comes after it "
                "(waiting follow-ups would never be asked); add one after it"]

    def state(self, name: str) -> StateConfig:
        for state in self.states:
            if state.name == name:
                return state
        raise KeyError(name)

    def index(self, name: str) -> int:
        names = [s.name for s in self.states]
        return names.index(name) if name in names else len(names)

    def next_of(self, name: str) -> str:
        state = self.state(name)
        if state.next is not None:
            return state.next
        following = self.index(name) + 1
        return self.states[following].name if following < len(self.states) \
            else self.terminal_state

    def fallback_of(self, name: str) -> str:
        return self.state(name).fallback or self.next_of(name)

    def area_ids(self) -> list[str]:
        return [a.id for a in self.rubric]

    def with_questions(self, source: str, questions: list[str]) -> InterviewPlan:
        """A copy whose states with ``questions_from == source`` ask ``questions``."""
        states = [s.model_copy(update={"questions": list(questions)})
                  if s.questions_from == source else s for s in self.states]
        return self.model_copy(update={"states": states})


def parse_plan(data: object, file: str) -> InterviewPlan:
    try:
        return InterviewPlan.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(validation_problems(exc, file)) from None


def load_plan(name_or_path: str | Path, plans_dir: Path = PLANS_DIR) -> InterviewPlan:
    """A plan by name (``technical``, ``personality``: ``plans_dir/NAME.yaml``) or by path."""
    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml"):
        path = plans_dir / f"{name_or_path}.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        known = sorted(p.stem for p in plans_dir.glob("*.yaml")) if plans_dir.is_dir() else []
        raise ConfigError([Problem(str(path), "", f"cannot read plan: {exc.strerror}; "
                                   f"known plans: {', '.join(known) or 'none'}")]) from None
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(str(path), "", f"invalid YAML: {exc}")]) from None
    return parse_plan(data, str(path))
