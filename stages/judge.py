"""DVC stage ``judge``: Content Similarity, Factual Consistency and Personality Similarity,
once per judge model, reduced to per-personality metrics for ``aggregate``."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click
from tqdm import tqdm

from interviewsim.data.corpus import (
    PersonalityData,
    grouped_by_personality,
    iter_personalities,
    next_group,
)
from interviewsim.data.jsonio import read_jsonl, write_jsonl_atomic
from interviewsim.data.records import PersonalityMetric
from interviewsim.data.spool import Spool
from interviewsim.data.stage_summary import write_summary
from interviewsim.experiment.params import Params
from interviewsim.judges import reduction as judge_metrics
from interviewsim.judges.constraints import (
    content_similarity_constraints,
    factual_consistency_constraints,
    trait_rating_constraints,
)
from interviewsim.judges.parsers import (
    parse_content_similarity,
    parse_factual_consistency,
    parse_trait_rating,
)
from interviewsim.judges.personality import TRAITS
from interviewsim.judges.prompts import (
    content_similarity_messages,
    factual_consistency_messages,
    personality_messages,
)
from interviewsim.judges.reduction import Key, TraitVote, vote_runs
from interviewsim.llm import ModelHub
from interviewsim.llm.asking import Ask, JudgeTask, Outcome, run_together
from interviewsim.llm.batching import fill_batches, group_label, overlapped
from interviewsim.llm.settings import NamedModelSettings
from interviewsim.llm.workers import Shard, as_copies, by_personality, shard_option
from stages.common import (
    FACT_SUMMARY_DIR,
    GENERATED_DIR,
    JUDGED_DIR,
    PREPARED_DIR,
    params_option,
    progress_enabled,
    read_params,
)
from stages.fact_summary import FACT_SUMMARIES

CS = "content_similarity"
FC = "factual_consistency"
JUDGED_OUTPUTS = ("content_similarity", "factual_consistency", "ps_runs")


@dataclass(frozen=True)
class Tasks:
    """The three judgment kinds as one judge model is asked for them."""

    cs: JudgeTask
    fc: JudgeTask
    ps: JudgeTask

    @classmethod
    def of(cls, judge: NamedModelSettings, params: Params) -> Tasks:
        """Constraints bounded by the judge's max_tokens; PS runs are samples, not replays,
        so they use judge.ps_temperature rather than the model's temperature."""
        budget = judge.max_tokens
        return cls(
            cs=JudgeTask(parse=parse_content_similarity,
                         constraints=content_similarity_constraints(budget)),
            fc=JudgeTask(parse=parse_factual_consistency,
                         constraints=factual_consistency_constraints(budget)),
            ps=JudgeTask(parse=parse_trait_rating, constraints=trait_rating_constraints(budget),
                         temperature=params.judge.ps_temperature),
        )


@dataclass(frozen=True)
class Collection:
    """One evaluation side for PS: the held-out responses, or one strategy's valid answers."""

    side: str
    strategy: str | None
    responses: tuple[str, ...]


@dataclass
class Plan:
    """Every ask for one personality and one judge, built before anything is called."""

    answers: list[dict]
    cs: list[Ask]
    fc: list[Ask] | None
    fc_unavailable: str | None
    collections: list[Collection]
    ps: list[Ask]


@dataclass
class Results:
    """What the stage writes besides judgments.jsonl, and the counts for summary.json."""

    ps_runs: Spool = field(default_factory=Spool)
    """On disk until written: PS runs carry every raw output, so memory stays flat."""
    ps_votes: Spool = field(default_factory=Spool)
    metrics: list[PersonalityMetric] = field(default_factory=list)
    counts: dict[str, dict[str, Counter[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(Counter)))

    def count(self, judge: str, what: str, outcomes: Sequence[Outcome]) -> None:
        valid = sum(1 for o in outcomes if o.valid)
        reasks = sum(max(len(o.calls) - 1, 0) for o in outcomes)
        self.counts[judge][what].update(valid=valid, invalid=len(outcomes) - valid, reasks=reasks)


def plan_person(person: PersonalityData, answers: list[dict], summary: dict,
                params: Params) -> Plan:
    """CS asks in answer order, FC asks (unless the summary is invalid), PS asks per collection
    × trait × run; PS run ``r`` starts at sample index ``r`` and re-asks step by ps_runs."""
    refs = {p.qa_id: p.response for p in person.heldout}
    valid = [a for a in answers if a["valid"]]
    cs = [Ask(content_similarity_messages(refs[a["qa_id"]], a["response"])) for a in valid]
    fc, unavailable = None, None
    if summary["valid"]:
        text = summary["parsed"]["summary"]
        fc = [Ask(factual_consistency_messages(text, a["response"])) for a in valid]
    else:
        unavailable = f"fact summary invalid: {summary['error']}"
    collections = [Collection("reference", None, tuple(p.response for p in person.heldout))]
    for strategy in params.strategies:
        texts = tuple(a["response"] for a in valid if a["strategy"] == strategy)
        collections.append(Collection("generated", strategy, texts))
    runs = params.judge.ps_runs
    ps = [Ask(personality_messages(c.responses, trait), first_index=run, stride=runs)
          for c in collections if c.responses for trait in TRAITS for run in range(runs)]
    return Plan(valid, cs, fc, unavailable, collections, ps)


def _prefix_order(answers: list[dict], person: PersonalityData, strategies: list[str]
                  ) -> list[int]:
    """Answer indices grouped by question, so one reference's CS prompts run back to back."""
    position = {p.qa_id: i for i, p in enumerate(person.heldout)}
    rank = {s: i for i, s in enumerate(strategies)}
    return sorted(range(len(answers)),
                  key=lambda i: (position[answers[i]["qa_id"]], rank[answers[i]["strategy"]]))


def judge_groups(person: PersonalityData, plan: Plan, tasks: Tasks, params: Params
                 ) -> tuple[list[tuple[JudgeTask, list[Ask]]], list[int]]:
    """The (task, asks) groups of one personality for :func:`run_together` — CS in prefix
    order, FC, PS — and the CS order, to put CS outcomes back in answer order."""
    order = _prefix_order(plan.answers, person, params.strategies)
    groups = [(tasks.cs, [plan.cs[i] for i in order]), (tasks.fc, plan.fc or []),
              (tasks.ps, plan.ps)]
    return groups, order


def judge_person(person: PersonalityData, plan: Plan, judge: NamedModelSettings,
                 params: Params, results: Results, outcomes: list[list[Outcome]],
                 order: list[int], ps_runs: list[dict], ps_votes: list[dict]
                 ) -> Iterator[dict]:
    """One judge's outcomes for one personality: yield its CS/FC judgments, append its PS runs
    and votes to ``ps_runs``/``ps_votes``, collect metrics and counts in ``results``.
    ``outcomes`` are the CS (in ``order``), FC and PS groups of judge_groups."""
    pid, name = person.personality_id, judge.name
    cs: list[Outcome] = [Outcome() for _ in plan.answers]
    for i, outcome in zip(order, outcomes[0], strict=True):
        cs[i] = outcome
    fc = outcomes[1] if plan.fc is not None else \
        [Outcome.invalid(plan.fc_unavailable or "") for _ in plan.answers]
    ps = iter(outcomes[2])
    results.count(name, CS, cs)
    results.count(name, FC, fc)
    for metric, judged in ((CS, cs), (FC, fc)):
        for answer, outcome in zip(plan.answers, judged, strict=True):
            yield {"personality_id": pid, "judge": name, "model": judge.model, "metric": metric,
                   "strategy": answer["strategy"], "qa_id": answer["qa_id"],
                   "interview_id": answer["interview_id"], **outcome.record()}
    votes: dict[str | None, dict[str, TraitVote]] = {}
    for collection in plan.collections:
        side = {"personality_id": pid, "judge": name, "model": judge.model,
                "side": collection.side, "strategy": collection.strategy}
        votes[collection.strategy] = {}
        for trait in TRAITS:
            if collection.responses:
                runs = [next(ps) for _ in range(params.judge.ps_runs)]
            else:
                reason = f"no valid generated answers for strategy {collection.strategy}"
                runs = [Outcome.invalid(reason) for _ in range(params.judge.ps_runs)]
            results.count(name, "ps_runs", runs)
            for run, outcome in enumerate(runs):
                ps_runs.append({**side, "trait": trait, "run": run, **outcome.record()})
            vote = vote_runs(runs)
            votes[collection.strategy][trait] = vote
            results.counts[name]["ps_votes"].update(valid=int(vote.vote is not None),
                                                    invalid=int(vote.vote is None))
            ps_votes.append({**side, "trait": trait, **vote.record()})
    for strategy in params.strategies:
        key = Key(pid, strategy, name)
        mine = [i for i, a in enumerate(plan.answers) if a["strategy"] == strategy]
        results.metrics.append(judge_metrics.content_similarity(key, [cs[i] for i in mine]))
        results.metrics.extend(judge_metrics.factual_consistency(key, [fc[i] for i in mine]))
        ps_metrics = judge_metrics.personality_similarity(key, votes[None], votes[strategy])
        results.metrics.extend(ps_metrics)
        results.counts[name]["personality_alignment"].update(
            valid=ps_metrics[0].n, invalid=ps_metrics[0].invalid)


def _summaries(path: Path) -> dict[tuple[str, str], dict]:
    if not path.is_file():
        raise click.ClickException(f"{path} is missing; run `interviewsim fact-summary` first")
    return {(r["personality_id"], r["judge"]): r for r in read_jsonl(path)}


def _inputs(prepared_dir: Path, answers_path: Path, summaries: dict[tuple[str, str], dict],
            params: Params, shard: Shard | None = None
            ) -> Iterator[tuple[PersonalityData, list[dict]]]:
    """Each personality (of ``shard``) with its answers, checked against params and the fact
    summaries."""
    answers = grouped_by_personality(answers_path)
    wanted = set(params.strategies)
    for person in iter_personalities(prepared_dir, shard.takes if shard else None):
        pid, records = next_group(answers, person.personality_id, shard is not None)
        if pid != person.personality_id:
            raise click.ClickException(f"{answers_path} is out of date ({pid} vs "
                                       f"{person.personality_id}); rerun generate")
        found = {r["strategy"] for r in records}
        if found != wanted:
            raise click.ClickException(
                f"{answers_path}: {pid} has answers for {sorted(found)} but params.strategies "
                f"is {sorted(wanted)}; rerun generate")
        for judge in params.models.judges:
            if (pid, judge.name) not in summaries:
                raise click.ClickException(f"no fact summary for {pid} by judge {judge.name!r}; "
                                           "rerun fact-summary")
        yield person, records


@click.command()
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True, help="Held-out references (from prepare).")
@click.option("--generated-dir", type=click.Path(path_type=Path), default=GENERATED_DIR,
              show_default=True, help="answers.jsonl (from generate).")
@click.option("--summary-dir", type=click.Path(path_type=Path), default=FACT_SUMMARY_DIR,
              show_default=True, help="fact_summaries.jsonl (from fact-summary).")
@click.option("--out-dir", type=click.Path(path_type=Path), default=JUDGED_DIR,
              show_default=True, help="Where judgments, PS runs/votes and metrics go.")
@click.option("--dry-run", is_flag=True,
              help="Count first-attempt calls, cache hits and prompt tokens; call nothing.")
@shard_option
def judge(params_path: Path, prepared_dir: Path, generated_dir: Path, summary_dir: Path,
          out_dir: Path, dry_run: bool, shard: Shard | None) -> None:
    """Judge every valid generated answer with every judge in models.judges.

    CS: each answer against its held-out reference (score 1-5). FC: each answer against the
    personality's fact summary from the same judge (Entailment / Neutral / Contradiction).
    PS: each Big Five trait of the held-out responses and of each strategy's answers, rated
    judge.ps_runs times at judge.ps_temperature, voted, and compared as an alignment.
    Outputs breaking their contract are re-asked up to judge.max_attempts, then kept with raw
    outputs and the error, excluded from the metrics and counted in summary.json.
    Writes judgments.jsonl, ps_runs.jsonl, ps_votes.jsonl, personality_metrics.jsonl.
    With ``processes: N`` on the judges' providers the stage runs as N processes.
    """
    whole = read_params(params_path)
    params = as_copies(whole, shard, dry_run, whole.models.judges, {
        "judgments.jsonl": by_personality, "ps_runs.jsonl": by_personality,
        "ps_votes.jsonl": by_personality,
        "personality_metrics.jsonl": lambda r: PersonalityMetric(**r).sort_key()})
    if params is None:
        return
    judges = sorted(params.models.judges, key=lambda j: j.name)
    summaries = _summaries(summary_dir / FACT_SUMMARIES)
    answers_path = generated_dir / "answers.jsonl"
    results = Results()
    skipped: Counter[str] = Counter(answers=0, invalid_answers_not_judged=0)
    with ModelHub(params.hub) as hub:
        clients = {j.name: hub.client(j, label=f"judge/{j.name}") for j in judges}
        inputs = tqdm(_inputs(prepared_dir, answers_path, summaries, params, shard), desc="judge",
                      unit="personality", disable=not progress_enabled())

        if dry_run:
            totals: Counter[str] = Counter()
            for person, answers in inputs:
                for j in judges:
                    plan = plan_person(person, answers, summaries[(person.personality_id, j.name)],
                                       params)
                    tasks = Tasks.of(j, params)
                    for task, asks in ((tasks.cs, plan.cs), (tasks.fc, plan.fc or []),
                                       (tasks.ps, plan.ps)):
                        cost = task.plan(clients[j.name], asks)
                        totals.update(calls=cost.calls, cache_hits=cost.cache_hits,
                                      tokens=cost.est_prompt_tokens)
            click.echo(f"judge (dry run): {totals['calls']} first-attempt calls, "
                       f"{totals['cache_hits']} already cached, ~{totals['tokens']} prompt tokens")
            return

        target = max(c.batch_target for c in clients.values())
        first = max(c.first_batch_target for c in clients.values())
        per_person = 5 * (len(params.strategies) + 1) * params.judge.ps_runs

        def planned() -> Iterator[tuple[list[tuple[PersonalityData, list[dict]]], dict]]:
            """Personalities grouped until their asks fill the endpoint's concurrency, each
            group with every judge's plans and (task, asks) groups."""
            size = lambda item: 2 * len(item[1]) + per_person  # noqa: E731
            for chunk in fill_batches(inputs, size, target, first):
                work = {}
                for j in judges:
                    tasks = Tasks.of(j, params)
                    plans, orders, groups = [], [], []
                    for person, answers in chunk:
                        plan = plan_person(person, answers,
                                           summaries[(person.personality_id, j.name)], params)
                        mine, order = judge_groups(person, plan, tasks, params)
                        plans.append(plan)
                        orders.append(order)
                        groups += mine
                    work[j.name] = (plans, orders, groups)
                yield chunk, work

        def judged(item: tuple[list[tuple[PersonalityData, list[dict]]], dict]
                   ) -> dict[str, list[list[Outcome]]]:
            """Every judge's outcomes for one group (run while the previous group is
            written)."""
            chunk, work = item
            ids = group_label([p.personality_id for p, _ in chunk])
            return {j.name: run_together(clients[j.name], work[j.name][2],
                                         params.judge.max_attempts, f"judge {j.name} {ids}")
                    for j in judges}

        def judgments() -> Iterator[dict]:
            """Judgments, PS runs and PS votes in personality order, then judge order,
            however the personalities were grouped for the endpoint."""
            for (chunk, work), outcome_sets in overlapped(planned(), judged, stop=hub.stop):
                records: dict[tuple[str, str], tuple[list[dict], list[dict], list[dict]]] = {}
                for j in judges:
                    plans, orders, _ = work[j.name]
                    outcomes = outcome_sets[j.name]
                    for k, (person, _) in enumerate(chunk):
                        runs: list[dict] = []
                        votes: list[dict] = []
                        judged_records = list(judge_person(
                            person, plans[k], j, params, results, outcomes[3 * k:3 * k + 3],
                            orders[k], runs, votes))
                        records[(person.personality_id, j.name)] = (judged_records, runs, votes)
                for person, answers in chunk:
                    skipped.update(answers=len(answers),
                                   invalid_answers_not_judged=sum(not a["valid"] for a in answers))
                    for j in judges:
                        judged_records, runs, votes = records[(person.personality_id, j.name)]
                        yield from judged_records
                        for run in runs:
                            results.ps_runs.append(run)
                        for vote in votes:
                            results.ps_votes.append(vote)

        total = write_jsonl_atomic(out_dir / "judgments.jsonl", judgments())
        write_jsonl_atomic(out_dir / "ps_runs.jsonl", results.ps_runs)
        write_jsonl_atomic(out_dir / "ps_votes.jsonl", results.ps_votes)
        metrics = sorted(results.metrics, key=PersonalityMetric.sort_key)
        write_jsonl_atomic(out_dir / "personality_metrics.jsonl",
                           (m.model_dump() for m in metrics))
        counts = {"inputs": dict(skipped), "judgments": total,
                  "per_judge": {j: {w: dict(c) for w, c in per.items()}
                                for j, per in sorted(results.counts.items())}}
        write_summary(out_dir / "summary.json", counts, hub.usage())
    invalid = sum(per[w]["invalid"] for per in results.counts.values() for w in JUDGED_OUTPUTS)
    click.echo(f"judge: {total} CS/FC judgments, {len(results.ps_runs)} PS runs, "
               f"{invalid} invalid (kept, not scored; see summary.json) -> {out_dir}")
