"""The ``interviewsim`` command group. Each subcommand lives in the stage module named after it.

Commands are imported lazily so that ``interviewsim --help`` and light commands start fast
and never load llama.cpp, MLflow or DVC unless they need them.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys

import click

from interviewsim.errors import InterviewSimError

# command name -> "module:attribute". One line per stage module; keep it sorted by pipeline order.
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
    "style-metrics": "stages.style:style_metrics_cmd",
    "aggregate": "stages.aggregate:aggregate",
    "plan": "stages.commands.plan:plan",
    "prep": "stages.commands.prep:prep",
    "interview": "stages.commands.interview:interview",
    "interview-experiment": "stages.interview:interview_experiment",
    "params": "stages.commands.params:params",
    "cache": "stages.commands.cache:cache",
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


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="interviewsim")
def cli() -> None:
    """InterviewSim: measure how well language models simulate people from their interviews.

    Each pipeline stage is a subcommand; `dvc repro` runs them in order (see dvc.yaml).
    Exit codes: 0 success, 1 invalid input or configuration, 2 model provider failure,
    3 leakage of held-out text detected, 4 `batch collect`: batches still running.
    """
    from interviewsim.llm.workers import ENTRY_POINT

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
