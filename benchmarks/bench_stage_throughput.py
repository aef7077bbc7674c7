"""End-to-end request rate of the generate and judge stages against a fixed-latency endpoint.

    python benchmarks/bench_stage_throughput.py --personalities 120 --heldout 18

The mock endpoint (tests/mock_openai.py) runs in its own process with a fixed latency (200 ms)
and answers every prompt validly (:func:`respond`). Each stage runs as ``interviewsim STAGE``
in a child process against it with ``max_concurrency`` 256; the figure is the stage's wall
time (process start to exit: imports, reading inputs, prompts, cache, writing outputs) against
the ideal ``requests × latency ÷ concurrency``. The requests are counted from the stage's
summary.json; the stage's own CPU time comes from ``os.wait4``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO)]
from bench_memory import answer_for  # noqa: E402
from synthetic_corpus import write_corpus  # noqa: E402

from tests.mock_openai import separate_process  # noqa: E402

STRATEGIES = ["no-context", "short-profile", "long-profile", "chronological", "random",
              "retrieval", "hybrid"]


def respond(body: dict) -> str:
    """The mock's responder (a chat request body): bench_memory's scripted answers."""
    return answer_for(body["messages"][0]["content"], body["messages"][-1]["content"])


def run(root: Path, stage: str, env: dict[str, str],
        profile: Path | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one stage in a child process (every thread under
    cProfile, written to ``profile``, when it is given)."""
    start = time.perf_counter()
    command = [sys.executable, "-m", "stages", stage]
    if profile is not None:
        command[1:3] = [str(HERE / "profile_threads.py"), str(profile)]
    child = subprocess.Popen(command, cwd=root, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{stage} failed in {root}")
    return wall, usage.ru_utime + usage.ru_stime


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--personalities", type=int, default=120)
    parser.add_argument("--heldout", type=int, default=18)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--processes", type=int, default=1,
                        help="providers.mock.processes: the stages split into this many")
    parser.add_argument("--ps-runs", type=int, default=1)
    parser.add_argument("--work", type=Path, default=Path("/tmp/interviewsim-bench-stages"))
    parser.add_argument("--stages", nargs="+", default=["generate", "judge"])
    parser.add_argument("--trace", type=Path, default=None,
                        help="the mock appends 'unix time, requests in flight' here every 50 ms")
    parser.add_argument("--profile", type=Path, default=None,
                        help="write cProfiles of every thread of each timed stage here (slows it)")
    args = parser.parse_args()

    corpus = args.work / "corpus"
    if not corpus.exists():
        write_corpus(corpus, args.personalities, seed=7)
    env = {**os.environ, "PYTHONPATH": f"{HERE}:{REPO}", "INTERVIEWSIM_PROGRESS": "0",
           "BENCH_KEY": "sk-bench"}
    with separate_process("--latency", str(args.latency), "--lifetime", "3600",
                          "--responder", "bench_stage_throughput:respond",
                          *(["--trace", str(args.trace)] if args.trace else []),
                          env=env) as (base_url, mock):
        root = args.work / f"ws-{args.personalities}-{args.heldout}"
        root.mkdir(parents=True, exist_ok=True)
        model = {"provider": "mock", "model": "mock-model", "max_tokens": 64}
        params = {
            "data": {"personalities": str(corpus), "max_heldout_pairs": args.heldout},
            "strategies": STRATEGIES,
            "providers": {"mock": {"kind": "openai", "base_url": base_url,
                                   "api_key_env": "BENCH_KEY", "timeout_s": 30,
                                   "max_concurrency": args.concurrency,
                                   "processes": args.processes}},
            "models": {"generator": model, "judges": [{"name": "j1", **model}],
                       "mcq_builder": model, "mcq_answerers": [{"name": "a1", **model}]},
            "judge": {"ps_runs": args.ps_runs},
            "interview": {"strategies": []},
        }
        (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
        cache = root / "data" / "cache" / "responses.sqlite"
        for stale in cache.parent.glob("responses.sqlite*"):
            stale.unlink()
        for stage in ("prepare", "select-context", "fact-summary"):
            if stage in args.stages:
                continue
            run(root, stage, env)
        print("| stage | requests | wall s | ideal s | % of ideal | requests/s | "
              "stage CPU per request | mock CPU per request |\n"
              "| --- | --- | --- | --- | --- | --- | --- | --- |")
        for stage in args.stages:
            mock_cpu = cpu_seconds(mock.pid)
            print(f"# {stage} starts at {time.time():.3f}", flush=True)
            wall, cpu = run(root, stage, env, args.profile)
            mock_cpu = cpu_seconds(mock.pid) - mock_cpu
            folder = {"generate": "generated", "judge": "judged",
                      "fact-summary": "fact_summary"}[stage]
            usage = json.loads((root / "data" / "artifacts" / folder / "summary.json")
                               .read_text())["usage"]
            requests = sum(u.get("calls", 0) for u in usage.values())
            ideal = requests * args.latency / args.concurrency
            print(f"| {stage} | {requests} | {wall:.2f} | {ideal:.2f} | "
                  f"{100 * ideal / wall:.1f}% | {requests / wall:.0f} | "
                  f"{1000 * cpu / max(requests, 1):.2f} ms | "
                  f"{1000 * mock_cpu / max(requests, 1):.2f} ms |", flush=True)


if __name__ == "__main__":
    main()
