"""Choosing each next token for the batch engine (:mod:`interviewsim.llm.llama_engine`):
llama.cpp's sampler chain, and its grammar sampler for constrained output.

Constraints are used the way llama.cpp's common sampler uses them: the chain samples from the
unconstrained logits and the grammar checks only that token. When the grammar rejects it, the
constrained choice is made among the highest-logit candidates where they decide it exactly
(:meth:`Sampling.best_candidates`), and over the whole vocabulary only where they do not. With
greedy decoding every path gives the best grammar-valid token of the whole vocabulary.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

CHECK_SAMPLED_FIRST = True
"""Check only the sampled token against the grammar, constraining more only when it is rejected
(False: constrain the whole vocabulary every step, as a reference for tests)."""

GRAMMAR_CANDIDATES = 128
"""When the grammar rejects the sampled token, the highest-logit candidates tried before the
whole vocabulary. In the judge stage they decide 12% of rejections (a second set of 2,048
decided 5% more and cost more than it saved: the grammar mostly rejects because it requires a
token the model ranks far below, such as a closing tag)."""

CANDIDATES_KEY = f"candidates_{GRAMMAR_CANDIDATES}"
STAT_KEYS: tuple[str, ...] = ("sample_s", "whole_vocab", CANDIDATES_KEY)
"""Sampling seconds, and the rejected samples decided over the whole vocabulary or among the
best candidates."""


class Sampling:
    """The engine's sampling: one per engine, holding the token buffers every request shares
    (only the engine's worker thread uses it)."""

    def __init__(self, api: Any, ctx: Any, vocab: Any, stats: dict[str, float]):
        self._api, self._ctx, self._vocab, self.stats = api, ctx, vocab, stats
        self.n_vocab = api.llama_vocab_n_tokens(vocab)
        self._full = (api.llama_token_data * self.n_vocab)()
        self._dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)],
                               align=True)
        self._full_view = np.frombuffer(self._full, dtype=self._dtype)
        self._one = (api.llama_token_data * 1)()
        self._best = (api.llama_token_data * GRAMMAR_CANDIDATES)()
        self._best_view = np.frombuffer(self._best, dtype=self._dtype)

    def chain(self, temperature: float, top_k: int, seed: int) -> Any:
        api = self._api
        chain = api.llama_sampler_chain_init(api.llama_sampler_chain_default_params())
        if temperature <= 0:
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_greedy())
        else:
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_top_k(top_k))
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_top_p(0.95, 1))
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_min_p(0.05, 1))
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_temp(temperature))
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_dist(seed))
        return chain

    def grammar(self, text: str) -> Any:
        sampler = self._api.llama_sampler_init_grammar(self._vocab, text.encode("utf-8"), b"root")
        if not sampler:
            raise ValueError("llama.cpp could not parse the grammar")
        return sampler

    def free(self, *samplers: Any) -> None:
        for sampler in samplers:
            if sampler is not None:
                self._api.llama_sampler_free(sampler)

    def sample(self, chain: Any, grammar: Any, need: int, index: int) -> int:
        """The next token from output ``index`` of the last decode. ``need``: how many valid
        candidates the chain must see (1 for greedy, its ``top_k`` when sampling)."""
        api = self._api
        token = api.llama_sampler_sample(chain, self._ctx, index)
        if grammar is None:
            return token
        one = self._one
        one[0].id, one[0].logit, one[0].p = token, 1.0, 0.0
        array = api.llama_token_data_array(one, 1, -1, False)
        api.llama_sampler_apply(grammar, ctypes.byref(array))
        if not CHECK_SAMPLED_FIRST or not np.isfinite(one[0].logit):  # rejected: constrain
            logits = np.ctypeslib.as_array(api.llama_get_logits_ith(self._ctx, index),
                                           shape=(self.n_vocab,))
            token = (self.best_candidates(chain, grammar, need, logits)
                     if CHECK_SAMPLED_FIRST else None)
            if token is None:
                token = self.whole_vocabulary(chain, grammar, logits)
            api.llama_sampler_accept(chain, token)
        api.llama_sampler_accept(grammar, token)
        return token

    def best_candidates(self, chain: Any, grammar: Any, need: int, logits: np.ndarray
                        ) -> int | None:
        """The grammar-constrained choice among the ``GRAMMAR_CANDIDATES`` highest logits, or
        None when they cannot decide it: when fewer than ``need`` of them are valid,
        or the ``need``-th best valid logit is not above every token outside the set (only then
        are the chain's valid tokens those of the whole vocabulary)."""
        api, m = self._api, GRAMMAR_CANDIDATES
        top = np.argpartition(logits, -m)[-m:]
        top.sort()  # id order, as in the whole-vocabulary array
        buffer, view = self._best, self._best_view
        view["id"] = top
        view["logit"] = logits[top]
        view["p"] = 0.0
        floor = view["logit"].min()
        array = api.llama_token_data_array(buffer, m, -1, False)
        api.llama_sampler_apply(grammar, ctypes.byref(array))
        valid = np.sort(view["logit"][np.isfinite(view["logit"])])[::-1]
        if len(valid) < need or valid[need - 1] <= floor:
            return None
        self.stats[CANDIDATES_KEY] += 1
        api.llama_sampler_apply(chain, ctypes.byref(array))
        return int(buffer[array.selected].id)

    def whole_vocabulary(self, chain: Any, grammar: Any, logits: np.ndarray) -> int:
        api = self._api
        self.stats["whole_vocab"] += 1
        view = self._full_view
        view["id"] = np.arange(self.n_vocab, dtype=np.intc)
        view["logit"] = logits
        view["p"] = 0.0
        array = api.llama_token_data_array(self._full, self.n_vocab, -1, False)
        api.llama_sampler_apply(grammar, ctypes.byref(array))
        api.llama_sampler_apply(chain, ctypes.byref(array))
        return int(self._full[array.selected].id)
