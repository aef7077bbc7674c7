"""Wall time and peak RSS of ``interviewsim prepare`` on a synthetic paper-scale corpus.

    python benchmarks/bench_prepare.py --personalities 1000

Runs prepare in a child process (so its peak RSS is measured alone) and prints one line of
results, which benchmarks/README.md records.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_corpus import write_corpus  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--personalities", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pairs = write_corpus(root / "corpus", args.personalities)
        params = root / "params.yaml"
        params.write_text(f"data: {{personalities: {root / 'corpus'}}}\n")
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "stages", "prepare", "--params", str(params),
             "--out-dir", str(root / "out")],
            check=True,
        )
        wall = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        size_mb = sum(p.stat().st_size for p in (root / "out").iterdir()) / 2**20
    print(f"prepare: {args.personalities} personalities, {pairs} pairs: wall {wall:.1f} s, "
          f"peak RSS {peak_mb:.0f} MB, artifacts {size_mb:.0f} MB")


if __name__ == "__main__":
    main()
