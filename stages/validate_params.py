"""DVC stage ``validate-params``: params.yaml checked as a whole before any stage runs.

DVC reruns a stage only when the keys it lists under ``params`` change, so a misspelt key
(``strategy:`` for ``strategies:``) would change nothing and pass silently. This stage depends
on the whole file and every other stage depends on its output, so ``dvc repro`` stops here,
naming every problem, before anything runs. Its output is constant, so a valid edit reruns only
the stages whose own params changed.
"""

from __future__ import annotations

from pathlib import Path

import click

from interviewsim.data.jsonio import write_json_atomic
from stages.common import params_option, read_params

VALIDATED = Path("data/artifacts/params/valid.json")


@click.command("validate-params")
@params_option
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=VALIDATED,
              show_default=True, help="Written (always the same content) when params are valid.")
def validate_params(params_path: Path, out: Path) -> None:
    """Validate params.yaml (unknown or misspelt keys, types, references); exit 1 listing every
    problem, else write OUT. Every stage of dvc.yaml depends on OUT."""
    read_params(params_path)
    write_json_atomic(out, {"params": "valid"})
    click.echo(f"{params_path}: valid")
