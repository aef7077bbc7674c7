"""What a session produces: the transcript and every record the artifacts are written from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.actions import ToolLogEntry
from interviewsim.agent.coach import CoachNote
from interviewsim.agent.followup import FollowupCheck, GeneratedFollowup
from interviewsim.agent.guardrails import TurnAudit
from interviewsim.agent.live import LiveAction
from interviewsim.agent.memory import MemorySummary
from interviewsim.agent.personas import PersonaSwitch
from interviewsim.agent.plan import InterviewPlan
from interviewsim.agent.scoring import AnswerScore, Flag
from interviewsim.agent.state_machine import Transition
from interviewsim.llm.types import CallRecord

UtteranceKind = Literal["question", "plan_question", "followup", "fallback", "guardrail"]


class Utterance(BaseModel):
    """What the interviewer says on one turn, and where it came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    kind: UtteranceKind
    """``question``: phrased by the model; ``plan_question``: asked verbatim from the plan;
    ``followup``: probes a flag; ``fallback``: the model produced no valid turn;
    ``guardrail``: a live guardrail's fixed line (silence, an upset candidate)."""
    flag_id: int | None = None


class TranscriptEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn: int
    state: str
    speaker: Literal["interviewer", "candidate", "coach"]
    text: str
    minute: float
    kind: str
    """Interviewer: an :data:`UtteranceKind`; candidate: ``answer``; coach: ``feedback``."""
    flag_id: int | None = None
    signals: list[str] = []
    """What a candidate reply asked of the interviewer (hint, progress, ...)."""
    duration_s: float | None = None
    valid: bool = True
    calls: list[CallRecord] = []
    """Audit records of the twin's generation calls for this answer."""


class FollowupRecord(BaseModel):
    """One follow-up and whether it was built from the candidate's own words."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    flag_id: int
    answer_turn: int
    followup: str
    check: FollowupCheck

    @property
    def passed(self) -> bool:
        return self.check.passed


class CandidateInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    personality_id: str | None = None
    strategy: str | None = None


@dataclass
class SessionResult:
    plan: InterviewPlan
    candidate: CandidateInfo
    stop_reason: str = "completed"
    transcript: list[TranscriptEntry] = field(default_factory=list)
    state_history: list[Transition] = field(default_factory=list)
    states_entered: list[str] = field(default_factory=list)
    state_coverage: float = 0.0
    scores: list[AnswerScore] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    tool_log: list[ToolLogEntry] = field(default_factory=list)
    audits: list[TurnAudit] = field(default_factory=list)
    followups: list[FollowupRecord] = field(default_factory=list)
    coach_notes: list[CoachNote] = field(default_factory=list)
    persona_switches: list[PersonaSwitch] = field(default_factory=list)
    memory_summaries: list[MemorySummary] = field(default_factory=list)
    unscored_turns: list[int] = field(default_factory=list)
    """Substantive answers the evaluator failed to score within its call budget."""
    live_actions: list[LiveAction] = field(default_factory=list)
    """Live guardrails that fired (silence, upset, drift), in order."""
    generated_followups: list[GeneratedFollowup] = field(default_factory=list)
    """Every run of the follow-up generator, accepted or not."""

    def state_sequence(self) -> list[str]:
        return [t.to_state for t in self.state_history]

    def tool_verdicts(self) -> list[tuple[str, str | None, bool]]:
        """(persona, tool, accepted) per model output, in order: the frozen-trajectory view."""
        return [(e.persona, e.tool, e.accepted) for e in self.tool_log]

    def plan_answers(self) -> list[tuple[str, TranscriptEntry, TranscriptEntry]]:
        """(state, question, answer) for every verbatim plan question and its reply."""
        by_turn: dict[int, dict[str, TranscriptEntry]] = {}
        for entry in self.transcript:
            by_turn.setdefault(entry.turn, {})[entry.speaker] = entry
        pairs = []
        for turn in sorted(by_turn):
            entries = by_turn[turn]
            asked = entries.get("interviewer")
            if asked is not None and asked.kind == "plan_question" and "candidate" in entries:
                pairs.append((asked.state, asked, entries["candidate"]))
        return pairs
