"""DVC stage ``select-context``: the context every strategy gives every held-out question."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
from tqdm import tqdm

from interviewsim.config.conditions import needs_index
from interviewsim.context.embeddings import open_embedder
from interviewsim.context.strategies import RetrievalIndex, select_context
from interviewsim.data.corpus import iter_personalities
from interviewsim.data.jsonio import write_json_atomic, write_jsonl_atomic
from interviewsim.generation.leakage import LeakageGuard
from stages.common import (
    CONTEXT_DIR,
    PREPARED_DIR,
    EmbeddingTally,
    dry_run_option,
    params_option,
    progress_enabled,
    read_params,
)


@click.command("select-context")
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True)
@click.option("--out-dir", type=click.Path(path_type=Path), default=CONTEXT_DIR,
              show_default=True)
@dry_run_option
def select_context_cmd(params_path: Path, prepared_dir: Path, out_dir: Path,
                       dry_run: bool) -> None:
    """Select each strategy's context for every held-out question.

    Writes contexts.jsonl (one record per personality, strategy and held-out qa_id: the profile
    or the ordered training qa_ids, with scores and budget drops) and summary.json.
    Only training pairs are ever selected; a held-out id in a context stops the stage (exit 3).
    """
    params = read_params(params_path)
    embedder = tally = None
    if needs_index(params.strategies):
        embedder = open_embedder(params)
        tally = EmbeddingTally(embedder) if dry_run else None
    counts: Counter[str] = Counter()
    dropped: Counter[str] = Counter()

    def records():
        people = iter_personalities(prepared_dir)
        for person in tqdm(people, desc="select-context", unit="personality",
                           disable=not progress_enabled()):
            guard = LeakageGuard(person)
            index = None
            if embedder is not None:
                index = RetrievalIndex.build(person.train, (tally or embedder).embed,
                                             params.context.retrieval_text)
                index.warm([p.question for p in person.heldout])
            for strategy in params.strategies:
                for pair in person.heldout:
                    selection = select_context(strategy, person, [pair.question],
                                               params.context, params.seed, index)
                    guard.check_selection(selection)
                    counts[strategy] += 1
                    dropped[strategy] += selection.dropped_for_budget
                    yield {"personality_id": person.personality_id, "qa_id": pair.qa_id,
                           **selection.as_record()}

    if dry_run:
        for _ in records():
            pass
        click.echo(tally.report("select-context") if tally else
                   "select-context (dry run): no model call")
        return
    total = write_jsonl_atomic(out_dir / "contexts.jsonl", records())
    write_json_atomic(out_dir / "summary.json", {
        "contexts": total,
        "by_strategy": dict(sorted(counts.items())),
        "pairs_dropped_for_budget": dict(sorted(dropped.items())),
    })
    click.echo(f"selected {total} contexts for {len(params.strategies)} strategies -> {out_dir}")
