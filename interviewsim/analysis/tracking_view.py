"""What a researcher sees of an aggregate execution in the MLflow UI, computed without MLflow.

* Names. The parent metrics are the headline (:mod:`interviewsim.analysis.headline`) as
  ``<metric>/<strategy>`` (``<metric>/<strategy>/<judge>`` when a metric has several judges),
  the validity figures as ``validity/<metric>/...`` and usage as ``usage/...``: MLflow sorts
  them by name and groups its charts by the part before the first ``/``, so each headline
  metric gets a chart section with one chart per strategy. Every value is rounded to
  :data:`~interviewsim.analysis.headline.DIGITS` decimals.
* The runs list. A saved view (MLflow's "Views" menu) whose columns are the headline metrics.
* Who scored. A child is named ``<strategy> · <role> <name>`` (``retrieval · judge & MCQ
  answerer local``), so a judge's name is never mistaken for the provider of the same name; the
  parent's description maps every judge and answerer to its model and provider.
* What was evaluated: the personalities folder as an MLflow dataset (name and content digest).
* Why a score is what it is: one table row per judged answer with both texts and the judges'
  justifications.
* Run names: the DVC experiment name when the user gave one, else what differs from the
  committed params (``retrieval_pairs=4``), else ``defaults``.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from interviewsim.analysis.headline import (
    DIGITS,
    HEADLINE_METRICS,
    SHORT_NAMES,
    headline_values,
    judges_by_metric,
)
from interviewsim.analysis.metrics import CellKey, MetricCell
from interviewsim.analysis.trust import TrustReport
from interviewsim.analysis.validity import MARKS
from interviewsim.config.params import Params
from interviewsim.data.jsonio import canonical_json, sha256_hex

VIEW_KEY = "interviewsim-headline"
"""Id of the saved runs view (experiment tag ``mlflow.sharedViewState.<id>``)."""
VIEW_NAME = "Headline metrics"
FIXED_COLUMNS = ("attributes.`Run Name`", "runDateAndNestInfo", "attributes.`Dataset`")
"""The runs table's columns before the metrics, by their ids in MLflow 3.17's UI."""

RANDOM_DVC_NAME = re.compile(r"^[a-z]{5}-[a-z]{4}$")
"""``dvc exp run`` without ``-n`` draws an adjective-noun name, five letters then four
(``gusty-fern``; dvc.repo.experiments.utils.gen_random_name). Such a name says nothing about
the run, so it is kept as a tag and the run is named by its params instead; a name the user
chose of that exact shape is taken for a drawn one."""

NOT_IN_NAMES = ("mlflow.", "cache.")
"""Params that do not change a result, left out of run names."""


def _metric_suffix(judge: str, judges: Sequence[str]) -> str:
    return f"/{judge}" if len(judges) > 1 else ""


def headline_metric_names(cells: Mapping[CellKey, MetricCell], strategies: Sequence[str]
                          ) -> list[str]:
    """The parent's headline metric names, metric by metric (paper order), strategies in
    ``strategies`` order within: the saved view's columns."""
    judges = judges_by_metric(cells)
    keys = headline_values(cells)
    order = {s: i for i, s in enumerate(strategies)}
    ranked = sorted(keys, key=lambda k: (HEADLINE_METRICS.index(k[1]),
                                         order.get(k[0], len(order)), k[0], k[2]))
    return [f"{m}/{s}{_metric_suffix(j, judges[m])}" for s, m, j in ranked]


def parent_metrics(cells: Mapping[CellKey, MetricCell], trust: TrustReport,
                   flat: Mapping[str, float]) -> dict[str, float]:
    """Headline values, validity figures, the "How close to the person?" figures of the
    headline metrics (``closeness.*`` keys of ``flat``: normalized fidelity with the judge in
    each name, individuation, attribution, length slope) and the usage totals of
    metrics.json, rounded: the parent's metrics. Every other number is in its children and
    in the attached metrics.json."""
    judges = judges_by_metric(cells)
    out: dict[str, float] = {
        f"{m}/{s}{_metric_suffix(j, judges[m])}": v
        for (s, m, j), v in headline_values(cells).items()}

    def base(metric: str, judge: str) -> str:
        return f"validity/{metric}{_metric_suffix(judge, judges.get(metric, [judge]))}"

    for found in trust.discrimination:
        if found.metric in HEADLINE_METRICS and found.difference is not None:
            out[f"{base(found.metric, found.judge)}/discriminates"] = int(found.discriminates)
            out[f"{base(found.metric, found.judge)}/verdict"] = found.test.code
            out[f"{base(found.metric, found.judge)}/oracle_minus_impostor"] = round(
                found.difference, DIGITS)
    for column in trust.power:
        if column.metric in HEADLINE_METRICS:
            out[f"{base(column.metric, column.judge)}/attainable"] = int(
                column.reach.significant_possible)
            out[f"{base(column.metric, column.judge)}/min_p_holm"] = round(
                column.reach.min_p_holm, DIGITS)
    for answerer, bias in sorted((trust.position_bias or {}).get("answerers", {}).items()):
        for name in ("top_letter_share", "position_baseline_accuracy"):
            if bias.get(name) is not None:
                out[f"validity/mcq_position_bias/{answerer}/{name}"] = round(bias[name], DIGITS)
    for metric, result in sorted(trust.judge_agreement.items()):
        if result.alpha is not None:
            out[f"validity/judge_agreement/{metric}/alpha"] = round(result.alpha, DIGITS)
    for key, value in flat.items():
        if key.startswith("usage."):
            out["usage/" + key.removeprefix("usage.")] = round(value, DIGITS)
        elif key.startswith("closeness.") and _parent_closeness(key):
            out[key.replace(".", "/")] = round(value, DIGITS)
        elif key.startswith(HUMAN_PREFIX) and key.endswith((".alpha", ".n")):
            # human_agreement/<metric>/<judge> (the alpha), human_agreement/.../n beside it
            name = key.removeprefix(HUMAN_PREFIX).removesuffix(".alpha").replace(".", "/")
            out[f"human_agreement/{name}"] = round(value, DIGITS)
    return out


HUMAN_PREFIX = "validity.human_agreement."
"""metrics.json keys of each judge's agreement with people (:mod:`.labels`)."""
CLOSENESS_PARENT = ("closeness.individuation.", "closeness.attribution.",
                    "closeness.length_slope.", "closeness.memorized.")
"""The judge-free and length figures the parent run logs (the rest stay in metrics.json)."""


def _parent_closeness(key: str) -> bool:
    """Normalized fidelity of the headline metrics (value and normalizable flag) and the
    :data:`CLOSENESS_PARENT` figures."""
    if key.startswith(CLOSENESS_PARENT):
        return True
    parts = key.split(".")
    return (len(parts) == 6 and parts[1] in ("norm_to_retest", "norm_to_oracle")
            and parts[3] in HEADLINE_METRICS and parts[5] in ("value", "normalizable"))


def saved_view(metric_names: Sequence[str], now_ms: int) -> tuple[str, str]:
    """(experiment tag key, value) of a runs view showing ``metric_names`` as columns, as the
    UI's "Views > Save as new view" stores one (its state zlib-deflated, base64)."""
    columns = [f"metrics.`{n}`" for n in metric_names]
    state = {
        "searchFilter": "", "orderByKey": "attributes.start_time", "orderByAsc": False,
        "startTime": "ALL", "lifecycleFilter": "Active", "datasetsFilter": [],
        "modelVersionFilter": "All Runs",
        "selectedColumns": ["attributes.`Dataset`", *columns],
        # the UI sorts metric columns by name and cuts a header at 100 px unless the view
        # orders them (by ag-grid column id) and sizes them
        "columnOrder": [*FIXED_COLUMNS, *columns],
        "columnWidths": {c: 24 + round(6.5 * len(n)) for c, n in zip(columns, metric_names,
                                                            strict=True)},
        "runsHiddenMode": "FIRST_10_RUNS",
        "viewMaximized": False, "runListHidden": False, "isAccordionReordered": False,
        "useGroupedValuesInCharts": True, "hideEmptyCharts": True, "groupBy": None,
        "groupsExpanded": {},
        "globalLineChartConfig": {"xAxisKey": "step", "lineSmoothness": 0,
                                  "selectedXAxisMetricKey": ""},
    }
    packed = base64.b64encode(zlib.compress(json.dumps(state).encode())).decode()
    value = {"name": VIEW_NAME, "createdAt": now_ms, "updatedAt": now_ms,
             "state": f"deflate;{packed}"}
    return f"mlflow.sharedViewState.{VIEW_KEY}", json.dumps(value)


def runs_url(experiment_id: str, host: str = "http://127.0.0.1:5000") -> str:
    """The runs list with the headline columns, whichever tab the UI last showed."""
    return (f"{host}/#/experiments/{experiment_id}/runs?viewStateShareKey={VIEW_KEY}"
            "&workflowType=machine_learning")


class Scorer(BaseModel):
    """A judge or MCQ answerer of params.yaml: its roles and what it runs on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    roles: list[str]
    """"judge", "MCQ answerer" or both."""
    models: list[str]
    """One line per role: ``judge: <model> on provider <provider> (<kind>)``."""


def scorers(params: Params) -> dict[str, Scorer]:
    """Judges and MCQ answerers by name (one name may be both)."""
    found: dict[str, tuple[list[str], list[str]]] = {}
    for role, models in (("judge", params.models.judges),
                         ("MCQ answerer", params.models.mcq_answerers)):
        for model in models:
            provider = params.providers.get(model.provider)
            kind = getattr(provider, "kind", "?")
            roles, lines = found.setdefault(model.name, ([], []))
            roles.append(role)
            lines.append(f"{role}: {model.model} on provider {model.provider} ({kind})")
    return {name: Scorer(name=name, roles=roles, models=lines)
            for name, (roles, lines) in sorted(found.items())}


def child_name(strategy: str, judge: str, known: Mapping[str, Scorer]) -> str:
    """``retrieval · judge & MCQ answerer local``; scorers that are no model (``style``,
    ``lexical``, ``agent``) by their name alone."""
    scorer = known.get(judge)
    return f"{strategy} · {' & '.join(scorer.roles)} {judge}" if scorer else f"{strategy} · {judge}"


def short_param_names(keys: Iterable[str]) -> dict[str, str]:
    """Dotted key -> its shortest unambiguous dotted suffix (``context.retrieval_pairs`` ->
    ``retrieval_pairs``, ``mcq.max_attempts`` stays whole beside ``judge.max_attempts``)."""
    keys = sorted(set(keys))
    short: dict[str, str] = {}
    for key in keys:
        parts = key.split(".")
        for size in range(1, len(parts) + 1):
            suffix = ".".join(parts[-size:])
            if sum(1 for k in keys if k == suffix or k.endswith("." + suffix)) == 1:
                short[key] = suffix
                break
        else:
            short[key] = key
    return short


def params_diff(current: Mapping[str, str], baseline: Mapping[str, str]) -> dict[str, str]:
    """``short name -> value`` of the flattened params that differ from ``baseline`` (added or
    changed; removed ones as ``-``), result-neutral ones (:data:`NOT_IN_NAMES`) left out."""
    keys = [k for k in sorted(set(current) | set(baseline))
            if current.get(k) != baseline.get(k) and not k.startswith(NOT_IN_NAMES)]
    short = short_param_names(set(current) | set(baseline))
    return {short[k]: current.get(k, "-") for k in keys}


def run_name(dvc_exp_name: str | None, diff: Mapping[str, str] | None, fallback: str,
             shown: int = 3, width: int = 24) -> str:
    """The DVC experiment name when the user chose it; else the params that differ from the
    committed ones (``retrieval_pairs=4, option_count=3 +2 more``), ``defaults`` when none do;
    ``fallback`` when the committed params could not be read."""
    if dvc_exp_name and not RANDOM_DVC_NAME.match(dvc_exp_name):
        return dvc_exp_name
    if diff is None:
        return fallback
    if not diff:
        return "defaults"
    items = [f"{k}={v if len(v) <= width else v[:width - 1] + '…'}" for k, v in diff.items()]
    more = f" +{len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


class DatasetRef(BaseModel):
    """The evaluated data as MLflow shows it in the Dataset column."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    digest: str
    source: str
    profile: dict[str, int]


def folder_dataset(path: str | Path, digits: int = 12) -> DatasetRef | None:
    """The folder as a dataset: its name, a digest of every file's path and content (the
    first ``digits`` hex digits of a SHA-256), its personalities and files; None if absent."""
    root = Path(path)
    if not root.is_dir():
        return None
    files = sorted(p for p in root.rglob("*") if p.is_file())
    listing = {p.relative_to(root).as_posix(): sha256_hex(p.read_bytes()) for p in files}
    return DatasetRef(
        name=root.name, digest=sha256_hex(canonical_json(listing))[:digits],
        source=root.as_posix(),
        profile={"personalities": sum(1 for p in root.iterdir() if p.is_dir()),
                 "files": len(files), "bytes": sum(p.stat().st_size for p in files)})


TABLE_COLUMNS = ("personality", "strategy", "qa_id", "judge", "cs_score", "fc_label",
                 "question", "simulated_answer", "real_answer", "cs_justification",
                 "fc_justification")
"""The evaluation table's columns: who and what, the scores, then the texts they judge."""


def evaluation_table(judgments: Iterable[Mapping[str, Any]],
                     answers: Iterable[Mapping[str, Any]],
                     heldout: Iterable[Mapping[str, Any]],
                     conditions: Sequence[str] = ()) -> dict[str, list[Any]]:
    """One row per (personality, question, strategy or control, judge): the scores first, then
    the question, the real and the simulated answer and each judge's justifications (an invalid
    judgment shows its error instead). Rows by personality and question, then ``conditions``
    order (controls and strategies; others after), so the answers to one question are
    together. Column -> values, for ``log_table``."""
    real = {(r["personality_id"], r["qa_id"]): r for r in heldout}
    simulated = {(r["personality_id"], r.get("strategy") or r.get("control"), r["qa_id"]): r
                 for r in answers}
    rows: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for record in judgments:
        condition = record.get("strategy") or record.get("control") or "?"
        key = (record["personality_id"], record["qa_id"], condition, record["judge"])
        row = rows.setdefault(key, {})
        parsed = record.get("parsed") or {}
        why = (parsed.get("explanation") if record.get("valid")
               else f"invalid: {record.get('error')}")
        if record["metric"] == "content_similarity":
            row["cs_score"], row["cs_justification"] = parsed.get("score"), why
        elif record["metric"] == "factual_consistency":
            row["fc_label"], row["fc_justification"] = parsed.get("label"), why
    rank = {c: i for i, c in enumerate(conditions)}
    table: dict[str, list[Any]] = {c: [] for c in TABLE_COLUMNS}
    for (pid, qa_id, condition, judge), row in sorted(
            rows.items(), key=lambda kv: (kv[0][0], kv[0][1], rank.get(kv[0][2], len(rank)),
                                          kv[0][2], kv[0][3])):
        pair = real.get((pid, qa_id), {})
        answer = simulated.get((pid, condition, qa_id), {})
        values = {"personality": pid, "strategy": condition, "qa_id": qa_id,
                  "question": pair.get("question") or answer.get("question"),
                  "real_answer": pair.get("response"), "simulated_answer": answer.get("response"),
                  "judge": judge} | row
        for column in TABLE_COLUMNS:
            table[column].append(values.get(column))
    return table


def describe(name: str, diff: Mapping[str, str] | None, dataset: DatasetRef | None,
             known: Mapping[str, Scorer], cells: Mapping[CellKey, MetricCell],
             strategies: Sequence[str], trust: TrustReport) -> str:
    """The parent's description (markdown, shown on its run page): what it is and what it was
    evaluated on, the headline table, the validity warnings, who scored."""
    changed = ""
    if diff == {}:
        changed = "params.yaml as committed"
    elif diff:
        changed = "params differ from the committed ones: " + ", ".join(
            f"`{k}={v}`" for k, v in diff.items())
    first = f"**{name}**" + (f": {changed}" if changed else "")
    if dataset is not None:
        first += (f". Data: `{dataset.source}`, {dataset.profile['personalities']} "
                  f"personalities, digest `{dataset.digest}`.")
    lines = [first]
    judges = judges_by_metric(cells)
    values = headline_values(cells)
    cols = [(m, j) for m, js in judges.items() for j in js]
    if cols:
        header = [SHORT_NAMES[m] + (f" ({j})" if len(judges[m]) > 1 else "") for m, j in cols]
        lines += ["", "| strategy | " + " | ".join(header) + " |",
                  "|---|" + "---:|" * len(cols)]
        present = list(dict.fromkeys(s for s, _, _ in values))
        for strategy in [s for s in strategies if s in present] + sorted(
                set(present) - set(strategies)):
            shown = [values.get((strategy, m, j)) for m, j in cols]
            lines.append(f"| {strategy} | " + " | ".join(
                "–" if v is None else f"{v:.{DIGITS}f}" for v in shown) + " |")
        lines += ["", "Headline metrics, macro averages over personalities (the child runs "
                      "hold every metric; evaluation/items.json every judged answer)."]
    warnings = [f"- {MARKS[f.test.verdict]} {f.verdict()}" for f in trust.discrimination
                if f.metric in HEADLINE_METRICS and not f.discriminates]
    if warnings:
        lines += ["", "Validity (report.md, first section):", *warnings]
    if known:
        lines += ["", "Scorers (child runs and metrics name the scorer, never the provider):"]
        lines += [f"- `{s.name}`: " + "; ".join(s.models) for s in known.values()]
    return "\n".join(lines)
