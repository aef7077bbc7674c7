"""DVC stage ``mcq-build``: one gated, shuffled multiple-choice item per held-out pair."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import get_args

import click
from tqdm import tqdm

from interviewsim.data.corpus import iter_personalities
from interviewsim.data.jsonio import write_jsonl_atomic
from interviewsim.data.spool import Spool
from interviewsim.data.stage_summary import write_summary
from interviewsim.llm import ModelHub
from interviewsim.llm.batching import fill_batches
from interviewsim.mcq.asking import plan_asks
from interviewsim.mcq.build import Status, atomic_asks, build_personalities
from stages.common import MCQ_ITEMS_DIR, PREPARED_DIR, params_option, progress_enabled, read_params


def _counts(counter: Counter[str]) -> dict[str, int | dict[str, int]]:
    kept = counter["kept"]
    kinds = {kind: counter[f"dropped_by_gate.{kind}"] for kind in ("text", "number", "yes_no")}
    return {
        "pairs": sum(counter[status] for status in get_args(Status)),
        "built": kept,
        "dropped_by_gate": counter["dropped_by_gate"],
        "dropped_by_gate_kind": kinds,
        "dropped_invalid": counter["dropped_invalid_atomic"] + counter["dropped_invalid_mcq"],
        "dropped_invalid_atomic": counter["dropped_invalid_atomic"],
        "dropped_invalid_mcq": counter["dropped_invalid_mcq"],
    }


@click.command("mcq-build")
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True)
@click.option("--out-dir", type=click.Path(path_type=Path), default=MCQ_ITEMS_DIR,
              show_default=True)
@click.option("--dry-run", is_flag=True,
              help="Count the atomic-item calls and cache hits; call nothing (MCQ calls "
                   "depend on the atomic outputs).")
def mcq_build(params_path: Path, prepared_dir: Path, out_dir: Path, dry_run: bool) -> None:
    """Build mcq.option_count-option MCQs from the held-out pairs with models.mcq_builder.

    Per held-out pair: an atomic item (two tagged lines), the grounding gate (the item attested
    by its source pair: a text answer's IDF coverage, a number stated in the response, a yes/no
    question's content; mcq.grounding_threshold; docs/MCQ_GATE.md), an MCQ in the contract's
    role order, and a seeded shuffle (mcq.shuffle_seed). Invalid or ungrounded outputs are
    re-asked up to mcq.max_attempts; an item still invalid or ungrounded is dropped and counted
    with its reason (gate drops by answer kind). Writes atomic_items.jsonl (every pair, kept or
    dropped), mcqs.jsonl (kept items) and summary.json (counts overall and per personality,
    model usage).
    """
    params = read_params(params_path)
    hub = ModelHub(params.hub)
    click.get_current_context().call_on_close(hub.close)
    client = hub.client(params.models.mcq_builder, label="mcq_builder")
    if dry_run:
        calls = hits = tokens = 0
        for person in iter_personalities(prepared_dir):
            plan = plan_asks(client, atomic_asks(person, client.supports_grammar))
            calls, hits = calls + plan.calls, hits + plan.cache_hits
            tokens += plan.est_prompt_tokens
        click.echo(f"mcq-build (dry run): {calls} atomic-item calls, {hits} already cached, "
                   f"~{tokens} prompt tokens; then up to one MCQ call per item that passes")
        return
    totals: Counter[str] = Counter()
    per_person: dict[str, dict[str, int]] = {}

    items = Spool()  # on disk until written: memory stays flat with personalities

    def records():
        people = tqdm(iter_personalities(prepared_dir), desc="mcq-build", unit="personality",
                      disable=not progress_enabled())
        # personalities grouped until their pairs fill the endpoint's concurrency (one
        # personality at a time left an HTTP endpoint idle between small batches)
        chunks = fill_batches(people, lambda person: len(person.heldout),
                              client.batch_target, client.first_batch_target)
        for chunk in chunks:
            for person, built in zip(chunk, build_personalities(chunk, client, params.mcq),
                                     strict=True):
                counts = built.counts()
                totals.update(counts)
                per_person[person.personality_id] = _counts(counts)
                for item in built.items:
                    items.append(item.model_dump(mode="json"))
                for record in built.records:
                    yield record.model_dump(mode="json")

    write_jsonl_atomic(out_dir / "atomic_items.jsonl", records())
    write_jsonl_atomic(out_dir / "mcqs.jsonl", items)
    summary = {"option_count": params.mcq.option_count, **_counts(totals),
               "by_personality": per_person}
    write_summary(out_dir / "summary.json", summary, hub.usage())
    c = _counts(totals)
    click.echo(f"mcq-build: {c['built']} items built from {c['pairs']} held-out pairs; "
               f"dropped {c['dropped_by_gate']} by the grounding gate, {c['dropped_invalid']} "
               f"invalid -> {out_dir}")
