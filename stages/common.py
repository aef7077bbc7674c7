"""Options and helpers every stage command shares (one place, so stages stay thin)."""

from __future__ import annotations

from pathlib import Path

import click

from interviewsim.experiment.params import Params, load_params
from interviewsim.llm.progress import progress_enabled as progress_enabled  # for the stages

PREPARED_DIR = Path("data/artifacts/prepared")
CONTEXT_DIR = Path("data/artifacts/context")
GENERATED_DIR = Path("data/artifacts/generated")
FACT_SUMMARY_DIR = Path("data/artifacts/fact_summary")
JUDGED_DIR = Path("data/artifacts/judged")
MCQ_ITEMS_DIR = Path("data/artifacts/mcq_items")
MCQ_ANSWERS_DIR = Path("data/artifacts/mcq_answers")
CONTROLS_DIR = Path("data/artifacts/controls")
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
