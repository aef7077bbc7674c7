"""Tokens per second of the installed llama.cpp runtime with the embedded model.

Prompt evaluation (a ~500-token prompt from an empty KV cache) and generation (128 tokens,
greedy, no grammar), on ``--threads`` threads, median of ``--repeats`` runs. Used to choose
the portable build of tools/install-llama-runtime.sh (benchmarks/README.md "Runtime build"):
extract each candidate wheel into its own folder and run this with PYTHONPATH pointing there.

    PYTHONPATH=/tmp/x-avx2 python benchmarks/bench_runtime_build.py --threads 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import llama_cpp

from interviewsim.llm.gguf import resolve_model_path

PROMPT = " ".join(
    f"In interview {i} the speaker described how the workshop changed after the flood, "
    f"which tools they kept, and why the apprentices stayed for {i + 2} more years."
    for i in range(16)
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    path = resolve_model_path("smollm2-135m-instruct", "bench")
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=2048, n_threads=args.threads,
                          verbose=False)
    tokens = llm.tokenize(PROMPT.encode())
    prompt_rates, gen_rates = [], []
    for _ in range(args.repeats):
        llm.reset()
        start = time.perf_counter()
        llm.eval(tokens)
        prompt_rates.append(len(tokens) / (time.perf_counter() - start))
        start = time.perf_counter()
        out = llm.create_completion(tokens, max_tokens=128, temperature=0.0)
        # the prompt is already in the KV cache: this is (almost) generation only
        generated = out["usage"]["completion_tokens"]
        gen_rates.append(generated / (time.perf_counter() - start))
    info = llama_cpp.llama_print_system_info().decode().strip()
    print(f"system info: {info}")
    print(f"prompt: {len(tokens)} tokens, {statistics.median(prompt_rates):.0f} tok/s; "
          f"generation: {statistics.median(gen_rates):.0f} tok/s "
          f"(median of {args.repeats}, {args.threads} threads, load {os.getloadavg()[0]:.2f})")
    llm.close()


if __name__ == "__main__":
    main()
