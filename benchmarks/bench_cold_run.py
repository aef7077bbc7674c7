"""Where does a cold `dvc repro` of the default pipeline spend its time?

Clones the repository (its committed HEAD) into a work folder, so the response cache starts
empty, then runs every stage of dvc.yaml in pipeline order with `dvc repro --single-item`,
each with INTERVIEWSIM_LLAMA_TRACE pointing at its own trace file. Per stage it reports wall
seconds, embedded-model calls, prompt tokens, the prompt tokens actually evaluated after the
KV prefix reuse, generated tokens and the seconds spent inside llama.cpp. Then it replays the
whole pipeline from the now-filled cache (`dvc repro -f`) and times that.

    python benchmarks/bench_cold_run.py --work /tmp/isb-cold

Run it inside the project's virtualenv (it calls `dvc` and `interviewsim` from PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def pipeline_order(dvc_yaml: Path) -> list[str]:
    """Stages in an order where every stage comes after the stages whose outs it reads."""
    stages = yaml.safe_load(dvc_yaml.read_text())["stages"]

    def paths(entries: list) -> list[str]:
        return [next(iter(e)) if isinstance(e, dict) else e for e in entries or []]

    outs = {name: paths(s.get("outs", [])) + paths(s.get("metrics", [])) for name, s in
            stages.items()}
    needs = {name: {other for other, produced in outs.items() if other != name and any(
        dep == out or dep.startswith(out + "/") or out.startswith(dep + "/")
        for dep in paths(s.get("deps", [])) for out in produced)} for name, s in stages.items()}
    order: list[str] = []
    while len(order) < len(stages):
        ready = [n for n in stages if n not in order and needs[n] <= set(order)]
        if not ready:
            raise SystemExit(f"dvc.yaml has a cycle among {set(stages) - set(order)}")
        order.append(ready[0])
    return order


def trace_totals(path: Path) -> dict[str, float]:
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return {
        "calls": len(rows),
        "prompt": sum(r["prompt_tokens"] for r in rows),
        "evaluated": sum(r["prompt_tokens"] - r["reused_tokens"] for r in rows),
        "generated": sum(r["completion_tokens"] for r in rows),
        "llama_s": sum(r["seconds"] for r in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="scratch folder (replaced)")
    parser.add_argument("--no-replay", action="store_true", help="skip the replay timing")
    parser.add_argument("--compare", action="store_true",
                        help="say whether the results equal the committed ones, per metric")
    args = parser.parse_args()
    args.work = args.work.resolve()  # stages run inside it: paths handed to them must be absolute
    if args.work.exists():
        shutil.rmtree(args.work)
    subprocess.run(["git", "clone", "-q", str(REPO), str(args.work)], check=True)
    # the clone's own code, not the editable install's checkout
    env = {**os.environ, "INTERVIEWSIM_PROGRESS": "0", "PYTHONPATH": str(args.work.resolve())}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    committed_lock = (args.work / "dvc.lock").read_text()
    committed_metrics = json.loads((args.work / "reports/metrics.json").read_text())
    load_before = os.getloadavg()
    rows = []
    total_start = time.perf_counter()
    for stage in pipeline_order(args.work / "dvc.yaml"):
        trace = args.work / f"trace-{stage}.jsonl"
        start = time.perf_counter()
        subprocess.run(["dvc", "repro", "-q", "--single-item", stage], cwd=args.work, check=True,
                       env={**env, "INTERVIEWSIM_LLAMA_TRACE": str(trace)})
        rows.append((stage, time.perf_counter() - start, trace_totals(trace)))
        print(f"{stage}: {rows[-1][1]:.1f} s", file=sys.stderr, flush=True)
    cold = time.perf_counter() - total_start
    replay = None
    if not args.no_replay:
        start = time.perf_counter()
        subprocess.run(["dvc", "repro", "-q", "-f"], cwd=args.work, check=True, env=env)
        replay = time.perf_counter() - start
    print(f"load average before: {load_before[0]:.2f}; after: {os.getloadavg()[0]:.2f}; "
          f"{os.cpu_count()} cores")
    print("| stage | wall s | calls | prompt tok. | evaluated after prefix reuse | generated "
          "tok. | s in llama.cpp |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for stage, wall, t in rows:
        print(f"| {stage} | {wall:.1f} | {t['calls']} | {t['prompt']} | {t['evaluated']} | "
              f"{t['generated']} | {t['llama_s']:.1f} |")
    sums = {k: sum(r[2][k] for r in rows) for k in ("calls", "prompt", "evaluated", "generated",
                                                    "llama_s")}
    print(f"| **cold total** | {cold:.1f} | {sums['calls']} | {sums['prompt']} | "
          f"{sums['evaluated']} | {sums['generated']} | {sums['llama_s']:.1f} |")
    if replay is not None:
        print(f"\nreplay from the response cache (dvc repro -f): {replay:.1f} s")
    if args.compare:
        compare(committed_lock, committed_metrics, args.work)


def compare(committed_lock: str, committed_metrics: dict, work: Path) -> None:
    """Print whether this run's dvc.lock and metrics equal the committed ones, and if not, by
    how much each metric differs (another CPU or llama.cpp build can change model answers)."""
    lock_equal = (work / "dvc.lock").read_text() == committed_lock
    old = committed_metrics  # metrics.json is flat: name -> number
    new = json.loads((work / "reports/metrics.json").read_text())
    differ = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    print(f"\ndvc.lock equal to the committed one: {'yes' if lock_equal else 'no'}")
    if not differ:
        print(f"results equal the committed ones: yes ({len(new)} metric values identical)")
        return
    print(f"results equal the committed ones: no ({len(differ)} of {len(old | new)} metric "
          "values differ)")
    print("| metric | committed | this run | difference |")
    print("|---|---:|---:|---:|")
    for key in differ:
        a, b = old.get(key), new.get(key)
        delta = (f"{b - a:+.6g}" if isinstance(a, int | float) and isinstance(b, int | float)
                 else "–")
        print(f"| {key} | {a} | {b} | {delta} |")


if __name__ == "__main__":
    main()
