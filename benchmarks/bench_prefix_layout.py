"""Prefix-stable generation prompts against a question-first layout, on the embedded model.

    python benchmarks/bench_prefix_layout.py [--personality ada-okonkwo] [--pairs 8]

For one sample personality and the chronological strategy, builds the generation prompt of
every held-out question twice: with the project's layout (context first, question last) and
with the question moved before the context. Both are tokenized with the model's own chat
template; llama.cpp re-evaluates only what follows the longest prefix shared with the previous
prompt, so "evaluated" = tokens after that shared prefix. Then both are run through the seam
(no cache) and timed in the same process.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from interviewsim.config.params import parse_params
from interviewsim.context.strategies import select_context
from interviewsim.data.corpus import iter_personalities
from interviewsim.data.prepare import prepare_corpus
from interviewsim.generation.prompt import generation_messages
from interviewsim.llm import ModelHub
from interviewsim.llm.llama_cpp_provider import LlamaCppProvider
from interviewsim.llm.types import Message

REPO = Path(__file__).resolve().parents[1]


def question_first(messages: list[Message]) -> list[Message]:
    """The same content with the new question moved before the context."""
    user = messages[-1].content
    head, _, question = user.rpartition("New question: ")
    question_line, _, tail = question.partition("\n")
    first_line, _, rest = head.partition("\n")
    moved = f"{first_line}\nNew question: {question_line}\n{rest}{tail}"
    return [*messages[:-1], Message(role="user", content=moved)]


def shared_prefix(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--personality", default="ada-okonkwo")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        params = parse_params({
            "data": {"personalities": str(REPO / "data/personalities")},
            "context": {"chronological_pairs": args.pairs, "max_context_tokens": 4000},
            "cache": {"path": f"{tmp}/c.sqlite", "embeddings_dir": f"{tmp}/e"},
            "models": {"generator": {"provider": "local", "model": "smollm2-135m-instruct",
                                     "max_tokens": args.max_tokens}},
        })
        prepare_corpus(params.data.personalities, f"{tmp}/prepared", 0.2)
        person = next(p for p in iter_personalities(f"{tmp}/prepared")
                      if p.personality_id == args.personality)
        pairs = person.train_by_id()
        stable = []
        for pair in person.heldout:
            selection = select_context("chronological", person, [pair.question],
                                       params.context, params.seed)
            stable.append(generation_messages(person.personality_id, pair.question,
                                              selection, pairs))
        layouts = {"context first (project)": stable,
                   "question first": [question_first(m) for m in stable]}
        hub = ModelHub(params.hub)
        client = hub.client(params.models.generator, label="bench")
        provider = hub.provider("local")
        assert isinstance(provider, LlamaCppProvider)
        loaded = provider.model()
        print(f"{person.personality_id}: {len(stable)} held-out questions, "
              f"{args.pairs} chronological pairs")
        print("| layout | prompt tokens | evaluated | wall s |")
        print("| --- | --- | --- | --- |")
        for name, prompts in layouts.items():
            requests = [client.request(m) for m in prompts]
            tokens = [loaded.prompt_tokens(r)[0] for r in requests]
            evaluated = tokens[0].__len__() + sum(
                len(cur) - shared_prefix(prev, cur) for prev, cur in zip(tokens, tokens[1:],
                                                                        strict=False))
            loaded.llama.reset()
            start = time.perf_counter()
            client.complete_many(requests, desc=name)
            wall = time.perf_counter() - start
            print(f"| {name} | {sum(map(len, tokens))} | {evaluated} | {wall:.1f} |")
        hub.close()


if __name__ == "__main__":
    os.environ.setdefault("INTERVIEWSIM_PROGRESS", "0")
    sys.exit(main())
