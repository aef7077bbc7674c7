"""DVC stage ``fact-summary``: one evaluation-only summary per personality and judge model."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click

from interviewsim.config.settings import NamedModelSettings
from interviewsim.data.corpus import PersonalityData, iter_personalities
from interviewsim.judges.fact_summary import (
    FACT_SUMMARIES,
    summary_ask,
    summary_model,
    summary_task,
)
from interviewsim.llm import CallEstimate
from interviewsim.llm.asking import Ask, Outcome
from stages.common import FACT_SUMMARY_DIR, PREPARED_DIR, params_option, read_params
from stages.runner.model_stage import Clients, ModelStage, Role, run_stage

Item = tuple[str, Ask]
"""A personality id and its summary's ask (which keeps no training pairs)."""


class FactSummaryStage(ModelStage[Item, dict[str, list[Outcome]]]):
    name = "fact-summary"
    main_file = FACT_SUMMARIES

    def __init__(self, params, prepared_dir: Path):
        super().__init__(params)
        self.prepared_dir = prepared_dir
        self.judges: list[NamedModelSettings] = [
            summary_model(j, params.judge.fact_summary_min_tokens)
            for j in sorted(params.models.judges, key=lambda j: j.name)]
        self.counts: Counter[str] = Counter(valid=0, invalid=0, reasks=0)

    def roles(self) -> list[Role]:
        return [Role(j.name, f"fact-summary/{j.name}", j) for j in self.judges]

    def work(self) -> Iterator[Item]:
        for person in iter_personalities(self.prepared_dir):
            yield self.item(person)

    def item(self, person: PersonalityData) -> Item:
        return person.personality_id, summary_ask(person)

    def size(self, item: Item) -> int:
        return len(self.judges)

    def dry_run(self, clients: Clients, item: Item) -> Iterable[tuple[str, CallEstimate]]:
        for judge in self.judges:
            yield judge.name, summary_task(judge).estimate(clients[judge.name], [item[1]])

    def ask(self, clients: Clients, chunk: list[Item]) -> dict[str, list[Outcome]]:
        asks = [ask for _, ask in chunk]
        return {j.name: summary_task(j).run(clients[j.name], asks, self.params.judge.max_attempts,
                                            desc=f"fact-summary {j.name}")
                for j in self.judges}

    def reduce(self, chunk: list[Item], answered: dict[str, list[Outcome]]) -> Iterator[dict]:
        for k, (pid, _) in enumerate(chunk):
            for judge in self.judges:  # sorted by name: records by (personality, judge)
                outcome = answered[judge.name][k]
                self.counts["valid" if outcome.valid else "invalid"] += 1
                self.counts["reasks"] += len(outcome.calls) - 1
                yield {"personality_id": pid, "judge": judge.name, "model": judge.model,
                       **outcome.record()}

    def finish(self, out_dir: Path, records: int) -> dict[str, Any]:
        return {"fact_summaries": self.counts["valid"] + self.counts["invalid"], **self.counts}

    def done(self, records: int, out_dir: Path) -> str:
        return f"fact-summary: {records} summaries ({self.counts['invalid']} invalid) -> {out_dir}"


@click.command()
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True, help="Held-out responses (from prepare).")
@click.option("--out-dir", type=click.Path(path_type=Path), default=FACT_SUMMARY_DIR,
              show_default=True, help="Where fact_summaries.jsonl and summary.json go.")
@click.option("--dry-run", is_flag=True,
              help="Count calls, cache hits and estimated prompt tokens; call nothing.")
def fact_summary(params_path: Path, prepared_dir: Path, out_dir: Path, dry_run: bool) -> None:
    """Summarise each personality's held-out responses once per judge model.

    The summary is what the Factual Consistency judge checks answers against; it is built from
    held-out text, so it is evaluation-only and never reaches a generation prompt. Output must
    be {"summary", "explanation"} and the summary must not cite, link or name interview or
    question ids; an output that fails is re-asked with a new sample index up to
    judge.max_attempts, then kept with its raw outputs and the reason it is invalid.
    Writes fact_summaries.jsonl (sorted by personality_id, judge) and summary.json.
    """
    run_stage(FactSummaryStage(read_params(params_path), prepared_dir), out_dir, dry_run)
