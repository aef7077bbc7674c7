"""Speed and memory of the numpy sentence encoder behind the agent's language layer.

    python benchmarks/bench_encoder.py [--items 600] [--repeat 3]

Reads the first ``--items`` interviewer turns and as many candidate replies (each with the turn it
answers) of tests/data/agent_language_corpus.jsonl and scores them with the committed classifier
(interviewsim.agent.language_model), in a child process per configuration so that the BLAS
thread count is set before numpy loads: 1 and 2 BLAS threads, idle and with a busy-looping
process on every core (the "under load" rows). Per configuration: the best of ``--repeat``
runs of items per second in batches of 32, the median latency of one turn scored alone (the
interview stage's case), and the child's peak resident memory. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "agent_language_corpus.jsonl"

CHILD = r"""
import json, resource, statistics, sys, time
from interviewsim.agent.language_model import EncoderClassifier, pair_of
items, repeat = int(sys.argv[1]), int(sys.argv[2])
rows = [json.loads(line) for line in open(sys.argv[3], encoding="utf-8")]
turns = [pair_of("turn", r["text"]) for r in rows if r["kind"] == "turn"][:items]
replies = [pair_of("reply", r["text"], r["after"]) for r in rows if r["kind"] == "reply"][:items]
best = {}
for name, pairs in (("turns", turns), ("replies", replies)):
    for _ in range(repeat):
        model = EncoderClassifier.load()  # a fresh one: nothing scored yet
        start = time.perf_counter()
        model.scores(pairs)
        best[name] = max(best.get(name, 0.0), len(pairs) / (time.perf_counter() - start))
model = EncoderClassifier.load()
single = []
for pair in turns[:50]:
    start = time.perf_counter()
    model.scores([pair])
    single.append(time.perf_counter() - start)
print(json.dumps({"turns_per_s": best["turns"], "replies_per_s": best["replies"],
                  "one_turn_ms": 1000 * statistics.median(single),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def busy() -> None:  # pragma: no cover - a load generator
    while True:
        pass


def run(threads: int, items: int, repeat: int) -> dict[str, float]:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads),
           "MKL_NUM_THREADS": str(threads)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(items), str(repeat), str(CORPUS)],
                         env=env, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"{cores} cores; {args.items} turns and {args.items} replies; best of {args.repeat}\n")
    print("| load | BLAS threads | turns/s | replies/s | one turn alone (median ms) | "
          "peak RSS (MB) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for loaded in (False, True):
        hogs = [multiprocessing.Process(target=busy, daemon=True) for _ in range(cores)
                if loaded]
        for hog in hogs:
            hog.start()
        try:
            for threads in (1, 2):
                r = run(threads, args.items, args.repeat)
                print(f"| {'busy loop on every core' if loaded else 'idle'} | {threads} | "
                      f"{r['turns_per_s']:.0f} | {r['replies_per_s']:.0f} | "
                      f"{r['one_turn_ms']:.1f} | {r['peak_rss_mb']:.0f} |", flush=True)
        finally:
            for hog in hogs:
                hog.terminate()


if __name__ == "__main__":
    main()
