"""``interviewsim params``: validate params.yaml, show the resolved settings, and print the
paper's configuration (params.paper.yaml) as ``dvc exp run`` arguments."""

from __future__ import annotations

from pathlib import Path

import click
import yaml

from interviewsim.config.paper import PAPER_FILE, load_overrides, override_args, with_overrides
from interviewsim.config.params import load_params
from interviewsim.errors import ConfigError, Problem
from stages.common import params_option


@click.group()
def params() -> None:
    """Inspect and validate experiment parameters."""


@params.command("check")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), default="params.yaml")
@click.option("--show", is_flag=True, help="Print the resolved parameters, defaults included.")
def check(file: Path, show: bool) -> None:
    """Validate FILE (default params.yaml); print every problem with its key path.

    Besides the keys and values, the input folder it names (data.personalities, relative to
    the working directory) must exist. Exit code 0 when valid, 1 when any problem is found.
    """
    try:
        resolved = load_params(file)
        missing = [Problem(str(file), key, f"folder {folder} does not exist")
                   for key, folder in (("data.personalities", resolved.data.personalities),)
                   if not Path(folder).is_dir()]
        if missing:
            raise ConfigError(missing)
    except ConfigError as exc:
        for problem in exc.problems:
            click.echo(f"{problem}", err=True)
        raise SystemExit(1) from None
    if show:
        click.echo(yaml.safe_dump(resolved.model_dump(mode="json"), sort_keys=False))
    click.echo(f"{file}: ok")


FAILED = "-S paper-args-failed-see-stderr"
"""Printed instead of the arguments on failure: DVC rejects it (no ``=``), so
``dvc exp run -n paper $(interviewsim params paper-args)`` stops rather than running params.yaml
unchanged under the paper's name."""


@params.command("paper-args")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path), default=PAPER_FILE)
@params_option
def paper_args(file: Path, params_path: Path) -> None:
    """Print FILE's overrides (default params.paper.yaml) as `dvc exp run` arguments:

        dvc exp run -n paper $(interviewsim params paper-args)

    One `-S ++key=value` per key FILE sets (Hydra syntax, no whitespace, so the unquoted
    `$(...)` splits them right); DVC writes them into params.yaml of the experiment. FILE merged
    onto --params is validated first; on a problem it is listed on stderr, the exit code is 1
    and stdout holds one argument DVC rejects, so the run does not start.
    """
    try:
        overrides = load_overrides(file)
        with_overrides(load_params(params_path), overrides, str(file))
        args = override_args(overrides)
    except ConfigError as exc:
        for problem in exc.problems:
            click.echo(f"{problem}", err=True)
        click.echo(FAILED)
        raise SystemExit(1) from None
    except ValueError as exc:
        click.echo(f"{file}: {exc}", err=True)
        click.echo(FAILED)
        raise SystemExit(1) from None
    click.echo(" ".join(args))
