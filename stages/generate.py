"""DVC stage ``generate``: one simulated answer per (personality, strategy, held-out question)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
from tqdm import tqdm

from interviewsim.context.strategies import ContextSelection
from interviewsim.data.corpus import (
    PersonalityData,
    grouped_by_personality,
    iter_personalities,
    next_group,
)
from interviewsim.data.jsonio import write_jsonl_atomic
from interviewsim.data.stage_summary import write_summary
from interviewsim.generation.prompt import ANSWER, LeakageGuard, generation_messages
from interviewsim.llm import ModelHub
from interviewsim.llm.asking import Ask
from interviewsim.llm.batching import fill_batches, group_label, overlapped
from interviewsim.llm.workers import Shard, as_copies, by_personality, shard_option
from stages.common import (
    CONTEXT_DIR,
    GENERATED_DIR,
    PREPARED_DIR,
    params_option,
    progress_enabled,
    read_params,
)


def _selection(record: dict) -> ContextSelection:
    return ContextSelection(
        strategy=record["strategy"], profile=record["profile"],
        pair_ids=tuple(record["pair_ids"]), scores=tuple(record["scores"]),
        requested=record["requested"], dropped_for_budget=record["dropped_for_budget"],
        estimated_tokens=record["estimated_tokens"], over_budget=record["over_budget"],
    )


def _prompts(person: PersonalityData, contexts: list[dict], guard: LeakageGuard):
    """(context record, messages) per answer, in the artifact's order."""
    questions = {p.qa_id: p for p in person.heldout}
    pairs = person.train_by_id()
    for record in contexts:
        selection = _selection(record)
        guard.check_selection(selection)
        pair = questions[record["qa_id"]]
        messages = generation_messages(person.personality_id, pair.question, selection, pairs)
        guard.check_prompt(messages, f"{selection.strategy}/{pair.qa_id}")
        yield record, pair, messages


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
    whole = read_params(params_path)
    params = as_copies(whole, shard, dry_run, [whole.models.generator],
                       {"answers.jsonl": by_personality})
    if params is None:
        return
    hub = ModelHub(params.hub)
    click.get_current_context().call_on_close(hub.close)
    hub.check(params.models.generator)
    client = hub.client(params.models.generator, label="generator")
    counts: Counter[str] = Counter()
    plan_totals: Counter[str] = Counter()

    def people():
        contexts = grouped_by_personality(context_dir / "contexts.jsonl")
        for person in tqdm(iter_personalities(prepared_dir, shard.takes if shard else None),
                           desc="generate", unit="personality", disable=not progress_enabled()):
            pid, records = next_group(contexts, person.personality_id, shard is not None)
            if pid != person.personality_id:
                raise click.ClickException(
                    f"{context_dir}/contexts.jsonl is out of date ({pid} vs "
                    f"{person.personality_id}); rerun select-context")
            yield person, list(_prompts(person, records, LeakageGuard(person)))

    def answers():
        # Personalities grouped until their prompts fill the provider's concurrency (one at a
        # time for the embedded model); the next group is in flight while one is written.
        def ask(chunk):
            asks = [Ask(messages) for _, prompts in chunk for _, _, messages in prompts]
            ids = group_label([person.personality_id for person, _ in chunk])
            return ANSWER.run(client, asks, params.generate.max_attempts,
                              desc=f"generate {ids}")

        chunks = fill_batches(people(), lambda item: len(item[1]), client.batch_target,
                              first=client.first_batch_target)
        for chunk, answered in overlapped(chunks, ask, stop=hub.stop):
            outcomes = iter(answered)
            for person, prompts in chunk:
                for record, pair, _ in prompts:
                    outcome = next(outcomes)
                    text = outcome.value.text if outcome.value is not None else None
                    counts["answers"] += 1
                    counts["invalid"] += 0 if text else 1
                    yield {
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

    if dry_run:
        for _, prompts in people():
            plan = client.plan([client.request(m) for _, _, m in prompts])
            plan_totals.update(calls=plan.calls, cache_hits=plan.cache_hits,
                               est_prompt_tokens=plan.est_prompt_tokens)
        click.echo(f"generate (dry run): {plan_totals['calls']} calls, "
                   f"{plan_totals['cache_hits']} already cached, "
                   f"~{plan_totals['est_prompt_tokens']} prompt tokens")
        return
    total = write_jsonl_atomic(out_dir / "answers.jsonl", answers())
    write_summary(out_dir / "summary.json", dict(counts), hub.usage())
    click.echo(f"generated {total} answers ({counts['invalid']} invalid) -> {out_dir}")
