"""Options and helpers every stage command shares (one place, so stages stay thin)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from interviewsim.config.params import Params, load_params
from interviewsim.llm.progress import progress_enabled as progress_enabled  # for the stages

PREPARED_DIR = Path("data/artifacts/prepared")
CONTEXT_DIR = Path("data/artifacts/context")
GENERATED_DIR = Path("data/artifacts/generated")
FACT_SUMMARY_DIR = Path("data/artifacts/fact_summary")
JUDGED_DIR = Path("data/artifacts/judged")
MCQ_ITEMS_DIR = Path("data/artifacts/mcq_items")
MCQ_ANSWERS_DIR = Path("data/artifacts/mcq_answers")
CONTROLS_DIR = Path("data/artifacts/controls")
FIDELITY_DIR = Path("data/artifacts/fidelity")
LABELS_DIR = Path("data/labels")
"""People's labels of judged items (git-tracked; interviewsim labels pull / import)."""
REPORTS_DIR = Path("reports")

params_option = click.option(
    "--params",
    "params_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("params.yaml"),
    show_default=True,
    help="Experiment parameters (validated before anything runs).",
)


def read_params(params_path: Path) -> Params:
    """Load params.yaml; invalid params raise ConfigError (exit 1) naming every key path."""
    return load_params(params_path)


dry_run_option = click.option(
    "--dry-run", is_flag=True,
    help="Count the texts to embed and those already cached; compute and write nothing.")


class EmbeddingTally:
    """The ``--dry-run`` of a stage that only embeds: stands in for the embedder, counting the
    distinct texts the stage would embed and how many the embedding cache already holds, and
    returning zero vectors instead of computing any, so the stage's own loop runs unchanged."""

    def __init__(self, embedder: Any):
        """``embedder``: an :class:`interviewsim.context.embeddings.Embedder` (not imported
        here: every stage imports this module, and most never embed)."""
        self.embedder = embedder
        self.keys: set[str] = set()
        self.cached = 0

    def embed(self, texts: Sequence[str]):
        import numpy as np

        from interviewsim.data.jsonio import sha256_hex

        fresh = sorted({sha256_hex(text) for text in texts} - self.keys)
        self.cached += len(self.embedder.store.get_many(fresh))
        self.keys.update(fresh)
        return np.zeros((len(texts), 1), dtype=np.float32)

    def report(self, stage: str) -> str:
        return (f"{stage} (dry run): {len(self.keys)} texts to embed with the "
                f"{self.embedder.backend} embedder, {self.cached} already cached; no chat model "
                "is called")
