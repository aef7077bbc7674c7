"""How often each verdict rule and interval of the report is right, on simulated designs.

Applied to many data sets at once (vectorised, the sign vectors and bootstrap draws shared
across data sets, which leaves each rate unbiased), under the pinned models of
:mod:`interviewsim.analysis.calibration`. benchmarks/bench_inference.py prints the table of
docs/STATISTICS.md from :func:`simulate_design`; the calibration tests assert from it.

Rules measured: ``old_discriminates`` (the former rule: percentile-bootstrap lower bound > 0
with at least 3 personalities), ``discriminates`` and ``inverted`` (cluster sign-flip,
one-sided p ≤ 0.025), ``stratified`` (items flipped independently, the rejected alternative),
``equivalent`` (TOST at the margin; its false-positive rate is measured with the true
difference *at* the margin). Intervals: ``old_coverage`` (percentile bootstrap over
personalities), ``t_coverage`` (the t-interval the report prints).
"""

from __future__ import annotations

import numpy as np

from interviewsim.analysis.calibration import bootstrap_bounds, expected, pairs, t_covers
from interviewsim.analysis.inference import sign_flip_p

ALPHA_ONE_SIDED = 0.025


def simulate_design(kind: str, n: int, items: int, rho: float, effect: float, reps: int,
                    seed: int, permutations: int = 2000, resamples: int = 500,
                    margin: float | None = None, stratified: bool = True) -> dict[str, float]:
    """Rates over ``reps`` simulated data sets of one design and model: the share of data
    sets where each rule fires, and each interval's coverage of the true difference."""
    rng = np.random.default_rng(seed)
    oracle, impostor = pairs(kind, reps, n, items, rho, effect, rng)
    diffs = oracle - impostor
    means = diffs.mean(axis=2)
    truth = expected(kind, effect) - expected(kind, 0.0)
    p_up, p_down = sign_flip_p(means, permutations, rng)
    low, high = bootstrap_bounds(means, resamples, rng)
    out = {
        "old_discriminates": float(((low > 0) & (n >= 3)).mean()),
        "discriminates": float((p_up <= ALPHA_ONE_SIDED).mean()),
        "inverted": float((p_down <= ALPHA_ONE_SIDED).mean()),
        "old_coverage": float(((low <= truth) & (truth <= high)).mean()),
        "t_coverage": float(t_covers(means, truth).mean()) if n >= 2 else 0.0,
    }
    if margin is not None:
        shifted = means - truth  # centre the data on 0, then put the truth at the margin
        at_margin = shifted + margin
        p_low = sign_flip_p(at_margin + margin, permutations, rng)[0]
        p_high = sign_flip_p(at_margin - margin, permutations, rng)[1]
        out["equivalent"] = float((np.maximum(p_low, p_high) <= 0.05).mean())
    if stratified:
        flat = diffs.reshape(reps, n * items) / items  # each item's share of its cluster mean
        out["stratified"] = float((sign_flip_p(flat, permutations, rng)[0]
                                   <= ALPHA_ONE_SIDED).mean())
    return out
