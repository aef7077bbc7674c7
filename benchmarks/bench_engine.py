"""The embedded engine at its limits: parallel sequences, grammar cost, busy machines.

    python benchmarks/bench_engine.py                       # everything (about 10 min, 2 cores)
    python benchmarks/bench_engine.py --only parallel busy

1. ``parallel``: aggregate prompt-evaluation and generation tokens/s of the engine
   (interviewsim/llm/llama_engine.py) at 1, 2, 4, 8 sequences decoded together, on the same
   distinct prompts (no prefix shared beyond the chat header), greedy, unconstrained.
2. ``grammar``: JSON-schema-constrained generation tokens/s: llama.cpp's own grammar sampler
   as the engine drives it (sample first, check only that token) against llama-cpp-python's
   ``create_completion(grammar=...)``, which constrains the whole vocabulary at every step.
3. ``busy``: generation tokens/s at 4 sequences with 0, 1 and 2 busy processes beside it (a
   pure-Python spin loop each), at 1 and 2 threads and with the engine's default thread policy;
   the load average is recorded with each row.
4. ``cpu``: the CPU features, and the kernels llama.cpp's system info says this build uses.
5. ``attention``: llama.cpp's flash attention on and off, 8 distinct requests decoded together
   at three prompt lengths: prompt evaluation ms/token and the decode-only step (one token of
   each sequence) in ms, from the engine's own totals (``BatchEngine.stats``).

Run inside the project's virtualenv. Prints the markdown tables benchmarks/README.md records.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interviewsim.config.settings import LlamaCppProviderSettings  # noqa: E402
from interviewsim.llm.llama_cpp_provider import (  # noqa: E402
    LlamaCppProvider,
    _close_models,
    grammar_text,
)
from interviewsim.llm.types import ChatRequest, Message, OutputConstraint  # noqa: E402

SECTIONS = ["parallel", "grammar", "busy", "cpu", "threads", "attention"]
TOPICS = ["beekeeping", "tidal power", "bookbinding", "glacier retreat", "sourdough",
          "railway signalling", "moss gardens", "violin making", "desert fog nets",
          "lighthouse keepers", "paper maps", "urban foxes", "salt marshes", "kite design",
          "clock repair", "night markets"]
SCHEMA = {"type": "object", "properties": {
    "label": {"type": "string", "enum": ["entailment", "neutral", "contradiction"]},
    "reason": {"type": "string", "maxLength": 160}}, "required": ["label", "reason"]}


def request(i: int, max_tokens: int, constrained: bool = False, short: bool = False
            ) -> ChatRequest:
    """A ~250-token prompt (``short``: ~30 tokens, so generation dominates)."""
    topic = TOPICS[i % len(TOPICS)]
    text = f"Here are some notes on {topic}, number {i}. " + ("" if short else (
        f"Point {i}: {topic} matters because people who care about it notice small changes "
        "over years. ") * 12)
    if constrained:
        text += f" Does the note support the claim that {topic} is unimportant? Answer in JSON."
    else:
        text += f" Write a long, detailed paragraph about {topic}."
    return ChatRequest(messages=(Message(role="user", content=text),), max_tokens=max_tokens,
                       temperature=0.0, seed=7,
                       constraint=OutputConstraint(kind="json_schema", json_schema=SCHEMA)
                       if constrained else None)


def provider(parallel: int, threads: int | None = None, prefix: bool = False,
             flash_attention: bool = False) -> LlamaCppProvider:
    """``threads`` None: the default (2, adapted to the free cores); a number: fixed."""
    settings = {"kind": "llama_cpp", "parallel": parallel, "kv_slots": 1,
                "prefix_cache": prefix, "adapt_threads": threads is None,
                "flash_attention": flash_attention}
    if threads is not None:
        settings["n_threads"] = threads
    return LlamaCppProvider(LlamaCppProviderSettings.model_validate(settings), "local",
                            tempfile.mkdtemp())


def run_all(model: LlamaCppProvider, requests: list[ChatRequest]) -> tuple[float, int, int]:
    """Wall seconds, prompt tokens and generated tokens for ``requests`` sent all at once."""

    async def go() -> list:
        return await asyncio.gather(*[model.complete("m", r) for r in requests])

    start = time.perf_counter()
    results = asyncio.run(go())
    wall = time.perf_counter() - start
    return (wall, sum(r.usage.prompt_tokens for r in results),
            sum(r.usage.completion_tokens for r in results))


def parallel_table(levels: list[int], count: int) -> None:
    print("| sequences | requests | prompt tok/s (~250-token prompts, 1 token generated) | "
          "generated tok. (~30-token prompts) | wall s | aggregate generated tok/s | "
          "vs 1 sequence |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    base = None
    for level in levels:
        model = provider(level)
        model.model()  # load outside the timing
        run_all(model, [request(99, 4)])
        wall_p, prompt, _ = run_all(model, [request(i + 100, 1) for i in range(count)])
        wall, _, generated = run_all(model, [request(i, 96, short=True) for i in range(count)])
        rate = generated / wall
        base = base or rate
        print(f"| {level} | {count} | {prompt / wall_p:.0f} | {generated} | {wall:.1f} | "
              f"{rate:.1f} | {rate / base:.2f}× |", flush=True)
        _close_models()


def grammar_table(count: int) -> None:
    from llama_cpp import Llama, LlamaGrammar

    model = provider(1)
    model.model()
    requests = [request(i, 48, constrained=True, short=True) for i in range(count)]
    run_all(model, requests[:1])
    wall, _, generated = run_all(model, requests)
    print("| constrained decoding (JSON schema, greedy, 1 sequence) | generated tok. | s | "
          "tok/s |")
    print("|---|---:|---:|---:|")
    print(f"| engine: llama.cpp grammar sampler, checking the sampled token first | "
          f"{generated} | {wall:.1f} | {generated / wall:.1f} |", flush=True)
    free_wall, _, free_generated = run_all(model, [request(i, 48, short=True)
                                                   for i in range(count)])
    print(f"| engine: the same prompts unconstrained | {free_generated} | {free_wall:.1f} | "
          f"{free_generated / free_wall:.1f} |", flush=True)
    _close_models()
    llama = Llama(model_path=str(model.path), n_ctx=4096, n_threads=model.settings.n_threads,
                  verbose=False)
    grammar = LlamaGrammar.from_string(grammar_text(requests[0].constraint), verbose=False)
    start, generated = time.perf_counter(), 0
    for r in requests:
        out = llama.create_chat_completion(
            messages=[{"role": m.role, "content": m.content} for m in r.messages],
            max_tokens=r.max_tokens, temperature=0.0, grammar=grammar)
        generated += out["usage"]["completion_tokens"]
    wall = time.perf_counter() - start
    print(f"| llama-cpp-python create_chat_completion(grammar=...), whole vocabulary each "
          f"step | {generated} | {wall:.1f} | {generated / wall:.1f} |", flush=True)
    llama.close()


def _spin() -> None:
    while True:
        pass


def busy_table(count: int) -> None:
    print("| busy processes beside it | threads | load average (1 min) | generated tok. | s | "
          "aggregate tok/s |")
    print("|---:|---|---:|---:|---:|---:|")
    for busy in (0, 1, 2):
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(busy)]
        for spinner in spinners:
            spinner.start()
        time.sleep(15 if busy else 0)  # let the load average see them
        for threads in (1, 2, None):
            model = provider(4, threads)
            model.model()
            run_all(model, [request(98, 4)])
            wall, _, generated = run_all(model, [request(i, 64) for i in range(count)])
            used = model.model().engine.threads
            label = str(threads) if threads else f"adaptive (2 at most; {used} at the end)"
            print(f"| {busy} | {label} | {os.getloadavg()[0]:.2f} | {generated} | {wall:.1f} | "
                  f"{generated / wall:.1f} |", flush=True)
            _close_models()
        for spinner in spinners:
            spinner.terminate()


def thread_invariance(steps: int = 8) -> None:
    """Are the logits of successive greedy steps bit-identical at 1, 2 and 3 threads?"""
    import llama_cpp as api
    import numpy as np
    from llama_cpp import Llama

    llama = Llama(model_path=str(provider(1).path), n_ctx=64, n_threads=1, verbose=False)
    prompt = llama.tokenize(b"The lighthouse keeper wrote letters every winter. " * 8)
    n_vocab = api.llama_vocab_n_tokens(llama._model.vocab)

    def run(threads: int) -> list:
        params = api.llama_context_default_params()
        params.n_ctx, params.n_batch, params.n_ubatch = 2048, 512, 512
        params.n_threads = params.n_threads_batch = threads
        ctx = api.llama_init_from_model(llama._model.model, params)
        batch, seq, out = api.llama_batch_init(512, 0, 1), list(prompt), []
        for step in range(steps):
            chunk, start = (seq, 0) if step == 0 else (seq[-1:], len(seq) - 1)
            for i, token in enumerate(chunk):
                batch.token[i], batch.pos[i], batch.n_seq_id[i] = token, start + i, 1
                batch.seq_id[i][0], batch.logits[i] = 0, i == len(chunk) - 1
            batch.n_tokens = len(chunk)
            assert api.llama_decode(ctx, batch) == 0
            logits = np.ctypeslib.as_array(api.llama_get_logits_ith(ctx, len(chunk) - 1),
                                           shape=(n_vocab,)).copy()
            out.append(logits)
            seq.append(int(logits.argmax()))
        api.llama_batch_free(batch)
        api.llama_free(ctx)
        return out

    one = run(1)
    for threads in (2, 3):
        same = all(np.array_equal(a, b) for a, b in zip(one, run(threads), strict=True))
        print(f"logits of {steps} greedy steps at 1 and {threads} threads bit-identical: {same}")
    llama.close()


def cpu_report() -> None:
    import llama_cpp

    flags = set()
    with open("/proc/cpuinfo", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(("flags", "Features")):
                flags = set(line.split(":", 1)[1].split())
                break
    wanted = ["avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16",
              "amx_tile", "amx_int8", "avx_vnni"]
    print("CPU features:", " ".join(f for f in wanted if f in flags))
    print("llama.cpp system info:", llama_cpp.llama_print_system_info().decode().strip())


def attention_table(lengths: tuple[int, ...] = (30, 600, 1500), count: int = 8) -> None:
    print("| flash attention | prompt tok. each | prompt ms/token | decode-only step ms "
          f"({count} sequences) | ms per sequence-token |")
    print("|---|---:|---:|---:|---:|")
    for length in lengths:
        for flash in (True, False):
            model = provider(count, threads=2, flash_attention=flash)
            engine = model.model().engine
            words = " ".join(f"word{j % 97} is item {j}." for j in range(length // 6))
            requests = [ChatRequest(messages=(Message(role="user", content=(
                f"Note {i}. {words} Write a long story about {TOPICS[i % len(TOPICS)]}.")),),
                max_tokens=40, temperature=0.0, seed=7) for i in range(count)]
            _, prompt, _ = run_all(model, requests)
            stats = engine.stats
            steps = stats["steps"] - stats["prefill_steps"]
            seconds = stats["decode_s"] - stats["prefill_s"]
            print(f"| {'on' if flash else 'off'} | {prompt // count} | "
                  f"{1000 * stats['prefill_s'] / max(1, stats['prompt_tokens']):.2f} | "
                  f"{1000 * seconds / max(1, steps):.1f} | "
                  f"{1000 * seconds / max(1, steps) / count:.1f} |",
                  flush=True)
            _close_models()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=SECTIONS, default=SECTIONS)
    parser.add_argument("--levels", type=int, nargs="*", default=[1, 2, 4, 8])
    parser.add_argument("--count", type=int, default=16, help="requests per measurement")
    args = parser.parse_args()
    print(json.dumps({"cores": os.cpu_count(), "load_average": os.getloadavg()}))
    if "cpu" in args.only:
        cpu_report()
    if "parallel" in args.only:
        parallel_table(args.levels, args.count)
    if "grammar" in args.only:
        grammar_table(max(4, args.count // 2))
    if "threads" in args.only:
        thread_invariance()
    if "busy" in args.only:
        busy_table(args.count // 2)
    if "attention" in args.only:
        attention_table()


if __name__ == "__main__":
    main()
