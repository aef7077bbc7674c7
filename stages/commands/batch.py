"""``interviewsim batch submit|collect``: whole stages through the OpenAI Batch API at once.

``submit`` runs each named stage's ``--dry-run`` with a spool on the model hub, so every
first-attempt request the stage would send (and that is neither cached nor already in flight)
goes into as few batches as the API allows. ``collect`` downloads finished batches into the
response cache; the stages then run from it (``dvc repro``). See docs/SCALE.md for the waves.
"""

from __future__ import annotations

from pathlib import Path

import click

from interviewsim.llm.batch_spool import (
    collect_batches,
    pending_summary,
    submitted_batches,
    submitting_batches,
)
from interviewsim.llm.hub import ModelHub
from stages.common import params_option, read_params

MODEL_STAGES = ("generate", "fact-summary", "judge", "mcq-build", "mcq-answer")
STILL_RUNNING = 4
"""Exit code of ``collect`` while some batch is still running: rerun it later."""


@click.group()
def batch() -> None:
    """Submit whole stages to the OpenAI Batch API, then collect the answers into the cache.

    Needs `batch: true` on the openai provider the stage's models use (params.yaml).
    """


@batch.command("submit")
@params_option
@click.argument("stages", nargs=-1, required=True, type=click.Choice(MODEL_STAGES))
def submit(params_path: Path, stages: tuple[str, ...]) -> None:
    """Submit every uncached first-attempt request of STAGES as Batch API batches.

    A stage's inputs must exist (judge needs generate's answers and the fact summaries,
    mcq-answer the MCQ items): submit generate, fact-summary and mcq-build first, collect,
    run them, then submit judge and mcq-answer. Requests already in flight are not sent again.
    """
    from stages.cli import cli

    before = len(submitted_batches())
    for name in stages:
        command = cli.get_command(click.get_current_context(), name)
        assert command is not None
        with submitting_batches():
            command.main(["--dry-run", "--params", str(params_path)], standalone_mode=False)
    records = submitted_batches()[before:]
    for record in records:
        click.echo(f"submitted {record['batch_id']}: {record['requests']} requests "
                   f"({record['provider']}/{record['model']})")
    click.echo(f"{len(records)} batch(es), {sum(r['requests'] for r in records)} requests; "
               "run `interviewsim batch collect` later")


@batch.command("collect")
@params_option
def collect(params_path: Path) -> None:
    """Download finished batches into the response cache; report those still running.

    Exit 0 when no batch is left running, 4 while some still are (rerun later). A batch that
    failed or expired is forgotten: its requests go to the chat endpoint when the stage runs,
    or into a new batch on the next submit.
    """
    params = read_params(params_path)
    with ModelHub(params.hub) as hub:
        report = collect_batches(hub)
    for row in report:
        done = f", {row.answered} answers cached" if row.status == "completed" else ""
        click.echo(f"{row.batch_id}: {row.status} ({row.requests} requests{done})")
    running, requests = pending_summary(report)
    if not report:
        click.echo("no submitted batches")
    elif running:
        click.echo(f"{running} batch(es) with {requests} requests still running; "
                   "rerun `interviewsim batch collect` later")
        raise SystemExit(STILL_RUNNING)
    else:
        click.echo("all batches collected; run the stages (dvc repro)")
