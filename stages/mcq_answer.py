"""DVC stage ``mcq-answer``: every answering model takes each interview's MCQs per strategy."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import click
from tqdm import tqdm

from interviewsim.context.strategies import RetrievalIndex
from interviewsim.data.corpus import PersonalityData, grouped_by_personality, iter_personalities
from interviewsim.data.jsonio import write_jsonl_atomic
from interviewsim.data.records import PersonalityMetric
from interviewsim.data.stage_summary import write_summary
from interviewsim.experiment.params import Params
from interviewsim.generation.prompt import LeakageGuard
from interviewsim.llm import ModelHub
from interviewsim.mcq.answering import GroupPrompt, answer_ask, answer_groups, group_prompt
from interviewsim.mcq.answering import interview_groups as by_interview
from interviewsim.mcq.asking import plan_asks
from interviewsim.mcq.models import McqItem
from interviewsim.mcq.scoring import mean
from stages.common import (
    MCQ_ANSWERS_DIR,
    MCQ_ITEMS_DIR,
    PREPARED_DIR,
    params_option,
    progress_enabled,
    read_params,
)


def _people_with_items(prepared_dir: Path, items_path: Path
                       ) -> Iterator[tuple[PersonalityData, list[McqItem]]]:
    """Every personality (in id order) with its items; one without items gets an empty list."""
    groups = grouped_by_personality(items_path)
    pending = next(groups, None)
    for person in iter_personalities(prepared_dir):
        if pending is not None and pending[0] < person.personality_id:
            break  # items of a personality the split does not have: reported below
        items: list[McqItem] = []
        if pending is not None and pending[0] == person.personality_id:
            items = [McqItem.model_validate(r) for r in pending[1]]
            pending = next(groups, None)
        yield person, items
    if pending is not None:
        raise click.ClickException(f"{items_path} has items of {pending[0]!r}, which is not in "
                                   f"{prepared_dir} (or out of order); rerun mcq-build")


def _prompts(person: PersonalityData, items: list[McqItem], params: Params,
             embedder) -> list[GroupPrompt]:
    """One leak-checked prompt per (strategy, held-out interview), in params order."""
    guard = LeakageGuard(person)
    try:
        groups = by_interview(person, items)
    except ValueError as exc:
        raise click.ClickException(f"mcqs.jsonl is out of date: {exc}") from None
    index = None
    if embedder is not None and groups:
        index = RetrievalIndex.build(person.train, embedder.embed, params.context.retrieval_text)
        index.warm([item.question for item in items])
    return [group_prompt(strategy, person, interview_id, group, params.context, params.seed,
                         index, guard)
            for strategy in params.strategies for interview_id, group in groups]


def _metrics(person: PersonalityData, strategy: str, answerer: str,
             records: list[dict]) -> list[PersonalityMetric]:
    scored = [item for r in records for item in r["items"]]
    malformed = sum(item["malformed"] for item in scored)
    return [
        PersonalityMetric(personality_id=person.personality_id, strategy=strategy,
                          judge=answerer, metric=metric,
                          value=mean(item[field] for item in scored), n=len(scored),
                          invalid=malformed)
        for metric, field in (("mcq_accuracy", "accuracy"), ("mcq_reward", "reward"))
    ]


@click.command("mcq-answer")
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True)
@click.option("--items-dir", type=click.Path(path_type=Path), default=MCQ_ITEMS_DIR,
              show_default=True)
@click.option("--out-dir", type=click.Path(path_type=Path), default=MCQ_ANSWERS_DIR,
              show_default=True)
@click.option("--dry-run", is_flag=True,
              help="Count calls, cache hits and estimated prompt tokens; call nothing.")
def mcq_answer(params_path: Path, prepared_dir: Path, items_dir: Path, out_dir: Path,
               dry_run: bool) -> None:
    """Answer the MCQs with every models.mcq_answerers entry under every strategy.

    One prompt per (personality, strategy, held-out interview, answerer) presents that
    interview's items as Q1..QN after the strategy's context (retrieval and hybrid: the ordered,
    de-duplicated union of each item's retrieval). The context is checked to hold training text
    only (a leak stops the stage with exit 3). The reply must be exactly N lines 'Qi: <label>';
    it is re-asked up to mcq.max_attempts, then every item of the group scores as malformed.
    A group's completion budget is raised above the answerer's max_tokens when N lines need more.
    Scores follow the chosen option's role: accuracy 1 only for correct; reward +1 correct,
    -1 opposite/negation, -0.5 otherwise. Writes answers.jsonl (one record per group: items,
    scores, calls), personality_metrics.jsonl (mcq_accuracy and mcq_reward per personality,
    strategy and answerer; n counts every scored item, invalid the malformed ones, which the
    contract scores rather than excludes) and summary.json.
    """
    params = read_params(params_path)
    hub = ModelHub(params.hub)
    click.get_current_context().call_on_close(hub.close)
    clients = {a.name: hub.client(a, label=f"mcq_answerer:{a.name}")
               for a in params.models.mcq_answerers}
    embedder = None
    if {"retrieval", "hybrid"} & set(params.strategies):
        from interviewsim.context.embeddings import open_embedder  # only runs that retrieve need it

        embedder = open_embedder(params)
    items_path = items_dir / "mcqs.jsonl"

    def people():
        return tqdm(_people_with_items(prepared_dir, items_path), desc="mcq-answer",
                    unit="personality", disable=not progress_enabled())

    if dry_run:
        plan_totals: Counter[str] = Counter()
        for person, items in people():
            prompts = _prompts(person, items, params, embedder)
            for client in clients.values():
                plan = plan_asks(client, [answer_ask(p, client, client.settings.max_tokens)
                                          for p in prompts])
                plan_totals.update(calls=plan.calls, cache_hits=plan.cache_hits,
                                   est_prompt_tokens=plan.est_prompt_tokens)
        click.echo(f"mcq-answer (dry run): {plan_totals['calls']} calls, "
                   f"{plan_totals['cache_hits']} already cached, "
                   f"~{plan_totals['est_prompt_tokens']} prompt tokens")
        return

    counts: Counter[str] = Counter()
    metrics: list[PersonalityMetric] = []

    def answers():
        for person, items in people():
            prompts = _prompts(person, items, params, embedder)
            counts["personalities"] += 1
            counts["items"] += len(items)
            records: list[dict] = []
            for name, client in clients.items():
                own = answer_groups(client, name, prompts, params.mcq.max_attempts,
                                    desc=f"mcq-answer {person.personality_id} {name}")
                for strategy in params.strategies:
                    metrics.extend(_metrics(person, strategy, name,
                                            [r for r in own if r["strategy"] == strategy]))
                records.extend(own)
            counts["groups"] += len(records)
            counts["malformed_groups"] += sum(r["malformed"] for r in records)
            counts["answered_items"] += sum(len(r["items"]) for r in records)
            counts["malformed_items"] += sum(i["malformed"] for r in records for i in r["items"])
            yield from sorted(records, key=lambda r: (r["strategy"], r["answerer"],
                                                      r["interview_id"]))

    write_jsonl_atomic(out_dir / "answers.jsonl", answers())
    metrics.sort(key=PersonalityMetric.sort_key)
    write_jsonl_atomic(out_dir / "personality_metrics.jsonl",
                       (m.model_dump(mode="json") for m in metrics))
    write_summary(out_dir / "summary.json", dict(counts), hub.usage())
    click.echo(f"mcq-answer: {counts['groups']} grouped prompts, {counts['answered_items']} "
               f"item answers ({counts['malformed_items']} malformed) -> {out_dir}")
