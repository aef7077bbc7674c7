"""Paired significance tests and confidence intervals at the personality level.

The unit of analysis is the personality: every strategy is scored on the same personalities, so
strategies are compared on paired per-personality differences (a sign-flip permutation test,
which assumes only that a difference is as likely to be positive as negative under the null),
and intervals are t-intervals over personalities where they cover
(:mod:`interviewsim.analysis.intervals`). Tests are seeded so that a rerun reproduces every
p-value exactly, and vectorised so that hundreds of tests at 10,000 permutations take a
fraction of a second.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict

from interviewsim.analysis.calibration import interval_printable, metric_kind
from interviewsim.analysis.intervals import t_interval
from interviewsim.analysis.metrics import CellKey, MetricCell
from interviewsim.data.jsonio import sha256_hex

_CHUNK_ELEMENTS = 1 << 21
"""Sign draws generated per chunk, so memory stays flat however many personalities there are."""


def _tolerance(diffs: np.ndarray) -> float:
    """Slack for 'at least as extreme': sums in another order may differ in the last bits, and
    a permutation tying the observed statistic must count as at least as extreme."""
    return 1e-9 * max(float(np.abs(diffs).sum()), 1e-300)


def sign_flip_p_value(diffs: Sequence[float] | np.ndarray, permutations: int, seed: int) -> float:
    """Two-sided p-value of the paired sign-flip test on per-personality differences.

    The statistic is ``|sum(d)|``. When ``2**n <= permutations`` every sign vector is
    enumerated and the p-value is exact; otherwise ``permutations`` random sign vectors are
    drawn and ``p = (1 + extreme) / (1 + permutations)``, which counts the observed labelling so
    p is never 0. Negating ``d`` (swapping the two strategies) leaves p unchanged.
    """
    d = np.asarray(diffs, dtype=np.float64)
    n = d.size
    if n == 0:
        return 1.0
    observed = abs(float(d.sum()))
    slack = _tolerance(d)
    if n < 63 and (1 << n) <= permutations:
        codes = np.arange(1 << n, dtype=np.int64)
        bits = (codes[:, None] >> np.arange(n, dtype=np.int64)) & 1
        stats = np.abs(d.sum() - 2.0 * (bits @ d))
        return float(np.count_nonzero(stats >= observed - slack)) / float(1 << n)
    rng = np.random.default_rng(seed)
    extreme = 0
    rows_per_chunk = max(1, _CHUNK_ELEMENTS // n)
    remaining = permutations
    while remaining:
        rows = min(rows_per_chunk, remaining)
        bits = rng.integers(0, 2, size=(rows, n), dtype=np.int8).astype(np.float64)
        stats = np.abs(d.sum() - 2.0 * (bits @ d))
        extreme += int(np.count_nonzero(stats >= observed - slack))
        remaining -= rows
    return (1.0 + extreme) / (1.0 + permutations)


def min_sign_flip_p(n_personalities: int, permutations: int) -> float:
    """The smallest p-value :func:`sign_flip_p_value` can return for ``n`` paired personalities.

    Exact enumeration (``2**n <= permutations``): ``2 / 2**n``, because the all-plus and
    all-minus sign vectors are always at least as extreme as the observed one; it is reached
    when every difference is non-zero and of one sign, as then no other vector ties. Monte-Carlo
    branch: ``1 / (1 + permutations)``, the floor of ``(1 + extreme) / (1 + permutations)``,
    reached when no draw is as extreme. No personality gives p = 1.
    """
    if n_personalities < 0 or permutations < 1:
        raise ValueError("n_personalities must be >= 0 and permutations >= 1")
    if n_personalities == 0:
        return 1.0
    if n_personalities < 63 and (1 << n_personalities) <= permutations:
        return 2.0 / float(1 << n_personalities)
    return 1.0 / (1.0 + permutations)


@dataclass(frozen=True)
class Attainable:
    """The best the paired test can show with this many personalities, so a report can say
    when no difference could have been significant however large it was."""

    min_p: float
    """Smallest two-sided sign-flip p-value (:func:`min_sign_flip_p`)."""
    min_p_holm: float
    """Smallest Holm-adjusted p within a column of ``comparisons`` tests: comparisons x min_p,
    capped at 1 (the smallest raw p is multiplied by the family size)."""
    significant_possible: bool
    """min_p_holm <= alpha."""
    personalities_needed: int | None
    """Fewest personalities for which min_p_holm <= alpha; None when no number suffices (the
    Monte-Carlo floor 1 / (1 + permutations) times comparisons stays above alpha)."""
    exact: bool
    """True when min_p comes from exact enumeration (else it is the Monte-Carlo floor)."""


def _min_p_holm(n_personalities: int, comparisons: int, permutations: int) -> float:
    return min(1.0, comparisons * min_sign_flip_p(n_personalities, permutations))


def personalities_needed(comparisons: int, permutations: int, alpha: float = 0.05) -> int | None:
    """Fewest paired personalities whose smallest Holm-adjusted p is <= ``alpha``.

    The smallest p never grows with n (at the switch to sampling, 1 / (1 + permutations) is
    below the last exact 2 / 2**n), so every larger n can reach ``alpha`` as well.
    """
    if comparisons < 1:
        raise ValueError("comparisons must be >= 1")
    for n in range(1, 64):
        if _min_p_holm(n, comparisons, permutations) <= alpha:
            return n
    return None


def attainable(n_personalities: int, comparisons: int, permutations: int,
               alpha: float = 0.05) -> Attainable:
    """Whether any paired test in a column of ``comparisons`` can reach ``alpha`` after Holm
    with ``n_personalities`` paired personalities, and how many personalities it would take."""
    min_p_holm = _min_p_holm(n_personalities, comparisons, permutations)
    return Attainable(
        min_p=min_sign_flip_p(n_personalities, permutations), min_p_holm=min_p_holm,
        significant_possible=min_p_holm <= alpha,
        personalities_needed=personalities_needed(comparisons, permutations, alpha),
        exact=n_personalities < 63 and (1 << n_personalities) <= permutations,
    )


def derived_seed(base: int, *parts: str) -> int:
    """A per-test seed from the run's seed and the test's identity, so each test is
    reproducible on its own and independent of which other tests run or in what order."""
    return int(sha256_hex("\x1f".join((str(base), *parts)))[:16], 16)


class PairedTest(BaseModel):
    """Strategy A against strategy B on one metric under one judge."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str
    judge: str
    strategy_a: str
    strategy_b: str
    n_pairs: int
    """Personalities with a value under both strategies (the others cannot be paired)."""
    mean_diff: float | None
    """Mean of A - B over the paired personalities."""
    p_value: float | None
    """Two-sided sign-flip p-value; None when no personality can be paired."""
    p_holm: float | None = None
    """Holm-adjusted over all strategy pairs of this metric and judge (family-wise error)."""
    exact: bool
    """True when every sign vector was enumerated rather than sampled."""


def paired_test(a: MetricCell, b: MetricCell, permutations: int, seed: int) -> PairedTest:
    """Sign-flip test of A against B over the personalities both have a value for."""
    shared = sorted(a.per_personality.keys() & b.per_personality.keys())
    diffs = np.array([a.per_personality[p] - b.per_personality[p] for p in shared])
    p_value = None
    if shared:
        p_value = sign_flip_p_value(diffs, permutations,
                                    derived_seed(seed, a.metric, a.judge, a.strategy, b.strategy))
    return PairedTest(
        metric=a.metric, judge=a.judge, strategy_a=a.strategy, strategy_b=b.strategy,
        n_pairs=len(shared), mean_diff=float(diffs.mean()) if shared else None,
        p_value=p_value, exact=bool(shared) and (1 << len(shared)) <= permutations,
    )


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (controls the family-wise error, assumes nothing)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def pairwise_tests(cells: Mapping[CellKey, MetricCell], strategies: Sequence[str],
                   permutations: int, seed: int) -> list[PairedTest]:
    """Every pair of strategies (in ``strategies`` order, A before B) per metric and judge.

    Strategies without a cell for a (metric, judge) are skipped; strategies present in the
    cells but not listed follow the listed ones alphabetically, so no data is ignored.
    """
    present = {strategy for strategy, _, _ in cells}
    order = [s for s in strategies if s in present] + sorted(present - set(strategies))
    families = sorted({(metric, judge) for _, judge, metric in cells})
    tests: list[PairedTest] = []
    for metric, judge in families:
        family = [
            paired_test(cells[(sa, judge, metric)], cells[(sb, judge, metric)], permutations, seed)
            for sa, sb in itertools.combinations(order, 2)
            if (sa, judge, metric) in cells and (sb, judge, metric) in cells
        ]
        testable = [i for i, t in enumerate(family) if t.p_value is not None]
        adjusted = holm_adjust([family[i].p_value for i in testable])  # type: ignore[misc]
        for i, p_holm in zip(testable, adjusted, strict=True):
            family[i] = family[i].model_copy(update={"p_holm": p_holm})
        tests.extend(family)
    return tests


def confidence_intervals(cells: Mapping[CellKey, MetricCell]
                         ) -> dict[CellKey, tuple[float, float] | None]:
    """95% t-interval over personalities of every cell's macro average, where the interval's
    simulated coverage at the cell's design (personalities × units per personality) reaches
    93% for the metric's kind (:mod:`interviewsim.analysis.calibration`); None elsewhere, which
    the report prints as "too few to interpret". (The percentile bootstrap it replaces covered
    79% at 4 personalities: docs/STATISTICS.md.)"""
    found: dict[CellKey, tuple[float, float] | None] = {}
    for key, cell in cells.items():
        values = list(cell.per_personality.values())
        items = max(1, round(cell.n / len(values))) if values else 1
        found[key] = (t_interval(values)
                      if interval_printable(metric_kind(cell.metric), len(values), items,
                                            target="mean") else None)
    return found


def significance_mark(p_value: float | None) -> str:
    """``**`` for p < 0.01, ``*`` for p < 0.05: the marks the report's table uses."""
    if p_value is None or math.isnan(p_value):
        return ""
    return "**" if p_value < 0.01 else "*" if p_value < 0.05 else ""
