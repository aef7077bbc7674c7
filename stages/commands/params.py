"""``interviewsim params``: validate params.yaml and show the resolved settings."""

from __future__ import annotations

from pathlib import Path

import click
import yaml

from interviewsim.errors import ConfigError
from interviewsim.experiment.params import load_params


@click.group()
def params() -> None:
    """Inspect and validate experiment parameters."""


@params.command("check")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), default="params.yaml")
@click.option("--show", is_flag=True, help="Print the resolved parameters, defaults included.")
def check(file: Path, show: bool) -> None:
    """Validate FILE (default params.yaml); print every problem with its key path.

    Exit code 0 when valid, 1 when any problem is found.
    """
    try:
        resolved = load_params(file)
    except ConfigError as exc:
        for problem in exc.problems:
            click.echo(f"{problem}", err=True)
        raise SystemExit(1) from None
    if show:
        click.echo(yaml.safe_dump(resolved.model_dump(mode="json"), sort_keys=False))
    click.echo(f"{file}: ok")
