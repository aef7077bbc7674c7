"""DVC stage ``prepare``: validate every prepared_input.json and write the hold-out split."""

from __future__ import annotations

from pathlib import Path

import click

from interviewsim.data.prepare import prepare_corpus
from stages.common import PREPARED_DIR, params_option, read_params


@click.command()
@params_option
@click.option("--input-dir", type=click.Path(path_type=Path), default=None,
              help="Folder of <personality_id>/prepared_input.json [default: data.personalities].")
@click.option("--out-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True, help="Where the prepared artifacts are written.")
def prepare(params_path: Path, input_dir: Path | None, out_dir: Path) -> None:
    """Validate all inputs, then write the chronological train/held-out split.

    Every file is validated before anything is written; if any is invalid, every problem is
    listed (file, JSON path, what is expected), nothing is written and the exit code is 1.
    Outputs (JSON Lines): personalities, train_pairs, heldout_pairs, splits.
    """
    params = read_params(params_path)
    source = input_dir or Path(params.data.personalities)
    summary = prepare_corpus(source, out_dir, params.data.test_fraction,
                             max_heldout_pairs=params.data.max_heldout_pairs)
    click.echo(
        f"prepared {summary.personalities} personalities, {summary.interviews} interviews: "
        f"{summary.train_pairs} training pairs, {summary.heldout_pairs} held-out pairs "
        f"-> {out_dir}"
    )
