"""Throughput and overhead of the model seam.

    python benchmarks/llm_throughput.py                  # everything (minutes on 2 cores)
    python benchmarks/llm_throughput.py --only http cache

1. Requests/s through ``ModelClient.complete_many`` against the mock OpenAI server (in its own
   process, fixed 100 ms latency) at concurrency 1, 8, 32, 128, against the ideal
   concurrency / latency.
2. Median overhead of a cache hit (one-request batches, and per request in a 1,000-hit batch),
   and the per-text embedding cache (hashed tf, 5,000 texts).
3. Embedded SmolLM2 generation tokens/s through the seam against raw llama-cpp-python
   ``create_chat_completion`` on the same loaded model, alternating, same prompts.
4. Prompt evaluation of a prompt sharing a ~1,500-token prefix with the previous one, with the
   prefix cache (KV reuse) and without; and, for interleaved prompts, with ``LlamaRAMCache``.

Prints markdown tables that benchmarks/README.md records.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("INTERVIEWSIM_PROGRESS", "0")

from interviewsim.config.params import Params, parse_params  # noqa: E402
from interviewsim.config.settings import ModelSettings  # noqa: E402
from interviewsim.llm import ModelHub  # noqa: E402
from interviewsim.llm.scripted import ScriptedProvider  # noqa: E402
from tests.mock_openai import separate_process  # noqa: E402

LATENCY_S = 0.1
SECTIONS = ["http", "cache", "embed", "model", "prefix"]


def params_for(cache: Path, providers: dict) -> Params:
    return parse_params({"cache": {"path": str(cache)},
                         "providers": {"local": {"kind": "llama_cpp"}, **providers}})


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def http_throughput(levels: list[int], seconds: float) -> None:
    os.environ["BENCH_KEY"] = "sk-bench"
    with separate_process("--latency", str(LATENCY_S), "--lifetime", "600") as (base_url, _):
        print("| concurrency | requests | wall s | requests/s | ideal | % of ideal "
              "| client CPU per request |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for level in levels:
            count = max(10, int(level * seconds / LATENCY_S))
            with tempfile.TemporaryDirectory() as tmp:
                params = params_for(Path(tmp) / "c.sqlite", {"api": {
                    "kind": "openai", "base_url": base_url, "api_key_env": "BENCH_KEY",
                    "max_concurrency": level}})
                with ModelHub(params.hub) as hub:
                    client = hub.client(ModelSettings(provider="api", model="mock"))
                    client.complete_many([client.request(user("warm-up"))])
                    requests = [client.request(user(f"q{level}-{i}")) for i in range(count)]
                    start, cpu = time.perf_counter(), time.process_time()
                    client.complete_many(requests)
                    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            rate, ideal = count / wall, level / LATENCY_S
            print(f"| {level} | {count} | {wall:.2f} | {rate:.1f} | {ideal:.0f} | "
                  f"{100 * rate / ideal:.1f}% | {1000 * cpu / count:.2f} ms |")
        level = levels[-1]
        count = max(10, int(level * seconds / LATENCY_S))
        wall, cpu = asyncio.run(raw_openai(base_url, level, count))
        rate, ideal = count / wall, level / LATENCY_S
        print(f"| {level}, raw AsyncOpenAI (no seam) | {count} | {wall:.2f} | {rate:.1f} | "
              f"{ideal:.0f} | {100 * rate / ideal:.1f}% | {1000 * cpu / count:.2f} ms |")


async def raw_openai(base_url: str, level: int, count: int) -> tuple[float, float]:
    """The same requests straight through the openai client on its default httpx pool (the
    seam's default ``openai-sdk`` transport), with no cache, retries or accounting: what the
    seam's own overhead is measured against."""
    import openai

    client = openai.AsyncOpenAI(api_key="sk-bench", base_url=base_url, max_retries=0)
    limit = asyncio.Semaphore(level)

    async def one(i: int) -> object:
        async with limit:
            body = {"model": "mock", "messages": user(f"raw{level}-{i}"), "max_tokens": 256}
            return await client.post("/chat/completions", cast_to=object, body=body)

    await one(-1)
    start, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(i) for i in range(count)))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    await client.close()
    return wall, cpu


def cache_hit_overhead(count: int = 1000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        params = params_for(Path(tmp) / "c.sqlite", {})
        provider = ScriptedProvider(lambda request: "an answer of ordinary length " * 4)
        with ModelHub(params.hub, provider_overrides={"local": provider}) as hub:
            client = hub.client(ModelSettings(provider="local", model="scripted"))
            context = "Earlier interview excerpts. " * 200  # a realistic ~1,400-token prompt
            requests = [client.request(user(f"{context} Question {i}?")) for i in range(count)]
            client.complete_many(requests)
            singles = []
            for request in requests:
                start = time.perf_counter()
                client.complete_many([request])
                singles.append(time.perf_counter() - start)
            start = time.perf_counter()
            client.complete_many(requests)
            batch = (time.perf_counter() - start) / count
            assert len(provider.calls) == count
    print("| measure | median |")
    print("| --- | --- |")
    print(f"| cache hit, one-request batch ({count} runs) | "
          f"{1000 * statistics.median(singles):.3f} ms |")
    print(f"| cache hit, per request in a {count}-request batch | {1000 * batch:.3f} ms |")


def embedding_cache(count: int = 5000) -> None:
    import random

    from interviewsim.config.settings import EmbedderSettings
    from interviewsim.context.embeddings import build_embedder

    generator = random.Random(0)
    words = [f"word{i}" for i in range(3000)]
    texts = [" ".join(generator.choices(words, k=60)) for _ in range(count)]
    with tempfile.TemporaryDirectory() as tmp:
        embedder = build_embedder(EmbedderSettings(), cache_dir=tmp)
        timings = []
        for _ in range(2):
            start = time.perf_counter()
            embedder.embed(texts)
            timings.append(time.perf_counter() - start)
        size = sum(f.stat().st_size for f in Path(tmp).iterdir()) / 2**20
        embedder.close()
    print(f"| tfidf, {count} texts of 60 words | first (compute + store) | cached | cache size |")
    print("| --- | --- | --- | --- |")
    print(f"| wall | {timings[0]:.2f} s | {timings[1]:.2f} s | {size:.1f} MiB |")


def model_throughput(rounds: int, max_tokens: int) -> None:
    from interviewsim.llm.llama_cpp_provider import LlamaCppProvider

    with tempfile.TemporaryDirectory() as tmp:
        params = params_for(Path(tmp) / "c.sqlite", {})
        with ModelHub(params.hub) as hub:
            client = hub.client(ModelSettings(provider="local", model="smollm2-135m-instruct"))
            provider = client.provider
            assert isinstance(provider, LlamaCppProvider)
            llama = provider.model().llama
            seam, raw = [], []
            for i in range(rounds):
                for path in ("raw", "seam"):
                    messages = user(f"Story {path} {i}: write a long story about a lighthouse.")
                    llama.reset()
                    start = time.perf_counter()
                    if path == "raw":
                        out = llama.create_chat_completion(messages=messages, temperature=0.0,
                                                           max_tokens=max_tokens, seed=0)
                        tokens = out["usage"]["completion_tokens"]
                    else:
                        request = client.request(messages, max_tokens=max_tokens)
                        tokens = client.complete_many([request])[0].usage.completion_tokens
                    (raw if path == "raw" else seam).append(tokens / (time.perf_counter() - start))
    seam_rate, raw_rate = statistics.median(seam), statistics.median(raw)
    print(f"| path | completion tokens/s (median of {rounds}) |")
    print("| --- | --- |")
    print(f"| raw llama-cpp-python create_chat_completion | {raw_rate:.1f} |")
    print(f"| through the seam (ModelClient.complete_many) | {seam_rate:.1f} "
          f"({100 * seam_rate / raw_rate:.0f}% of raw) |")


def prefix_cache_effect(rounds: int) -> None:
    from llama_cpp import LlamaRAMCache

    shared = " ".join(f"In interview {i} I said the harbour mattered to me." for i in range(120))
    other = " ".join(f"On tour {i} we played the old songs again for the fans." for i in range(120))
    llama_cpp = {"kind": "llama_cpp", "n_ctx": 4096}
    with tempfile.TemporaryDirectory() as tmp:
        params = params_for(Path(tmp) / "c.sqlite", {
            "on": {**llama_cpp, "prefix_cache": True}, "off": {**llama_cpp, "prefix_cache": False}})
        with ModelHub(params.hub) as hub:
            clients = {name: hub.client(ModelSettings(provider=name, model="smollm2", max_tokens=1))
                       for name in ("on", "off")}

            def timed(name: str, text: str) -> tuple[float, int]:
                client = clients[name]
                start = time.perf_counter()
                [result] = client.complete_many([client.request(user(text))])
                return time.perf_counter() - start, result.usage.prompt_tokens

            timed("on", f"{shared}\nWarm-up question?")
            on = [timed("on", f"{shared}\nQuestion {i}?") for i in range(rounds)]
            off = [timed("off", f"{shared}\nAnother question {i}?") for i in range(rounds)]
            # Interleaved prefixes defeat the one-slot KV reuse; LlamaRAMCache keeps a saved
            # state per prompt and restores the longest matching one (raw API: not in the seam).
            llama = clients["on"].provider.model().llama
            llama.set_cache(LlamaRAMCache(capacity_bytes=2 << 30))
            ram = []
            for i in range(rounds + 1):
                for prefix in (shared, other):
                    start = time.perf_counter()
                    llama.create_chat_completion(messages=user(f"{prefix}\nQuestion {i}?"),
                                                 max_tokens=1, temperature=0.0)
                    if i:
                        ram.append(time.perf_counter() - start)
            llama.set_cache(None)
    print("raw seconds:", [round(t, 3) for t, _ in on], [round(t, 3) for t, _ in off],
          [round(t, 3) for t in ram])
    tokens = on[0][1]
    print("| scenario | prompt tokens | prompt eval + 1 token, median |")
    print("| --- | --- | --- |")
    rows = [("consecutive, shared prefix, prefix cache on", statistics.median(t for t, _ in on)),
            ("prefix cache off (full evaluation; also any interleaved order)",
             statistics.median(t for t, _ in off)),
            ("interleaved two prefixes, raw llama + LlamaRAMCache", statistics.median(ram))]
    for label, seconds in rows:
        print(f"| {label} | {tokens} | {1000 * seconds:.0f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 8, 32, 128])
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="ideal duration of each concurrency level")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=SECTIONS)
    args = parser.parse_args()
    if "http" in args.only:
        print(f"### HTTP throughput (mock endpoint, {int(LATENCY_S * 1000)} ms latency)\n")
        http_throughput(args.levels, args.seconds)
    if "cache" in args.only:
        print("\n### Cache-hit overhead\n")
        cache_hit_overhead()
    if "embed" in args.only:
        print("\n### Embedding cache\n")
        embedding_cache()
    if "model" in args.only:
        print("\n### Embedded model throughput\n")
        model_throughput(args.rounds, args.max_tokens)
    if "prefix" in args.only:
        print("\n### Prefix cache (1,500-token shared prefix)\n")
        prefix_cache_effect(args.rounds)


if __name__ == "__main__":
    main()
