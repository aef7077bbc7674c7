"""The measures of the report's "How close to the person?" section (assembled and rendered by
:mod:`interviewsim.analysis.closeness`): normalized fidelity, the fidelity stage's judge-free
scores per condition, length bias, dispersion and heterogeneity. docs/STATISTICS.md says what
each is, its chance level and how to read it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from interviewsim.analysis.agreement import PS_LEVELS
from interviewsim.analysis.calibration import interval_printable, metric_kind, ratio_printable
from interviewsim.analysis.controls import IMPOSTOR
from interviewsim.analysis.intervals import RatioInterval, fieller, t_interval
from interviewsim.analysis.metrics import CellKey, MetricCell, metric_direction
from interviewsim.analysis.validity import Discrimination, paired_controls

DIGITS = 6
SPREAD_MEASURES: tuple[str, ...] = ("words", "filler_rate", "hedge_rate")
MIDDLE_LEVEL = PS_LEVELS[1]


def _mean(values: Iterable[float]) -> float | None:
    found = [v for v in values if v is not None]
    return float(np.mean(found)) if found else None


def interval_text(interval: tuple[float, float] | None, digits: int = 3) -> str:
    return "" if interval is None else f" [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"


# -- normalized fidelity -----------------------------------------------------------------------

@dataclass(frozen=True)
class Normalized:
    """One strategy's normalized value under one judge and metric, against one far end."""

    judge: str
    metric: str
    strategy: str
    reference: str
    """``retest`` or ``oracle``: the end that counts as 1 (the impostor is 0)."""
    ratio: RatioInterval
    personalities: int
    normalizable: bool
    """The judge tells ``reference`` from the impostor (a discriminates verdict)."""
    printable: bool
    """Fieller's interval covers at least 93% in simulation at this design."""

    @property
    def interval(self) -> tuple[float, float] | None:
        return self.ratio.interval if self.normalizable and self.printable else None

    def cell(self) -> str:
        if self.ratio.value is None:
            return "–"
        if not self.normalizable:
            return f"not normalizable ({self.ratio.value:.2f})"
        if not self.printable:
            return f"{self.ratio.value:.2f} (too few to interpret)"
        if self.ratio.interval is None:
            return f"{self.ratio.value:.2f} (unbounded)"
        return f"{self.ratio.value:.2f}{interval_text(self.ratio.interval, 2)}"


def normalize(cells: Mapping[CellKey, MetricCell], by_control: Mapping[str, Any], judge: str,
              metric: str, strategy: str, reference: str, gate: Discrimination | None
              ) -> Normalized | None:
    """(strategy − impostor) / (reference − impostor) over the personalities with all three
    (the controls' personality means are those of the items the gate tested)."""
    cell = cells.get((strategy, judge, metric))
    if cell is None or reference not in by_control or IMPOSTOR not in by_control:
        return None
    tested, far_items, near_items = paired_controls(by_control, reference)
    far = {p: float(np.mean(v)) for p, v in zip(tested, far_items, strict=True)}
    near = {p: float(np.mean(v)) for p, v in zip(tested, near_items, strict=True)}
    people = sorted(set(cell.per_personality) & set(far))
    if not people:
        return None
    a = [cell.per_personality[p] - near[p] for p in people]
    b = [far[p] - near[p] for p in people]
    items = max(1, round(cell.n / max(1, len(cell.per_personality))))
    return Normalized(judge, metric, strategy, reference, fieller(a, b), len(people),
                      gate is not None and gate.discriminates,
                      ratio_printable(metric_kind(metric), len(people), items))


# -- the judge-free measures of the fidelity stage ---------------------------------------------

@dataclass(frozen=True)
class ConditionFidelity:
    """Individuation, attribution and verbatim overlap of one condition's answers."""

    label: str
    kind: str
    """``strategy``, ``control`` or ``ceiling``."""
    individuation: float | None
    individuation_ci: tuple[float, float] | None
    attribution: float | None
    attribution_ci: tuple[float, float] | None
    chance: float | None
    answers: int
    personalities: int
    longest_run: float | None = None
    memorized: int = 0
    """Answers sharing a run of at least the verbatim window with the held-out answers."""
    window_share: float | None = None
    copy_share: float | None = None


def _macro(rows: Sequence[Mapping], key: str, kind: str) -> tuple[float | None, Any]:
    """Macro mean over personalities and its t-interval (where it covers at this design)."""
    by_pid: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.get(key) is not None:
            by_pid[r["personality_id"]].append(float(r[key]))
    means = [float(np.mean(v)) for _, v in sorted(by_pid.items())]
    if not means:
        return None, None
    items = max(1, round(sum(len(v) for v in by_pid.values()) / len(by_pid)))
    ci = t_interval(means) if interval_printable(kind, len(means), items) else None
    return float(np.mean(means)), ci


def condition_fidelity(label: str, kind: str, rows: Sequence[Mapping], window: int
                       ) -> ConditionFidelity:
    ind, ind_ci = _macro(rows, "individuation", "normal")
    att, att_ci = _macro(rows, "attribution", "binary")
    candidates = _mean(r["candidates"] for r in rows if r.get("attribution") is not None)
    runs = [r["longest_run"] for r in rows if r.get("longest_run") is not None]
    return ConditionFidelity(
        label, kind, ind, ind_ci, att, att_ci, None if not candidates else 1.0 / candidates,
        len(rows), len({r["personality_id"] for r in rows}),
        longest_run=_mean(runs), memorized=sum(r >= window for r in runs),
        window_share=_mean(r.get("window_share") for r in rows),
        copy_share=_mean(r.get("context_copy_share") for r in rows))


# -- length bias -------------------------------------------------------------------------------

@dataclass(frozen=True)
class LengthBias:
    """One judge's CS slope on log(simulated ÷ real length), and CS adjusted to equal length."""

    judge: str
    slope: float | None
    interval: tuple[float, float] | None
    personalities: int
    judgments: int
    adjusted: dict[str, tuple[float, float]]
    """strategy -> (raw CS, CS at the person's own length: raw − slope × mean log ratio)."""


def _within_slope(points: Sequence[tuple[str, float, float]]) -> float | None:
    """The least-squares slope of y on x within strategies (each strategy's own means
    removed), so a strategy that is both short and far from the person does not count as the
    judge's taste for length; None without variation in x within any strategy."""
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for strategy, x, y in points:
        groups[strategy].append((x, y))
    dx, dy = [], []
    for found in groups.values():
        xs, ys = np.array([p[0] for p in found]), np.array([p[1] for p in found])
        dx.append(xs - xs.mean())
        dy.append(ys - ys.mean())
    xs, ys = np.concatenate(dx), np.concatenate(dy)
    denominator = float((xs ** 2).sum())
    return None if denominator < 1e-12 else float((xs * ys).sum() / denominator)


def length_bias(judgments: Iterable[Mapping], lengths: Mapping[tuple[str, str, str], int],
                reference_lengths: Mapping[tuple[str, str], int]) -> list[LengthBias]:
    """Per judge: the mean over personalities of the within-personality, within-strategy
    least-squares slope of CS on x = log((simulated words + 1) / (real words + 1)), with a
    t-interval over personalities (printed where it covers at this design), and each
    strategy's CS at x = 0."""
    points: dict[str, dict[str, list[tuple[str, float, float]]]] = defaultdict(
        lambda: defaultdict(list))
    for r in judgments:
        if r.get("metric") != "content_similarity" or not r.get("valid") or "strategy" not in r:
            continue
        pid = r["personality_id"]
        words = lengths.get((pid, r["strategy"], r["qa_id"]))
        real = reference_lengths.get((pid, r["qa_id"]))
        if words is None or real is None:
            continue
        x = math.log((words + 1) / (real + 1))
        points[r["judge"]][pid].append((r["strategy"], x, float(r["parsed"]["score"])))
    found = []
    for judge, by_pid in sorted(points.items()):
        slopes = [s for s in (_within_slope(pts) for _, pts in sorted(by_pid.items()))
                  if s is not None]
        slope = float(np.mean(slopes)) if slopes else None
        total = sum(len(p) for p in by_pid.values())
        items = max(1, round(total / max(1, len(by_pid))))
        ci = t_interval(slopes) if slopes and interval_printable("normal", len(slopes),
                                                                 items) else None
        adjusted = {}
        for strategy in sorted({p[0] for pts in by_pid.values() for p in pts}):
            raw, xs = [], []
            for _, pts in sorted(by_pid.items()):
                mine = [p for p in pts if p[0] == strategy]
                if mine:
                    raw.append(float(np.mean([p[2] for p in mine])))
                    xs.append(float(np.mean([p[1] for p in mine])))
            value = float(np.mean(raw))
            adjusted[strategy] = (value, value - (slope or 0.0) * float(np.mean(xs)))
        found.append(LengthBias(judge, slope, ci, len(slopes), total, adjusted))
    return found


# -- dispersion --------------------------------------------------------------------------------

def middle_shares(votes: Iterable[Mapping]) -> dict[str, dict[str, float]]:
    """Per judge, the share of valid PS votes at the middle level per strategy, and for the
    references' profiles (key ``reference``)."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for v in votes:
        if not v.get("valid") or v.get("level") is None:
            continue
        key = "reference" if v.get("side") == "reference" else v.get("strategy")
        if key is None:
            continue
        tally = counts[v["judge"]][key]
        tally[0] += v["level"] == MIDDLE_LEVEL
        tally[1] += 1
    return {judge: {k: round(m / n, DIGITS) for k, (m, n) in sorted(by.items()) if n}
            for judge, by in sorted(counts.items())}


def spread_ratios(rows: Iterable[Mapping], real: Mapping[tuple[str, str], Mapping]
                  ) -> dict[str, dict[str, float | None]]:
    """Per strategy and measure: variance of its answers ÷ variance of the real answers to the
    same questions (None where the real answers do not vary)."""
    by_strategy: dict[str, list[Mapping]] = defaultdict(list)
    for r in rows:
        if "strategy" in r:
            by_strategy[r["strategy"]].append(r)
    out: dict[str, dict[str, float | None]] = {}
    for strategy, mine in sorted(by_strategy.items()):
        matched = [(r, real[(r["personality_id"], r["qa_id"])]) for r in mine
                   if (r["personality_id"], r["qa_id"]) in real]
        out[strategy] = {}
        for measure in SPREAD_MEASURES:
            sim = np.array([r[measure] for r, _ in matched], dtype=np.float64)
            ref = np.array([q[measure] for _, q in matched], dtype=np.float64)
            ratio = None
            if sim.size >= 2 and float(ref.var(ddof=1)) > 0:
                ratio = round(float(sim.var(ddof=1) / ref.var(ddof=1)), DIGITS)
            out[strategy][measure] = ratio
    return out


# -- heterogeneity -----------------------------------------------------------------------------

def extremes(cells: Mapping[CellKey, MetricCell], metrics: Sequence[str]
             ) -> list[tuple[str, str, str, tuple[str, float], tuple[str, float]]]:
    """(metric, judge, strategy, best (personality, value), worst) for the metrics with a
    direction, where at least two personalities have a value and not all the same."""
    out = []
    for (strategy, judge, metric), cell in sorted(cells.items()):
        direction = metric_direction(metric)
        if metric not in metrics or direction == 0 or len(cell.per_personality) < 2:
            continue
        ranked = sorted(cell.per_personality.items(), key=lambda kv: (-direction * kv[1], kv[0]))
        if ranked[0][1] != ranked[-1][1]:  # all equal: nobody is best or worst
            out.append((metric, judge, strategy, ranked[0], ranked[-1]))
    return out


def personality_plot_rows(cells: Mapping[CellKey, MetricCell], metrics: Sequence[str],
                          strategies: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Per headline metric, a bar per (personality, strategy, judge) for the per-personality
    plots (``label`` and ``value``, as DVC's bar template of reports/plots/ reads them)."""
    out: dict[str, list[dict[str, Any]]] = {}
    order = {s: i for i, s in enumerate(strategies)}
    for metric in metrics:
        mine = [c for c in cells.values() if c.metric == metric]
        judges = sorted({c.judge for c in mine})
        rows = []
        for cell in sorted(mine, key=lambda c: (order.get(c.strategy, len(order)), c.strategy,
                                                c.judge)):
            for pid, value in sorted(cell.per_personality.items()):
                label = f"{pid} / {cell.strategy}" + (f" / {cell.judge}" if len(judges) > 1
                                                      else "")
                rows.append({"personality_id": pid, "strategy": cell.strategy,
                             "judge": cell.judge, "label": label, "value": round(value, DIGITS)})
        if rows:
            out[metric] = rows
    return out
