"""Does a judge tell the person's own answer from an impostor's? Five verdicts and their test.

Data: for one judge and metric, the item-level (oracle, impostor) pairs nested in
personalities (an item is one judged answer for CS and FC, one trait of one profile for PS,
one MCQ item with its rotations together for MCQ), signed so that positive favours the oracle.

Test, and why this one: a **cluster sign-flip test over personalities**. The statistic is the
mean over personalities of each personality's mean item difference (every personality
weighs the same, as in the macro averages). Under the null that the judge cannot tell the two
controls apart, the oracle and impostor labels of a personality are exchangeable, so its mean
difference is as likely to be +d as −d, whatever the correlation among its items; flipping
whole personalities uses exactly that and nothing more. It is exact (every one of 2**n sign
vectors enumerated) while ``2**n <= permutations``, Monte-Carlo beyond. The alternatives were
rejected by simulation (benchmarks/bench_inference.py): flipping items independently
(a stratified test) treats the items of a person as independent and its false-positive rate
climbs well above 5% at within-personality correlation 0.5; a mixed model with a personality
effect needs a variance component that 3–10 personalities cannot estimate, and its
likelihood-ratio p-values are anti-conservative there. The price of exactness: with n
personalities no one-sided p is below 1 / 2**n, so the test cannot reach 0.025 below 6
personalities, and this module says so rather than awarding a verdict.

Verdicts (α = 0.05 two-sided, i.e. 0.025 each way):
**no variation** when every value of both controls is one constant (nothing to test);
**discriminates** when the one-sided p (oracle better) ≤ α/2; **inverted** when the
one-sided p the other way ≤ α/2; **equivalent** when the TOST (two one-sided sign-flip tests of
the differences shifted by ± the metric's margin, each at α) rejects a difference as large as
the margin; **inconclusive** otherwise, including every design too small for the test to
reach its level (computed from the personalities present, :func:`smallest_p`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

ALPHA = 0.05


class ControlVerdict(StrEnum):
    """What a judge's controls show; :data:`VERDICT_CODES` gives each a number for DVC."""

    DISCRIMINATES = "discriminates"
    INVERTED = "inverted"
    NO_VARIATION = "no variation"
    EQUIVALENT = "equivalent"
    INCONCLUSIVE = "inconclusive"


VERDICT_CODES: dict[ControlVerdict, int] = {
    ControlVerdict.DISCRIMINATES: 1, ControlVerdict.INCONCLUSIVE: 0,
    ControlVerdict.INVERTED: -1, ControlVerdict.EQUIVALENT: 2, ControlVerdict.NO_VARIATION: 3,
}
"""The numeric code of each verdict in metrics.json and reports/headline/ (1 is the only
good one; 0 says nothing either way)."""


def sign_vectors(n: int, permutations: int, rng: np.random.Generator
                 ) -> tuple[np.ndarray, bool]:
    """Every ±1 sign vector of length n when ``2**n <= permutations`` (exact), else
    ``permutations`` random ones; and whether they are exact."""
    if n < 63 and (1 << n) <= permutations:
        codes = np.arange(1 << n, dtype=np.int64)
        return 1.0 - 2.0 * ((codes[:, None] >> np.arange(n, dtype=np.int64)) & 1), True
    return rng.integers(0, 2, size=(permutations, n)) * 2.0 - 1.0, False


def sign_flip_p(means: np.ndarray, permutations: int, rng: np.random.Generator
                ) -> tuple[np.ndarray, np.ndarray]:
    """One-sided p-values (mean > 0, mean < 0) of the cluster sign-flip test for each row of
    ``means`` (data sets × personalities; one row for the report, many for the simulation).
    Ties with the observed sum count as at least as extreme; the Monte-Carlo p counts the
    observed labelling, so it is never 0."""
    signs, exact = sign_vectors(means.shape[1], permutations, rng)
    sums = means @ signs.T
    observed = means.sum(axis=1, keepdims=True)
    slack = 1e-9 * np.maximum(np.abs(means).sum(axis=1, keepdims=True), 1e-300)
    above = (sums >= observed - slack).sum(axis=1)
    below = (sums <= observed + slack).sum(axis=1)
    if exact:
        return above / signs.shape[0], below / signs.shape[0]
    return (1 + above) / (1 + signs.shape[0]), (1 + below) / (1 + signs.shape[0])


def one_sided_p(means: np.ndarray, permutations: int, seed: int) -> tuple[float, float]:
    """(p for mean > 0, p for mean < 0) over the personality means of one judge and metric."""
    if means.size == 0:
        return 1.0, 1.0
    up, down = sign_flip_p(means[None, :], permutations, np.random.default_rng(seed))
    return float(up[0]), float(down[0])


def smallest_p(n_personalities: int, permutations: int) -> float:
    """The smallest one-sided p the test can give with this many personalities: 1 / 2**n
    exact (only the all-plus vector is as extreme), 1 / (1 + permutations) sampled."""
    if n_personalities <= 0:
        return 1.0
    if n_personalities < 63 and (1 << n_personalities) <= permutations:
        return 1.0 / float(1 << n_personalities)
    return 1.0 / (1.0 + permutations)


def personalities_to_reach(level: float, permutations: int) -> int | None:
    """Fewest personalities whose smallest one-sided p is ≤ ``level`` (None: none suffice)."""
    return next((n for n in range(1, 64) if smallest_p(n, permutations) <= level), None)


@dataclass(frozen=True)
class ControlTest:
    """The verdict for one judge and metric, with every number it rests on."""

    verdict: ControlVerdict
    personalities: int
    items: int
    difference: float | None
    """Mean over personalities of the mean item difference (signed: positive = oracle)."""
    p_discriminates: float | None
    p_inverted: float | None
    p_equivalent: float | None
    """TOST p (the larger of the two one-sided p's); None without a margin."""
    margin: float | None
    smallest_p: float
    """The smallest one-sided p this design allows (:func:`smallest_p`)."""
    reachable: bool
    """Whether ``smallest_p`` ≤ α/2, i.e. whether discriminates or inverted could be found."""
    exact: bool

    @property
    def code(self) -> int:
        return VERDICT_CODES[self.verdict]


def _constant(oracle: Sequence[np.ndarray], impostor: Sequence[np.ndarray]) -> bool:
    values = np.concatenate([*map(np.ravel, oracle), *map(np.ravel, impostor)])
    return values.size > 0 and bool(np.all(values == values[0]))


def control_test(oracle: Sequence[Sequence[float]], impostor: Sequence[Sequence[float]],
                 sign: int, margin: float | None, permutations: int, seed: int,
                 alpha: float = ALPHA) -> ControlTest:
    """The five-way verdict from per-personality item values of the two controls (item i of
    a personality's oracle pairs with item i of its impostor; ``sign`` -1 when lower is
    better, as for contradictions)."""
    o = [np.asarray(x, dtype=np.float64) for x in oracle]
    i = [np.asarray(x, dtype=np.float64) for x in impostor]
    kept = [(a, b) for a, b in zip(o, i, strict=True) if a.size and a.size == b.size]
    n, items = len(kept), sum(a.size for a, _ in kept)
    floor = smallest_p(n, permutations)
    reachable = floor <= alpha / 2
    exact = n < 63 and (1 << n) <= permutations
    if n == 0:
        return ControlTest(ControlVerdict.INCONCLUSIVE, 0, 0, None, None, None, None, margin, floor,
                           False, exact)
    means = np.array([sign * float((a - b).mean()) for a, b in kept])
    p_up, p_down = one_sided_p(means, permutations, seed)
    p_eq = None
    if margin is not None:
        p_eq = max(one_sided_p(means + margin, permutations, seed)[0],
                   one_sided_p(means - margin, permutations, seed)[1])
    if _constant([a for a, _ in kept], [b for _, b in kept]):
        verdict = ControlVerdict.NO_VARIATION
    elif p_up <= alpha / 2:
        verdict = ControlVerdict.DISCRIMINATES
    elif p_down <= alpha / 2:
        verdict = ControlVerdict.INVERTED
    elif p_eq is not None and p_eq <= alpha:
        verdict = ControlVerdict.EQUIVALENT
    else:
        verdict = ControlVerdict.INCONCLUSIVE
    return ControlTest(verdict, n, items, float(means.mean()), p_up, p_down, p_eq, margin,
                       floor, reachable, exact)
