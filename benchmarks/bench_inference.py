"""Calibration of the report's verdict rules and intervals, by simulation (docs/STATISTICS.md).

    python benchmarks/bench_inference.py              # the full table (a few minutes)
    python benchmarks/bench_inference.py --reps 500   # quicker, coarser

For every design (personalities n × items per personality), pinned model (CS scores 1–5 and
0/1 labels; within-personality correlation 0 and 0.5) it prints, under the null (no
oracle/impostor difference), the false-positive rate of the former rule (bootstrap lower bound
> 0) and of the new one (cluster sign-flip, one-sided p ≤ 0.025), of the rejected stratified
item flip, and of "equivalent" when the truth sits at the margin; under the stated effect
(0.8 latent SD) the new rule's power; and the coverage of the former percentile-bootstrap
interval and of the t-interval, with whether the report prints the latter at that design.
"""

from __future__ import annotations

import argparse
import math
import time

from interviewsim.analysis.calibration import EFFECT, interval_printable
from interviewsim.analysis.rule_simulation import simulate_design

NS = (3, 4, 6, 10, 20, 50)
ITEMS = (2, 5, 20)
KINDS = ("likert", "binary")
RHOS = (0.0, 0.5)
MARGINS = {"likert": 0.5, "binary": 0.1}
"""The params.yaml margins of content similarity and the label ratios."""


def rows(reps: int, seed: int, permutations: int) -> list[str]:
    header = ("| model | ρ | n | items | FPR old | FPR new | FPR inverted | FPR stratified | "
              "FPR equivalent | power new | coverage old | coverage t | t printed |")
    lines = [header, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|"]
    for kind in KINDS:
        for rho in RHOS:
            for n in NS:
                for items in ITEMS:
                    key = seed + 7919 * n + 104729 * items + int(rho * 10) + len(kind)
                    null = simulate_design(kind, n, items, rho, 0.0, reps, key, permutations,
                                           margin=MARGINS[kind],
                                           stratified=n * items <= 200)
                    alt = simulate_design(kind, n, items, rho, EFFECT, reps, key + 1,
                                          permutations, stratified=False)
                    strat = null.get("stratified")
                    lines.append(
                        f"| {kind} | {rho:g} | {n} | {items} | {null['old_discriminates']:.3f} | "
                        f"{null['discriminates']:.3f} | {null['inverted']:.3f} | "
                        f"{'–' if strat is None else f'{strat:.3f}'} | "
                        f"{null['equivalent']:.3f} | {alt['discriminates']:.3f} | "
                        f"{min(null['old_coverage'], alt['old_coverage']):.3f} | "
                        f"{min(null['t_coverage'], alt['t_coverage']):.3f} | "
                        f"{'yes' if interval_printable(kind, n, items) else 'no'} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--permutations", type=int, default=2000)
    args = parser.parse_args()
    start = time.perf_counter()
    print("\n".join(rows(args.reps, args.seed, args.permutations)))
    error = math.sqrt(0.025 * 0.975 / args.reps)
    print(f"\n{args.reps} data sets per cell (Monte-Carlo SE of a 2.5% rate: {error:.4f}; "
          f"of a 95% coverage: {math.sqrt(0.05 * 0.95 / args.reps):.4f}); "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
