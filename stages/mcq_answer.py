"""DVC stage ``mcq-answer``: every answering model takes each interview's MCQs per strategy,
in every rotated option order, and under each control (whose records stay in their own files)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from interviewsim.config.conditions import Condition, needs_index
from interviewsim.config.params import Params
from interviewsim.context.strategies import RetrievalIndex
from interviewsim.data.corpus import PersonalityData, grouped_by_personality, iter_personalities
from interviewsim.data.jsonio import write_json_atomic, write_jsonl_atomic
from interviewsim.data.records import ControlMetric, PersonalityMetric
from interviewsim.data.spool import Spool
from interviewsim.errors import StaleInput
from interviewsim.generation.leakage import LeakageGuard
from interviewsim.llm import CallEstimate
from interviewsim.llm.progress import group_label
from interviewsim.mcq.answering import (
    GroupPrompt,
    Prompted,
    answer_ask,
    answer_groups,
    group_prompt,
    with_rotations,
)
from interviewsim.mcq.answering import interview_groups as by_interview
from interviewsim.mcq.asking import estimate_asks
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
    read_params,
)
from stages.runner.model_stage import Clients, ModelStage, Role, run_stage


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
        raise StaleInput(items_path, "mcq-build", f"it has items of {pending[0]!r}, which is "
                         f"not in {prepared_dir} (or out of order)")


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
        raise StaleInput("mcqs.jsonl", "mcq-build", str(exc)) from None


IndexFor = Callable[[PersonalityData, list[McqItem]], RetrievalIndex | None]
"""A personality's retrieval index, warmed with its items' questions (None: no strategy
retrieves)."""


def embedding_index(params: Params) -> IndexFor:
    """Indexes built with the configured embedder (opened only when a strategy retrieves)."""
    if not needs_index(params.strategies):
        return lambda person, items: None
    from interviewsim.context.embeddings import open_embedder  # only runs that retrieve need it

    embedder = open_embedder(params)

    def index_for(person: PersonalityData, items: list[McqItem]) -> RetrievalIndex | None:
        if not items:
            return None
        index = RetrievalIndex.build(person.train, embedder.embed, params.context.retrieval_text)
        index.warm([item.question for item in items])
        return index

    return index_for


def _prompts(person: PersonalityData, items: list[McqItem], groups: Groups, params: Params,
             index: RetrievalIndex | None) -> list[GroupPrompt]:
    """One leak-checked prompt per (strategy, held-out interview, rotation), in params order."""
    guard = LeakageGuard(person)
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
        raise StaleInput("the controls' answers.jsonl", "`interviewsim controls`",
                         str(exc)) from None


def _metric_values(records: list[dict], condition: Condition) -> list[MetricValue]:
    """Plain and robust metric values of the records of ``condition``."""
    return condition_metrics([r for r in records if Condition.of(r) == condition])


def _metrics(person: PersonalityData, strategy: str, answerer: str,
             records: list[dict]) -> list[PersonalityMetric]:
    return [PersonalityMetric(personality_id=person.personality_id, strategy=strategy,
                              judge=answerer, metric=metric, value=value, n=n, invalid=invalid)
            for metric, value, n, invalid in _metric_values(records, Condition.strategy(strategy))]


def _control_metrics(person: PersonalityData, control: str, answerer: str,
                     records: list[dict]) -> list[ControlMetric]:
    return [ControlMetric(personality_id=person.personality_id, control=control,
                          judge=answerer, metric=metric, value=value, n=n, invalid=invalid)
            for metric, value, n, invalid in _metric_values(records, Condition.control(control))]


Answered = dict[str, list[list[dict]]]
"""Per answerer, each personality's group records (strategies and controls)."""


class McqAnswerStage(ModelStage[_Work, Answered]):
    name = "mcq-answer"
    main_file = "answers.jsonl"

    def __init__(self, params: Params, prepared_dir: Path, items_path: Path,
                 control_records: ControlRecords, index_for: IndexFor):
        super().__init__(params)
        self.prepared_dir, self.items_path = prepared_dir, items_path
        self.control_records = control_records
        self.index_for = index_for
        self.counts: Counter[str] = Counter()
        self.metrics: list[PersonalityMetric] = []
        self.control_metrics: list[ControlMetric] = []
        self.control_answers = Spool()  # on disk until written: memory stays flat
        self.chosen: list[ItemAnswer] = []

    def roles(self) -> list[Role]:
        return [Role(a.name, f"mcq_answerer:{a.name}", a) for a in self.params.models.mcq_answerers]

    def work(self) -> Iterator[_Work]:
        for person, items in _people_with_items(self.prepared_dir, self.items_path):
            yield self.item(person, items)

    def item(self, person: PersonalityData, items: list[McqItem]) -> _Work:
        """Every prompt of ``person``'s items: the strategies', then the controls'."""
        groups = _groups(person, items)
        index = self.index_for(person, items) if groups else None
        return _Work(person, items, [
            *_prompts(person, items, groups, self.params, index),
            *_control_prompts(person, groups, self.control_records, self.params)])

    def size(self, item: _Work) -> int:
        return len(item.prompts)

    def dry_run(self, clients: Clients, item: _Work) -> Iterable[tuple[str, CallEstimate]]:
        for name, client in clients.items():
            yield name, estimate_asks(client, [answer_ask(p, client, client.settings.max_tokens)
                                           for p in item.prompts])

    def ask(self, clients: Clients, chunk: list[_Work]) -> Answered:
        """Every answerer's records for a group of personalities, one model batch per answerer
        (strategies and controls together), split back per personality."""
        ids = group_label([job.person.personality_id for job in chunk])
        prompts = [p for job in chunk for p in job.prompts]
        answered = {}
        for name, client in clients.items():
            records = iter(answer_groups(client, name, prompts, self.params.mcq.max_attempts,
                                         f"mcq-answer {name} {ids}"))
            answered[name] = [[next(records) for _ in job.prompts] for job in chunk]
        return answered

    def reduce(self, chunk: list[_Work], answered: Answered) -> Iterator[dict]:
        for k, job in enumerate(chunk):
            records, controlled = self._person(job, {name: rs[k] for name, rs in answered.items()})
            for record in sorted(controlled, key=lambda r: (
                    r["control"], r["answerer"], r["interview_id"], r["rotation"])):
                self.control_answers.append(record)
            yield from sorted(records, key=lambda r: (r["strategy"], r["answerer"],
                                                      r["interview_id"], r["rotation"]))

    def _person(self, job: _Work, answered: dict[str, list[dict]]
                ) -> tuple[list[dict], list[dict]]:
        """One personality's strategy and control records, with their metrics and counts."""
        person, params = job.person, self.params
        self.counts["personalities"] += 1
        self.counts["items"] += len(job.items)
        records: list[dict] = []
        controlled: list[dict] = []
        for name, mine in answered.items():
            own = [r for r in mine if not Condition.of(r).is_control]
            for strategy in params.strategies:
                self.metrics.extend(_metrics(person, strategy, name, own))
            records.extend(own)
            own = [r for r in mine if Condition.of(r).is_control]
            for control in params.controls:
                self.control_metrics.extend(_control_metrics(person, control, name, own))
            controlled.extend(own)
        self.chosen.extend(item_answers(records, job.items))
        _count(self.counts, "", records)
        if params.controls:
            _count(self.counts, "control_", controlled)
        return records, controlled

    def finish(self, out_dir: Path, records: int) -> dict[str, Any]:
        self.metrics.sort(key=PersonalityMetric.sort_key)
        write_jsonl_atomic(out_dir / "personality_metrics.jsonl",
                           (m.model_dump(mode="json") for m in self.metrics))
        write_jsonl_atomic(out_dir / "control_answers.jsonl", self.control_answers)
        self.control_metrics.sort(key=ControlMetric.sort_key)
        write_jsonl_atomic(out_dir / "control_metrics.jsonl",
                           (m.model_dump(mode="json") for m in self.control_metrics))
        write_json_atomic(out_dir / "position_bias.json", position_bias(
            self.chosen, [a.name for a in self.params.models.mcq_answerers],
            self.params.strategies, self.params.mcq.option_count, self.params.mcq.rotations))
        return dict(self.counts)

    def done(self, records: int, out_dir: Path) -> str:
        counts = self.counts
        controlled = (f"; controls: {counts['control_groups']} prompts, "
                      f"{counts['control_malformed_items']} malformed item answers"
                      if self.params.controls else "")
        return (f"mcq-answer: {counts['groups']} grouped prompts, {counts['answered_items']} "
                f"item answers ({counts['malformed_items']} malformed){controlled} -> {out_dir}")


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
    controls (oracle, impostor, retest) answers the same groups with a context of the
    controls stage's records for that interview, (held-out question, control answer) pairs
    (held-out text by design, so not leak-checked); their records
    and ControlMetric rows go to control_answers.jsonl and control_metrics.jsonl only.
    """
    params = read_params(params_path)
    stage = McqAnswerStage(params, prepared_dir, items_dir / "mcqs.jsonl",
                      _read_controls(controls_dir, params), embedding_index(params))
    run_stage(stage, out_dir, dry_run)


def _count(counts: Counter[str], prefix: str, records: list[dict]) -> None:
    """Groups, malformed groups, item answers and malformed ones (every rotation counted)."""
    counts[f"{prefix}groups"] += len(records)
    counts[f"{prefix}malformed_groups"] += sum(r["malformed"] for r in records)
    counts[f"{prefix}answered_items"] += sum(len(r["items"]) for r in records)
    counts[f"{prefix}malformed_items"] += sum(i["malformed"] for r in records for i in r["items"])
