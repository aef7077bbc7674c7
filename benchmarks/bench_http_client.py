"""Client CPU per request of bare JSON POSTs: aiohttp against the seam's Http1Pool.

    python benchmarks/bench_http_client.py --requests 4000 --concurrency 128

Both clients send the same ~3 KB chat body to the mock endpoint (its own process, 200 ms
latency) with ``concurrency`` requests in flight and decode each JSON answer; the figure is
this process's CPU time divided by the requests (connection setup included). Runs alternate,
``--rounds`` each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from interviewsim.llm.http1 import Http1Pool  # noqa: E402
from tests.mock_openai import separate_process  # noqa: E402

HEADERS = {"Authorization": "Bearer bench", "Content-Type": "application/json"}


async def with_aiohttp(url: str, body: bytes, requests: int, concurrency: int) -> None:
    import aiohttp

    limit = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                     headers=HEADERS) as session:
        async def one() -> None:
            async with limit, session.post(url + "/chat/completions", data=body) as reply:
                json.loads(await reply.read())

        await asyncio.gather(*(one() for _ in range(requests)))


async def with_http1(url: str, body: bytes, requests: int, concurrency: int) -> None:
    limit = asyncio.Semaphore(concurrency)
    pool = Http1Pool(url, HEADERS, timeout_s=30)

    async def one() -> None:
        async with limit:
            json.loads((await pool.post("/chat/completions", body)).body)

    await asyncio.gather(*(one() for _ in range(requests)))
    await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with separate_process("--latency", "0.2") as (url, _):
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 3000}]}
                          ).encode()
        print("| client | requests | requests/s | client CPU per request |\n"
              "| --- | --- | --- | --- |")
        for _ in range(args.rounds):
            for name, run in (("aiohttp", with_aiohttp), ("Http1Pool", with_http1)):
                wall, cpu = time.perf_counter(), time.process_time()
                asyncio.run(run(url, body, args.requests, args.concurrency))
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                print(f"| {name} | {args.requests} | {args.requests / wall:.0f} | "
                      f"{1000 * cpu / args.requests:.3f} ms |", flush=True)

if __name__ == "__main__":
    main()
