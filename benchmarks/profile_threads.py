"""Run ``interviewsim STAGE`` with every thread under cProfile (the seam's event loop runs in
a thread of its own, which ``python -m cProfile`` does not see).

    python benchmarks/profile_threads.py OUT_DIR STAGE [ARGS...]

writes ``OUT_DIR/STAGE-main.prof`` and ``OUT_DIR/STAGE-<thread name>.prof``; read them with
``python -m pstats``. Used by ``bench_stage_throughput.py --profile``.
"""

from __future__ import annotations

import cProfile
import runpy
import sys
import threading
from pathlib import Path


def main() -> None:
    out, stage = Path(sys.argv[1]), sys.argv[2]
    out.mkdir(parents=True, exist_ok=True)
    run = threading.Thread.run

    def profiled(thread: threading.Thread) -> None:
        profile = cProfile.Profile()
        profile.enable()
        try:
            run(thread)
        finally:
            profile.disable()
            profile.dump_stats(out / f"{stage}-{thread.name}.prof")

    threading.Thread.run = profiled
    sys.argv = ["interviewsim", *sys.argv[2:]]
    profile = cProfile.Profile()
    profile.enable()
    try:
        runpy.run_module("stages", run_name="__main__")
    finally:
        profile.disable()
        profile.dump_stats(out / f"{stage}-main.prof")


if __name__ == "__main__":
    main()
