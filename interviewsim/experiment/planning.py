"""How many model calls a configuration makes, how many tokens they take and what they cost,
computed from params and the input data without calling any model (``interviewsim plan``).

Counts are exact for the configuration (they follow the stages' own loops); tokens are
estimates:

- prompt tokens: 4 characters a token plus per-message overhead
  (:func:`interviewsim.llm.provider.estimate_prompt_tokens`). Prompts are built exactly where
  their inputs exist before any model runs (generate for every strategy but retrieval and
  hybrid, the fact summary, PS on the held-out responses, the atomic step of mcq-build). Where a
  prompt holds another model's output (a generated answer, a fact summary, an MCQ), that output
  is sized by the held-out reference response it stands for, or by the producing call's
  ``max_tokens``; retrieval and hybrid contexts are sized by the same number of latest pairs.
  Such lines are marked ``estimated``.
- completion tokens: each call's ``max_tokens``, an upper bound.
- cache hits: counted for ``generate`` (whose requests are built exactly as the stage builds
  them) when the response cache exists; other stages' requests depend on earlier outputs, so
  their hits are not counted (the plan then overstates what a rerun pays).
- re-asks after an invalid output are not counted (they add calls only for failures).
- the interview stage's calls depend on what the models say (a follow-up, an early end): they
  are sized from the agent's plan (:mod:`interviewsim.experiment.sizing`).

Cost uses ``params.prices[model]`` (US dollars per million prompt / completion tokens); a model
without a price has no cost.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from interviewsim.agent.config import AgentSettings
from interviewsim.agent.plan import InterviewPlan
from interviewsim.data.corpus import Pair, PersonalityData
from interviewsim.data.prepare import discover_inputs, pair_records, validate_document
from interviewsim.experiment.params import Params
from interviewsim.experiment.sizing import (
    INDEXED,
    interview_calls,
    interview_strategies,
    planned_selection,
    prompt_tokens,
    stand_in,
)
from interviewsim.generation.prompt import generation_messages
from interviewsim.judges.personality import TRAITS
from interviewsim.judges.prompts import (
    content_similarity_messages,
    fact_summary_messages,
    factual_consistency_messages,
    personality_messages,
)
from interviewsim.llm.provider import MESSAGE_OVERHEAD_TOKENS, estimate_prompt_tokens
from interviewsim.llm.types import ChatRequest, Message
from interviewsim.llm.usage import cost_usd
from interviewsim.mcq.answering import LINE_TOKENS
from interviewsim.mcq.prompts import ANSWER_SYSTEM, atomic_messages
from interviewsim.text.tokens import CHARS_PER_TOKEN, estimate_tokens


@dataclass
class PlanLine:
    """Calls of one stage to one model."""

    stage: str
    role: str
    model: str
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False
    """Some prompts are sized from a stand-in for another model's output (see module doc)."""
    cost_usd: float | None = None

    def add(self, prompt_tokens: int, completion_tokens: int, n: int = 1) -> None:
        self.calls += n
        self.prompt_tokens += prompt_tokens * n
        self.completion_tokens += completion_tokens * n


@dataclass
class CallPlan:
    personalities: int = 0
    train_pairs: int = 0
    heldout_pairs: int = 0
    heldout_interviews: int = 0
    lines: dict[tuple[str, str, str], PlanLine] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def line(self, stage: str, role: str, model: str, estimated: bool = False) -> PlanLine:
        key = (stage, role, model)
        if key not in self.lines:
            self.lines[key] = PlanLine(stage, role, model, estimated=estimated)
        return self.lines[key]

    def totals(self) -> dict[str, float | int | None]:
        rows = list(self.lines.values())
        costs = [r.cost_usd for r in rows]
        return {
            "calls": sum(r.calls for r in rows),
            "cache_hits": sum(r.cache_hits for r in rows),
            "prompt_tokens": sum(r.prompt_tokens for r in rows),
            "completion_tokens": sum(r.completion_tokens for r in rows),
            "cost_usd": None if any(c is None for c in costs) else sum(c for c in costs if c),
        }

    def as_dict(self) -> dict:
        return {
            "personalities": self.personalities,
            "train_pairs": self.train_pairs,
            "heldout_pairs": self.heldout_pairs,
            "heldout_interviews": self.heldout_interviews,
            "stages": [vars(line) for line in self.lines.values()],
            "totals": self.totals(),
            "notes": self.notes,
        }


def iter_inputs(input_dir: str | Path, test_fraction: float,
                max_heldout_pairs: int | None) -> Iterator[PersonalityData]:
    """Personalities as ``prepare`` would write them, one at a time, without writing anything."""
    for path in discover_inputs(input_dir):
        doc, split = validate_document(path, test_fraction)
        train = tuple(Pair.of(r) for r in pair_records(doc, split.train))
        heldout = []
        for record in pair_records(doc, split.test):
            if max_heldout_pairs is not None and len(heldout) >= max_heldout_pairs:
                break
            heldout.append(Pair.of(record))
        yield PersonalityData(doc.personality_id, doc.personality.profile,
                              doc.personality.long_profile, train, tuple(heldout))


KeyCheck = Callable[[list[ChatRequest]], int]
"""Counts how many of the requests the response cache already answers."""


Agent = tuple[AgentSettings, InterviewPlan]
"""What sizing the interview stage needs besides params: the agent's settings and its plan."""


def plan_personality(plan: CallPlan, person: PersonalityData, params: Params,
                     generate_request: Callable[[list[Message]], ChatRequest] | None = None,
                     cached: KeyCheck | None = None, agent: Agent | None = None) -> None:
    """Add one personality's calls to ``plan`` (the interview stage's only with ``agent``)."""
    models = params.models
    heldout = person.heldout
    plan.personalities += 1
    plan.train_pairs += len(person.train)
    plan.heldout_pairs += len(heldout)
    interviews = person.heldout_interviews()
    plan.heldout_interviews += len(interviews)
    if not heldout:
        return
    pairs = person.train_by_id()

    # generate: strategies × held-out questions
    gen = models.generator
    exact: list[ChatRequest] = []
    for strategy in params.strategies:
        line = plan.line("generate", "generator", gen.model, estimated=strategy in INDEXED)
        line.estimated = line.estimated or strategy in INDEXED
        # every strategy but retrieval/hybrid selects the same context for every question
        selection = planned_selection(strategy, person, params)
        exact_requests = strategy not in INDEXED and generate_request is not None
        if not exact_requests:  # the prompt is a fixed prefix + the question: size it once
            system, user = generation_messages(person.personality_id, "", selection, pairs)
            fixed = estimate_tokens(system.content) + 2 * MESSAGE_OVERHEAD_TOKENS
        for pair in heldout:
            if exact_requests:
                messages = generation_messages(person.personality_id, pair.question, selection,
                                               pairs)
                request = generate_request(messages)
                exact.append(request)
                line.add(estimate_prompt_tokens(request), gen.max_tokens)
            else:
                chars = len(user.content) + len(pair.question)
                line.add(fixed + math.ceil(chars / CHARS_PER_TOKEN), gen.max_tokens)
    if exact and cached is not None:
        plan.line("generate", "generator", gen.model).cache_hits += cached(exact)

    answer_tokens = [estimate_tokens(p.response) for p in heldout]
    for judge in models.judges:
        # fact-summary: one per personality and judge (its prompt is exact)
        grouped = [[p.response for p in group] for _, group in interviews]
        summary_tokens = max(judge.max_tokens, params.judge.fact_summary_min_tokens)
        plan.line("fact-summary", f"judge:{judge.name}", judge.model).add(
            prompt_tokens(fact_summary_messages(grouped)), summary_tokens)
        # judge CS and FC: one each per generated answer (strategy × held-out pair)
        judged = plan.line("judge", f"judge:{judge.name}", judge.model, estimated=True)
        summary = stand_in(summary_tokens)
        for pair, tokens in zip(heldout, answer_tokens, strict=True):
            answer = stand_in(min(tokens, gen.max_tokens))
            n = len(params.strategies)
            judged.add(prompt_tokens(content_similarity_messages(pair.response, answer)),
                       judge.max_tokens, n=n)
            judged.add(prompt_tokens(factual_consistency_messages(summary, answer)),
                       judge.max_tokens, n=n)
            # the controls' answers are real answers, the length of the reference
            judged.add(prompt_tokens(content_similarity_messages(pair.response, pair.response)),
                       judge.max_tokens, n=len(params.controls))
            judged.add(prompt_tokens(factual_consistency_messages(summary, pair.response)),
                       judge.max_tokens, n=len(params.controls))
        # PS: traits × (reference + each strategy + each control) × runs
        reference = [p.response for p in heldout]
        generated = [stand_in(min(t, gen.max_tokens)) for t in answer_tokens]
        for trait in TRAITS:
            judged.add(prompt_tokens(personality_messages(reference, trait)), judge.max_tokens,
                       n=params.judge.ps_runs * (1 + len(params.controls)))
            judged.add(prompt_tokens(personality_messages(generated, trait)), judge.max_tokens,
                       n=params.judge.ps_runs * len(params.strategies))

    # mcq-build: an atomic item, then an MCQ, per held-out pair
    builder = models.mcq_builder
    build = plan.line("mcq-build", "mcq_builder", builder.model, estimated=True)
    option_tokens = builder.max_tokens // params.mcq.option_count
    for pair in heldout:
        build.add(prompt_tokens(atomic_messages(pair.question, pair.response)), builder.max_tokens)
        build.add(estimate_tokens(pair.question + pair.response) + 200, builder.max_tokens)

    # mcq-answer: one grouped prompt per (strategy or control) × held-out interview ×
    # answerer × rotation; a control's context is the interview's own (or an impostor's)
    # answers, sized here by the interview's real pairs
    rotations = params.mcq.rotations
    for answerer in models.mcq_answerers:
        line = plan.line("mcq-answer", f"answerer:{answerer.name}", answerer.model,
                         estimated=True)
        contexts: list[tuple[int | None, int]] = []
        for strategy in params.strategies:
            selection = planned_selection(strategy, person, params)
            messages = generation_messages(person.personality_id, "", selection, pairs)
            contexts.append((prompt_tokens(messages), 1))
        contexts += [(None, len(params.controls))] if params.controls else []
        for context, n in contexts:
            for _, group in interviews:
                own = sum(estimate_tokens(f"{p.question} {p.response}") + 4 for p in group)
                items = sum(estimate_tokens(p.question) + params.mcq.option_count
                            * (option_tokens + 2) for p in group)
                prompt = (own if context is None else context) + estimate_tokens(
                    ANSWER_SYSTEM) + items
                line.add(prompt, max(answerer.max_tokens, LINE_TOKENS * len(group) + 4),
                         n=n * rotations)

    # interview: whole sessions, sized from the plan's turn budgets (experiment/sizing.py)
    if agent is not None:
        for calls in interview_calls(person, params, *agent, interview_strategies(params)):
            line = plan.line("interview", calls.role, calls.model, estimated=True)
            line.calls += calls.calls
            line.prompt_tokens += calls.prompt_tokens
            line.completion_tokens += calls.completion_tokens


def price(plan: CallPlan, params: Params) -> None:
    """Fill each line's cost from ``params.prices`` (None where the model has no price)."""
    for line in plan.lines.values():
        line.cost_usd = cost_usd(params.prices.get(line.model), line.prompt_tokens,
                                 line.completion_tokens)


def build_plan(params: Params, people: Iterator[PersonalityData],
               generate_request: Callable[[list[Message]], ChatRequest] | None = None,
               cached: KeyCheck | None = None, agent: Agent | None = None) -> CallPlan:
    """The plan of ``params`` over ``people`` (see the module doc for what is estimated);
    the interview stage is planned with ``agent`` and noted as left out without it."""
    plan = CallPlan()
    for person in people:
        plan_personality(plan, person, params, generate_request, cached, agent)
    price(plan, params)
    plan.notes.append("completion tokens are max_tokens per call (an upper bound)")
    if cached is None:
        plan.notes.append("cache hits not counted (no response cache)")
    else:
        plan.notes.append("cache hits counted for generate (retrieval/hybrid excluded) only")
    if set(params.strategies) & set(INDEXED):
        plan.notes.append("retrieval/hybrid contexts sized by the same number of latest pairs")
    if interview_strategies(params):
        plan.notes.append("interview: each section's turn budget, one first-attempt call per "
                          "turn and role; a session that ends early makes fewer"
                          if agent is not None else "interview: not planned (no agent plan)")
    missing = sorted({line.model for line in plan.lines.values()
                      if line.model not in params.prices})
    if missing:
        plan.notes.append(f"no price for: {', '.join(missing)}")
    return plan
