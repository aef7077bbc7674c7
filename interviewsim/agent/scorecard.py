"""The structured scorecard: per rubric area, flags, state history, tool and guardrail counts.

Every number in it is recomputed from the session's records, so a reader can check any of
them against the JSON Lines files written beside it.
"""

from __future__ import annotations

from collections import Counter
from statistics import fmean

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.coach import TopicScore, topic_scores
from interviewsim.agent.guardrails import GuardrailSummary, summarize_audits
from interviewsim.agent.results import CandidateInfo, SessionResult
from interviewsim.agent.scoring import DIMENSIONS, AnswerScore
from interviewsim.agent.state_machine import Transition


class AreaScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    area: str
    weight: float
    answers: int
    means: dict[str, float | None]
    """Mean of each dimension over the area's answers (None without answers)."""
    composite: float | None


class ToolCounts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accepted: int = 0
    rejected: int = 0


class Scorecard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: str
    candidate: CandidateInfo
    stop_reason: str
    turns: int
    answers_scored: int
    answers_unscored: int
    composite_mean: float | None
    """Mean composite over every scored answer."""
    weighted_composite: float | None
    """Area composites weighted by the rubric, renormalised over areas with answers."""
    areas: list[AreaScore]
    flags_raised: int
    flags_open: int
    flags_by_type: dict[str, int]
    states_entered: list[str]
    state_coverage: float
    state_history: list[Transition]
    tool_calls: dict[str, dict[str, ToolCounts]]
    """persona -> tool (``unreadable`` for outputs that were not an action) -> counts."""
    guardrails: GuardrailSummary
    guardrail_violation_rate: float | None
    followups_asked: int
    followups_without_candidate_words: int
    followups_generated: int
    """Follow-ups the generator wrote that passed its checks (and were asked)."""
    followups_generator_failed: int
    """Flags the generator could not phrase; the interviewer model took the turn."""
    live_guardrails: dict[str, int]
    """Live guardrails that fired, by event (silence, upset, drift)."""
    persona_switches: int
    memory_compressions: int
    coach_notes: int
    coach_topics: list[TopicScore]
    """The coach's 1-10 rating per topic (mean over its answers)."""


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def area_scores(scores: list[AnswerScore], result: SessionResult) -> list[AreaScore]:
    rows = []
    for area in result.plan.rubric:
        own = [s for s in scores if s.rubric_area == area.id]
        means = {d: _round(fmean(getattr(s, d) for s in own)) if own else None
                 for d in DIMENSIONS}
        rows.append(AreaScore(area=area.id, weight=area.weight, answers=len(own), means=means,
                              composite=_round(fmean(s.composite for s in own)) if own else None))
    return rows


def build_scorecard(result: SessionResult) -> Scorecard:
    scores = result.scores
    areas = area_scores(scores, result)
    with_answers = [a for a in areas if a.composite is not None]
    total_weight = sum(a.weight for a in with_answers)
    weighted = sum(a.weight * a.composite for a in with_answers) / total_weight \
        if with_answers else None
    tools: dict[str, dict[str, ToolCounts]] = {}
    for entry in result.tool_log:
        counts = tools.setdefault(entry.persona, {}).setdefault(entry.tool or "unreadable",
                                                               ToolCounts())
        if entry.accepted:
            counts.accepted += 1
        else:
            counts.rejected += 1
    guardrails = summarize_audits(result.audits)
    return Scorecard(
        plan=result.plan.name,
        candidate=result.candidate,
        stop_reason=result.stop_reason,
        turns=max((e.turn for e in result.transcript), default=0),
        answers_scored=len(scores),
        answers_unscored=len(result.unscored_turns),
        composite_mean=_round(fmean(s.composite for s in scores)) if scores else None,
        weighted_composite=_round(weighted),
        areas=areas,
        flags_raised=len(result.flags),
        flags_open=sum(1 for f in result.flags if not f.resolved),
        flags_by_type=dict(sorted(Counter(f.flag_type for f in result.flags).items())),
        states_entered=result.states_entered,
        state_coverage=round(result.state_coverage, 4),
        state_history=result.state_history,
        tool_calls={p: dict(sorted(t.items())) for p, t in sorted(tools.items())},
        guardrails=guardrails,
        guardrail_violation_rate=_round(guardrails.violation_rate),
        followups_asked=len(result.followups),
        followups_without_candidate_words=sum(1 for f in result.followups if not f.passed),
        followups_generated=sum(1 for g in result.generated_followups if g.question),
        followups_generator_failed=sum(1 for g in result.generated_followups
                                       if g.question is None),
        live_guardrails=dict(sorted(Counter(a.event.value for a in result.live_actions).items())),
        persona_switches=len(result.persona_switches),
        memory_compressions=len(result.memory_summaries),
        coach_notes=len(result.coach_notes),
        coach_topics=topic_scores(result.coach_notes),
    )
