"""DVC stage ``mcq-answer``: every answering model takes each interview's MCQs per strategy,
in every rotated option order, and under each control (whose records stay in their own files)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
from tqdm import tqdm

from interviewsim.context.strategies import RetrievalIndex
from interviewsim.data.corpus import PersonalityData, grouped_by_personality, iter_personalities
from interviewsim.data.jsonio import write_json_atomic, write_jsonl_atomic
from interviewsim.data.records import ControlMetric, PersonalityMetric
from interviewsim.data.spool import Spool
from interviewsim.data.stage_summary import write_summary
from interviewsim.experiment.params import Params
from interviewsim.generation.prompt import LeakageGuard
from interviewsim.llm import ModelHub
from interviewsim.llm.batching import fill_batches, group_label, overlapped
from interviewsim.mcq.answering import (
    GroupPrompt,
    Prompted,
    answer_ask,
    answer_groups,
    group_prompt,
    with_rotations,
)
from interviewsim.mcq.answering import interview_groups as by_interview
from interviewsim.mcq.asking import plan_asks
from interviewsim.mcq.controls import (
    ControlPrompt,
    ControlRecords,
    control_group_prompts,
    read_control_records,
)
from interviewsim.mcq.models import McqItem
from interviewsim.mcq.position import ItemAnswer, item_answers, position_bias
from interviewsim.mcq.rotation import MetricValue, condition_metrics
from stages.common import (
    CONTROLS_DIR,
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


Groups = list[tuple[str, list[McqItem]]]


@dataclass(frozen=True)
class _Work:
    """One personality's items and every prompt it is asked: the strategies' groups (params
    order, each with its rotations), then the controls'."""

    person: PersonalityData
    items: list[McqItem]
    prompts: list[Prompted]


def _groups(person: PersonalityData, items: list[McqItem]) -> Groups:
    """The items by held-out interview; items of another split stop the stage."""
    try:
        return by_interview(person, items)
    except ValueError as exc:
        raise click.ClickException(f"mcqs.jsonl is out of date: {exc}") from None


def _prompts(person: PersonalityData, items: list[McqItem], groups: Groups, params: Params,
             embedder) -> list[GroupPrompt]:
    """One leak-checked prompt per (strategy, held-out interview, rotation), in params order."""
    guard = LeakageGuard(person)
    index = None
    if embedder is not None and groups:
        index = RetrievalIndex.build(person.train, embedder.embed, params.context.retrieval_text)
        index.warm([item.question for item in items])
    return [prompt for strategy in params.strategies for interview_id, group in groups
            for prompt in with_rotations(group_prompt(strategy, person, interview_id, group,
                                                      params.context, params.seed, index, guard),
                                         params.mcq.rotations)]


def _read_controls(controls_dir: Path, params: Params) -> ControlRecords:
    """The control records of ``params.controls``; no file is needed when there are none."""
    if not params.controls:
        return {}
    path = controls_dir / "answers.jsonl"
    if not path.is_file():
        raise click.ClickException(
            f"{path} is missing: mcq-answer answers the MCQs under the controls "
            f"{', '.join(params.controls)} from it; run `interviewsim controls`, or set "
            "controls: [] in params.yaml")
    return read_control_records(path, params.controls)


def _control_prompts(person: PersonalityData, groups: Groups, records: ControlRecords,
                     params: Params) -> list[ControlPrompt]:
    """One prompt per (control, held-out interview, rotation); a stale controls file stops
    the stage."""
    try:
        return control_group_prompts(person.personality_id, groups, records, params.controls,
                                     params.mcq.rotations)
    except ValueError as exc:
        raise click.ClickException(f"the controls' answers.jsonl is out of date: {exc}; rerun "
                                   "`interviewsim controls`") from None


def _metric_values(records: list[dict], field: str, name: str) -> list[MetricValue]:
    """Plain and robust metric values of the records whose ``field`` (strategy or control) is
    ``name``."""
    return condition_metrics([r for r in records if r[field] == name])


def _metrics(person: PersonalityData, strategy: str, answerer: str,
             records: list[dict]) -> list[PersonalityMetric]:
    return [PersonalityMetric(personality_id=person.personality_id, strategy=strategy,
                              judge=answerer, metric=metric, value=value, n=n, invalid=invalid)
            for metric, value, n, invalid in _metric_values(records, "strategy", strategy)]


def _control_metrics(person: PersonalityData, control: str, answerer: str,
                     records: list[dict]) -> list[ControlMetric]:
    return [ControlMetric(personality_id=person.personality_id, control=control,
                          judge=answerer, metric=metric, value=value, n=n, invalid=invalid)
            for metric, value, n, invalid in _metric_values(records, "control", control)]


@click.command("mcq-answer")
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True)
@click.option("--items-dir", type=click.Path(path_type=Path), default=MCQ_ITEMS_DIR,
              show_default=True)
@click.option("--controls-dir", type=click.Path(path_type=Path), default=CONTROLS_DIR,
              show_default=True,
              help="The controls stage's output (answers.jsonl); read only when params "
                   "controls is not [].")
@click.option("--out-dir", type=click.Path(path_type=Path), default=MCQ_ANSWERS_DIR,
              show_default=True)
@click.option("--dry-run", is_flag=True,
              help="Count calls, cache hits and estimated prompt tokens; call nothing.")
def mcq_answer(params_path: Path, prepared_dir: Path, items_dir: Path, controls_dir: Path,
               out_dir: Path, dry_run: bool) -> None:
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

    With mcq.rotations k > 1 every group is asked again with its options rotated 1..k-1 labels
    down (same context); mcq_accuracy_robust and mcq_reward_robust count an item correct only
    when it is correct in every order, with its worst reward (with k = 1 they equal the plain
    metrics, which read rotation 0 only). position_bias.json gives each answerer's letter
    counts, chance and the accuracy of always choosing its favourite letter. Each of params
    controls (oracle, impostor) answers the same groups with a context of the controls stage's
    records for that interview (held-out text by design, so not leak-checked); their records
    and ControlMetric rows go to control_answers.jsonl and control_metrics.jsonl only.
    """
    params = read_params(params_path)
    control_records = _read_controls(controls_dir, params)
    hub = ModelHub(params.hub)
    click.get_current_context().call_on_close(hub.close)
    clients = {a.name: hub.client(a, label=f"mcq_answerer:{a.name}")
               for a in params.models.mcq_answerers}
    embedder = None
    if {"retrieval", "hybrid"} & set(params.strategies):
        from interviewsim.context.embeddings import open_embedder  # only runs that retrieve need it

        embedder = open_embedder(params)
    items_path = items_dir / "mcqs.jsonl"

    def work() -> Iterator[_Work]:
        people = tqdm(_people_with_items(prepared_dir, items_path), desc="mcq-answer",
                      unit="personality", disable=not progress_enabled())
        for person, items in people:
            groups = _groups(person, items)
            yield _Work(person, items, [*_prompts(person, items, groups, params, embedder),
                                        *_control_prompts(person, groups, control_records,
                                                          params)])

    if dry_run:
        plan_totals: Counter[str] = Counter()
        for job in work():
            for client in clients.values():
                plan = plan_asks(client, [answer_ask(p, client, client.settings.max_tokens)
                                          for p in job.prompts])
                plan_totals.update(calls=plan.calls, cache_hits=plan.cache_hits,
                                   est_prompt_tokens=plan.est_prompt_tokens)
        click.echo(f"mcq-answer (dry run): {plan_totals['calls']} calls, "
                   f"{plan_totals['cache_hits']} already cached, "
                   f"~{plan_totals['est_prompt_tokens']} prompt tokens")
        return

    counts: Counter[str] = Counter()
    metrics: list[PersonalityMetric] = []
    control_metrics: list[ControlMetric] = []
    control_answers = Spool()  # on disk until written: memory stays flat with personalities
    chosen: list[ItemAnswer] = []

    def asked(chunk: list[_Work]) -> dict[str, list[list[dict]]]:
        """Every answerer's records for a group of personalities, one model batch per answerer
        (strategies and controls together), split back per personality."""
        ids = group_label([job.person.personality_id for job in chunk])
        prompts = [p for job in chunk for p in job.prompts]
        answered = {}
        for name, client in clients.items():
            records = iter(answer_groups(client, name, prompts, params.mcq.max_attempts,
                                         f"mcq-answer {name} {ids}"))
            answered[name] = [[next(records) for _ in job.prompts] for job in chunk]
        return answered

    def answers() -> Iterator[dict]:
        # personalities grouped until their prompts fill the endpoint's concurrency, the next
        # group asked while this one is written (one personality at a time left an HTTP
        # endpoint idle between small batches); records are written in personality order
        chunks = fill_batches(work(), lambda job: len(job.prompts),
                              max(c.batch_target for c in clients.values()),
                              max(c.first_batch_target for c in clients.values()))
        for chunk, answered in overlapped(chunks, asked, stop=hub.stop):
            for k, job in enumerate(chunk):
                person = job.person
                counts["personalities"] += 1
                counts["items"] += len(job.items)
                records: list[dict] = []
                controlled: list[dict] = []
                for name in clients:
                    own = [r for r in answered[name][k] if "strategy" in r]
                    for strategy in params.strategies:
                        metrics.extend(_metrics(person, strategy, name, own))
                    records.extend(own)
                    own = [r for r in answered[name][k] if "control" in r]
                    for control in params.controls:
                        control_metrics.extend(_control_metrics(person, control, name, own))
                    controlled.extend(own)
                chosen.extend(item_answers(records, job.items))
                _count(counts, "", records)
                if params.controls:
                    _count(counts, "control_", controlled)
                for record in sorted(controlled, key=lambda r: (
                        r["control"], r["answerer"], r["interview_id"], r["rotation"])):
                    control_answers.append(record)
                yield from sorted(records, key=lambda r: (r["strategy"], r["answerer"],
                                                          r["interview_id"], r["rotation"]))

    write_jsonl_atomic(out_dir / "answers.jsonl", answers())
    metrics.sort(key=PersonalityMetric.sort_key)
    write_jsonl_atomic(out_dir / "personality_metrics.jsonl",
                       (m.model_dump(mode="json") for m in metrics))
    write_jsonl_atomic(out_dir / "control_answers.jsonl", control_answers)
    control_metrics.sort(key=ControlMetric.sort_key)
    write_jsonl_atomic(out_dir / "control_metrics.jsonl",
                       (m.model_dump(mode="json") for m in control_metrics))
    write_json_atomic(out_dir / "position_bias.json",
                      position_bias(chosen, list(clients), params.strategies,
                                    params.mcq.option_count, params.mcq.rotations))
    write_summary(out_dir / "summary.json", dict(counts), hub.usage())
    controlled = (f"; controls: {counts['control_groups']} prompts, "
                  f"{counts['control_malformed_items']} malformed item answers"
                  if params.controls else "")
    click.echo(f"mcq-answer: {counts['groups']} grouped prompts, {counts['answered_items']} "
               f"item answers ({counts['malformed_items']} malformed){controlled} -> {out_dir}")


def _count(counts: Counter[str], prefix: str, records: list[dict]) -> None:
    """Groups, malformed groups, item answers and malformed ones (every rotation counted)."""
    counts[f"{prefix}groups"] += len(records)
    counts[f"{prefix}malformed_groups"] += sum(r["malformed"] for r in records)
    counts[f"{prefix}answered_items"] += sum(len(r["items"]) for r in records)
    counts[f"{prefix}malformed_items"] += sum(i["malformed"] for r in records for i in r["items"])
