"""How many model calls a configuration makes, how many tokens they take and what they cost,
computed from params and the input data without calling any model (``interviewsim plan``).

The calls are counted by the model stages' own declarations (:mod:`stages.runner`): each
stage's :meth:`~stages.runner.model_stage.ModelStage.dry_run` prices the work items the stage
would build, so the plan follows the stages' loops by construction. Where a stage's inputs are
another model's outputs, the plan builds them from stand-ins of the shape a run in which every
output is valid produces (every answer valid, every MCQ item kept):

- generated answers and the impostor's answers: text of the held-out reference's length (capped
  by the generator's ``max_tokens``), one per strategy and question; the oracle's are the real
  held-out answers;
- a fact summary: text of the summary's completion budget;
- retrieval and hybrid contexts: the same number of latest training pairs (no embedder);
- MCQ items: one per held-out pair, with options of the builder's budget; the MCQ step of
  mcq-build (one call per item the gate keeps) is its own line, ``mcq_builder (MCQ step)``,
  since no dry run can count it before the atomic items exist.

So the calls of ``generate``, ``fact-summary``, ``judge``, ``mcq-build`` (atomic items) and
``mcq-answer`` equal what those stages' ``--dry-run`` count on inputs of that shape, with an
empty cache (tests/test_offline_pipeline.py). Calls are first-attempt calls (re-asks after an
invalid output add calls only for failures); ``cache hits`` are those the response cache
already answers, counted for exact prompts only (a stand-in that happens to be cached says
nothing about the real prompt: stand-ins are priced against an empty cache); prompt tokens
(4 characters a token plus per-message overhead) and completion tokens (each call's
``max_tokens``, an upper bound) are those of the calls still to be paid. Lines
whose prompts hold stand-ins are marked ``estimated``. The interview stage's calls depend on
what the models say: they are sized from the agent's plan
(:mod:`interviewsim.experiment.sizing`).

Cost uses ``params.prices[model]`` (US dollars per million prompt / completion tokens); a model
without a price has no cost.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from interviewsim.agent.config import AgentSettings
from interviewsim.agent.plan import InterviewPlan
from interviewsim.config.conditions import INDEXED_STRATEGIES, needs_index
from interviewsim.config.params import Params
from interviewsim.data.corpus import Pair, PersonalityData
from interviewsim.data.records import ControlAnswer
from interviewsim.experiment.sizing import (
    interview_calls,
    interview_strategies,
    planned_selection,
    stand_in,
)
from interviewsim.llm import CallEstimate, ModelHub
from interviewsim.llm.usage import cost_usd
from interviewsim.mcq.asking import estimate_asks
from interviewsim.mcq.build import mcq_asks
from interviewsim.mcq.models import AtomicItem, McqItem, McqOption, labels_for, roles_for
from interviewsim.text.tokens import estimate_tokens
from stages.fact_summary import FactSummaryStage
from stages.generate import GenerateStage
from stages.judge import JudgeStage
from stages.mcq_answer import McqAnswerStage
from stages.mcq_build import McqBuildStage
from stages.runner.model_stage import Clients, ModelStage, Role


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
    """Some prompts hold a stand-in for another model's output (see module doc)."""
    cost_usd: float | None = None

    def add(self, estimate: CallEstimate) -> None:
        self.calls += estimate.requests
        self.cache_hits += estimate.cache_hits
        self.prompt_tokens += estimate.est_prompt_tokens
        self.completion_tokens += estimate.est_completion_tokens


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
            self.lines[key] = PlanLine(stage, role, model)
        self.lines[key].estimated |= estimated
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


Agent = tuple[AgentSettings, InterviewPlan]
"""What sizing the interview stage needs besides params: the agent's settings and its plan."""


MCQ_STEP = "mcq_builder (MCQ step)"


def _answer(condition: str, pair: Pair, tokens: int) -> str:
    """A stand-in answer, distinct per condition and question (as real answers are, so no two
    stand-in prompts collapse into one request)."""
    return f"[{condition} {pair.qa_id}] {stand_in(tokens)}"


class _LatestPairs:
    """Stands in for a retrieval index: the latest training pairs, as many as asked."""

    def __init__(self, person: PersonalityData):
        self.pairs = sorted(person.train, key=lambda p: (p.sequence, p.position), reverse=True)

    def warm(self, queries: object) -> None:
        """Nothing to embed."""

    def top(self, query: str, k: int) -> list[tuple[Pair, float]]:
        return [(pair, 0.0) for pair in self.pairs[:k]]


def _controls(params: Params, person: PersonalityData) -> list[ControlAnswer]:
    """The controls' answers: the oracle's are the real held-out answers, the impostor's
    stand-ins of the same length."""
    return [ControlAnswer(personality_id=person.personality_id, control=c, qa_id=p.qa_id,
                          interview_id=p.interview_id, question=p.question,
                          response=p.response if c == "oracle" else _answer(
                              c, p, estimate_tokens(p.response)),
                          source_personality_id=person.personality_id, source_qa_id=p.qa_id)
            for c in params.controls for p in person.heldout]


def _mcq_items(params: Params, person: PersonalityData) -> list[McqItem]:
    """One kept item per held-out pair, options of the builder's budget."""
    n = params.mcq.option_count
    text = stand_in(params.models.mcq_builder.max_tokens // n)
    return [McqItem(item_id=f"{p.qa_id}-mcq", personality_id=person.personality_id,
                    qa_id=p.qa_id, interview_id=p.interview_id, option_count=n,
                    question=p.question, correct_label=labels_for(n)[roles_for(n).index(
                        "correct")],
                    options=tuple(McqOption(label=label, role=role, text=f"{role} {text}")
                                  for label, role in zip(labels_for(n), roles_for(n),
                                                         strict=True)))
            for p in person.heldout]


class _Stages:
    """The model stages' declarations, fed stand-in work items one personality at a time."""

    def __init__(self, params: Params):
        self.params = params
        self.generate = GenerateStage(params, None, Path(), Path())
        self.fact_summary = FactSummaryStage(params, Path())
        self.judge = JudgeStage(params, None, Path(), Path(), {}, None)
        self.mcq_build = McqBuildStage(params, Path())
        self.mcq_answer = McqAnswerStage(params, Path(), Path(), {},
                                    lambda person, items: _LatestPairs(person))

    def all(self) -> list[ModelStage]:
        return [self.generate, self.fact_summary, self.judge, self.mcq_build, self.mcq_answer]

    def items(self, person: PersonalityData) -> Iterator[tuple[ModelStage, object, bool]]:
        """Each stage with ``person``'s work item as that stage would build it, and whether
        the item is exact (its prompts are the stage's own) or holds stand-ins (whose cache
        hits would mean nothing: a stand-in that happens to be cached is not the prompt)."""
        params = self.params
        generator = params.models.generator
        for exact in (True, False):  # retrieval and hybrid contexts are stand-ins
            contexts = [{"personality_id": person.personality_id, "qa_id": pair.qa_id,
                         **planned_selection(strategy, person, params).as_record()}
                        for strategy in params.strategies for pair in person.heldout
                        if (strategy in INDEXED_STRATEGIES) != exact]
            if contexts:
                yield self.generate, self.generate.item(person, contexts), exact
        yield self.fact_summary, self.fact_summary.item(person), True
        self.judge.summaries = {
            (person.personality_id, role.name): {
                "valid": True, "parsed": {"summary": stand_in(role.settings.max_tokens)}}
            for role in self.fact_summary.roles()}
        answers = [{"personality_id": person.personality_id, "strategy": s, "qa_id": p.qa_id,
                    "interview_id": p.interview_id, "valid": True,
                    "response": _answer(s, p, min(estimate_tokens(p.response),
                                                  generator.max_tokens))}
                   for s in params.strategies for p in person.heldout]
        controls = _controls(params, person)
        yield self.judge, (person, answers, [c.record() for c in controls]), False
        yield self.mcq_build, person, True
        self.mcq_answer.control_records = {}
        for record in controls:
            self.mcq_answer.control_records.setdefault(
                (record.personality_id, record.control), []).append(record)
        yield self.mcq_answer, self.mcq_answer.item(person, _mcq_items(params, person)), False

    def mcq_step(self, person: PersonalityData, clients: Clients) -> CallEstimate:
        """mcq-build's MCQ step: one ask per item the gate keeps (here: every pair)."""
        client = clients["mcq_builder"]
        atomics = [AtomicItem(question=p.question, answer=_answer("atomic", p, 8))
                   for p in person.heldout]
        asks = mcq_asks(atomics, client, self.params.mcq.option_count)
        return estimate_asks(client, asks)


def _add(plan: CallPlan, stage: ModelStage, role: Role, dry: CallEstimate,
         estimated: bool) -> None:
    plan.line(stage.name, role.label, role.settings.model, estimated).add(dry)


def plan_personality(plan: CallPlan, person: PersonalityData, stages: _Stages,
                     clients: dict[bool, dict[str, Clients]], agent: Agent | None = None
                     ) -> None:
    """Add one personality's calls to ``plan`` (the interview stage's only with ``agent``);
    ``clients[exact]`` by stage: exact items are priced against the response cache, stand-in
    items against an empty one."""
    params = stages.params
    plan.personalities += 1
    plan.train_pairs += len(person.train)
    plan.heldout_pairs += len(person.heldout)
    plan.heldout_interviews += len(person.heldout_interviews())
    if not person.heldout:
        return
    for stage, item, exact in stages.items(person):
        roles = {role.name: role for role in stage.roles()}
        for name, dry in stage.dry_run(clients[exact][stage.name], item):
            _add(plan, stage, roles[name], dry, estimated=not exact)
        if stage is stages.mcq_build:
            plan.line(stage.name, MCQ_STEP, roles["mcq_builder"].settings.model, True).add(
                stages.mcq_step(person, clients[False][stage.name]))
    if agent is not None:  # whole sessions, sized from the plan's turn budgets
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


def _notes(plan: CallPlan, params: Params, count_hits: bool, agent: Agent | None) -> None:
    plan.notes.append("completion tokens are max_tokens per call (an upper bound)")
    if not count_hits:
        plan.notes.append("cache hits not counted (no response cache)")
    else:
        plan.notes.append("cache hits counted for the prompts built exactly (generate's "
                          "strategies but retrieval/hybrid, fact-summary, mcq-build's atomic "
                          "step); prompts holding stand-ins are priced as calls to make")
    if needs_index(params.strategies):
        plan.notes.append("retrieval/hybrid contexts sized by the same number of latest pairs")
    plan.notes.append("mcq-build's MCQ step counts one call per held-out pair (every item "
                      "kept by the gate)")
    if interview_strategies(params):
        plan.notes.append("interview: each section's turn budget, one first-attempt call per "
                          "turn and role; a session that ends early makes fewer"
                          if agent is not None else "interview: not planned (no agent plan)")
    missing = sorted({line.model for line in plan.lines.values()
                      if line.model not in params.prices})
    if missing:
        plan.notes.append(f"no price for: {', '.join(missing)}")


def build_plan(params: Params, people: Iterable[PersonalityData], count_hits: bool = False,
               agent: Agent | None = None) -> CallPlan:
    """The plan of ``params`` over ``people`` (see the module doc for what is estimated);
    cache hits are looked up in params' response cache with ``count_hits`` (when it exists),
    and the interview stage is planned with ``agent``."""
    plan = CallPlan()
    count_hits = count_hits and Path(params.hub.cache_path).exists()
    # stand-ins are priced against an empty cache of our own (nothing is written beside the
    # project's); so is everything when hits are not counted
    scratch = tempfile.mkdtemp(prefix="interviewsim-plan-")
    empty = params.hub.model_copy(update={"cache_path": str(Path(scratch) / "responses.sqlite")})
    try:
        with ModelHub(params.hub if count_hits else empty) as real, ModelHub(empty) as blank:
            stages = _Stages(params)
            clients = {exact: {stage.name: {role.name: hub.client(role.settings,
                                                                  label=role.label)
                                            for role in stage.roles()}
                               for stage in stages.all()}
                       for exact, hub in ((True, real), (False, blank))}
            for person in people:
                plan_personality(plan, person, stages, clients, agent)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    price(plan, params)
    _notes(plan, params, count_hits, agent)
    return plan
