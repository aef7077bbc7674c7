"""DVC stage ``mcq-build``: one gated, shuffled multiple-choice item per held-out pair."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, get_args

import click

from interviewsim.data.corpus import PersonalityData, iter_personalities
from interviewsim.data.jsonio import write_jsonl_atomic
from interviewsim.data.spool import Spool
from interviewsim.llm import CallEstimate
from interviewsim.mcq.asking import estimate_asks
from interviewsim.mcq.build import BuiltPersonality, Status, atomic_asks, build_personalities
from stages.common import MCQ_ITEMS_DIR, PREPARED_DIR, params_option, read_params
from stages.runner.model_stage import Clients, ModelStage, Role, run_stage


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


class McqBuildStage(ModelStage[PersonalityData, list[BuiltPersonality]]):
    name = "mcq-build"
    main_file = "atomic_items.jsonl"
    dry_run_note = "; then up to one MCQ call per item that passes the gate"

    def __init__(self, params, prepared_dir: Path):
        super().__init__(params)
        self.prepared_dir = prepared_dir
        self.totals: Counter[str] = Counter()
        self.per_person: dict[str, dict[str, Any]] = {}
        self.items = Spool()  # on disk until written: memory stays flat with personalities

    def roles(self) -> list[Role]:
        return [Role("mcq_builder", "mcq_builder", self.params.models.mcq_builder)]

    def work(self) -> Iterator[PersonalityData]:
        return iter_personalities(self.prepared_dir)

    def size(self, item: PersonalityData) -> int:
        return len(item.heldout)

    def dry_run(self, clients: Clients, item: PersonalityData
                ) -> Iterable[tuple[str, CallEstimate]]:
        client = clients["mcq_builder"]
        yield "mcq_builder", estimate_asks(client, atomic_asks(item, client.supports_grammar,
                                                           self.params.mcq))

    def ask(self, clients: Clients, chunk: list[PersonalityData]) -> list[BuiltPersonality]:
        return build_personalities(chunk, clients["mcq_builder"], self.params.mcq)

    def reduce(self, chunk: list[PersonalityData], answered: list[BuiltPersonality]
               ) -> Iterator[dict]:
        for person, built in zip(chunk, answered, strict=True):
            counts = built.counts()
            self.totals.update(counts)
            self.per_person[person.personality_id] = _counts(counts)
            for item in built.items:
                self.items.append(item.model_dump(mode="json"))
            for record in built.records:
                yield record.model_dump(mode="json")

    def finish(self, out_dir: Path, records: int) -> dict[str, Any]:
        write_jsonl_atomic(out_dir / "mcqs.jsonl", self.items)
        return {"option_count": self.params.mcq.option_count, **_counts(self.totals),
                "by_personality": self.per_person}

    def done(self, records: int, out_dir: Path) -> str:
        c = _counts(self.totals)
        return (f"mcq-build: {c['built']} items built from {c['pairs']} held-out pairs; "
                f"dropped {c['dropped_by_gate']} by the grounding gate, {c['dropped_invalid']} "
                f"invalid -> {out_dir}")


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
    run_stage(McqBuildStage(read_params(params_path), prepared_dir), out_dir, dry_run)
