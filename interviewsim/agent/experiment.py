"""The interview experiment: every personality's twin under every strategy, one interview each.

The personality plan asks the held-out questions verbatim, so each twin answer has a real
counterpart. The same evaluator call (same prompt, same section, no session context) scores
both, and the *fidelity gap* is the mean absolute difference of their composites over the
questions where both were scored: 0 means the evaluator cannot tell the twin from the person.
Two more metrics describe the interviewer rather than the twin: the share of its turns that
broke a guardrail, and the share of the plan's sections the interview entered.
"""

from __future__ import annotations

from statistics import fmean

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.evaluator import Assessment, Evaluator
from interviewsim.agent.guardrails import summarize_audits
from interviewsim.agent.plan import InterviewPlan
from interviewsim.agent.results import SessionResult
from interviewsim.agent.setup import HELDOUT
from interviewsim.data.corpus import PersonalityData
from interviewsim.data.records import PersonalityMetric

METRICS = ("fidelity_gap", "guardrail_violation_rate", "state_coverage")


def heldout_section(plan: InterviewPlan) -> str:
    """The section that asks the held-out questions."""
    for state in plan.states:
        if state.questions_from == HELDOUT:
            return state.name
    raise ValueError(f"plan {plan.name!r} has no section with questions_from: {HELDOUT}")


class ReferenceScore(BaseModel):
    """The evaluator's score of a real held-out answer (the twin's target)."""

    model_config = ConfigDict(extra="forbid")

    personality_id: str
    qa_id: str
    question: str
    composite: float | None
    """None when the evaluator produced no valid score within its call budget."""
    scores: dict[str, int] | None
    outputs: list[str]
    """Raw evaluator outputs, accepted or not, for audit."""


class FidelityRecord(BaseModel):
    """One held-out question: the twin's composite next to the real answer's."""

    model_config = ConfigDict(extra="forbid")

    personality_id: str
    strategy: str
    qa_id: str
    question: str
    twin_turn: int | None
    """Transcript turn of the twin's answer; None when the interview never asked it."""
    twin_composite: float | None
    real_composite: float | None
    gap: float | None
    """|twin - real|, when both were scored."""


def score_references(evaluator: Evaluator, plan: InterviewPlan,
                     person: PersonalityData) -> list[ReferenceScore]:
    """Score every real held-out answer with the call a twin's answer gets in the interview."""
    section = heldout_section(plan)
    rows = []
    for pair in person.heldout:
        assessment: Assessment = evaluator.assess(0, section, pair.question, pair.response)
        score = assessment.score
        rows.append(ReferenceScore(
            personality_id=person.personality_id, qa_id=pair.qa_id, question=pair.question,
            composite=None if score is None else score.composite,
            scores=None if score is None else {
                d: getattr(score, d) for d in ("technical_accuracy", "communication_clarity",
                                               "depth_of_reasoning", "relevance")},
            outputs=[entry.call.raw for entry in assessment.log]))
    return rows


def fidelity_records(result: SessionResult, person: PersonalityData, strategy: str,
                     references: list[ReferenceScore]) -> list[FidelityRecord]:
    """Pair each held-out question with the twin's scored answer, in plan order."""
    section = heldout_section(result.plan)
    asked = [(question, answer) for state, question, answer in result.plan_answers()
             if state == section]
    composites = {score.turn: score.composite for score in result.scores}
    rows = []
    for index, (pair, reference) in enumerate(zip(person.heldout, references, strict=True)):
        turn = asked[index][1].turn if index < len(asked) else None
        twin = composites.get(turn) if turn is not None else None
        real = reference.composite
        rows.append(FidelityRecord(
            personality_id=person.personality_id, strategy=strategy, qa_id=pair.qa_id,
            question=pair.question, twin_turn=turn, twin_composite=twin, real_composite=real,
            gap=None if twin is None or real is None else round(abs(twin - real), 4)))
    return rows


def session_metrics(result: SessionResult, fidelity: list[FidelityRecord], judge: str
                    ) -> list[PersonalityMetric]:
    """The three per-personality metric rows of one interview."""
    info = result.candidate
    gaps = [r.gap for r in fidelity if r.gap is not None]
    audits = summarize_audits(result.audits)

    def row(metric: str, value: float | None, n: int, invalid: int = 0) -> PersonalityMetric:
        return PersonalityMetric(personality_id=info.personality_id or "", strategy=info.strategy
                                 or "", judge=judge, metric=metric,
                                 value=None if value is None else round(value, 6), n=n,
                                 invalid=invalid)

    return [
        row("fidelity_gap", fmean(gaps) if gaps else None, len(gaps), len(fidelity) - len(gaps)),
        row("guardrail_violation_rate", audits.violation_rate, audits.turns_audited),
        row("state_coverage", result.state_coverage, len(result.plan.states)),
    ]
