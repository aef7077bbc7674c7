"""``interviewsim labels``: check the judges against people, labelling in the MLflow UI.

``aggregate`` logs every judged item of the experiment as an MLflow trace (a seeded sample of
at most ``mlflow.max_traced_items``), the judge's decision on it as an ``LLM_JUDGE`` feedback.
``labels sample`` marks a balanced, seeded sample of them for one rater; the rater opens each
trace in the MLflow UI and adds a feedback of the same name (the metric); ``labels pull``
exports every human feedback to ``data/labels/<rater>.jsonl``, which ``dvc repro`` reads
(``aggregate`` depends on data/labels/). ``labels import`` takes labels collected elsewhere.
docs/EXPERIMENTS.md "Checking the judges against people".
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import click

from interviewsim.analysis.item_traces import (
    REQUEST_PREFIX,
    TracedItem,
    assessment_value,
    human_feedback,
    read_traces,
    synchronous_traces,
)
from interviewsim.analysis.judged_items import SCALES
from interviewsim.analysis.labels import RATER, Label, merge_labels, read_label_file, scale_value
from interviewsim.config.params import Params
from interviewsim.data.jsonio import sha256_hex
from interviewsim.errors import InputError, Problem
from stages.common import LABELS_DIR, params_option, read_params

HOST = "http://127.0.0.1:5000"
UNNAMED = frozenset({"", "user", "unknown", "default", "anonymous"})
"""Source ids that name nobody (the open-source UI, without authentication, records "User"):
such feedback is filed under --rater."""
_labels_dir = click.option("--labels-dir", type=click.Path(file_okay=False, path_type=Path),
                           default=LABELS_DIR, show_default=True,
                           help="Where the label files live (git-tracked).")


def _rater(value: str | None) -> str | None:
    if value is not None and not RATER.match(value):
        raise click.BadParameter(f"{value!r}: letters, digits, '.', '_' and '-' only",
                                 param_hint="--rater")
    return value


def _experiment(params: Params):
    """(client, experiment id) of params.mlflow's experiment; exit 1 when it has no run yet."""
    synchronous_traces()
    import mlflow

    mlflow.set_tracking_uri(params.mlflow.tracking_uri)
    client = mlflow.MlflowClient(tracking_uri=params.mlflow.tracking_uri)
    experiment = client.get_experiment_by_name(params.mlflow.experiment)
    if experiment is None:
        raise click.ClickException(
            f"no MLflow experiment {params.mlflow.experiment!r} at "
            f"{params.mlflow.tracking_uri}: run `dvc repro` (aggregate logs the judged items "
            "as traces) first")
    return client, experiment.experiment_id


@click.group()
def labels() -> None:
    """Label judged items in the MLflow UI and export the labels (sample, pull, import)."""


def stratified(traces: list[TracedItem], count: int, seed: int, rater: str) -> list[TracedItem]:
    """``count`` traces balanced over (condition, metric): the strata take turns, each in a
    seeded order of its own, so the first n of a larger sample are the same n."""
    strata: dict[tuple[str, str], list[TracedItem]] = defaultdict(list)
    for trace in traces:
        strata[trace.key.stratum].append(trace)
    queues = [sorted(group, key=lambda t: sha256_hex(f"{seed}|{rater}|{t.key.tag()}"))
              for _, group in sorted(strata.items())]
    chosen: list[TracedItem] = []
    while len(chosen) < count and any(queues):
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop(0))
    return chosen


@labels.command("sample")
@params_option
@click.option("--n", "count", type=click.IntRange(min=1), required=True,
              help="How many traces to mark for labelling.")
@click.option("--rater", required=True, callback=lambda _c, _p, v: _rater(v),
              help="Who labels them (the name their labels are filed under).")
def sample(params_path: Path, count: int, rater: str) -> None:
    """Mark a seeded sample of the experiment's judged-item traces for RATER, balanced over
    strategies, controls and metrics, and print how to find them in the MLflow UI. Running it
    again with the same n marks the same traces; a larger n adds to them."""
    params = read_params(params_path)
    client, experiment_id = _experiment(params)
    traces = list(read_traces(client, experiment_id, include_stale=False))
    if not traces:
        raise click.ClickException("the experiment holds no judged-item traces: run `dvc "
                                   "repro` with MLflow on (mlflow.max_traced_items > 0)")
    chosen = stratified(traces, count, params.seed, rater)
    tag = REQUEST_PREFIX + rater
    for trace in chosen:
        if trace.tags.get(tag) != "requested":
            client.set_trace_tag(trace.trace_id, tag, "requested")
    strata = Counter(t.key.stratum for t in chosen)
    click.echo(f"marked {len(chosen)} of {len(traces)} traces for {rater} "
               f"({len(strata)} condition × metric strata)")
    click.echo(f"  view: mlflow ui --backend-store-uri {params.mlflow.tracking_uri}")
    click.echo(f"  then open {HOST}/#/experiments/{experiment_id}/traces and search: "
               f"tags.`{tag}` = 'requested'")
    click.echo("  in each trace add a feedback named after its metric, on its scale: "
               + "; ".join(f"{m}: {', '.join(map(str, s))}" for m, s in SCALES.items()))
    for trace in chosen:
        click.echo(f"  {trace.key.tag()}  {HOST}/#/experiments/{experiment_id}/traces?"
                   f"selectedEvaluationId={trace.trace_id}")


def _latest(assessments: list) -> object:
    return max(assessments, key=lambda a: (getattr(a, "last_update_time_ms", 0) or 0,
                                           getattr(a, "create_time_ms", 0) or 0))


@labels.command("pull")
@params_option
@click.option("--rater", default=None, callback=lambda _c, _p, v: _rater(v),
              help="The rater of feedback whose source id names nobody (the open-source "
                   "UI without authentication records 'User').")
@_labels_dir
def pull(params_path: Path, rater: str | None, labels_dir: Path) -> None:
    """Export every human feedback on the experiment's judged-item traces to
    LABELS_DIR/<rater>.jsonl (a rater's latest feedback per trace; validated against the
    metric's scale: one out of scale is an error naming the trace, and nothing is written)."""
    params = read_params(params_path)
    client, experiment_id = _experiment(params)
    latest: dict[tuple[str, str], tuple[TracedItem, object]] = {}
    problems: list[Problem] = []
    for trace, assessment in human_feedback(read_traces(client, experiment_id)):
        recorded = assessment.source.source_id or ""
        who = rater if recorded.strip().lower() in UNNAMED else recorded
        if not who or not RATER.match(who):
            problems.append(Problem(f"trace {trace.trace_id}", trace.key.metric,
                                    f"human feedback whose source id is {recorded!r}: give "
                                    "--rater NAME"))
            continue
        found = latest.get((trace.trace_id, who))
        if found is None or _latest([found[1], assessment]) is assessment:
            latest[(trace.trace_id, who)] = (trace, assessment)
    pulled = []
    for (_, who), (trace, assessment) in sorted(latest.items()):
        try:
            value = scale_value(trace.key.metric, assessment_value(assessment))
        except ValueError as exc:
            problems.append(Problem(f"trace {trace.trace_id}", trace.key.metric,
                                    f"{exc} ({trace.key.tag()})"))
            continue
        pulled.append(Label(trace.key, who, value, trace.digest))
    if problems:
        raise InputError(problems)
    changed = merge_labels(labels_dir, pulled)
    raters = Counter(label.rater for label in pulled)
    click.echo(f"pulled {len(pulled)} human labels ("
               + (", ".join(f"{r} {n}" for r, n in sorted(raters.items())) or "none")
               + f"); {len(changed)} file(s) changed in {labels_dir}")


@labels.command("import")
@params_option
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--rater", default=None, callback=lambda _c, _p, v: _rater(v),
              help="The rater of rows that name none.")
@_labels_dir
def import_labels(params_path: Path, file: Path, rater: str | None, labels_dir: Path) -> None:
    """Add labels collected elsewhere: FILE is CSV (header: personality_id, condition, unit,
    metric, judge, value, and optionally rater and digest) or JSON Lines with the same fields.
    Every row is checked against its metric's scale before anything is written."""
    read_params(params_path)  # a broken params.yaml stops here, as for every command
    found = read_label_file(file, rater)
    changed = merge_labels(labels_dir, found)
    click.echo(f"imported {len(found)} labels from {file}; {len(changed)} file(s) changed in "
               f"{labels_dir}")
