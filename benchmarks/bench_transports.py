"""The two transports of an ``openai`` provider: % of ideal throughput and client CPU.

    python benchmarks/bench_transports.py                      # 0.5 s and 2 s; 32, 128, 256
    python benchmarks/bench_transports.py --latency 0.5 --concurrency 256 --rounds 3

For each latency of the mock endpoint (its own process, ``tests/mock_openai.py``) and each
concurrency, both transports (``openai-sdk``, the default, and ``http1``) answer
``--waves`` × concurrency chat requests through ``ModelClient.complete_many`` with
``max_concurrency`` = the concurrency and a fresh response cache, after one warm-up request.
% of ideal is the request rate against concurrency / latency; client CPU is this process's CPU
time (every thread: the hub's loop and the caller) per 1,000 requests, connection setup
included. Transports alternate within a round. Prints the markdown table that
benchmarks/README.md records.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("INTERVIEWSIM_PROGRESS", "0")

from interviewsim.config.params import parse_params  # noqa: E402
from interviewsim.config.settings import ModelSettings  # noqa: E402
from interviewsim.llm import ModelHub  # noqa: E402
from tests.mock_openai import separate_process  # noqa: E402

TRANSPORTS = ("openai-sdk", "http1")
KEY_ENV = "BENCH_TRANSPORT_KEY"


def one_run(base_url: str, transport: str, concurrency: int, count: int,
            tag: str) -> tuple[float, float]:
    """Wall seconds and process CPU seconds of ``count`` fresh requests."""
    with tempfile.TemporaryDirectory() as tmp:
        params = parse_params({"cache": {"path": str(Path(tmp) / "c.sqlite")}, "providers": {
            "local": {"kind": "llama_cpp"},
            "api": {"kind": "openai", "base_url": base_url, "api_key_env": KEY_ENV,
                    "max_concurrency": concurrency, "transport": transport,
                    "timeout_s": 60, "max_attempts": 1}}})
        with ModelHub(params.hub) as hub:
            client = hub.client(ModelSettings(provider="api", model="mock"))
            client.complete_many([client.request([{"role": "user", "content": "warm-up"}])])
            context = "An earlier answer from the interview, for context. " * 40  # ~2 KB
            requests = [client.request([{"role": "user", "content": f"{context} {tag} q{i}?"}])
                        for i in range(count)]
            start, cpu = time.perf_counter(), time.process_time()
            results = client.complete_many(requests)
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            assert len(results) == count and not any(r.cached for r in results)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, nargs="+", default=[0.5, 2.0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[32, 128, 256])
    parser.add_argument("--waves", type=int, default=2, help="requests = waves x concurrency")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    os.environ[KEY_ENV] = "sk-bench"
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} CPUs", flush=True)
    print("| latency | concurrency | transport | requests | wall s | % of ideal "
          "| client CPU s per 1,000 requests |\n| --- | --- | --- | --- | --- | --- | --- |",
          flush=True)
    for latency in args.latency:
        with separate_process("--latency", str(latency), "--lifetime", "3600") as (url, _):
            for concurrency in args.concurrency:
                count = args.waves * concurrency
                for number in range(args.rounds):
                    for transport in TRANSPORTS:
                        tag = f"{latency}-{concurrency}-{number}-{transport}"
                        wall, cpu = one_run(url, transport, concurrency, count, tag)
                        ideal = concurrency / latency
                        print(f"| {latency:g} s | {concurrency} | {transport} | {count} | "
                              f"{wall:.2f} | {100 * count / wall / ideal:.1f}% | "
                              f"{1000 * cpu / count:.2f} |", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
