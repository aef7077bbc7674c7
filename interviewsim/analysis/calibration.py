"""Pinned null and alternative models, and the simulated coverage an interval must reach.

The report prints an interval only where its coverage, simulated for the design actually
present (personalities × items per personality), is at least :data:`MIN_COVERAGE` under every
pinned model of the metric's kind; elsewhere it says "too few to interpret". The same models
drive benchmarks/bench_inference.py and the calibration tests, so the report, the benchmark
and docs/STATISTICS.md rest on one definition.

Each item's value comes from a latent ``z = mu + sqrt(rho)·u + sqrt(1 - rho)·e`` (unit variance),
with ``u`` one draw per personality *and control* (so the items of a personality are correlated
at ``rho``, and so are their oracle − impostor differences) and ``e`` one per item:
``likert`` cuts z into CS scores 1–5, ``binary`` into 0/1 labels (rate 0.3 at mu = 0), and
``levels`` into a PS trait's agreement 0 / 0.5 / 1; ``normal`` keeps z. The oracle has
``mu = effect``, the impostor ``mu = 0``.
"""

from __future__ import annotations

from functools import lru_cache
from statistics import NormalDist

import numpy as np

from interviewsim.analysis.intervals import fieller_bounds, pooled_proportion, t_quantile

KINDS: tuple[str, ...] = ("likert", "binary", "levels", "normal")
METRIC_KIND: dict[str, str] = {
    "content_similarity": "likert", "mcq_reward": "likert", "mcq_reward_robust": "likert",
    "personality_alignment": "levels",
    "contradiction_ratio": "binary", "entailment_ratio": "binary", "neutral_ratio": "binary",
    "mcq_accuracy": "binary", "mcq_accuracy_robust": "binary", "grounded_claim_rate": "binary",
}
"""The pinned model of each metric's items; metrics not listed (lengths, rates, confidences)
are checked as ``normal``. MCQ reward takes three values, so it is checked like a score."""
CUTS: dict[str, tuple[float, ...]] = {
    "likert": (-1.5, -0.5, 0.5, 1.5),
    "binary": (NormalDist().inv_cdf(0.7),),
    "levels": (-0.5, 0.5),
}
STEP: dict[str, float] = {"likert": 1.0, "binary": 1.0, "levels": 0.5, "normal": 1.0}
RHOS: tuple[float, ...] = (0.0, 0.5)
"""Within-personality correlations every check is simulated at."""
EFFECT = 0.8
"""The stated effect for power: the oracle's latent mean 0.8 SD above the impostor's."""
MIN_COVERAGE = 0.93
GATE_REPS = 4000
"""Simulated data sets per (design, model) of the report-time coverage check."""
PROPORTION_TRUTHS: tuple[float, ...] = (0.05, 0.3)
"""True rates the pooled-proportion interval is checked at (a rare and a common label)."""
PROPORTION_REPS = 1000
RETEST_EFFECT = 1.6
"""The retest's latent mean above the impostor's in the ratio check (twice the stated
effect: normalizing needs a denominator a judge clearly separates)."""
RATIO_FRACTIONS: tuple[float, ...] = (0.0, 0.5, 1.0)
"""Where the simulated strategy sits between impostor (0) and retest (1), on the latent
scale, in the ratio check."""
RATIO_REPS = 4000


def draw(kind: str, shape: tuple[int, ...], rho: float, mu: float,
         rng: np.random.Generator) -> np.ndarray:
    """Item values of ``shape`` = (data sets, personalities, items) under one model."""
    reps, n, items = shape
    latent = (mu + np.sqrt(rho) * rng.standard_normal((reps, n, 1))
              + np.sqrt(1.0 - rho) * rng.standard_normal((reps, n, items)))
    if kind == "normal":
        return latent
    base = 1.0 if kind == "likert" else 0.0
    return base + STEP[kind] * (latent[..., None] > np.asarray(CUTS[kind])).sum(axis=-1)


def expected(kind: str, mu: float) -> float:
    """The population mean of one item's value at latent mean ``mu``."""
    if kind == "normal":
        return mu
    base = 1.0 if kind == "likert" else 0.0
    return base + STEP[kind] * sum(1.0 - NormalDist(mu).cdf(c) for c in CUTS[kind])


def pairs(kind: str, reps: int, n: int, items: int, rho: float, effect: float,
          rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Oracle and impostor item values, each (reps, n, items)."""
    return (draw(kind, (reps, n, items), rho, effect, rng),
            draw(kind, (reps, n, items), rho, 0.0, rng))


def t_covers(means: np.ndarray, truth: float, level: float = 0.95) -> np.ndarray:
    """Whether the t-interval of each row of personality means covers ``truth``."""
    n = means.shape[1]
    half = t_quantile(0.5 + level / 2.0, n - 1) * means.std(axis=1, ddof=1) / np.sqrt(n)
    return np.abs(means.mean(axis=1) - truth) <= half


def bootstrap_bounds(means: np.ndarray, resamples: int, rng: np.random.Generator
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile-bootstrap 95% bounds of the mean of each row (the former interval)."""
    n = means.shape[1]
    draws = rng.integers(0, n, size=(resamples, n))
    boot = np.stack([means[:, d].mean(axis=1) for d in draws], axis=1)
    return np.quantile(boot, 0.025, axis=1), np.quantile(boot, 0.975, axis=1)


def t_coverage(kind: str, n: int, items: int, rho: float, effect: float, reps: int,
               seed: int, target: str = "difference") -> float:
    """Simulated coverage of the t-interval over personalities, of the oracle − impostor
    difference or (``target="mean"``) of one condition's mean."""
    rng = np.random.default_rng(seed)
    oracle, impostor = pairs(kind, reps, n, items, rho, effect, rng)
    if target == "mean":
        return float(t_covers(oracle.mean(axis=2), expected(kind, effect)).mean())
    means = (oracle - impostor).mean(axis=2)
    return float(t_covers(means, expected(kind, effect) - expected(kind, 0.0)).mean())


@lru_cache(maxsize=512)
def worst_t_coverage(kind: str, n: int, items: int, target: str = "difference") -> float:
    """The lowest simulated coverage over the pinned models (rho 0 and 0.5, null and the
    stated effect) for this design; 0 below two personalities (no t-interval)."""
    if n < 2 or items < 1:
        return 0.0
    return min(t_coverage(kind, n, items, rho, effect, GATE_REPS, seed=n * 1000 + items,
                          target=target)
               for rho in RHOS for effect in (0.0, EFFECT))


def interval_printable(kind: str, n: int, items: int, target: str = "difference") -> bool:
    """Whether the t-interval covers at least :data:`MIN_COVERAGE` at this design."""
    return worst_t_coverage(kind, n, items, target) >= MIN_COVERAGE


def metric_kind(metric: str) -> str:
    return METRIC_KIND.get(metric, "normal")


@lru_cache(maxsize=256)
def worst_bootstrap_coverage(kind: str, n: int, items: int) -> float:
    """The lowest simulated coverage of a percentile bootstrap over ``n`` personalities (of a
    mean of ``kind`` items, the pinned models as above): the check applied to Krippendorff's
    alpha, whose interval is such a bootstrap (a proxy: alpha's own coverage is not
    simulated). 0 below two personalities."""
    if n < 2 or items < 1:
        return 0.0
    worst = 1.0
    for rho in RHOS:
        rng = np.random.default_rng(n * 1000 + items)
        means = draw(kind, (GATE_REPS // 4, n, items), rho, 0.0, rng).mean(axis=2)
        low, high = bootstrap_bounds(means, 500, rng)
        truth = expected(kind, 0.0)
        worst = min(worst, float(((low <= truth) & (truth <= high)).mean()))
    return worst


def proportion_coverage(p: float, rho: float, n: int, items: int, reps: int, seed: int
                        ) -> float:
    """Simulated coverage of :func:`pooled_proportion` for a true rate ``p``: per-personality
    rates from a beta with mean ``p`` and intra-class correlation ``rho`` (all equal to ``p``
    at rho 0), ``items`` 0/1 outcomes each, over ``n`` personalities."""
    rng = np.random.default_rng(seed)
    if rho == 0:
        rates = np.full((reps, n), p)
    else:  # a + b = 1/rho - 1 gives the ICC rho
        total = 1.0 / rho - 1.0
        rates = rng.beta(p * total, (1.0 - p) * total, size=(reps, n))
    seen: dict[tuple[int, ...], bool] = {}
    covered = 0
    for row in rng.binomial(items, rates):
        key = tuple(sorted(int(v) for v in row))  # the interval ignores the order
        if key not in seen:
            low, high = pooled_proportion(list(key), [items] * n).interval
            seen[key] = low <= p <= high
        covered += seen[key]
    return covered / reps


@lru_cache(maxsize=256)
def worst_proportion_coverage(n: int, items: int) -> float:
    """The lowest simulated coverage of the pooled-proportion interval over
    :data:`PROPORTION_TRUTHS` × :data:`RHOS` at ``n`` personalities × ``items`` each."""
    if n < 1 or items < 1:
        return 0.0
    return min(proportion_coverage(p, rho, n, items, PROPORTION_REPS,
                                   seed=n * 1000 + items + int(p * 100) + int(rho * 10))
               for p in PROPORTION_TRUTHS for rho in RHOS)


def proportion_printable(n: int, items: int) -> bool:
    """Whether the pooled-proportion interval covers at least :data:`MIN_COVERAGE` here."""
    return worst_proportion_coverage(n, items) >= MIN_COVERAGE


def ratio_draws(kind: str, n: int, items: int, rho: float, fraction: float, reps: int,
                seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-personality (strategy − impostor) and (retest − impostor) means, each (reps, n),
    and the true ratio of their expectations (on the item scale, so cut scores count)."""
    rng = np.random.default_rng(seed)
    strategy = draw(kind, (reps, n, items), rho, fraction * RETEST_EFFECT, rng).mean(axis=2)
    impostor = draw(kind, (reps, n, items), rho, 0.0, rng).mean(axis=2)
    retest = draw(kind, (reps, n, items), rho, RETEST_EFFECT, rng).mean(axis=2)
    base = expected(kind, 0.0)
    truth = ((expected(kind, fraction * RETEST_EFFECT) - base)
             / (expected(kind, RETEST_EFFECT) - base))
    return strategy - impostor, retest - impostor, truth


def ratio_coverage(kind: str, n: int, items: int, rho: float, fraction: float, reps: int,
                   seed: int) -> tuple[float, float]:
    """(coverage, bounded share) of Fieller's interval of the normalized value, the coverage
    among the data sets where it is bounded (where the report could print it)."""
    numerators, denominators, truth = ratio_draws(kind, n, items, rho, fraction, reps, seed)
    low, high, bounded = fieller_bounds(numerators, denominators)
    covered = int((bounded & (low <= truth) & (truth <= high)).sum())
    count = int(bounded.sum())
    return (covered / count if count else 0.0), count / reps


def ratio_seed(n: int, items: int, rho: float, fraction: float) -> int:
    """The seed of one ratio-coverage simulation (the gate's and bench_inference's)."""
    return n * 1000 + items + int(fraction * 10) + int(rho * 100)


@lru_cache(maxsize=256)
def worst_ratio_coverage(kind: str, n: int, items: int) -> float:
    """The lowest simulated coverage of Fieller's interval over :data:`RHOS` ×
    :data:`RATIO_FRACTIONS` at this design; 0 below three personalities (where it is
    almost never bounded)."""
    if n < 3 or items < 1:
        return 0.0
    return min(ratio_coverage(kind, n, items, rho, fraction, RATIO_REPS,
                              seed=ratio_seed(n, items, rho, fraction))[0]
               for rho in RHOS for fraction in RATIO_FRACTIONS)


def ratio_printable(kind: str, n: int, items: int) -> bool:
    """Whether Fieller's interval of a normalized value covers at least :data:`MIN_COVERAGE`
    at this design."""
    return worst_ratio_coverage(kind, n, items) >= MIN_COVERAGE
