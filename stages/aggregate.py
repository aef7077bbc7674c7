"""DVC stage ``aggregate``: the experiment's table, tests, DVC metrics and plots, MLflow runs."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from pathlib import Path

import click

from interviewsim.analysis.closeness import ClosenessReport, build_closeness
from interviewsim.analysis.closeness_measures import personality_plot_rows
from interviewsim.analysis.controls import RETEST
from interviewsim.analysis.headline import HEADLINE_METRICS, headline_files
from interviewsim.analysis.item_traces import log_item_traces
from interviewsim.analysis.judged_items import JudgedItem, judged_items, sample_keys
from interviewsim.analysis.labels import human_agreement, read_labels
from interviewsim.analysis.metrics import (
    flat_metrics,
    load_cells,
    per_personality_csv,
    summarise_usage,
)
from interviewsim.analysis.report import (
    ReportData,
    plot_metric,
    plot_rows,
    render_report,
    row_order,
)
from interviewsim.analysis.stats import confidence_intervals, pairwise_tests
from interviewsim.analysis.trust import TrustReport, build_trust_report, trust_inputs
from interviewsim.config.params import Params
from interviewsim.data.jsonio import (
    canonical_json,
    load_json_strict,
    read_jsonl,
    sha256_hex,
    write_json_atomic,
    write_jsonl_atomic,
    write_text_atomic,
)
from stages.common import (
    CONTROLS_DIR,
    FACT_SUMMARY_DIR,
    FIDELITY_DIR,
    GENERATED_DIR,
    JUDGED_DIR,
    LABELS_DIR,
    MCQ_ANSWERS_DIR,
    PREPARED_DIR,
    REPORTS_DIR,
    params_option,
    read_params,
)

SAMPLE_PER_GROUP = 3
"""Judgments kept per (strategy, judge, metric) in the sample attached to the MLflow run."""

TABLE_JUDGMENTS = (JUDGED_DIR / "judgments.jsonl", JUDGED_DIR / "control_judgments.jsonl")
TABLE_ANSWERS = (GENERATED_DIR / "answers.jsonl", CONTROLS_DIR / "answers.jsonl")
TABLE_HELDOUT = PREPARED_DIR / "heldout_pairs.jsonl"
"""What the MLflow evaluation table is built from (files that do not exist are skipped)."""

_path = click.Path(dir_okay=False, path_type=Path)


def _summaries(paths: Iterable[Path]) -> dict[str, dict]:
    """Stage summaries keyed by their stage folder (``generated``, ``judged``, ...), or by
    shard and folder (``s0/generated``) when several shards have the same stage."""
    paths = sorted(paths)
    names = [path.parent.name for path in paths]
    return {(f"{path.parent.parent.name}/{name}" if names.count(name) > 1 else name):
            load_json_strict(path) for path, name in zip(paths, names, strict=True)}


def _sample(paths: Iterable[Path]) -> list[dict]:
    """The first few records per (strategy, judge, metric) of each file: enough to eyeball
    what the judges said under each strategy without shipping every judgment to MLflow."""
    kept: list[dict] = []
    for path in paths:
        seen: dict[tuple[str, ...], int] = {}
        for record in read_jsonl(path):
            group = tuple(str(record.get(k)) for k in ("strategy", "judge", "metric"))
            if seen.get(group, 0) < SAMPLE_PER_GROUP:
                seen[group] = seen.get(group, 0) + 1
                kept.append(record)
    return kept


def _inputs_hash(files: Iterable[Path], params: Params) -> str:
    """What makes two executions identical: every file read and the code that turns them into
    numbers (both by content, as DVC sees its deps), and the params."""
    from interviewsim.analysis import (
        agreement,
        calibration,
        closeness,
        closeness_measures,
        control_items,
        headline,
        inference,
        intervals,
        metrics,
        report,
        stats,
        tracking,
        tracking_view,
        trust,
        validity,
    )

    code = [Path(m.__file__) for m in (metrics, report, stats, tracking, agreement, trust,
                                       validity, headline, tracking_view, inference, intervals,
                                       calibration, control_items, closeness, closeness_measures)
            if m.__file__]
    digests = {str(path): sha256_hex(path.read_bytes()) for path in sorted(set(files))}
    code_digests = {path.name: sha256_hex(path.read_bytes()) for path in [*code, Path(__file__)]}
    return sha256_hex(canonical_json({"files": digests, "code": code_digests,
                                      "params": params.model_dump(mode="json")}))


@click.command()
@params_option
@click.option("--judged", type=_path, multiple=True,
              default=[JUDGED_DIR / "personality_metrics.jsonl"], show_default=True,
              help="CS, FC and PS per personality (judge = judge name); repeatable, e.g. one "
                   "per personality shard.")
@click.option("--mcq", type=_path, multiple=True,
              default=[MCQ_ANSWERS_DIR / "personality_metrics.jsonl"], show_default=True,
              help="MCQ accuracy and reward (judge = answering model); repeatable.")
@click.option("--metrics-file", "extra", type=_path, multiple=True,
              help="Further personality_metrics.jsonl files (repeatable).")
@click.option("--summary", "summary_paths", type=_path, multiple=True,
              help="Stage summary.json files [default: data/artifacts/*/summary.json].")
@click.option("--sample-from", type=_path, multiple=True,
              help="JSON Lines of judgments to sample for the MLflow run (repeatable).")
@click.option("--controls", "control_paths", multiple=True,
              type=click.Path(dir_okay=False, path_type=Path),
              default=[JUDGED_DIR / "control_metrics.jsonl",
                       MCQ_ANSWERS_DIR / "control_metrics.jsonl"], show_default=True,
              help="Control metrics (oracle, impostor, retest) for each judge's "
                   "discrimination and normalized fidelity; "
                   "files that do not exist are skipped (controls: []).")
@click.option("--fidelity-dir", type=click.Path(file_okay=False, path_type=Path),
              default=FIDELITY_DIR, show_default=True,
              help="The fidelity stage's answers.jsonl and ceiling.jsonl ('How close to the "
                   "person?').")
@click.option("--no-fidelity", is_flag=True,
              help="Leave out the fidelity stage's judge-free measures (a pipeline without "
                   "that stage, e.g. docs/examples/sharded.dvc.yaml); the report says so.")
@click.option("--labels-dir", type=click.Path(file_okay=False, path_type=Path),
              default=LABELS_DIR, show_default=True,
              help="People's labels of judged items (interviewsim labels pull / import), "
                   "for each judge's agreement with people.")
@click.option("--baseline", default="no-context", show_default=True,
              help="Strategy the table's significance marks compare against.")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path),
              default=REPORTS_DIR, show_default=True)
@click.option("--no-mlflow", is_flag=True, help="Write the reports only; log nothing.")
def aggregate(params_path: Path, judged: tuple[Path, ...], mcq: tuple[Path, ...],
              extra: tuple[Path, ...],
              summary_paths: tuple[Path, ...], sample_from: tuple[Path, ...],
              control_paths: tuple[Path, ...], fidelity_dir: Path, no_fidelity: bool,
              labels_dir: Path, baseline: str, out_dir: Path, no_mlflow: bool) -> None:
    """Macro-average every metric over personalities (the headline; the pooled value over all
    units goes beside it), test every pair of strategies, and write reports/ (metrics.json and
    headline/ for DVC, report.md, plots, per-personality CSV, significance.json);
    then log one MLflow parent run with a child per (strategy, judge), unless the same inputs
    were logged before (docs/EXPERIMENTS.md "MLflow").
    """
    params = read_params(params_path)
    metric_files = [*judged, *mcq, *extra]
    summary_paths = summary_paths or tuple(sorted(Path("data/artifacts").glob("*/summary.json")))
    cells = load_cells(metric_files)
    if not cells:
        raise click.ClickException("no metric rows in " + ", ".join(map(str, metric_files)))
    usage = summarise_usage(_summaries(summary_paths))
    intervals = confidence_intervals(cells)
    tests = pairwise_tests(cells, params.strategies, params.aggregate.permutations, params.seed)
    rows = row_order(cells, params.strategies)
    if baseline not in rows:
        baseline = rows[0]

    _write_plots(out_dir / "plots", cells, intervals, params.strategies)
    # the judge's and mcq-answer's folders are those of the metric files the options name
    judged_dir = judged[0].parent if judged else JUDGED_DIR
    mcq_dir = mcq[0].parent if mcq else MCQ_ANSWERS_DIR
    trust = build_trust_report(params, tests, control_paths, judged_dir, mcq_dir)
    items = experiment_items(judged_dir)
    trust.human = human_agreement(items, read_labels(labels_dir), params.aggregate.bootstrap,
                                  params.seed)
    closeness, closeness_inputs = _closeness(params, cells, trust,
                                             None if no_fidelity else fidelity_dir, judged_dir)
    _write_personality_plots(out_dir / "plots", cells, params.strategies)
    flat = flat_metrics(cells, usage) | trust.flat() | closeness.flat()
    write_json_atomic(out_dir / "metrics.json", flat)
    headline_dir = _write_headline(out_dir / "headline", cells, params.strategies, trust,
                                   closeness)
    write_text_atomic(out_dir / "per_personality.csv", per_personality_csv(cells))
    _write_significance(out_dir / "significance.json", params, baseline, tests)
    write_jsonl_atomic(out_dir / "judgment_sample.jsonl", _sample(sample_from))
    report = ReportData(
        title="InterviewSim results", cells=cells, intervals=intervals, tests=tests,
        strategies=list(params.strategies), baseline=baseline, usage=usage,
        config=params.model_dump(mode="json"), permutations=params.aggregate.permutations,
        bootstrap=params.aggregate.bootstrap, trust=trust.render(),
        closeness=closeness.render(),
    )
    write_text_atomic(out_dir / "report.md", render_report(report))
    click.echo(f"report: {out_dir / 'report.md'}  (DVC: dvc metrics show {headline_dir}; "
               "dvc plots show)")
    if no_mlflow:
        return

    _log_to_mlflow(params, params_path, cells, intervals, trust, flat, out_dir,
                   read=[*metric_files, *summary_paths, *sample_from,
                         *trust_inputs(control_paths, judged_dir, mcq_dir), *closeness_inputs,
                         *sorted(labels_dir.glob("*.jsonl"))], items=items)


def _write_significance(path: Path, params: Params, baseline: str, tests: list) -> None:
    write_json_atomic(path, {
        "permutations": params.aggregate.permutations, "bootstrap": params.aggregate.bootstrap,
        "seed": params.seed, "baseline": baseline,
        "tests": [t.model_dump() for t in tests],
    })


def _write_headline(headline_dir: Path, cells: dict, strategies: list[str], trust: TrustReport,
                    closeness: ClosenessReport) -> Path:
    """reports/headline/: the headline files alone (stale ones removed)."""
    headline_dir.mkdir(parents=True, exist_ok=True)
    for stale in headline_dir.glob("*.json"):
        stale.unlink()
    for name, row in headline_files(cells, strategies, trust, closeness.normalized).items():
        write_json_atomic(headline_dir / name, row)
    return headline_dir


def _write_plots(plots_dir: Path, cells: dict, intervals: dict, strategies: list[str]) -> None:
    """One PNG and its data per metric; plots of metrics no longer computed are removed."""
    plots_dir.mkdir(parents=True, exist_ok=True)
    for stale in itertools.chain(plots_dir.glob("*.png"), plots_dir.glob("*.json")):
        stale.unlink()
    for metric, metric_rows in plot_rows(cells, intervals, strategies).items():
        write_json_atomic(plots_dir / f"{metric}.json", metric_rows)
        plot_metric(metric, metric_rows, plots_dir / f"{metric}.png")


def _write_personality_plots(plots_dir: Path, cells: dict, strategies: list[str]) -> None:
    """One PNG and its data per headline metric with a bar per (personality, strategy):
    where each strategy does well and badly (stale ones went with _write_plots)."""
    for metric, rows in personality_plot_rows(cells, HEADLINE_METRICS, strategies).items():
        write_json_atomic(plots_dir / f"personalities_{metric}.json", rows)
        plot_metric(metric, rows, plots_dir / f"personalities_{metric}.png", by="label",
                    title=f"{metric} by personality and strategy")


def _closeness(params: Params, cells: dict, trust: TrustReport, fidelity_dir: Path | None,
               judged_dir: Path) -> tuple[ClosenessReport, list[Path]]:
    """The "How close to the person?" section and the files it read: the fidelity stage's
    records and, with the retest control, the controls stage's summary (its retest pairs);
    each an error naming the stage to run when missing."""
    inputs = ([] if fidelity_dir is None else
              [fidelity_dir / "answers.jsonl", fidelity_dir / "ceiling.jsonl"])
    pairs = {}
    if RETEST in params.controls:
        inputs.append(CONTROLS_DIR / "summary.json")
        if not inputs[-1].is_file():
            raise FileNotFoundError(2, "missing input", str(inputs[-1]))
        pairs = load_json_strict(inputs[-1])
    found = build_closeness(params, cells, trust.items, trust.discrimination, fidelity_dir,
                            judged_dir, pairs, HEADLINE_METRICS)
    return found, inputs


def experiment_items(judged_dir: Path) -> list[JudgedItem]:
    """The judged items of this experiment (the judge stage's files, with the answers, the
    held-out pairs and the fact summaries they were judged on)."""
    return judged_items(judged_dir, TABLE_ANSWERS[0], TABLE_ANSWERS[1], TABLE_HELDOUT,
                        FACT_SUMMARY_DIR / "fact_summaries.jsonl")


def _log_to_mlflow(params: Params, params_path: Path, cells: dict, intervals: dict,
                   trust: TrustReport, flat: dict, out_dir: Path,
                   read: list[Path], items: list[JudgedItem]) -> None:
    """The parent run (headline, validity, report, plots, evaluation table, dataset) and its
    children, unless the same inputs were logged before; and the judged items as traces
    (a seeded sample of at most mlflow.max_traced_items), whose human labels survive."""
    from interviewsim.analysis import tracking_view as view
    from interviewsim.analysis.tracking import (
        ParentExtras,
        child_runs,
        committed_params,
        flatten_params,
        log_aggregate,
        run_identity,
    )

    table_files = [p for p in (*TABLE_JUDGMENTS, *TABLE_ANSWERS, TABLE_HELDOUT) if p.is_file()]
    personalities = Path(params.data.personalities)
    data_files = sorted(p for p in personalities.rglob("*") if p.is_file())
    flat_params = flatten_params(params.model_dump(mode="json"))
    committed = committed_params(params_path)
    diff = None if committed is None else view.params_diff(flat_params, committed)
    identity = run_identity(_inputs_hash([*read, *table_files, *data_files], params), diff=diff)
    known = view.scorers(params)
    dataset = view.folder_dataset(personalities)

    def rows(paths: Iterable[Path]) -> Iterable[dict]:
        return itertools.chain.from_iterable(read_jsonl(p) for p in paths if p.is_file())

    extras = ParentExtras(
        description=view.describe(identity.name, diff, dataset, known, cells,
                                  params.strategies, trust),
        dataset=dataset,
        table=view.evaluation_table(rows(TABLE_JUDGMENTS), rows(TABLE_ANSWERS),
                                    rows([TABLE_HELDOUT]),
                                    [*params.controls, *params.strategies]),
        view_metrics=view.headline_metric_names(cells, params.strategies),
    )
    result = log_aggregate(
        params.mlflow.tracking_uri, params.mlflow.experiment, identity, params=flat_params,
        parent_metrics=view.parent_metrics(cells, trust, flat),
        children=child_runs(cells, intervals, known),
        artifacts=[out_dir / name for name in ("report.md", "metrics.json", "headline",
                                               "per_personality.csv", "significance.json",
                                               "judgment_sample.jsonl", "plots")],
        extras=extras,
    )
    traced = sample_keys(items, params.mlflow.max_traced_items, params.seed)
    tally = log_item_traces(params.mlflow.tracking_uri, result.experiment_id, traced)
    click.echo(f"MLflow {tally.line()}")
    state = "already logged, reused" if result.reused else "logged"
    click.echo(f"MLflow: run {identity.name!r} {state} ({result.parent_run_id}, "
               f"{len(result.child_run_ids)} child runs) in experiment "
               f"{params.mlflow.experiment!r}\n  view: mlflow ui --backend-store-uri "
               f"{params.mlflow.tracking_uri}\n  then open "
               f"{view.runs_url(result.experiment_id)}")
