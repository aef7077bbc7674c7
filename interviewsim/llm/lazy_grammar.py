"""Grammar-constrained decoding that checks the likely tokens first, with the same result.

llama.cpp's grammar sampler tests every token of the vocabulary (49,152 for SmolLM2) against
the grammar at every step, and most of what the judges, the MCQ stages and the interview agent
generate is constrained (benchmarks/README.md "Cold run"). Yet the sampler only ever keeps the
highest logits: greedy decoding takes the best grammar-valid token, and llama-cpp-python's
sampling chain keeps the ``top_k`` best valid tokens before top-p, min-p and temperature. So
this logits processor first tests the 64 likeliest tokens; when they hold that many valid ones
with nothing untested that could tie or beat them, it masks every other token, else it tests
the whole vocabulary as llama.cpp would. The chain that follows sees exactly the candidates it
would have kept after full masking, in the same order, and draws the same token with the same
seed (tests/test_llm_llama_cpp.py compares both paths token for token).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

_FIRST_CHUNK = 64


class LazyGrammar:
    """A ``logits_processor`` for ``Llama.create_completion`` (pass ``grammar=None``).

    ``keep`` is how many valid tokens the sampler after it may look at: 1 for greedy decoding,
    ``top_k`` for sampling. It accepts each generated token into its grammar state itself, on
    the next call, from the evaluated tokens it is given.
    """

    def __init__(self, llama: Any, grammar: str, keep: int):
        import llama_cpp

        self._api = llama_cpp
        self._keep = keep
        self._sampler = llama_cpp.llama_sampler_init_grammar(
            llama._model.vocab, grammar.encode("utf-8"), b"root")
        if not self._sampler:
            raise ValueError("llama.cpp could not parse the grammar")
        self._prompt_length: int | None = None
        self._accepted = 0

    def close(self) -> None:
        if self._sampler:
            self._api.llama_sampler_free(self._sampler)
            self._sampler = None

    def _valid(self, ids: np.ndarray, logits: np.ndarray) -> np.ndarray:
        """Which of these token ids the grammar accepts next (a boolean mask)."""
        data = (self._api.llama_token_data * len(ids))()
        view = np.frombuffer(data, dtype=np.dtype(
            [("id", np.intc), ("logit", np.single), ("p", np.single)], align=True))
        view["id"] = ids
        view["logit"] = logits
        array = self._api.llama_token_data_array(data, len(ids), -1, False)
        self._api.llama_sampler_apply(self._sampler, ctypes.byref(array))
        return np.isfinite(view["logit"])

    def __call__(self, input_ids: np.ndarray, scores: np.ndarray) -> np.ndarray:
        if self._prompt_length is None:
            self._prompt_length = len(input_ids)
        for token in input_ids[self._prompt_length + self._accepted:]:
            self._api.llama_sampler_accept(self._sampler, int(token))
            self._accepted += 1
        size = len(scores)
        chunk = min(_FIRST_CHUNK, size)
        while True:
            if chunk < size:
                top = np.argpartition(-scores, chunk - 1)[:chunk]
                boundary = scores[top].min()
            else:
                top, boundary = np.arange(size), -np.inf
            valid = top[self._valid(top, scores[top])]
            kept = np.sort(scores[valid])[::-1][: self._keep]
            # enough valid tokens, and every untested token is strictly below the last kept one
            if chunk >= size or (len(kept) >= self._keep and kept[-1] > boundary):
                break
            # Where the likeliest tokens fail, the grammar usually forces structure (a tag, a
            # quote) that only a handful of tokens fit: test the whole vocabulary at once.
            chunk = size
        masked = np.full_like(scores, -np.inf)
        masked[valid] = scores[valid]
        return masked
