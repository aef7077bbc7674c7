"""Calibration of "Judges against people" (interviewsim/analysis/labels.py), by simulation.

    python benchmarks/bench_human_agreement.py              # 300 data sets per cell
    python benchmarks/bench_human_agreement.py --reps 100   # quicker, coarser

A person and a judge score the same items on the CS scale 1-5: each cuts a shared item latent
(a personality component of correlation rho plus item noise) plus its own noise; the noise
sets the true alpha (ordinal Krippendorff's alpha on 200,000 items). Per design (personalities
× labelled items per personality) it prints the coverage of the 95% bootstrap interval over
personalities, whether the report prints it (its gate), and how often each verdict fires:
"agrees" (lower bound >= 0.667) and "does not agree well enough" (upper bound < 0.667), among
the data sets where the interval is printed. At a true alpha of 0.667 either verdict is a false
positive (nominal at most 0.025 each).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from interviewsim.analysis.agreement import alpha_with_ci, krippendorff_alpha
from interviewsim.analysis.calibration import MIN_COVERAGE, worst_bootstrap_coverage
from interviewsim.analysis.labels import THRESHOLD

CUTS = (-1.2, -0.4, 0.4, 1.2)
SCORES = (1, 2, 3, 4, 5)


def _scores(latent: np.ndarray) -> np.ndarray:
    return 1 + (latent[..., None] > np.asarray(CUTS)).sum(axis=-1)


def draw(rng: np.random.Generator, n: int, items: int, rho: float, noise: float
         ) -> tuple[list[list[int]], list[int]]:
    person = rng.normal(size=(n, 1)) * np.sqrt(rho)
    latent = person + rng.normal(size=(n, items)) * np.sqrt(1 - rho)
    human = _scores(latent + rng.normal(size=latent.shape) * noise)
    judge = _scores(latent + rng.normal(size=latent.shape) * noise)
    units = [[int(h), int(j)] for h, j in zip(human.ravel(), judge.ravel(), strict=True)]
    return units, [i // items for i in range(n * items)]


def true_alpha(noise: float, rho: float, seed: int) -> float:
    units, _ = draw(np.random.default_rng(seed), 20_000, 10, rho, noise)
    return float(krippendorff_alpha(units, "ordinal", SCORES))


def noise_for(target: float, rho: float) -> float:
    """The noise whose true alpha is ``target`` (bisection)."""
    low, high = 0.01, 3.0
    for _ in range(30):
        mid = (low + high) / 2
        low, high = (mid, high) if true_alpha(mid, rho, 1) > target else (low, mid)
    return (low + high) / 2


def cell(n: int, items: int, rho: float, target: float, reps: int, seed: int) -> dict:
    noise = noise_for(target, rho)
    truth = true_alpha(noise, rho, 2)
    rng = np.random.default_rng(seed)
    covered = agrees = disagrees = defined = 0
    for rep in range(reps):
        units, clusters = draw(rng, n, items, rho, noise)
        found = alpha_with_ci(units, "ordinal", SCORES, 500, seed + rep, clusters=clusters)
        if found.ci is None:
            continue
        defined += 1
        covered += found.ci[0] <= truth <= found.ci[1]
        agrees += found.ci[0] >= THRESHOLD
        disagrees += found.ci[1] < THRESHOLD
    share = max(defined, 1)
    return {"truth": truth, "coverage": covered / share, "agrees": agrees / share,
            "disagrees": disagrees / share,
            "printed": worst_bootstrap_coverage("likert", n, items) >= MIN_COVERAGE}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=20261203)
    args = parser.parse_args()
    start = time.perf_counter()
    print("| personalities | items | rho | true alpha | coverage | 'agrees' | 'does not agree' | "
          "report prints the interval |")
    print("|---:|---:|---:|---:|---:|---:|---:|:---:|")
    for n, items in ((20, 4), (60, 4), (60, 10)):
        for rho in (0.0, 0.5):
            for target in (0.5, THRESHOLD, 0.85):
                found = cell(n, items, rho, target, args.reps,
                             args.seed + 1000 * n + items + int(rho * 10) + int(target * 100))
                print(f"| {n} | {items} | {rho:g} | {found['truth']:.3f} | "
                      f"{found['coverage']:.3f} | {found['agrees']:.3f} | "
                      f"{found['disagrees']:.3f} | {'yes' if found['printed'] else 'no'} |")
    print(f"\n{args.reps} data sets per cell; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
