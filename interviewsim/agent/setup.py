"""Wiring shared by the ``interview`` command and the experiment: clients, twins, sessions.

Kept out of the stage modules so both build a session the same way, and so tests can drive
the production wiring with a scripted provider behind the same :class:`ModelHub`.
"""

from __future__ import annotations

from dataclasses import dataclass

from interviewsim.agent.candidates import Candidate, SimulatedCandidate
from interviewsim.agent.clock import Clock, VirtualClock
from interviewsim.agent.coach import Coach
from interviewsim.agent.config import AgentSettings
from interviewsim.agent.evaluator import Evaluator
from interviewsim.agent.followup import FollowupGenerator
from interviewsim.agent.guardrails import GuardrailAuditor
from interviewsim.agent.language_fallback import LanguageFallback
from interviewsim.agent.plan import InterviewPlan
from interviewsim.agent.results import CandidateInfo, SessionResult
from interviewsim.agent.session import InterviewSession
from interviewsim.config.params import Params
from interviewsim.context.strategies import RetrievalIndex
from interviewsim.data.corpus import PersonalityData
from interviewsim.llm import ModelClient, ModelHub

HELDOUT = "heldout"


@dataclass
class AgentClients:
    """One model client per role; the twin uses the generator, exactly as ``generate``."""

    interviewer: ModelClient
    evaluator: ModelClient
    coach: ModelClient | None
    candidate: ModelClient
    followup: ModelClient | None = None
    """The follow-up generator's client; None when ``followup_generator`` is off."""
    language: ModelClient | None = None
    """The language layer's fallback model; None unless ``language_fallback`` is set."""


def open_clients(hub: ModelHub, params: Params, settings: AgentSettings) -> AgentClients:
    coach = None if settings.coach_mode == "off" else \
        hub.client(settings.model_for("coach", params), label="coach")
    return AgentClients(
        interviewer=hub.client(settings.model_for("interviewer", params), label="interviewer"),
        evaluator=hub.client(settings.model_for("evaluator", params), label="evaluator"),
        coach=coach,
        candidate=hub.client(params.models.generator, label="generator"),
        followup=hub.client(settings.model_for("followup", params), label="followup")
        if settings.followup_generator else None,
        language=None if settings.language_fallback is None else
        hub.client(settings.language_fallback, label="language"),
    )


def personality_plan(plan: InterviewPlan, person: PersonalityData) -> InterviewPlan:
    """The plan with the person's held-out questions as its ``questions_from: heldout`` topics."""
    return plan.with_questions(HELDOUT, [pair.question for pair in person.heldout])


def twin(person: PersonalityData, strategy: str, clients: AgentClients, params: Params,
         settings: AgentSettings, index: RetrievalIndex | None) -> SimulatedCandidate:
    return SimulatedCandidate(person, strategy, clients.candidate, params.context, params.seed,
                              index, settings.candidate_max_attempts)


def run_session(plan: InterviewPlan, settings: AgentSettings, clients: AgentClients,
                candidate: Candidate, info: CandidateInfo,
                clock: Clock | None = None) -> SessionResult:
    """Run one interview; simulated sessions default to the virtual clock."""
    evaluator = Evaluator(clients.evaluator, plan, settings.evaluator_max_calls)
    coach = None if clients.coach is None else Coach(
        clients.coach, settings.coach_max_attempts, settings.words_per_minute,
        settings.coach_short_answer_s, settings.coach_long_answer_s)
    language = None if clients.language is None else LanguageFallback(clients.language)
    followups = None if clients.followup is None else FollowupGenerator(
        clients.followup, settings.followup_max_attempts, settings.followup_min_shared_terms,
        GuardrailAuditor(plan.area_ids(), language))
    session = InterviewSession(plan, settings, clients.interviewer, evaluator, coach, candidate,
                               clock or VirtualClock(settings.words_per_minute), info,
                               followups, language)
    return session.run()
