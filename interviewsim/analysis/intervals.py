"""Intervals that cover what they claim at the sizes the project runs.

The unit is the personality (items of one person are correlated), so the interval of a mean
over personalities is Student's t on the personality means: simulated (benchmarks/
bench_inference.py, docs/STATISTICS.md) it covers 94–95% from 2 personalities on, where the
percentile bootstrap over personalities covered 52% at 2, 79% at 4 and 90% at 10 (it ignores
that a resample of n values is narrower than the population by (n-1)/n and cannot widen for
small n). Pooled proportions near 0 or 1 (no contradiction in eight judgments) get a binomial
interval instead, which a zero variance cannot collapse: Wilson inside, Clopper–Pearson at 0
and n, widened by the design effect of the clustering when it can be estimated and said to be
unadjusted when it cannot. No scipy: the t and beta quantiles come from the regularized
incomplete beta function, written once here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

Interval = tuple[float, float]


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz, Numerical
    Recipes 6.4), converging fast for x < (a + 1) / (a + b + 2)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) (the beta CDF)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def _bisect(cdf: object, target: float, low: float, high: float) -> float:
    for _ in range(200):
        mid = (low + high) / 2.0
        if cdf(mid) < target:  # type: ignore[operator]
            low = mid
        else:
            high = mid
    return (low + high) / 2.0


def beta_quantile(q: float, a: float, b: float) -> float:
    return _bisect(lambda x: betainc(a, b, x), q, 0.0, 1.0)


def t_quantile(q: float, df: float) -> float:
    """Student's t quantile for q in (0.5, 1): P(T <= t) = 1 - I_{df/(df+t²)}(df/2, 1/2)/2."""
    if not 0.5 < q < 1.0:
        raise ValueError("q must be in (0.5, 1)")
    return _bisect(lambda t: 1.0 - 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t)), q,
                   0.0, 1e7)


def t_interval(values: Sequence[float] | np.ndarray, level: float = 0.95) -> Interval | None:
    """Mean ± t·s/√n over the values (personality means); None below two values or when
    all are equal: no spread can be estimated, and a zero-width interval would claim
    certainty (0 contradictions in 8 judgments is not [0, 0]: :func:`clopper_pearson`)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size < 2 or bool(np.all(x == x[0])):
        return None
    half = t_quantile(0.5 + level / 2.0, x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)
    mean = float(x.mean())
    return (mean - half, mean + half)


def wilson(k: float, n: float, level: float = 0.95) -> Interval:
    """Wilson score interval of a proportion k/n (n may be an effective, fractional size)."""
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def clopper_pearson(k: float, n: float, level: float = 0.95) -> Interval:
    """Exact (conservative) binomial interval; the one used at k = 0 and k = n, where it
    says how far from 0 or 1 the truth can still be (0 of 8: [0, 0.369])."""
    tail = (1.0 - level) / 2.0
    low = 0.0 if k <= 0 else beta_quantile(tail, k, n - k + 1)
    high = 1.0 if k >= n else beta_quantile(1.0 - tail, k + 1, n - k)
    return (low, high)


def design_effect(successes: Sequence[float], counts: Sequence[float]) -> float | None:
    """1 + (m̄ − 1)·ICC of a 0/1 outcome clustered in personalities (one-way ANOVA estimate
    of the ICC, floored at 0); None when it cannot be estimated (fewer than two clusters, no
    cluster of two, or no variation at all)."""
    k, m = np.asarray(successes, dtype=np.float64), np.asarray(counts, dtype=np.float64)
    keep = m > 0
    k, m = k[keep], m[keep]
    n, clusters = float(m.sum()), int(m.size)
    if clusters < 2 or n <= clusters:
        return None
    p = k / m
    total = float(k.sum()) / n
    between = float((m * (p - total) ** 2).sum()) / (clusters - 1)
    within = float((k - m * p * p).sum()) / (n - clusters)
    m0 = (n - float((m * m).sum()) / n) / (clusters - 1)
    if between + (m0 - 1) * within <= 0:
        return None
    icc = max(0.0, (between - within) / (between + (m0 - 1) * within))
    return 1.0 + (n / clusters - 1.0) * icc


@dataclass(frozen=True)
class ProportionInterval:
    """A pooled proportion with its binomial interval and how it was obtained."""

    proportion: float
    interval: Interval
    method: str
    """wilson / clopper-pearson, with ", design effect d" or ", unadjusted"."""


def pooled_proportion(successes: Sequence[float], counts: Sequence[float],
                      level: float = 0.95) -> ProportionInterval | None:
    """Pooled k/n over personalities; the interval on the effective size n / design effect
    when the clustering is estimable, else on n, marked unadjusted."""
    k, n = float(np.sum(successes)), float(np.sum(counts))
    if n <= 0:
        return None
    deff = design_effect(successes, counts)
    scale = 1.0 if deff is None else max(1.0, deff)
    k_eff, n_eff = k / scale, n / scale
    exact = k == 0 or k == n
    interval = clopper_pearson(k_eff, n_eff, level) if exact else wilson(k_eff, n_eff, level)
    name = "clopper-pearson" if exact else "wilson"
    note = "unadjusted" if deff is None else f"design effect {scale:.2f}"
    return ProportionInterval(k / n, interval, f"{name}, {note}")


@dataclass(frozen=True)
class RatioInterval:
    """The ratio of two means over personalities and Fieller's interval for it."""

    value: float | None
    """mean(numerators) / mean(denominators); None when the denominator's mean is 0."""
    interval: Interval | None
    """Fieller's 95% interval; None when it is unbounded (the denominator's mean is not
    distinguishable from 0 at the t level), when there are fewer than two personalities, or
    when no value varies (no spread can be estimated)."""


def fieller_bounds(a: np.ndarray, b: np.ndarray, level: float = 0.95
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fieller's bounds for each row of paired per-personality values ``a`` and ``b``
    (shape (rows, n), n ≥ 2): (low, high, bounded). A row is bounded when the quadratic in θ
    opens upward, i.e. the denominator's mean is significantly nonzero at ``level``, and
    something varies; its bounds are NaN otherwise."""
    n = a.shape[1]
    t2 = t_quantile(0.5 + level / 2.0, n - 1) ** 2
    ma, mb = a.mean(axis=1), b.mean(axis=1)
    da, db = a - ma[:, None], b - mb[:, None]
    saa, sbb = (da * da).sum(axis=1) / (n - 1) / n, (db * db).sum(axis=1) / (n - 1) / n
    sab = (da * db).sum(axis=1) / (n - 1) / n
    qa, qb, qc = mb * mb - t2 * sbb, ma * mb - t2 * sab, ma * ma - t2 * saa
    disc = qb * qb - qa * qc  # >= 0 whenever qa > 0 (Cauchy–Schwarz), up to rounding
    bounded = (qa > 0) & (disc >= 0) & ((saa > 0) | (sbb > 0))
    with np.errstate(invalid="ignore", divide="ignore"):
        root = np.sqrt(np.where(bounded, disc, np.nan))
        low, high = (qb - root) / qa, (qb + root) / qa
    return low, high, bounded


def fieller(numerators: Sequence[float], denominators: Sequence[float],
            level: float = 0.95) -> RatioInterval:
    """Fieller's interval for mean(a) / mean(b) from paired per-personality values: every θ
    for which the t-test of the personality values a − θ·b does not reject a mean of 0. It
    keeps the pairing (a and b of one personality are correlated) and, unlike the delta
    method, does not pretend a ratio with an uncertain denominator is symmetric; it is
    bounded exactly when the denominator's mean is significantly nonzero at ``level``."""
    a = np.asarray(numerators, dtype=np.float64)
    b = np.asarray(denominators, dtype=np.float64)
    value = None if a.size == 0 or b.mean() == 0 else float(a.mean() / b.mean())
    if a.size < 2:
        return RatioInterval(value, None)
    low, high, bounded = fieller_bounds(a[None, :], b[None, :], level)
    return RatioInterval(value, (float(low[0]), float(high[0])) if bounded[0] else None)
