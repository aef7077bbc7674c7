"""The headline: five metrics per strategy, the numbers a reader looks at first.

One definition serves every place that shows the headline: the report's first results table,
``reports/headline/`` (one small JSON per strategy, so ``dvc metrics show reports/headline``
prints a strategy per row), and the metrics of the MLflow parent run. The values are the
macro averages of :mod:`interviewsim.analysis.metrics`, rounded to :data:`DIGITS` decimals.

Beside the values, three validity rows per headline metric, from the report's first section
(:mod:`interviewsim.analysis.trust`): whether its judge tells the person's own answer from an
impostor's, whether a significant difference between strategies is attainable at all with
the personalities present, and the judge's verdict on the controls as a numeric code
(:data:`FLAG_FILES`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from interviewsim.analysis.closeness_measures import Normalized
from interviewsim.analysis.controls import RETEST
from interviewsim.analysis.metrics import CellKey, MetricCell
from interviewsim.analysis.trust import TrustReport

HEADLINE_METRICS: tuple[str, ...] = (
    "content_similarity",
    "contradiction_ratio",
    "personality_alignment",
    "mcq_accuracy",
    "mcq_reward",
)
"""The paper's five: content similarity (CS), contradiction ratio (FC), personality alignment
(PS), MCQ accuracy and MCQ reward, in this order."""

SHORT_NAMES: dict[str, str] = {
    "content_similarity": "cs_similarity",
    "contradiction_ratio": "fc_contradiction",
    "personality_alignment": "ps_alignment",
    "mcq_accuracy": "mcq_accuracy",
    "mcq_reward": "mcq_reward",
}
"""Column names in reports/headline/: short enough that ``dvc metrics show`` fits a strategy
per row in 120 columns (it sorts them by name: CS, FC, the two MCQ metrics, PS)."""

DIGITS = 4
"""Decimals of every headline value (and of every number logged to MLflow)."""

FLAG_FILES: dict[str, str] = {
    "validity_judge": "1 when the metric's judge scores the person's own answer (oracle) "
                      "above an impostor's, beyond resampling noise; 0 when not "
                      "(``validity.discrimination.*.discriminates`` in metrics.json)",
    "validity_power": "1 when a significant difference between strategies (Holm p < 0.05) "
                      "is attainable with the personalities present; 0 when none could be "
                      "(``validity.attainable.*.significance_possible``)",
    "validity_verdict": "the judge's verdict on the controls as a number: 1 discriminates, "
                        "0 inconclusive, -1 inverted, 2 equivalent, 3 no variation "
                        "(:data:`interviewsim.analysis.inference.VERDICT_CODES`; "
                        "``validity.discrimination.*.verdict``)",
}
"""The validity rows of reports/headline/ (file stem -> what its values mean): named to sort
after every strategy, as ``dvc metrics show`` lists the files by name."""

NORMALIZED_PREFIX = "vs-retest_"
"""reports/headline/vs-retest_<strategy>.json: the strategy's normalized fidelity
((strategy − impostor) ÷ (retest − impostor), :mod:`interviewsim.analysis.closeness`) under
the same short names, sorting after the validity rows; ``validity_normalizable.json`` says
per metric whether the judge tells the retest from the impostor (1) or not (0: the value is
not to be read)."""


def judges_by_metric(cells: Iterable[CellKey]) -> dict[str, list[str]]:
    """Headline metric -> the judges (or MCQ answerers) that scored it, sorted."""
    found: dict[str, set[str]] = {}
    for _, judge, metric in cells:
        if metric in HEADLINE_METRICS:
            found.setdefault(metric, set()).add(judge)
    return {m: sorted(found[m]) for m in HEADLINE_METRICS if m in found}


def headline_values(cells: Mapping[CellKey, MetricCell]
                    ) -> dict[tuple[str, str, str], float]:
    """(strategy, metric, judge) -> rounded macro average, for the headline metrics with a
    value."""
    return {(s, m, j): round(cell.value, DIGITS) for (s, j, m), cell in sorted(cells.items())
            if m in HEADLINE_METRICS and cell.value is not None}


def _by_judge(values: Mapping[str, float | int], judges: Sequence[str]) -> float | int | dict:
    """One judge: the bare value; several: {judge: value} (DVC flattens it to ``metric.judge``)."""
    if len(judges) == 1 and judges[0] in values:
        return values[judges[0]]
    return {j: values[j] for j in judges if j in values}


def validity_flags(trust: TrustReport) -> dict[str, dict[tuple[str, str], int]]:
    """:data:`FLAG_FILES` stem -> flag per (headline metric, judge), where measured."""
    judge, power, verdict = FLAG_FILES
    flags: dict[str, dict[tuple[str, str], int]] = {judge: {}, power: {}, verdict: {}}
    for found in trust.discrimination:
        if found.metric in HEADLINE_METRICS and found.difference is not None:
            flags[judge][(found.metric, found.judge)] = int(found.discriminates)
            flags[verdict][(found.metric, found.judge)] = found.test.code
    for column in trust.power:
        if column.metric in HEADLINE_METRICS:
            flags[power][(column.metric, column.judge)] = int(column.reach.significant_possible)
    return flags


def normalized_files(normalized: Sequence[Normalized], judges: Mapping[str, Sequence[str]]
                     ) -> dict[str, dict]:
    """:data:`NORMALIZED_PREFIX` rows (one per strategy) and ``validity_normalizable.json``
    for the headline metrics, against the retest."""
    files: dict[str, dict] = {}
    flags: dict[str, dict[str, int]] = {}
    for metric in judges:
        mine = [n for n in normalized if n.reference == RETEST and n.metric == metric]
        for n in mine:
            if n.ratio.value is not None and n.normalizable:  # a raw ratio is not a result
                files.setdefault(f"{NORMALIZED_PREFIX}{n.strategy}.json", {}).setdefault(
                    SHORT_NAMES[metric], {})[n.judge] = round(n.ratio.value, DIGITS)
            flags.setdefault(SHORT_NAMES[metric], {})[n.judge] = int(n.normalizable)
    for row in files.values():
        for name, values in row.items():
            row[name] = _by_judge(values, judges[_LONG[name]])
    if flags:
        files["validity_normalizable.json"] = {
            name: _by_judge(values, judges[_LONG[name]]) for name, values in flags.items()}
    return files


_LONG = {short: long for long, short in SHORT_NAMES.items()}


def headline_files(cells: Mapping[CellKey, MetricCell], strategies: Sequence[str],
                   trust: TrustReport, normalized: Sequence[Normalized] = ()
                   ) -> dict[str, dict]:
    """reports/headline/: ``<strategy>.json`` with the five values under their short names,
    then the :data:`FLAG_FILES` rows with the same columns (absent when not measured, e.g.
    ``validity_judge`` with ``controls: []``). Strategies in ``strategies`` order, others
    after."""
    judges = judges_by_metric(cells)
    values = headline_values(cells)
    present = list(dict.fromkeys(s for s, _, _ in values))
    ordered = [s for s in strategies if s in present] + sorted(set(present) - set(strategies))
    files: dict[str, dict] = {}
    for strategy in ordered:
        row = {}
        for metric, metric_judges in judges.items():
            mine = {j: v for (s, m, j), v in values.items() if s == strategy and m == metric}
            if mine:
                row[SHORT_NAMES[metric]] = _by_judge(mine, metric_judges)
        files[f"{strategy}.json"] = row
    for stem, found in validity_flags(trust).items():
        row = {}
        for metric, metric_judges in judges.items():
            mine = {j: flag for (m, j), flag in found.items() if m == metric}
            if mine:
                row[SHORT_NAMES[metric]] = _by_judge(mine, metric_judges)
        if row:
            files[f"{stem}.json"] = row
    return files | normalized_files(normalized, judges)
