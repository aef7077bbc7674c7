"""DVC stage ``claims``: ground each sentence of each generated answer in the training pairs.

Reads the generated answers and the training pairs; writes the claim-level links (each claim
with its cited ``qa_id``s), ``grounded_claim_rate`` per personality and strategy for
``aggregate``, and a per-strategy summary for ``dvc metrics show``.
"""

from __future__ import annotations

from pathlib import Path

import click

from interviewsim.analysis.claims import ground_claims, strategy_summary
from interviewsim.data.jsonio import read_jsonl, write_json_atomic, write_jsonl_atomic
from stages.common import GENERATED_DIR, PREPARED_DIR

CLAIMS_DIR = Path("data/artifacts/claims")


@click.command()
@click.option("--answers", type=click.Path(dir_okay=False, path_type=Path),
              default=GENERATED_DIR / "answers.jsonl", show_default=True)
@click.option("--train-pairs", type=click.Path(dir_okay=False, path_type=Path),
              default=PREPARED_DIR / "train_pairs.jsonl", show_default=True)
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path),
              default=CLAIMS_DIR, show_default=True)
def claims(answers: Path, train_pairs: Path, out_dir: Path) -> None:
    """Split answers into claims and match each against that personality's training pairs.

    Outputs: claims.jsonl (one link per claim), personality_metrics.jsonl
    (grounded_claim_rate), summary.json (per strategy).
    """
    grounding = ground_claims(read_jsonl(answers), read_jsonl(train_pairs),
                              answers_file=str(answers), train_file=str(train_pairs))
    out_dir.mkdir(parents=True, exist_ok=True)
    write_jsonl_atomic(out_dir / "claims.jsonl",
                       (link.model_dump(mode="json") for link in grounding.links))
    write_jsonl_atomic(out_dir / "personality_metrics.jsonl",
                       (row.model_dump(mode="json") for row in grounding.metrics))
    summary = strategy_summary(grounding)
    write_json_atomic(out_dir / "summary.json", summary)
    grounded = sum(link.coverage == "FULL" for link in grounding.links)
    click.echo(f"{len(grounding.links)} claims, {grounded} grounded in training pairs, "
               f"{len(summary)} strategies -> {out_dir}")
