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

The second table (``--only ratio`` prints it alone) calibrates the interval of normalized
fidelity, (strategy − impostor) ÷ (retest − impostor) over personalities (Fieller's interval
of a ratio of means, ``analysis.intervals.fieller``): the retest RETEST_EFFECT latent SD above
the impostor, the strategy at 0, ½ and all of that distance; per design the share of data
sets where the interval is bounded, its coverage among those (where the report would print
it) and whether the report's gate (the lowest of the six, at least 0.93) prints it. It runs
the gate's own simulations (RATIO_REPS data sets, the gate's seeds), so "worst" is the number
the report's gate compares.
"""

from __future__ import annotations

import argparse
import math
import time

from interviewsim.analysis.calibration import (
    EFFECT,
    RATIO_FRACTIONS,
    RATIO_REPS,
    RETEST_EFFECT,
    RHOS,
    interval_printable,
    ratio_coverage,
    ratio_printable,
    ratio_seed,
)
from interviewsim.analysis.rule_simulation import simulate_design

NS = (3, 4, 6, 10, 20, 50)
ITEMS = (2, 5, 20)
KINDS = ("likert", "binary")
RATIO_NS = (3, 4, 6, 10, 20)
RATIO_ITEMS = (2, 8)
RATIO_KINDS = ("likert", "binary", "levels")
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


def ratio_rows() -> list[str]:
    """Fieller's interval of the normalized value: bounded share and coverage per design."""
    head = " | ".join(f"ρ {rho:g}, {fraction:g}" for rho in RHOS for fraction in RATIO_FRACTIONS)
    lines = [f"| model | n | items | bounded share | coverage ({head}) | worst | printed |",
             "|---|---:|---:|---:|---|---:|:---:|"]
    for kind in RATIO_KINDS:
        for n in RATIO_NS:
            for items in RATIO_ITEMS:
                found = [ratio_coverage(kind, n, items, rho, fraction, RATIO_REPS,
                                        ratio_seed(n, items, rho, fraction))
                         for rho in RHOS for fraction in RATIO_FRACTIONS]
                shares = [share for _, share in found]
                lines.append(
                    f"| {kind} | {n} | {items} | {min(shares):.2f}–{max(shares):.2f} | "
                    + " / ".join(f"{c:.3f}" for c, _ in found)
                    + f" | {min(c for c, _ in found):.3f} | "
                    f"{'yes' if ratio_printable(kind, n, items) else 'no'} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--permutations", type=int, default=2000)
    parser.add_argument("--only", choices=("rules", "ratio"), default=None,
                        help="Print one table: the verdict rules and intervals, or the ratio.")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.only != "ratio":
        print("\n".join(rows(args.reps, args.seed, args.permutations)))
    if args.only != "rules":
        print(f"\nNormalized fidelity: Fieller's interval, retest {RETEST_EFFECT:g} latent SD "
              f"above the impostor, strategy at {', '.join(f'{f:g}' for f in RATIO_FRACTIONS)}"
              f" of the distance (coverage among bounded data sets; {RATIO_REPS} data sets "
              "each, the report gate's own)\n")
        print("\n".join(ratio_rows()))
    if args.only != "ratio":
        error = math.sqrt(0.025 * 0.975 / args.reps)
        print(f"\n{args.reps} data sets per cell (Monte-Carlo SE of a 2.5% rate: {error:.4f}; "
              f"of a 95% coverage: {math.sqrt(0.05 * 0.95 / args.reps):.4f})")
    if args.only != "rules":
        print(f"\nRatio: Monte-Carlo SE of a 95% coverage among bounded data sets "
              f"{math.sqrt(0.05 * 0.95 / RATIO_REPS):.4f} when all {RATIO_REPS} are bounded, "
              f"{math.sqrt(0.05 * 0.95 / (0.3 * RATIO_REPS)):.4f} at a bounded share of 0.3")
    print(f"{time.perf_counter() - start:.0f} s")

if __name__ == "__main__":
    main()
