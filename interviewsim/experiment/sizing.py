"""Model calls sized without a model: stand-ins for model outputs, contexts that need no
embedder, and the calls of the interview stage (``interviewsim plan``, ``interviewsim interview
--dry-run``; :mod:`stages.commands.planning` says what is exact and what estimated).

An interview's calls depend on what the models answer (a follow-up, an early end), so they are
sized from the plan: each section's turn budget (capped by the session's), one first-attempt
call per turn for the twin, one for the interviewer on every turn that is not a verbatim plan
question, and one for the evaluator on every turn of a scored section; plus the evaluator's
score of each real held-out answer (exact prompts). An interview that ends early makes fewer.
"""

from __future__ import annotations

from dataclasses import dataclass

from interviewsim.agent.config import AgentSettings
from interviewsim.agent.experiment import heldout_section
from interviewsim.agent.personas import PersonaManager, Situation
from interviewsim.agent.plan import InterviewPlan
from interviewsim.agent.prompts import evaluator_request
from interviewsim.agent.setup import personality_plan
from interviewsim.config.conditions import INDEXED_STRATEGIES
from interviewsim.config.params import Params
from interviewsim.context.strategies import (
    ContextSelection,
    chronological,
    pair_tokens,
    select_context,
)
from interviewsim.data.corpus import PersonalityData
from interviewsim.generation.prompt import generation_messages
from interviewsim.llm.provider import MESSAGE_OVERHEAD_TOKENS, estimate_prompt_tokens
from interviewsim.llm.types import ChatRequest, Message
from interviewsim.text.tokens import CHARS_PER_TOKEN, estimate_tokens


def stand_in(tokens: int) -> str:
    """Text of about ``tokens`` tokens, standing in for a model output of that length."""
    return "x" * (tokens * CHARS_PER_TOKEN)


def prompt_tokens(messages: list[Message]) -> int:
    return estimate_prompt_tokens(ChatRequest(messages=tuple(messages)))


def proxy_selection(strategy: str, person: PersonalityData, params: Params) -> ContextSelection:
    """A retrieval/hybrid context sized by the same number of latest pairs (no embedder)."""
    c = params.context
    n = c.retrieval_pairs if strategy == "retrieval" else c.hybrid_retrieved + c.hybrid_recent
    pairs = chronological(person.train, n)
    budget, kept = c.max_context_tokens, []
    for pair in reversed(pairs):
        budget -= pair_tokens(pair)
        if budget < 0:
            break
        kept.append(pair)
    return ContextSelection(strategy, pair_ids=tuple(p.qa_id for p in reversed(kept)))


def planned_selection(strategy: str, person: PersonalityData,
                      params: Params) -> ContextSelection:
    """The context a strategy gives: exact where it needs no embedder, else the proxy."""
    if strategy in INDEXED_STRATEGIES:
        return proxy_selection(strategy, person, params)
    return select_context(strategy, person, [], params.context, params.seed)


def interview_strategies(params: Params, only: tuple[str, ...] = ()) -> list[str]:
    """The strategies the interview stage interviews: ``only`` (else params.yaml
    ``interview.strategies``) in the order of ``strategies``, and only those listed there."""
    wanted = only or tuple(params.interview.strategies)
    return [s for s in params.strategies if s in wanted]


@dataclass(frozen=True)
class RoleCalls:
    """Calls of one role to one model, with their summed token estimates."""

    role: str
    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int


def interview_calls(person: PersonalityData, params: Params, settings: AgentSettings,
                    plan: InterviewPlan, strategies: list[str]) -> list[RoleCalls]:
    """The interview stage's calls for one personality under ``strategies`` (module doc)."""
    if not strategies or not person.heldout:
        return []
    plan = personality_plan(plan, person)
    gen = params.models.generator
    evaluator = settings.model_for("evaluator", params)
    interviewer = settings.model_for("interviewer", params)
    personas = PersonaManager(plan)
    judge_system = Message(role="system", content=personas.evaluator_prompt())
    section = heldout_section(plan)
    references = [prompt_tokens([judge_system, Message(role="user", content=evaluator_request(
        section, pair.question, pair.response))]) for pair in person.heldout]
    question = max(1, sum(estimate_tokens(p.question) for p in person.heldout)
                   // len(person.heldout))
    answer = stand_in(gen.max_tokens)
    judged = prompt_tokens([judge_system, Message(role="user", content=evaluator_request(
        section, stand_in(question), answer))])
    history = settings.memory_max_messages // 2 * (question + gen.max_tokens
                                                  + 2 * MESSAGE_OVERHEAD_TOKENS)
    counts = {"interviewer": [0, 0], "twin": [0, 0], "evaluator": [len(references),
                                                                   sum(references)]}
    for strategy in strategies:
        twin = prompt_tokens(generation_messages(person.personality_id, "",
                                                 planned_selection(strategy, person, params),
                                                 person.train_by_id())) + question
        left = plan.max_total_turns
        for state in plan.states:
            turns = min(state.turn_budget(), left)
            left -= turns
            asked = min(turns, len(state.questions)) if state.question_source == "plan" else 0
            prompt = estimate_tokens(personas.interviewer_prompt(Situation(state, turns))) \
                + history
            for role, n, tokens in (("interviewer", turns - asked, prompt),
                                    ("twin", turns, twin),
                                    ("evaluator", turns if state.scored else 0, judged)):
                counts[role][0] += n
                counts[role][1] += n * tokens
    models = {"interviewer": interviewer, "twin": gen, "evaluator": evaluator}
    return [RoleCalls(role, models[role].model, n, tokens, n * models[role].max_tokens)
            for role, (n, tokens) in counts.items() if n]
