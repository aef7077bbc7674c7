"""DVC stage ``interview``: the interview agent at scale.

It interviews every personality's twin under every strategy with the
personality plan (the held-out questions as topics) and reports the fidelity gap, the
guardrail violation rate and the state coverage per personality.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click
from tqdm import tqdm

from interviewsim.agent.artifacts import write_session
from interviewsim.agent.config import SETTINGS_PATH, load_agent_settings
from interviewsim.agent.evaluator import Evaluator
from interviewsim.agent.experiment import (
    METRICS,
    fidelity_records,
    score_references,
    session_metrics,
)
from interviewsim.agent.plan import load_plan
from interviewsim.agent.results import CandidateInfo, SessionResult
from interviewsim.agent.setup import open_clients, personality_plan, run_session, twin
from interviewsim.analysis.metrics import strategy_means
from interviewsim.config.conditions import needs_index
from interviewsim.config.params import ALL_STRATEGIES, Params
from interviewsim.context.strategies import RetrievalIndex
from interviewsim.data.corpus import PersonalityData, iter_personalities
from interviewsim.data.jsonio import write_json_atomic, write_jsonl_atomic
from interviewsim.data.records import PersonalityMetric
from interviewsim.data.stage_summary import write_summary
from interviewsim.experiment.sizing import interview_calls, interview_strategies
from interviewsim.llm import ModelHub
from stages.common import PREPARED_DIR, params_option, progress_enabled, read_params

INTERVIEW_OUT = Path("data/artifacts/interview")


def _interview_all(params: Params, prepared_dir: Path, out_dir: Path, settings_path: Path,
                   plan_name: str, strategies: list[str], metrics: list[PersonalityMetric],
                   fidelity: list[dict], references: list[dict], counts: Counter[str]) -> dict:
    """Run every interview, appending to the result lists; the hub's usage.

    Personalities are interviewed concurrently (one thread each, as many as the interviewer's
    endpoint serves at once), so an engine that decodes several requests together has one
    turn of each session to batch; within a personality the reference scoring and the
    strategies' sessions run in order. Results are written in personality order either way.
    """
    settings = load_agent_settings(settings_path).model_copy(update={"coach_mode": "off"})
    settings.check_providers(params, str(settings_path))
    base_plan = load_plan(plan_name)
    embedder = None
    if needs_index(strategies):
        from interviewsim.context.embeddings import open_embedder

        embedder = open_embedder(params)
    with ModelHub(params.hub) as hub:
        clients = open_clients(hub, params, settings)

        def one(person: PersonalityData) -> tuple[list, list[tuple[str, SessionResult]]]:
            plan = personality_plan(base_plan, person)
            evaluator = Evaluator(clients.evaluator, plan, settings.evaluator_max_calls)
            reference = score_references(evaluator, plan, person)
            index = None if embedder is None else RetrievalIndex.build(
                person.train, embedder.embed, params.context.retrieval_text)
            sessions = []
            for strategy in strategies:
                info = CandidateInfo(kind="simulated", personality_id=person.personality_id,
                                     strategy=strategy)
                candidate = twin(person, strategy, clients, params, settings, index)
                sessions.append((strategy, run_session(plan, settings, clients, candidate,
                                                       info)))
            return reference, sessions

        people = list(iter_personalities(prepared_dir))
        workers = max(1, min(len(people), clients.interviewer.provider.max_concurrency))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="interview") as pool:
            done = tqdm(pool.map(one, people), total=len(people), desc="interview",
                        unit="personality", disable=not progress_enabled())
            for person, (reference, sessions) in zip(people, done, strict=True):
                references += [r.model_dump(mode="json") for r in reference]
                for strategy, result in sessions:
                    card = write_session(result, out_dir / "sessions" / person.personality_id
                                         / strategy)
                    records = fidelity_records(result, person, strategy, reference)
                    fidelity += [r.model_dump(mode="json") for r in records]
                    metrics += session_metrics(result, records, settings.judge_name)
                    counts.update(interviews=1, turns=card.turns, scored=card.answers_scored,
                                  unscored=card.answers_unscored)
        return hub.usage()


@click.command("interview")
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True)
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path),
              default=INTERVIEW_OUT, show_default=True)
@click.option("--agent-settings", "settings_path", type=click.Path(dir_okay=False, path_type=Path),
              default=SETTINGS_PATH, show_default=True)
@click.option("--plan", "plan_name", default=None,
              help="Interview plan [default: params.yaml interview.plan].")
@click.option("--strategy", "only", multiple=True, type=click.Choice(ALL_STRATEGIES),
              help="Interview under these strategies (repeatable) [default: params.yaml "
                   "interview.strategies]; each costs one interview per personality.")
@click.option("--dry-run", is_flag=True,
              help="Estimate calls and prompt tokens from the plan's turn budgets; call nothing.")
def interview(params_path: Path, prepared_dir: Path, out_dir: Path, settings_path: Path,
              plan_name: str | None, only: tuple[str, ...], dry_run: bool) -> None:
    """Interview every twin under every strategy; write the sessions and three metrics.

    Outputs: sessions/<personality>/<strategy>/ (each interview's artifacts), references.jsonl
    (the evaluator on the real held-out answers), fidelity.jsonl (twin vs real composite per
    question), personality_metrics.jsonl (fidelity_gap, guardrail_violation_rate,
    state_coverage), metrics.json (per-strategy means) and summary.json. The coach is off:
    it changes nothing that is measured here. With no strategy to interview (params.yaml
    ``interview.strategies: []``) no model is called and the outputs are empty.
    """
    params = read_params(params_path)
    strategies = interview_strategies(params, only)
    if dry_run:
        settings = load_agent_settings(settings_path)
        base_plan = load_plan(plan_name or params.interview.plan)
        calls = [c for person in iter_personalities(prepared_dir)
                 for c in interview_calls(person, params, settings, base_plan, strategies)]
        click.echo(f"interview (dry run): ~{sum(c.calls for c in calls)} calls (each section's "
                   f"turn budget), ~{sum(c.prompt_tokens for c in calls)} prompt tokens; cache "
                   "hits not counted (each turn's prompt depends on the answers before it)")
        return
    metrics: list[PersonalityMetric] = []
    fidelity: list[dict] = []
    references: list[dict] = []
    counts: Counter[str] = Counter()
    usage: dict = {}
    (out_dir / "sessions").mkdir(parents=True, exist_ok=True)  # a DVC out even when empty
    if strategies:
        usage = _interview_all(params, prepared_dir, out_dir, settings_path,
                               plan_name or params.interview.plan, strategies,
                               metrics, fidelity, references, counts)
    metrics.sort(key=PersonalityMetric.sort_key)
    write_jsonl_atomic(out_dir / "references.jsonl", references)
    write_jsonl_atomic(out_dir / "fidelity.jsonl", fidelity)
    write_jsonl_atomic(out_dir / "personality_metrics.jsonl",
                       (m.model_dump(mode="json") for m in metrics))
    write_json_atomic(out_dir / "metrics.json", {"interview": strategy_means(metrics, METRICS)})
    write_summary(out_dir / "summary.json", dict(counts), usage)
    click.echo(f"interviewed {counts['interviews']} twins ({counts['turns']} turns, "
               f"{counts['scored']} answers scored) -> {out_dir}")
