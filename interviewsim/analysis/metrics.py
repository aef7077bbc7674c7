"""Macro-averaged metrics per (strategy, judge, metric), built from the scoring stages' rows.

Every scoring stage reduces its judgments to :class:`PersonalityMetric` rows (one value per
personality). Here they are averaged over personalities, each personality weighing the same,
as in the paper, so a talkative personality with many answers cannot dominate a strategy's
score. The per-personality values are kept: the significance tests and the bootstrap pair and
resample personalities, not answers. Beside that headline each cell carries the *pooled* value,
over every unit of every personality at once (sum of value × n over sum of n), for readers who
want the per-judgment figure; it is never what the tests or the marks use. A new scoring stage
only has to write rows (and, if its value is no mean over its n units, be named in NOT_POOLED).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from interviewsim.data.jsonio import read_jsonl
from interviewsim.data.records import PersonalityMetric
from interviewsim.errors import InputError, Problem, validation_problems

CellKey = tuple[str, str, str]
"""(strategy, judge, metric)."""

PAPER_ORDER: tuple[str, ...] = (
    "content_similarity",
    "contradiction_ratio",
    "entailment_ratio",
    "neutral_ratio",
    "personality_alignment",
    "ps_vote_confidence",
    "mcq_accuracy",
    "mcq_reward",
    "mcq_accuracy_robust",
    "mcq_reward_robust",
)
"""The paper's column order (each robust MCQ metric after the plain ones it tightens); metrics
it does not name follow alphabetically."""

HIGHER_IS_BETTER = frozenset({
    "content_similarity", "entailment_ratio", "personality_alignment", "mcq_accuracy",
    "mcq_reward", "mcq_accuracy_robust", "mcq_reward_robust", "grounded_claim_rate",
})
LOWER_IS_BETTER = frozenset({"contradiction_ratio", "fidelity_gap"})

NOT_POOLED = frozenset({"style_filler_rate_diff", "style_hedge_rate_diff", "style_length_diff"})
"""Metrics without a pooled value: a style row is |mean(twin) - mean(real)| over its n answers,
a difference of two means rather than a mean over them, so weighting rows by n pools nothing.
Every other row is a mean or ratio over its n units (judgments, FC labels, valid PS votes, MCQ
items, claims, audited turns, plan states; personality_alignment: the one profile comparison,
n = 1, so its pooled value equals the macro one), which makes sum(value × n) / sum(n) the mean
or ratio over all units together."""

SCORES_MALFORMED = frozenset({"mcq_accuracy", "mcq_reward", "mcq_accuracy_robust",
                              "mcq_reward_robust"})
"""Metrics whose ``invalid`` counts malformed outputs that were scored (accuracy 0, reward -0.5,
as PROMPTS.md requires for grouped MCQ answers) and are inside n; for every other metric an
invalid output is excluded from n and never scored."""


def metric_direction(metric: str) -> int:
    """+1 when higher is better, -1 when lower is, 0 when the metric has no 'best' (e.g. the
    neutral ratio or a vote confidence): the report only marks a best value where one exists."""
    if metric in HIGHER_IS_BETTER:
        return 1
    if metric in LOWER_IS_BETTER:
        return -1
    return 0


def metric_order(metrics: Iterable[str]) -> list[str]:
    """Metric names in the paper's order, unknown ones after them alphabetically."""
    rank = {name: i for i, name in enumerate(PAPER_ORDER)}
    return sorted(set(metrics), key=lambda m: (rank.get(m, len(rank)), m))


class MetricCell(BaseModel):
    """One table cell: a metric for one strategy under one judge, over all personalities."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    strategy: str
    judge: str
    metric: str
    value: float | None
    """Mean over the personalities with a value (macro average, the headline); None when none
    has one."""
    pooled: float | None = None
    """sum(value × n) / sum(n) over the personalities with a value and n > 0: the mean or ratio
    over all their units together. None without such a personality or for NOT_POOLED."""
    per_personality: dict[str, float]
    """The values averaged, by personality id (personalities without a value are absent)."""
    per_personality_n: dict[str, int] = {}
    """The units behind each of those values (for binomial intervals of pooled proportions)."""
    personalities: int
    """Personalities with a row, including those whose value is None."""
    n: int
    """Units the values average over (valid judgments, votes, MCQ items...), summed over
    personalities; for SCORES_MALFORMED metrics the malformed items are among them."""
    invalid: int
    """Outputs that broke the contract, summed over personalities: excluded from n, except for
    SCORES_MALFORMED metrics, where they are the malformed items scored as wrong."""

    @property
    def key(self) -> CellKey:
        return (self.strategy, self.judge, self.metric)

    @property
    def missing(self) -> int:
        """Personalities whose value is None (every judgment invalid, or nothing to judge)."""
        return self.personalities - len(self.per_personality)


def read_metric_rows(path: str | Path) -> list[PersonalityMetric]:
    """Read and validate a ``personality_metrics.jsonl``, naming every bad line at once."""
    rows: list[PersonalityMetric] = []
    problems: list[Problem] = []
    for number, record in enumerate(read_jsonl(path), start=1):
        try:
            rows.append(PersonalityMetric.model_validate(record))
        except ValidationError as exc:
            problems += validation_problems(exc, str(path), prefix=f"line {number}")
    if problems:
        raise InputError(problems)
    return rows


def pooled_value(rows: Iterable[PersonalityMetric]) -> float | None:
    """sum(value × n) / sum(n): each row's value is a mean over its n units, so this is the
    mean over all of them; rows without a value or units are left out."""
    weighted = [(r.value, r.n) for r in rows if r.value is not None and r.n > 0]
    total = sum(n for _, n in weighted)
    return math.fsum(value * n for value, n in weighted) / total if total else None


def aggregate_rows(rows: Iterable[PersonalityMetric]) -> dict[CellKey, MetricCell]:
    """Macro-average rows into cells; a (cell, personality) seen twice is an error.

    A duplicate means two scoring files claim the same metric, or a file was passed twice:
    averaging it in silently would weigh that personality double.
    """
    groups: dict[CellKey, list[PersonalityMetric]] = {}
    seen: set[tuple[str, str, str, str]] = set()
    problems: list[Problem] = []
    for row in rows:
        identity = (row.strategy, row.judge, row.metric, row.personality_id)
        if identity in seen:
            problems.append(Problem("<metrics>", "/".join(identity),
                                    "duplicate row: two inputs score the same personality"))
            continue
        if row.value is not None and not math.isfinite(row.value):
            problems.append(Problem("<metrics>", "/".join(identity),
                                    f"value {row.value} is not a finite number"))
            continue
        seen.add(identity)
        groups.setdefault((row.strategy, row.judge, row.metric), []).append(row)
    if problems:
        raise InputError(problems)
    cells: dict[CellKey, MetricCell] = {}
    for key in sorted(groups):
        members = groups[key]
        values = {r.personality_id: r.value for r in members if r.value is not None}
        cells[key] = MetricCell(
            strategy=key[0], judge=key[1], metric=key[2],
            value=math.fsum(values.values()) / len(values) if values else None,
            pooled=None if key[2] in NOT_POOLED else pooled_value(members),
            per_personality=dict(sorted(values.items())),
            per_personality_n={r.personality_id: r.n for r in sorted(
                members, key=lambda r: r.personality_id) if r.value is not None},
            personalities=len(members),
            n=sum(r.n for r in members),
            invalid=sum(r.invalid for r in members),
        )
    return cells


def load_cells(paths: Iterable[str | Path]) -> dict[CellKey, MetricCell]:
    """Cells from every given metrics file together (duplicates across files are errors)."""
    rows: list[PersonalityMetric] = []
    for path in paths:
        rows.extend(read_metric_rows(path))
    return aggregate_rows(rows)


def per_personality_csv(cells: Mapping[CellKey, MetricCell]) -> str:
    """Long-format CSV of every averaged value, for spreadsheets and reanalysis."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["metric", "judge", "strategy", "personality_id", "value"])
    for (strategy, judge, metric), cell in sorted(cells.items(), key=lambda kv: (
            kv[0][2], kv[0][1], kv[0][0])):
        for pid, value in cell.per_personality.items():
            writer.writerow([metric, judge, strategy, pid, repr(value)])
    return buffer.getvalue()


class UsageTotals(BaseModel):
    """Model usage summed over every stage summary, and per-stage counts as reported."""

    model_config = ConfigDict(extra="forbid")

    requests: int = 0
    """Model requests behind the artifacts, answered now or from the cache. This and the
    ``answer_*`` figures are the same on every run of the same experiment; calls, cache hits,
    the tokens paid now and wall time describe one run (they are in each stage's run_log.json)."""
    answer_prompt_tokens: int = 0
    answer_completion_tokens: int = 0
    answers_est_cost_usd: float | None = None
    """What every answer the artifacts rest on costs at ``params.prices``, paid now or not."""
    unpriced_models: list[str] = []
    by_stage: dict[str, dict[str, dict[str, Any]]] = {}
    """stage -> ``label/model`` -> the stage's usage row."""
    counts: dict[str, dict[str, int | float]] = {}
    """stage -> dotted count name -> number (answers, invalid, items built and dropped, ...)."""


GROWS_WITH_DATA = frozenset({"by_personality"})
"""Count breakdowns left out of the flat counts: their size grows with the number of
personalities (they stay in the stage summaries); the rest is bounded by strategies × judges."""


def numeric_leaves(value: Any, prefix: str = "") -> dict[str, int | float]:
    """Dotted paths to every number in nested counts (``local.cs.invalid``), booleans excluded."""
    if isinstance(value, Mapping):
        leaves: dict[str, int | float] = {}
        for key in sorted(value, key=str):
            if key not in GROWS_WITH_DATA:
                leaves.update(numeric_leaves(value[key], f"{prefix}.{key}" if prefix else str(key)))
        return leaves
    if isinstance(value, int | float) and not isinstance(value, bool) and prefix:
        return {prefix: value}
    return {}


def summarise_usage(summaries: Mapping[str, Mapping[str, Any]]) -> UsageTotals:
    """Fold stage summaries into totals.

    Model stages write ``{"counts": ..., "usage": {label: row}}``; a summary without either key
    (select-context, claims) is all counts. Counts are kept as their numeric leaves.
    """
    totals = UsageTotals()
    answers_cost: list[float] = []
    unpriced: set[str] = set()
    for stage in sorted(summaries):
        summary = summaries[stage]
        standard = "counts" in summary or "usage" in summary
        totals.counts[stage] = numeric_leaves(summary.get("counts", {}) if standard else summary)
        usage = dict(summary.get("usage", {}))
        totals.by_stage[stage] = usage
        for label, row in usage.items():
            totals.requests += int(row.get("requests", 0))
            totals.answer_prompt_tokens += int(row.get("answer_prompt_tokens", 0))
            totals.answer_completion_tokens += int(row.get("answer_completion_tokens", 0))
            if row.get("answers_est_cost_usd") is None:
                unpriced.add(str(row.get("model", label)))
            else:
                answers_cost.append(float(row["answers_est_cost_usd"]))
    totals.answers_est_cost_usd = math.fsum(answers_cost) if answers_cost else None
    totals.unpriced_models = sorted(unpriced)
    return totals


def flat_metrics(cells: Mapping[CellKey, MetricCell], usage: UsageTotals,
                 digits: int = 6) -> dict[str, float | int]:
    """The small flat mapping DVC shows and diffs: ``strategy.judge.metric`` (the macro
    headline), ``strategy.judge.metric.pooled`` beside it, and counts.

    None values are left out rather than written as null, which ``dvc metrics diff`` cannot
    compare; rounding keeps diffs readable and immune to summation-order noise.
    """
    flat: dict[str, float | int] = {}
    invalid: dict[str, int] = {}
    for (strategy, judge, metric), cell in sorted(cells.items()):
        if cell.value is not None:
            flat[f"{strategy}.{judge}.{metric}"] = round(cell.value, digits)
        if cell.pooled is not None:
            flat[f"{strategy}.{judge}.{metric}.pooled"] = round(cell.pooled, digits)
        invalid[metric] = invalid.get(metric, 0) + cell.invalid
    for metric in sorted(invalid):
        flat[f"invalid.{metric}"] = invalid[metric]
    for stage, counts in sorted(usage.counts.items()):
        for name, count in sorted(counts.items()):
            flat[f"counts.{stage}.{name}"] = count
    # the experiment's usage, not this run's: a replay from the cache gives the same file
    flat["usage.requests"] = usage.requests
    flat["usage.prompt_tokens"] = usage.answer_prompt_tokens
    flat["usage.completion_tokens"] = usage.answer_completion_tokens
    if usage.answers_est_cost_usd is not None:
        flat["usage.est_cost_usd"] = round(usage.answers_est_cost_usd, digits)
    return flat


def strategy_means(rows: list[PersonalityMetric], names: Sequence[str]
                   ) -> dict[str, dict[str, float | None]]:
    """metrics.json for DVC: each metric macro-averaged over personalities, per strategy."""
    table: dict[str, dict[str, float | None]] = {}
    for metric in names:
        for strategy in sorted({r.strategy for r in rows}):
            values = [r.value for r in rows
                      if r.metric == metric and r.strategy == strategy and r.value is not None]
            table.setdefault(metric, {})[strategy] = round(fmean(values), 6) if values else None
    return table
