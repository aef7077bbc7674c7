"""Calibration of the two report checks bench_inference.py does not cover (docs/STATISTICS.md):
the MCQ position test and the pooled-proportion interval.

    python benchmarks/bench_inference_extras.py             # both tables
    python benchmarks/bench_inference_extras.py --reps 500  # quicker, coarser

- Position test (``mcq.position.position_test``, flagged at p > 0.05): under the null an
  answerer that knows nothing and picks letters by a habit (A with share 0.86, the rest
  evenly: the bundled sample's answerer) against a uniform answer key, its false-positive rate
  (p ≤ 0.05, i.e. "beats its habit" though it knows nothing); under the alternative the same
  habit on the items it does not know and the right letter on a share it knows, its power.
- Pooled proportion (``analysis.intervals.pooled_proportion``): per-personality rates drawn
  from a beta distribution with mean p and intra-class correlation ρ, items per personality
  binomial; the share of intervals that cover p, and whether the report prints the interval
  at that design (its gate: the lowest coverage over p in {0.05, 0.3} and ρ in {0, 0.5},
  simulated at report time with 1,000 data sets, at least 0.93).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from interviewsim.analysis.calibration import (
    PROPORTION_TRUTHS,
    RHOS,
    proportion_coverage,
    proportion_printable,
)
from interviewsim.mcq.position import ItemAnswer, position_test

LETTERS = ("A", "B", "C", "D")
HABIT = (0.86, 0.14 / 3, 0.14 / 3, 0.14 / 3)


def _answers(rng: np.random.Generator, items: int, known: float) -> list[ItemAnswer]:
    key = rng.choice(LETTERS, size=items)
    habit = rng.choice(LETTERS, size=items, p=HABIT)
    knows = rng.random(items) < known
    chosen = np.where(knows, key, habit)
    return [ItemAnswer("a", "s", str(c), str(k), int(c == k), int(c == k))
            for c, k in zip(chosen, key, strict=True)]


def position_rows(reps: int, seed: int) -> list[str]:
    lines = ["| items | FPR (knows 0%, p ≤ 0.05) | power (knows 25%) | power (knows 50%) |",
             "|---:|---:|---:|---:|"]
    for items in (6, 8, 24, 100):
        rates = []
        for known in (0.0, 0.25, 0.5):
            rng = np.random.default_rng(seed + items * 101 + int(known * 100))
            hits = sum(position_test(_answers(rng, items, known), seed=r) <= 0.05
                       for r in range(reps))
            rates.append(hits / reps)
        lines.append(f"| {items} | {rates[0]:.3f} | {rates[1]:.3f} | {rates[2]:.3f} |")
    return lines


def proportion_rows(reps: int, seed: int) -> list[str]:
    """Coverage per (p, ρ, design), from the simulation the report's gate runs
    (``calibration.proportion_coverage``), and whether the report prints the interval there."""
    lines = ["| p | ρ | personalities | items | coverage | printed |",
             "|---:|---:|---:|---:|---:|:---:|"]
    for p in PROPORTION_TRUTHS:
        for rho in RHOS:
            for n in (3, 4, 6, 10, 20, 50):
                for items in (2, 5, 20):
                    covered = proportion_coverage(p, rho, n, items, reps,
                                                  seed + n * 31 + items * 7 + int(rho * 10)
                                                  + int(p * 100))
                    printed = "yes" if proportion_printable(n, items) else "no"
                    lines.append(f"| {p:g} | {rho:g} | {n} | {items} | {covered:.3f} "
                                 f"| {printed} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261202)
    args = parser.parse_args()
    start = time.perf_counter()
    print("\n".join(position_rows(args.reps, args.seed)))
    print()
    print("\n".join(proportion_rows(args.reps, args.seed)))
    print(f"\n{args.reps} data sets per cell (Monte-Carlo SE of a 5% rate: "
          f"{math.sqrt(0.05 * 0.95 / args.reps):.4f}); {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
