"""MLflow runs for an aggregate execution: one parent run, one child per (strategy, judge).

DVC says *what* changed between experiments; MLflow is where a researcher browses and compares
them. The parent run carries the headline metrics, the validity figures, the report, the plots
and a per-item evaluation table; its children every metric of one (strategy, judge). What is
shown and how it is named is :mod:`interviewsim.analysis.tracking_view`; this module logs it.

The parent is tagged with a hash of everything the stage read: rerunning aggregate on
identical inputs finds that run and logs nothing, so ``dvc repro`` after ``dvc exp apply`` or a
cache restore never duplicates runs. A parent left unfinished by a crash is deleted with its
children and logged again. Bookkeeping tags start with ``mlflow.``, which the UI hides. MLflow
is imported lazily: it takes seconds to load.
"""

from __future__ import annotations

import json
import os
import subprocess
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from interviewsim.analysis.headline import DIGITS
from interviewsim.analysis.metrics import CellKey, MetricCell
from interviewsim.analysis.tracking_view import (
    DatasetRef,
    Scorer,
    child_name,
    run_name,
    saved_view,
)
from interviewsim.config.params import parse_params
from interviewsim.errors import ConfigError

HASH_TAG = "mlflow.interviewsim.inputsHash"
"""Parent tag holding the hash of the stage's inputs (files and params), set once complete
(``mlflow.``: the UI hides it)."""
PENDING_TAG = "mlflow.interviewsim.inputsHashPending"
"""The same hash, set when the parent is created: marks a parent that may be incomplete."""
EXPERIMENT_KIND = {"mlflow.experimentKind": "custom_model_development"}
"""MLflow 3's experiment type: runs, not the GenAI overview, where the UI reads it (3.17 takes
the sidebar's GenAI / Model training switch instead: docs/EXPERIMENTS.md)."""
SOURCE_NAME = "interviewsim aggregate"


class RunIdentity(BaseModel):
    """Who this aggregate execution is: its name, the code it ran and the inputs it read."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    git_commit: str | None
    git_dirty: bool | None
    dvc_exp_name: str | None
    inputs_hash: str

    def tags(self) -> dict[str, str]:
        """What the UI shows: git commit, dirty flag, DVC experiment name (under ``dvc exp
        run``), the Source column; the inputs hash is set by :func:`log_aggregate`."""
        tags = {"git_commit": self.git_commit or "unknown",
                "git_dirty": "unknown" if self.git_dirty is None else str(self.git_dirty).lower(),
                "mlflow.source.name": SOURCE_NAME, "mlflow.source.type": "LOCAL"}
        if self.dvc_exp_name:
            tags["dvc_exp_name"] = self.dvc_exp_name
        if self.git_commit:
            tags["mlflow.source.git.commit"] = self.git_commit
        return tags


class ChildRun(BaseModel):
    """The numbers of one (strategy, judge) combination."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    strategy: str
    judge: str
    metrics: dict[str, float]
    name: str = ""
    """Run name; empty: ``<strategy> · <judge>``."""


class ParentExtras(BaseModel):
    """What the parent shows beside its numbers (all optional)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    """Markdown shown on the run page (tag ``mlflow.note.content``)."""
    dataset: DatasetRef | None = None
    """Logged as the run's input dataset (the runs list's Dataset column), children too."""
    table: dict[str, list[Any]] | None = None
    """Column -> values, logged with ``log_table`` as ``evaluation/items.json``."""
    view_metrics: list[str] = []
    """Metric columns of the experiment's saved runs view (empty: no view)."""


class TrackingResult(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    experiment_id: str
    parent_run_id: str
    child_run_ids: list[str]
    reused: bool
    """True when a finished parent with the same inputs hash existed and nothing was logged."""


def git_state(cwd: str | Path = ".") -> tuple[str | None, bool | None]:
    """(full commit SHA, whether tracked files differ from it); (None, None) outside git."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                                  check=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip()

    commit = git("rev-parse", "HEAD")
    if not commit:
        return None, None
    status = git("status", "--porcelain", "--untracked-files=no")
    return commit, None if status is None else bool(status)


def git_file(rev: str, path: str | Path) -> str | None:
    """``path`` as committed at ``rev`` (None outside git or when it is not there)."""
    path = Path(path).resolve()
    try:
        done = subprocess.run(["git", "show", f"{rev}:./{path.name}"], cwd=path.parent,
                              capture_output=True, text=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout


def baseline_rev(environ: Mapping[str, str] = os.environ) -> str:
    """The commit an experiment started from: ``DVC_EXP_BASELINE_REV`` (set by ``dvc exp
    run`` beside ``DVC_EXP_NAME``), else HEAD."""
    return environ.get("DVC_EXP_BASELINE_REV") or "HEAD"


def committed_params(params_path: str | Path,
                     environ: Mapping[str, str] = os.environ) -> dict[str, str] | None:
    """The flattened params file as committed at :func:`baseline_rev` (None when git, the file
    at that commit or its validation fails): what a run's params are compared with."""
    text = git_file(baseline_rev(environ), params_path)
    if text is None:
        return None
    try:
        committed = parse_params(yaml.safe_load(text), str(params_path))
    except (ConfigError, yaml.YAMLError):
        return None
    return flatten_params(committed.model_dump(mode="json"))


def run_identity(inputs_hash: str, cwd: str | Path = ".",
                 environ: Mapping[str, str] = os.environ,
                 diff: Mapping[str, str] | None = None) -> RunIdentity:
    """Name the run after ``DVC_EXP_NAME`` (set by ``dvc exp run``) when the user chose it,
    else by ``diff``, the params that differ from the committed ones
    (:func:`~interviewsim.analysis.tracking_view.run_name`); when ``diff`` is None (committed
    params unknown), the DVC name or the short commit."""
    commit, dirty = git_state(cwd)
    dvc_exp = environ.get("DVC_EXP_NAME") or None
    name = run_name(dvc_exp, diff, dvc_exp or (commit[:7] if commit else "unversioned"))
    return RunIdentity(name=name, git_commit=commit, git_dirty=dirty, dvc_exp_name=dvc_exp,
                       inputs_hash=inputs_hash)


def flatten_params(value: Any, prefix: str = "") -> dict[str, str]:
    """Dotted keys for nested mappings (``context.retrieval_pairs``), list items by index, and
    lists of scalars as one JSON value, so params compare column by column in the MLflow UI."""
    flat: dict[str, str] = {}
    if isinstance(value, Mapping):
        if not value and prefix:
            flat[prefix] = "{}"
        for key, child in value.items():
            flat.update(flatten_params(child, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list) and any(isinstance(v, Mapping | list) for v in value):
        for index, child in enumerate(value):
            flat.update(flatten_params(child, f"{prefix}.{index}"))
    elif isinstance(value, list):
        flat[prefix] = json.dumps(value, ensure_ascii=False)
    else:
        flat[prefix] = "null" if value is None else str(value)
    return flat


def child_runs(cells: Mapping[CellKey, MetricCell],
               intervals: Mapping[CellKey, tuple[float, float] | None],
               known: Mapping[str, Scorer] | None = None) -> list[ChildRun]:
    """One child per (strategy, judge): each metric under its own name (``mcq_accuracy``, the
    macro average over personalities), and beside it ``<metric>.pooled`` (over all units of all
    personalities, as in metrics.json), ``<metric>_ci_low``/``_ci_high`` and the counts ``_n``,
    ``_invalid``, ``_personalities``, rounded to ``DIGITS`` decimals. A value that is None is
    left out (MLflow metrics are numbers). ``known`` (judges and answerers by name) names each
    child after its scorer's role (:func:`~interviewsim.analysis.tracking_view.child_name`)."""
    grouped: dict[tuple[str, str], dict[str, float]] = {}
    for key, cell in sorted(cells.items()):
        metrics = grouped.setdefault((cell.strategy, cell.judge), {})
        if cell.value is not None:
            metrics[cell.metric] = round(cell.value, DIGITS)
        if cell.pooled is not None:
            metrics[f"{cell.metric}.pooled"] = round(cell.pooled, DIGITS)
        interval = intervals.get(key)
        if interval is not None:
            metrics[f"{cell.metric}_ci_low"] = round(interval[0], DIGITS)
            metrics[f"{cell.metric}_ci_high"] = round(interval[1], DIGITS)
        metrics[f"{cell.metric}_n"] = cell.n
        metrics[f"{cell.metric}_invalid"] = cell.invalid
        metrics[f"{cell.metric}_personalities"] = len(cell.per_personality)
    return [ChildRun(strategy=s, judge=j, metrics=m, name=child_name(s, j, known or {}))
            for (s, j), m in grouped.items()]


def _chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _log(client: Any, run_id: str, params: Mapping[str, str],
         metrics: Mapping[str, float]) -> None:
    """log_batch within MLflow's per-request limits (100 params, 1000 metrics)."""
    from mlflow.entities import Metric, Param
    from mlflow.utils.time import get_current_time_millis
    from mlflow.utils.validation import MAX_METRICS_PER_BATCH, MAX_PARAMS_TAGS_PER_BATCH

    now = get_current_time_millis()
    for group in _chunks(sorted(params.items()), MAX_PARAMS_TAGS_PER_BATCH):
        client.log_batch(run_id, params=[Param(k, v) for k, v in group])
    for group in _chunks(sorted(metrics.items()), MAX_METRICS_PER_BATCH):
        client.log_batch(run_id, metrics=[Metric(k, float(v), now, 0) for k, v in group])


def _experiment_id(client: Any, name: str, artifact_location: str | None) -> str:
    experiment = client.get_experiment_by_name(name)
    if experiment is None:
        return client.create_experiment(name, artifact_location=artifact_location,
                                        tags=EXPERIMENT_KIND)
    if experiment.lifecycle_stage == "deleted":
        client.restore_experiment(experiment.experiment_id)
    for key, value in EXPERIMENT_KIND.items():
        if key not in experiment.tags:  # a kind the user chose in the UI stays
            client.set_experiment_tag(experiment.experiment_id, key, value)
    return experiment.experiment_id


def _runs_tagged(client: Any, experiment_id: str, tag: str, value: str) -> list[Any]:
    return client.search_runs([experiment_id], filter_string=f"tags.`{tag}` = '{value}'",
                              max_results=1000)


def _children(client: Any, experiment_id: str, parent_id: str) -> list[Any]:
    return client.search_runs([experiment_id],
                              filter_string=f"tags.mlflow.parentRunId = '{parent_id}'",
                              max_results=10_000)


def _log_extras(client: Any, experiment_id: str, parent_id: str, child_ids: Sequence[str],
                extras: ParentExtras) -> None:
    """Description, dataset, evaluation table and the experiment's saved headline view."""
    from mlflow.entities import Dataset, DatasetInput, InputTag
    from mlflow.utils.time import get_current_time_millis

    if extras.description:
        client.set_tag(parent_id, "mlflow.note.content", extras.description)
    if extras.dataset is not None:
        found = extras.dataset
        dataset = Dataset(name=found.name, digest=found.digest, source_type="local",
                          source=json.dumps({"uri": found.source}),
                          profile=json.dumps(found.profile))
        used = [DatasetInput(dataset, [InputTag("mlflow.data.context", "evaluation")])]
        for run_id in (parent_id, *child_ids):
            client.log_inputs(run_id, datasets=used)
    if extras.table is not None:
        with warnings.catch_warnings():  # MLflow's own pandas call, warned about by pandas 3
            warnings.filterwarnings("ignore", message="For backward compatibility, 'str'")
            client.log_table(parent_id, data=extras.table, artifact_file="evaluation/items.json")
    if extras.view_metrics:
        key, value = saved_view(extras.view_metrics, get_current_time_millis())
        client.set_experiment_tag(experiment_id, key, value)


def log_aggregate(
    tracking_uri: str,
    experiment: str,
    identity: RunIdentity,
    params: Mapping[str, str],
    parent_metrics: Mapping[str, float],
    children: Sequence[ChildRun],
    artifacts: Sequence[Path] = (),
    artifact_location: str | None = None,
    extras: ParentExtras | None = None,
) -> TrackingResult:
    """Log the parent and child runs, or find the finished parent that already holds them.

    ``artifacts`` are files or folders attached to the parent (folders keep their name).
    ``artifact_location`` only applies when the experiment is created here.
    """
    from mlflow import MlflowClient
    from mlflow.entities import RunStatus

    client = MlflowClient(tracking_uri=tracking_uri)
    experiment_id = _experiment_id(client, experiment, artifact_location)
    for parent in _runs_tagged(client, experiment_id, HASH_TAG, identity.inputs_hash):
        if parent.info.status == "FINISHED":
            kids = _children(client, experiment_id, parent.info.run_id)
            return TrackingResult(experiment_id=experiment_id, parent_run_id=parent.info.run_id,
                                  child_run_ids=[k.info.run_id for k in kids], reused=True)
    for stale in _runs_tagged(client, experiment_id, PENDING_TAG, identity.inputs_hash):
        if HASH_TAG not in stale.data.tags:
            for kid in _children(client, experiment_id, stale.info.run_id):
                client.delete_run(kid.info.run_id)
            client.delete_run(stale.info.run_id)

    # The hash tag is set last, with FINISHED: a crash leaves only the pending tag, and the next
    # execution deletes that incomplete parent instead of mistaking it for a complete one.
    tags = identity.tags()
    parent = client.create_run(experiment_id, run_name=identity.name,
                               tags=tags | {PENDING_TAG: identity.inputs_hash})
    parent_id = parent.info.run_id
    _log(client, parent_id, params, parent_metrics)
    child_ids: list[str] = []
    for child in children:
        run = client.create_run(
            experiment_id, run_name=child.name or f"{child.strategy} · {child.judge}",
            tags=tags | {"mlflow.parentRunId": parent_id, "strategy": child.strategy,
                         "judge": child.judge},
        )
        child_params = dict(params) | {"strategy": child.strategy, "judge": child.judge}
        _log(client, run.info.run_id, child_params, child.metrics)
        client.set_terminated(run.info.run_id, RunStatus.to_string(RunStatus.FINISHED))
        child_ids.append(run.info.run_id)
    for path in artifacts:
        if path.is_dir():
            client.log_artifacts(parent_id, str(path), artifact_path=path.name)
        elif path.exists():
            client.log_artifact(parent_id, str(path))
    _log_extras(client, experiment_id, parent_id, child_ids, extras or ParentExtras())
    client.set_tag(parent_id, HASH_TAG, identity.inputs_hash)
    client.set_terminated(parent_id, RunStatus.to_string(RunStatus.FINISHED))
    return TrackingResult(experiment_id=experiment_id, parent_run_id=parent_id,
                          child_run_ids=child_ids, reused=False)
