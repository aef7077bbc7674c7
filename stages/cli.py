"""The ``interviewsim`` command group. Each subcommand lives in the stage module named after it.

Commands are imported lazily so that ``interviewsim --help`` and light commands start fast
and never load llama.cpp, MLflow or DVC unless they need them.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from pathlib import Path

import click

from interviewsim.errors import InputError, InterviewSimError, StaleInput

# command name -> "module:attribute". One line per stage module; keep it sorted by pipeline order.
# A DVC stage's command is the stage's name (tests/test_cli_contract.py).
COMMANDS: dict[str, str] = {
    "validate-params": "stages.validate_params:validate_params",
    "prepare": "stages.prepare:prepare",
    "select-context": "stages.select_context:select_context_cmd",
    "generate": "stages.generate:generate",
    "controls": "stages.controls:controls",
    "fact-summary": "stages.fact_summary:fact_summary",
    "judge": "stages.judge:judge",
    "claims": "stages.claims:claims",
    "mcq-build": "stages.mcq_build:mcq_build",
    "mcq-answer": "stages.mcq_answer:mcq_answer",
    "style": "stages.style:style",
    "fidelity": "stages.fidelity:fidelity",
    "interview": "stages.interview:interview",
    "aggregate": "stages.aggregate:aggregate",
    "plan": "stages.commands.plan:plan",
    "prep": "stages.commands.prep:prep",
    "session": "stages.commands.interview:interview",
    "params": "stages.commands.params:params",
    "cache": "stages.commands.cache:cache",
    "labels": "stages.commands.labels:labels",
    "batch": "stages.commands.batch:batch",
    "doctor": "stages.commands.doctor:doctor",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, _, attribute = target.partition(":")
        return getattr(importlib.import_module(module_name), attribute)

    def invoke(self, ctx: click.Context):
        """Run the subcommand; an input that does not exist yet becomes exit 1 and a message
        naming the stage that writes it (:class:`MissingInput`), never a traceback, and a
        command-line usage error exits 1 (invalid input), leaving 2 to provider failures."""
        try:
            return super().invoke(ctx)
        except FileNotFoundError as exc:
            if exc.filename is None:
                raise
            raise MissingInput(str(exc.filename), ctx.invoked_subcommand) from None
        except InputError as exc:
            unread = [p.file for p in exc.problems
                      if not Path(p.file).exists() and producer_of(p.file) is not None]
            if not unread:
                raise
            raise MissingInput(unread[0], ctx.invoked_subcommand) from None
        except StaleInput as exc:  # a stage's message like any other: exit 1, no traceback
            raise click.ClickException(str(exc)) from None
        except click.UsageError as exc:
            exc.exit_code = 1
            raise


def _dag() -> dict[str, dict]:
    """The stages of dvc.yaml (the repository's, beside this package; else the working
    directory's), in their file order, which is a topological order of the DAG."""
    import yaml

    for path in (Path(__file__).resolve().parents[1] / "dvc.yaml", Path("dvc.yaml")):
        if path.is_file():
            stages = yaml.safe_load(path.read_text(encoding="utf-8")).get("stages", {})
            return {name: stage for name, stage in stages.items() if isinstance(stage, dict)}
    return {}


def _paths(entries: list | None) -> list[str]:
    """The paths of a dvc.yaml ``deps``/``outs`` list (an entry is a path or {path: opts})."""
    return [str(next(iter(e))) if isinstance(e, dict) else str(e) for e in entries or []]


def _outs(stage: dict) -> list[str]:
    return [*_paths(stage.get("outs")), *_paths(stage.get("metrics")),
            *_paths(stage.get("plots"))]


def producer_of(path: str | Path, dag: dict[str, dict] | None = None) -> str | None:
    """The dvc.yaml stage whose outputs hold ``path`` (relative to the working directory,
    where stages run), or None for a path no stage writes."""
    path = Path(path)
    if path.is_absolute():
        try:
            path = path.relative_to(Path.cwd())
        except ValueError:
            return None
    for name, stage in (_dag() if dag is None else dag).items():
        for out in _outs(stage):
            if "${" not in out and (path == Path(out) or Path(out) in path.parents):
                return name
    return None


def stages_to_run(stage: str, dag: dict[str, dict] | None = None) -> list[str]:
    """``stage`` and the stages upstream of it whose outputs are missing, in DAG order.
    validate-params is left out: every command validates params.yaml itself."""
    dag = _dag() if dag is None else dag
    needed, todo = {stage}, [stage]
    while todo:
        for dep in _paths(dag.get(todo.pop(), {}).get("deps")):
            upstream = producer_of(dep, dag) if "${" not in dep else None
            if upstream is not None and upstream not in needed:
                needed.add(upstream)
                todo.append(upstream)
    return [name for name, spec in dag.items() if name in needed and name != "validate-params"
            and (name == stage or not _done(spec))]


def _done(stage: dict) -> bool:
    """Every output exists and holds a file (a run that failed may leave empty folders)."""
    outs = [Path(out) for out in _outs(stage)]
    return all(out.exists() for out in outs) and any(
        out.is_file() or any(f.is_file() for f in out.rglob("*")) for out in outs)


class MissingInput(click.ClickException):
    """A command's input does not exist (exit 1): the message names the stage that writes it
    and every stage to run before it, read from dvc.yaml (the command of a stage is its name)."""

    def __init__(self, path: str, command: str | None):
        dag = _dag()
        producer = producer_of(path, dag)
        message = f"{path} does not exist"
        if producer is not None:
            runs = ", then ".join(f"`interviewsim {name}`" for name in stages_to_run(producer,
                                                                                    dag))
            message += f"; stage {producer!r} writes it: run {runs} first"
            if command in dag:
                message += f" (or `dvc repro {command}`, which runs every stage it needs)"
        super().__init__(message)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="interviewsim")
def cli() -> None:
    """InterviewSim: measure how well language models simulate people from their interviews.

    Each pipeline stage is a subcommand; `dvc repro` runs them in order (see dvc.yaml).
    Exit codes: 0 success, 1 invalid input or configuration (a usage error, or an input whose
    stage has not run yet, included), 2 model provider failure,
    3 leakage of held-out text detected, 4 `batch collect`: batches still running.
    """
    from stages.runner.copies import ENTRY_POINT

    # a stage that runs as several processes forks copies of itself that start here again
    click.get_current_context().meta[ENTRY_POINT] = main


def _logging() -> None:
    """``INTERVIEWSIM_LOG=debug|info|warning`` sets the log level of InterviewSim's loggers (the
    model seam logs retries, and each HTTP request at debug; never a header or the key)."""
    level = os.environ.get("INTERVIEWSIM_LOG", "").upper()
    if level in ("DEBUG", "INFO", "WARNING", "ERROR"):
        logging.basicConfig(format="%(asctime)s %(name)s %(levelname)s %(message)s")
        logging.getLogger("interviewsim").setLevel(level)


def _restore_hint() -> None:
    """Under ``dvc repro`` (DVC sets DVC_STAGE), say that DVC deleted the stage's previous
    outputs before running it, and how to get them back."""
    stage = os.environ.get("DVC_STAGE")
    if stage:
        click.echo(f"note: DVC removed the previous outputs of stage {stage!r} before running "
                   f"it; `dvc checkout {stage}` restores them from the DVC cache (fix the "
                   "problem above, then `dvc repro` resumes: finished model calls are cached).",
                   err=True)


def main() -> None:
    """Console entry point: library errors become a message and an exit code, not a traceback."""
    _logging()
    try:
        code = cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        _restore_hint()
        sys.exit(exc.exit_code)
    except InterviewSimError as exc:
        problems = getattr(exc, "problems", None)
        if problems:
            click.echo(f"error: {len(problems)} problem(s):", err=True)
            for problem in problems:
                click.echo(f"  {problem}", err=True)
        else:
            click.echo(f"error: {exc}", err=True)
        _restore_hint()
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
