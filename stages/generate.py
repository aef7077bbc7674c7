"""DVC stage ``generate``: one simulated answer per (personality, strategy, held-out question)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click

from interviewsim.context.strategies import ContextSelection
from interviewsim.data.corpus import (
    Pair,
    PersonalityData,
    grouped_by_personality,
    iter_personalities,
    next_group,
)
from interviewsim.errors import StaleInput
from interviewsim.generation.leakage import LeakageGuard
from interviewsim.generation.prompt import ANSWER, generation_messages
from interviewsim.llm import CallEstimate, Message, ModelHub
from interviewsim.llm.asking import Ask, Outcome
from interviewsim.llm.progress import group_label
from stages.common import CONTEXT_DIR, GENERATED_DIR, PREPARED_DIR, params_option, read_params
from stages.runner.copies import OrderKey, Shard, by_personality, shard_option
from stages.runner.model_stage import Clients, ModelStage, Role, run_stage

Prompt = tuple[dict, Pair, list[Message]]
"""A context record, the held-out pair it answers and the generation prompt."""
Item = tuple[PersonalityData, list[Prompt]]


def prompts(person: PersonalityData, contexts: list[dict], guard: LeakageGuard
            ) -> Iterator[Prompt]:
    """(context record, pair, messages) per answer, in the artifact's order; every selection
    and prompt leak-checked."""
    questions = {p.qa_id: p for p in person.heldout}
    pairs = person.train_by_id()
    for record in contexts:
        selection = ContextSelection.from_record(record)
        guard.check_selection(selection)
        pair = questions[record["qa_id"]]
        messages = generation_messages(person.personality_id, pair.question, selection, pairs)
        guard.check_prompt(messages, f"{selection.strategy}/{pair.qa_id}")
        yield record, pair, messages


class GenerateStage(ModelStage[Item, list[Outcome]]):
    name = "generate"
    main_file = "answers.jsonl"

    def __init__(self, params, shard: Shard | None, prepared_dir: Path, context_dir: Path):
        super().__init__(params, shard)
        self.prepared_dir, self.context_dir = prepared_dir, context_dir
        self.counts: Counter[str] = Counter()

    def roles(self) -> list[Role]:
        return [Role("generator", "generator", self.params.models.generator)]

    def shard_files(self) -> dict[str, OrderKey]:
        return {self.main_file: by_personality}

    def check(self, hub: ModelHub) -> None:
        hub.check(self.params.models.generator)

    def work(self) -> Iterator[Item]:
        path = self.context_dir / "contexts.jsonl"
        contexts = grouped_by_personality(path)
        takes = self.shard.takes if self.shard else None
        for person in iter_personalities(self.prepared_dir, takes):
            pid, records = next_group(contexts, person.personality_id, takes is not None)
            if pid != person.personality_id:
                raise StaleInput(path, "select-context", f"{pid} vs {person.personality_id}")
            yield self.item(person, records)

    def item(self, person: PersonalityData, contexts: list[dict]) -> Item:
        """``person``'s prompts from its context records (leak-checked)."""
        return person, list(prompts(person, contexts, LeakageGuard(person)))

    def size(self, item: Item) -> int:
        return len(item[1])

    def dry_run(self, clients: Clients, item: Item) -> Iterable[tuple[str, CallEstimate]]:
        client = clients["generator"]
        yield "generator", client.estimate([client.request(m) for _, _, m in item[1]])

    def ask(self, clients: Clients, chunk: list[Item]) -> list[Outcome]:
        asks = [Ask(messages) for _, prompted in chunk for _, _, messages in prompted]
        ids = group_label([person.personality_id for person, _ in chunk])
        return ANSWER.run(clients["generator"], asks, self.params.generate.max_attempts,
                          desc=f"generate {ids}")

    def reduce(self, chunk: list[Item], answered: list[Outcome]) -> Iterator[dict]:
        outcomes = iter(answered)
        for person, prompted in chunk:
            for record, pair, _ in prompted:
                yield self._answer(person, record, pair, next(outcomes))

    def _answer(self, person: PersonalityData, record: dict, pair: Pair,
                outcome: Outcome) -> dict[str, Any]:
        text = outcome.value.text if outcome.value is not None else None
        self.counts["answers"] += 1
        self.counts["invalid"] += 0 if text else 1
        return {
            "personality_id": person.personality_id,
            "strategy": record["strategy"],
            "qa_id": pair.qa_id,
            "interview_id": pair.interview_id,
            "question": pair.question,
            "response": text,
            "valid": bool(text),
            "invalid_reason": None if text else
            f"blank answer after {len(outcome.calls)} attempt(s)",
            "calls": [c.model_dump() for c in outcome.calls],
        }

    def finish(self, out_dir: Path, records: int) -> dict[str, Any]:
        return dict(self.counts)

    def done(self, records: int, out_dir: Path) -> str:
        return f"generated {records} answers ({self.counts['invalid']} invalid) -> {out_dir}"


@click.command()
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True)
@click.option("--context-dir", type=click.Path(path_type=Path), default=CONTEXT_DIR,
              show_default=True)
@click.option("--out-dir", type=click.Path(path_type=Path), default=GENERATED_DIR,
              show_default=True)
@click.option("--dry-run", is_flag=True,
              help="Count calls, cache hits and estimated prompt tokens; call nothing.")
@shard_option
def generate(params_path: Path, prepared_dir: Path, context_dir: Path, out_dir: Path,
             dry_run: bool, shard: Shard | None) -> None:
    """Ask the generator model to answer every held-out question under every strategy.

    Prompts hold the personality id, the selected context and the new question, never a
    held-out response (checked for every prompt; a leak stops the stage with exit 3). A blank
    answer is re-asked with a new sample index up to generate.max_attempts, then recorded as
    invalid with its reason. Interrupted runs resume from the response cache. With
    ``processes: N`` on the generator's provider the stage runs as N processes.
    """
    run_stage(GenerateStage(read_params(params_path), shard, prepared_dir, context_dir), out_dir,
              dry_run)
