"""Embedding every training pair of the synthetic corpus once (cached), then retrieval top-k
for every held-out question by matrix products, one personality at a time.

    python benchmarks/bench_embedding.py --corpus /tmp/paper_corpus --personalities 1000

Pass 1 computes and stores the tfidf vectors (``--cache`` folder, fresh unless reused); pass 2
runs the same retrieval with every vector read from the cache. Each pass runs in a child
process so its peak RSS is its own (``os.wait4``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


BLAS_ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""Small matrix products per personality: BLAS threads only fight over shared cores (a 146 x
4096 @ 4096 x 523 product took 312 ms with OpenBLAS's default threads here, 47 ms with one)."""


def one_pass(corpus: Path, cache: Path, limit: int, k: int) -> dict:
    """Embed each personality's training pairs and rank them for all its held-out questions."""
    import numpy as np

    from interviewsim.config.settings import EmbedderSettings
    from interviewsim.context.embeddings import build_embedder
    from interviewsim.data.corpus import iter_inputs

    embedder = build_embedder(EmbedderSettings(batch_size=512), cache)
    people = pairs = queries = 0
    embed_s = rank_s = 0.0
    start = time.perf_counter()
    for person in iter_inputs(corpus, 0.2, None):
        if people >= limit:
            break
        t0 = time.perf_counter()
        vectors = embedder.embed([f"{p.question}\n{p.response}" for p in person.train])
        query = embedder.embed([p.question for p in person.heldout])
        t1 = time.perf_counter()
        scores = query @ vectors.T                           # (questions, pairs) cosine
        top = np.argpartition(-scores, min(k, scores.shape[1] - 1), axis=1)[:, :k]
        order = np.take_along_axis(scores, top, axis=1).argsort(axis=1)[:, ::-1]
        np.take_along_axis(top, order, axis=1)
        rank_s += time.perf_counter() - t1
        embed_s += t1 - t0
        people += 1
        pairs += len(person.train)
        queries += len(person.heldout)
    embedder.close()
    return {"personalities": people, "train_pairs": pairs, "queries": queries,
            "wall_s": time.perf_counter() - start, "embed_s": embed_s, "rank_s": rank_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--personalities", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/interviewsim-bench-embed"))
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one_pass(args.corpus, args.cache, args.personalities, args.k)))
        return
    for label in ("first (compute + store)", "cached"):
        child = subprocess.Popen(
            [sys.executable, __file__, "--child", "--corpus", str(args.corpus), "--cache",
             str(args.cache), "--personalities", str(args.personalities), "--k", str(args.k)],
            stdout=subprocess.PIPE, text=True, env={**os.environ, **BLAS_ONE_THREAD})
        out = child.stdout.read() if child.stdout else ""
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"pass {label!r} failed")
        r = json.loads(out)
        size = sum(p.stat().st_size for p in args.cache.glob("*")) / 2**20
        print(f"| {label} | {r['personalities']:,} | {r['train_pairs']:,} | {r['queries']:,} | "
              f"{r['wall_s']:.1f} s | {r['embed_s']:.1f} s | {r['rank_s']:.1f} s | "
              f"{usage.ru_maxrss / 1024:.0f} MB | {size:,.0f} MiB |", flush=True)


if __name__ == "__main__":
    main()
