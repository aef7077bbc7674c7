"""DVC stage ``judge``: Content Similarity, Factual Consistency and Personality Similarity,
once per judge model, reduced to per-personality metrics for ``aggregate``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
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
from interviewsim.data.records import ControlMetric, PersonalityMetric
from interviewsim.data.spool import Spool
from interviewsim.data.stage_summary import write_summary
from interviewsim.experiment.params import Params
from interviewsim.judges.fact_summary import FACT_SUMMARIES
from interviewsim.judges.reduction import JudgeResults, judge_person
from interviewsim.judges.tasks import (
    CS,
    FC,
    JudgeTasks,
    judge_groups,
    per_person,
    plan_person,
    ps_asks_per_person,
)
from interviewsim.llm import ModelHub
from interviewsim.llm.asking import Outcome, run_together
from interviewsim.llm.batching import fill_batches, group_label, overlapped
from interviewsim.llm.workers import Shard, as_copies, by_personality, shard_option
from stages.common import (
    CONTROLS_DIR,
    FACT_SUMMARY_DIR,
    GENERATED_DIR,
    JUDGED_DIR,
    PREPARED_DIR,
    params_option,
    progress_enabled,
    read_params,
)

JUDGED_OUTPUTS = (CS, FC, "ps_runs")


def _summaries(path: Path) -> dict[tuple[str, str], dict]:
    return {(r["personality_id"], r["judge"]): r for r in read_jsonl(path)}


def _inputs(prepared_dir: Path, answers_path: Path, summaries: dict[tuple[str, str], dict],
            params: Params, shard: Shard | None = None, controls_path: Path | None = None
            ) -> Iterator[tuple[PersonalityData, list[dict], list[dict]]]:
    """Each personality (of ``shard``) with its answers, checked against params and the fact
    summaries, and its control answers (none when ``controls_path`` is None)."""
    answers = grouped_by_personality(answers_path)
    controls = grouped_by_personality(controls_path) if controls_path is not None else None
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
        own: list[dict] = []
        if controls is not None:
            cid, own = next_group(controls, person.personality_id, True)
            if cid != person.personality_id or {c["control"] for c in own} != set(
                    params.controls):
                raise click.ClickException(f"{controls_path} is out of date for "
                                           f"{person.personality_id}; rerun controls")
        yield person, records, own


@click.command()
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True, help="Held-out references (from prepare).")
@click.option("--generated-dir", type=click.Path(path_type=Path), default=GENERATED_DIR,
              show_default=True, help="answers.jsonl (from generate).")
@click.option("--summary-dir", type=click.Path(path_type=Path), default=FACT_SUMMARY_DIR,
              show_default=True, help="fact_summaries.jsonl (from fact-summary).")
@click.option("--controls-dir", type=click.Path(path_type=Path), default=CONTROLS_DIR,
              show_default=True, help="answers.jsonl of the controls (from controls).")
@click.option("--out-dir", type=click.Path(path_type=Path), default=JUDGED_DIR,
              show_default=True, help="Where judgments, PS runs/votes and metrics go.")
@click.option("--dry-run", is_flag=True,
              help="Count first-attempt calls, cache hits and prompt tokens; call nothing.")
@shard_option
def judge(params_path: Path, prepared_dir: Path, generated_dir: Path, summary_dir: Path,
          controls_dir: Path, out_dir: Path, dry_run: bool, shard: Shard | None) -> None:
    """Judge every valid generated answer with every judge in models.judges.

    CS: each answer against its held-out reference (score 1-5). FC: each answer against the
    personality's fact summary from the same judge (Entailment / Neutral / Contradiction).
    PS: each Big Five trait of the held-out responses and of each strategy's answers, rated
    judge.ps_runs times at judge.ps_temperature, voted, and compared as an alignment.
    Outputs breaking their contract are re-asked up to judge.max_attempts, then kept with raw
    outputs and the error, excluded from the metrics and counted in summary.json.
    Writes judgments.jsonl, ps_runs.jsonl, ps_votes.jsonl, personality_metrics.jsonl. The
    params.controls (oracle, impostor; from the controls stage) are judged the same way into
    control_judgments.jsonl, control_ps_runs.jsonl, control_ps_votes.jsonl and
    control_metrics.jsonl, never into the strategies' files.
    With ``processes: N`` on the judges' providers the stage runs as N processes.
    """
    whole = read_params(params_path)
    params = as_copies(whole, shard, dry_run, whole.models.judges, {
        "judgments.jsonl": by_personality, "ps_runs.jsonl": by_personality,
        "ps_votes.jsonl": by_personality,
        "personality_metrics.jsonl": lambda r: PersonalityMetric(**r).sort_key(),
        **({f"control_{name}.jsonl": by_personality
            for name in ("judgments", "ps_runs", "ps_votes")}
           | {"control_metrics.jsonl": lambda r: ControlMetric(**r).sort_key()}
           if whole.controls else {})})
    if params is None:
        return
    judges = sorted(params.models.judges, key=lambda j: j.name)
    summaries = _summaries(summary_dir / FACT_SUMMARIES)
    answers_path = generated_dir / "answers.jsonl"
    controls_path = controls_dir / "answers.jsonl" if params.controls else None
    if controls_path is not None and not controls_path.is_file():
        raise click.ClickException(f"{controls_path} is missing; run `interviewsim controls`, "
                                   "or set controls: [] in params.yaml")
    results = JudgeResults()
    skipped: Counter[str] = Counter(answers=0, invalid_answers_not_judged=0)
    with ModelHub(params.hub) as hub:
        clients = {j.name: hub.client(j, label=f"judge/{j.name}") for j in judges}
        inputs = tqdm(_inputs(prepared_dir, answers_path, summaries, params, shard,
                              controls_path),
                      desc="judge", unit="personality", disable=not progress_enabled())

        if dry_run:
            totals: Counter[str] = Counter()
            for person, answers, controls in inputs:
                for j in judges:
                    plan = plan_person(person, answers, summaries[(person.personality_id, j.name)],
                                       params, controls)
                    tasks = JudgeTasks.of(j, params)
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
        ps_asks = ps_asks_per_person(len(params.strategies) + len(params.controls),
                                     params.judge.ps_runs)
        control_judgments = Spool()

        def planned() -> Iterator[tuple[list[tuple[PersonalityData, list[dict], list[dict]]],
                                        dict]]:
            """Personalities grouped until their asks fill the endpoint's concurrency, each
            group with every judge's plans and (task, asks) groups."""
            size = lambda item: 2 * (len(item[1]) + len(item[2])) + ps_asks  # noqa: E731
            for chunk in fill_batches(inputs, size, target, first):
                work = {}
                for j in judges:
                    tasks = JudgeTasks.of(j, params)
                    plans, orders, groups = [], [], []
                    for person, answers, controls in chunk:
                        plan = plan_person(person, answers,
                                           summaries[(person.personality_id, j.name)], params,
                                           controls)
                        mine, order = judge_groups(person, plan, tasks, params)
                        plans.append(plan)
                        orders.append(order)
                        groups += mine
                    work[j.name] = (plans, orders, groups)
                yield chunk, work

        def judged(item: tuple[list[tuple[PersonalityData, list[dict], list[dict]]], dict]
                   ) -> dict[str, list[list[Outcome]]]:
            """Every judge's outcomes for one group (run while the previous group is
            written)."""
            chunk, work = item
            ids = group_label([p.personality_id for p, _, _ in chunk])
            return {j.name: run_together(clients[j.name], work[j.name][2],
                                         params.judge.max_attempts, f"judge {j.name} {ids}")
                    for j in judges}

        def judgments() -> Iterator[dict]:
            """Judgments, PS runs and PS votes in personality order, then judge order,
            however the personalities were grouped for the endpoint (a control's records go
            to the control spools)."""
            for (chunk, work), outcome_sets in overlapped(planned(), judged, stop=hub.stop):
                records: dict[tuple[str, str], tuple[list[dict], list[dict], list[dict]]] = {}
                for j in judges:
                    plans, orders, _ = work[j.name]
                    outcomes = per_person(outcome_sets[j.name], len(chunk))
                    for k, (person, _, _) in enumerate(chunk):
                        runs: list[dict] = []
                        votes: list[dict] = []
                        judged_records = list(judge_person(
                            person, plans[k], j, params, results, outcomes[k], orders[k], runs,
                            votes))
                        records[(person.personality_id, j.name)] = (judged_records, runs, votes)
                for person, answers, _ in chunk:
                    skipped.update(answers=len(answers),
                                   invalid_answers_not_judged=sum(not a["valid"] for a in answers))
                    for j in judges:
                        judged_records, runs, votes = records[(person.personality_id, j.name)]
                        for record in judged_records:
                            if "control" in record:
                                control_judgments.append(record)
                            else:
                                yield record
                        for run in runs:
                            (results.control_ps_runs if "control" in run
                             else results.ps_runs).append(run)
                        for vote in votes:
                            (results.control_ps_votes if "control" in vote
                             else results.ps_votes).append(vote)

        total = write_jsonl_atomic(out_dir / "judgments.jsonl", judgments())
        write_jsonl_atomic(out_dir / "ps_runs.jsonl", results.ps_runs)
        write_jsonl_atomic(out_dir / "ps_votes.jsonl", results.ps_votes)
        metrics = sorted(results.metrics, key=PersonalityMetric.sort_key)
        write_jsonl_atomic(out_dir / "personality_metrics.jsonl",
                           (m.model_dump() for m in metrics))
        if params.controls:
            write_jsonl_atomic(out_dir / "control_judgments.jsonl", control_judgments)
            write_jsonl_atomic(out_dir / "control_ps_runs.jsonl", results.control_ps_runs)
            write_jsonl_atomic(out_dir / "control_ps_votes.jsonl", results.control_ps_votes)
            write_jsonl_atomic(out_dir / "control_metrics.jsonl", (
                m.model_dump() for m in sorted(results.control_metrics,
                                               key=ControlMetric.sort_key)))
        counts = {"inputs": dict(skipped), "judgments": total,
                  "per_judge": {j: {w: dict(c) for w, c in per.items()}
                                for j, per in sorted(results.counts.items())}}
        write_summary(out_dir / "summary.json", counts, hub.usage())
    invalid = sum(per[w]["invalid"] for per in results.counts.values() for w in JUDGED_OUTPUTS)
    click.echo(f"judge: {total} CS/FC judgments, {len(results.ps_runs)} PS runs, "
               f"{invalid} invalid (kept, not scored; see summary.json) -> {out_dir}")
