"""The human-readable results: report.md with the paper-style table, and one PNG per metric.

The table mirrors the paper (strategies as rows, each metric under each judge as a column) so
a run can be read against it directly. Everything here is a pure rendering of numbers that
were computed elsewhere; the PNGs are written without a timestamp or version stamp so that the
same numbers give the same bytes and DVC sees no change.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from interviewsim.analysis.calibration import (
    metric_kind,
    proportion_printable,
    worst_proportion_coverage,
)
from interviewsim.analysis.headline import HEADLINE_METRICS
from interviewsim.analysis.intervals import pooled_proportion
from interviewsim.analysis.metrics import (
    NOT_POOLED,
    SCORES_MALFORMED,
    CellKey,
    MetricCell,
    UsageTotals,
    metric_direction,
    metric_order,
)
from interviewsim.analysis.stats import PairedTest, significance_mark

Interval = tuple[float, float] | None

HEADLINE_NOTE = (
    "Headline values (the results table; `strategy.judge.metric` in metrics.json) are macro "
    "averages: each metric is computed per personality, then averaged over personalities with "
    "equal weight, the unit the paired tests and the intervals resample. *Pooled* values (the "
    "confidence-interval table; `strategy.judge.metric.pooled`) are computed over all "
    "judgments, votes or items of all personalities together, so a personality with more of "
    "them weighs more."
)
"""The report's header: which value is the headline and what pooled means."""


class ReportData(BaseModel):
    """Everything report.md shows, computed by the aggregate stage."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    title: str
    cells: dict[CellKey, MetricCell]
    intervals: dict[CellKey, Interval]
    tests: list[PairedTest]
    strategies: list[str]
    """Row order (the configured strategies; any others found in the data follow)."""
    baseline: str | None
    """Strategy the significance marks compare against (None: no marks)."""
    usage: UsageTotals
    config: dict[str, Any]
    """The run's parameters, shown verbatim at the end of the report."""
    permutations: int
    bootstrap: int
    trust: str = ""
    """The "Can these numbers be trusted?" section (interviewsim.analysis.trust), first."""
    closeness: str = ""
    """The "How close to the person?" section (interviewsim.analysis.closeness), second."""


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def row_order(cells: Mapping[CellKey, MetricCell], strategies: Sequence[str]) -> list[str]:
    present = {strategy for strategy, _, _ in cells}
    return [s for s in strategies if s in present] + sorted(present - set(strategies))


def columns(cells: Mapping[CellKey, MetricCell]) -> list[tuple[str, str]]:
    """(metric, judge) columns: metrics in the paper's order, judges alphabetically within."""
    judges_of: dict[str, set[str]] = {}
    for _, judge, metric in cells:
        judges_of.setdefault(metric, set()).add(judge)
    return [(m, j) for m in metric_order(judges_of) for j in sorted(judges_of[m])]


def _test_between(tests: Sequence[PairedTest], metric: str, judge: str, one: str,
                  other: str) -> PairedTest | None:
    for test in tests:
        if test.metric == metric and test.judge == judge and {
                test.strategy_a, test.strategy_b} == {one, other}:
            return test
    return None


def _best(cells: Mapping[CellKey, MetricCell], rows: Sequence[str], metric: str,
          judge: str) -> set[str]:
    direction = metric_direction(metric)
    values = {s: cells[(s, judge, metric)].value for s in rows if (s, judge, metric) in cells}
    present = {s: v for s, v in values.items() if v is not None}
    if direction == 0 or len(present) < 2:
        return set()
    target = max(present.values()) if direction > 0 else min(present.values())
    return {s for s, v in present.items() if round(v, 3) == round(target, 3)}


def results_table(data: ReportData, metrics: Sequence[str] | None = None) -> str:
    """The paper-style table: best value in bold, marks for a difference from the baseline;
    ``metrics`` keeps only those columns (the headline table)."""
    rows = row_order(data.cells, data.strategies)
    cols = [(m, j) for m, j in columns(data.cells) if metrics is None or m in metrics]
    best = {(m, j): _best(data.cells, rows, m, j) for m, j in cols}
    header = "| strategy | " + " | ".join(f"{m} ({j})" for m, j in cols) + " |"
    lines = [header, "|---|" + "---:|" * len(cols)]
    for strategy in rows:
        rendered = []
        for metric, judge in cols:
            cell = data.cells.get((strategy, judge, metric))
            text = _fmt(cell.value if cell else None)
            if cell is not None and cell.value is not None:
                if strategy in best[(metric, judge)]:
                    text = f"**{text}**"
                if data.baseline and strategy != data.baseline:
                    test = _test_between(data.tests, metric, judge, strategy, data.baseline)
                    mark = significance_mark(test.p_holm if test else None)
                    text += mark.replace("*", "\\*")
            rendered.append(text)
        lines.append(f"| {strategy} | " + " | ".join(rendered) + " |")
    return "\n".join(lines)


def permutation_rule(tests: Sequence[PairedTest], permutations: int) -> str:
    """How the sign-flip p-values were obtained, true of every test shown: stats enumerates all
    2^n sign patterns (exact) when 2^n <= permutations, else draws that many at random."""
    tested = [t for t in tests if t.p_value is not None]
    sizes = sorted({t.n_pairs for t in tested})
    if tested and all(t.exact for t in tested):
        if len(sizes) == 1:
            return f"all 2^{sizes[0]} = {1 << sizes[0]} sign patterns (exact)"
        return (f"all 2^n sign patterns (exact; n = {sizes[0]} to {sizes[-1]} paired "
                "personalities)")
    if tested and not any(t.exact for t in tested):
        return f"{permutations} random sign patterns"
    return (f"exact over all 2^n sign patterns when 2^n ≤ {permutations} (n: paired "
            f"personalities), else {permutations} random ones")


def invalid_text(cell: MetricCell) -> str:
    """Malformed MCQ answers are scored and inside n; other invalid outputs are not."""
    if cell.metric in SCORES_MALFORMED:
        return f"malformed {cell.invalid} (scored as wrong)"
    return f"{cell.invalid} excluded"


def _pooled(cell: MetricCell) -> str:
    return "n/a" if cell.metric in NOT_POOLED else _fmt(cell.pooled)


def _pooled_ci(cell: MetricCell) -> str:
    """A pooled proportion's binomial interval (design-effect adjusted where estimable)."""
    if metric_kind(cell.metric) != "binary" or not cell.per_personality_n:
        return "–"
    people = sorted(cell.per_personality_n)
    counts = [cell.per_personality_n[p] for p in people]
    found = pooled_proportion([cell.per_personality[p] * n for p, n in zip(
        people, counts, strict=True)], counts)
    if found is None:
        return "–"
    items = max(1, round(sum(counts) / len(counts)))
    if not proportion_printable(len(counts), items):
        return (f"too few to interpret (simulated coverage "
                f"{worst_proportion_coverage(len(counts), items):.2f})")
    return f"[{_fmt(found.interval[0])}, {_fmt(found.interval[1])}] ({found.method})"


def intervals_table(data: ReportData) -> str:
    """Each cell's 95% interval (or why none), its pooled value with a binomial interval for
    proportions, and how many personalities and units it rests on, with the invalid outputs
    and whether they were scored."""
    lines = ["| metric | judge | strategy | value | pooled | 95% CI | personalities | n "
             "| invalid | pooled 95% CI |",
             "|---|---|---|---:|---:|---|---:|---:|---|---|"]
    rows = row_order(data.cells, data.strategies)
    for metric, judge in columns(data.cells):
        for strategy in rows:
            cell = data.cells.get((strategy, judge, metric))
            if cell is None:
                continue
            interval = data.intervals.get(cell.key)
            ci = (("too few to interpret" if cell.value is not None else "–")
                  if interval is None else f"[{_fmt(interval[0])}, {_fmt(interval[1])}]")
            used = f"{len(cell.per_personality)}/{cell.personalities}"
            lines.append(f"| {metric} | {judge} | {strategy} | {_fmt(cell.value)} | "
                         f"{_pooled(cell)} | {ci} | {used} | {cell.n} | {invalid_text(cell)} | "
                         f"{_pooled_ci(cell)} |")
    return "\n".join(lines)


def counts_note(cells: Mapping[CellKey, MetricCell]) -> str:
    """What n and invalid mean per kind of row, and which metrics have no (or a trivial)
    pooled value; only the kinds present are named."""
    metrics = {metric for _, _, metric in cells}
    scored = sorted(metrics & SCORES_MALFORMED)
    note = ("*personalities*: with a value / with a row; *n*: the units the values average "
            "over (judgments, PS votes or profile comparisons, MCQ items, ...). *invalid*: "
            "outputs that broke the contract; ")
    if scored:
        note += (f"the rows of {', '.join(scored)} score malformed grouped answers as wrong "
                 "(accuracy 0, reward -0.5), as the protocol requires, and count them in n; "
                 "the judge metrics and every other row exclude invalid outputs from n and "
                 "never score them.")
    else:
        note += "every row excludes them from n and never scores them."
    unpooled = sorted(metrics & NOT_POOLED)
    if unpooled:
        note += (f" No pooled value (n/a) for {', '.join(unpooled)}: each is a difference of "
                 "two means per personality, not a mean over its n answers.")
    alignment = [c for c in cells.values() if c.metric == "personality_alignment"]
    if alignment and all(c.n == len(c.per_personality) for c in alignment):
        note += (" personality_alignment rests on one profile comparison per personality "
                 "(n = 1), so its pooled value equals the macro one.")
    return note


def pairwise_table(tests: Sequence[PairedTest], alpha: float = 0.05) -> str:
    """The pairs that differ after Holm's adjustment; all of them are in significance.json
    (seven strategies give 21 pairs per column, too many to read in full)."""
    shown = [t for t in tests if t.p_holm is not None and t.p_holm < alpha]
    if not shown:
        return f"No pair of strategies differs at Holm-adjusted p < {alpha}."
    lines = ["| metric | judge | A | B | pairs | mean A−B | p | p (Holm) |",
             "|---|---|---|---|---:|---:|---:|---:|"]
    for t in shown:
        lines.append(f"| {t.metric} | {t.judge} | {t.strategy_a} | {t.strategy_b} | {t.n_pairs} "
                     f"| {_fmt(t.mean_diff)} | {_fmt(t.p_value, 4)} | {_fmt(t.p_holm, 4)} |")
    return "\n".join(lines)


def usage_table(usage: UsageTotals) -> str:
    """Requests, tokens and cost of every answer the results rest on, whether paid in this
    run or replayed from the cache, so the report is the same on every run; this run's calls,
    cache hits and wall time are in each stage's summary.json."""
    lines = ["| stage | model | requests | prompt tok. | completion tok. | est. cost |",
             "|---|---|---:|---:|---:|---:|"]
    for stage, rows in usage.by_stage.items():
        for label, row in sorted(rows.items()):
            cost = row.get("answers_est_cost_usd")
            lines.append(f"| {stage} | {label} | {row.get('requests', 0)} | "
                         f"{row.get('answer_prompt_tokens', 0)} | "
                         f"{row.get('answer_completion_tokens', 0)} | "
                         f"{'–' if cost is None else f'${cost:.4f}'} |")
    cost = "–" if usage.answers_est_cost_usd is None else f"${usage.answers_est_cost_usd:.4f}"
    lines.append(f"| **total** | | {usage.requests} | {usage.answer_prompt_tokens} | "
                 f"{usage.answer_completion_tokens} | {cost} |")
    return "\n".join(lines)


def counts_table(usage: UsageTotals) -> str:
    lines = ["| stage | counts |", "|---|---|"]
    for stage, counts in usage.counts.items():
        shown = ", ".join(f"{name} {value}" for name, value in sorted(counts.items()))
        lines.append(f"| {stage} | {shown or '–'} |")
    return "\n".join(lines)


def _headline_part(data: ReportData) -> list[str]:
    """The headline metrics alone (the same five as reports/headline/ and the MLflow parent
    run), then a lead-in to the table of every metric; nothing when the run has none of them."""
    if not any(metric in HEADLINE_METRICS for _, _, metric in data.cells):
        return []
    return ["Headline metrics (also in `reports/headline/` and the MLflow parent run):",
            results_table(data, HEADLINE_METRICS), "All metrics:"]


def render_report(data: ReportData) -> str:
    """report.md: the table first, then what it rests on, then how the run was configured."""
    baseline = (f"`*` p < 0.05, `**` p < 0.01 against **{data.baseline}** "
                if data.baseline else "No significance marks (no baseline strategy). ")
    cost_note = ""
    if data.usage.unpriced_models:
        cost_note = ("\nModels without a price in `params.prices` (not in the cost): "
                     + ", ".join(data.usage.unpriced_models) + ".\n")
    rule = permutation_rule(data.tests, data.permutations)
    parts = [
        f"# {data.title}",
        *([data.trust] if data.trust else []),
        *([data.closeness] if data.closeness else []),
        HEADLINE_NOTE,
        "## Results",
        "Macro averages over personalities. Bold: best strategy in the column (where higher or "
        "lower is better). " + baseline + "(two-sided paired sign-flip test over personalities, "
        f"{rule}, Holm-adjusted within each column). "
        "Lower is better for contradiction_ratio.",
        *_headline_part(data),
        results_table(data),
        "## Confidence intervals and counts",
        "*value*: the macro average, with its 95% t-interval over personalities, printed only "
        "where the interval's simulated coverage at this design (personalities × units) is at "
        "least 93% (docs/STATISTICS.md), else *too few to interpret*; *pooled*: over all units "
        "of all personalities together, for proportions with a binomial interval (Wilson; "
        "Clopper–Pearson at 0 or n) widened by the design effect of the personalities where it "
        "can be estimated, else marked unadjusted. " + counts_note(data.cells),
        intervals_table(data),
        "## Pairwise tests",
        f"All {len(data.tests)} tests (every pair of strategies per column) are in "
        "significance.json; these differ at Holm-adjusted p < 0.05.",
        pairwise_table(data.tests),
        "## Stage counts",
        counts_table(data.usage),
        "## Usage and cost",
        "Every model answer the results rest on, paid in this run or replayed from the "
        "response cache, so this section is the same on every run; this run's own calls, "
        "cache hits and wall time are in each stage's summary.json.",
        usage_table(data.usage) + "\n" + cost_note,
        "## Configuration",
        "```yaml\n" + yaml.safe_dump(data.config, sort_keys=False).rstrip() + "\n```",
    ]
    return "\n\n".join(parts) + "\n"


def plot_rows(cells: Mapping[CellKey, MetricCell], intervals: Mapping[CellKey, Interval],
              strategies: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Per metric, the rows DVC plots and the PNGs draw: one per (strategy, judge) with a value.

    ``label`` is the strategy alone when the metric has one judge, else ``strategy / judge``,
    so DVC's bar templates get one distinct bar per row.
    """
    rows = row_order(cells, strategies)
    by_metric: dict[str, list[dict[str, Any]]] = {}
    for metric, judge in columns(cells):
        judges = {j for m, j in columns(cells) if m == metric}
        for strategy in rows:
            cell = cells.get((strategy, judge, metric))
            if cell is None or cell.value is None:
                continue
            interval = intervals.get(cell.key)
            by_metric.setdefault(metric, []).append({
                "strategy": strategy, "judge": judge,
                "label": strategy if len(judges) == 1 else f"{strategy} / {judge}",
                "value": round(cell.value, 6),
                "ci_low": None if interval is None else round(interval[0], 6),
                "ci_high": None if interval is None else round(interval[1], 6),
            })
    return by_metric


def plot_metric(metric: str, rows: Sequence[Mapping[str, Any]], path: str | Path,
                by: str = "strategy", title: str | None = None) -> None:
    """A bar per row's ``by`` value (grouped by judge) with its 95% interval as an error bar
    where the row has one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(dict.fromkeys(r[by] for r in rows))
    judges = sorted({r["judge"] for r in rows})
    width = 0.8 / max(1, len(judges))
    fig, ax = plt.subplots(figsize=(max(5.0, (1.1 if by == "strategy" else 0.35) * len(groups)
                                        + 1.5), 3.6 if by == "strategy" else 5.0), dpi=100)
    try:
        for offset, judge in enumerate(judges):
            mine = [r for r in rows if r["judge"] == judge]
            xs = [groups.index(r[by]) + (offset - (len(judges) - 1) / 2) * width for r in mine]
            values = [r["value"] for r in mine]
            low = [r["value"] - (r["ci_low"] if r.get("ci_low") is not None else r["value"])
                   for r in mine]
            high = [(r["ci_high"] if r.get("ci_high") is not None else r["value"]) - r["value"]
                    for r in mine]
            ax.bar(xs, values, width=width, label=judge, yerr=[low, high], capsize=3)
        ax.set_xticks(range(len(groups)), groups, rotation=30 if by == "strategy" else 70,
                      ha="right", fontsize=None if by == "strategy" else 6)
        ax.set_ylabel(metric)
        ax.set_title(title or f"{metric} by strategy (95% CI where printed)")
        if len(judges) > 1:
            ax.legend(title="judge")
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", metadata={"Software": None})
    finally:
        plt.close(fig)
    _write_bytes_atomic(Path(path), buffer.getvalue())


def _write_bytes_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
