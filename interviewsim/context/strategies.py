"""The seven context strategies of PROMPTS.md: what a simulated answer may be grounded in.

Every strategy selects only from the training partition (never a held-out pair, never the
fact summary). Pair-based selections are lists of training ``qa_id``s; a context budget drops
the lowest-priority pairs whole and records how many, so nothing is truncated silently.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from interviewsim.config.conditions import INDEXED_STRATEGIES
from interviewsim.config.params import ContextParams
from interviewsim.data.corpus import Pair, PersonalityData
from interviewsim.text.tokens import estimate_tokens

EmbedFn = Callable[[Sequence[str]], np.ndarray]
"""Texts in, one L2-normalised row vector per text out."""

PAIR_STRATEGIES = ("chronological", "random", "retrieval", "hybrid")
PROFILE_STRATEGIES = {"short-profile": "profile", "long-profile": "long_profile"}


@dataclass(frozen=True)
class ContextSelection:
    """The context one strategy selected for one prompt, with its provenance."""

    strategy: str
    profile: str | None = None
    pair_ids: tuple[str, ...] = ()
    scores: tuple[float | None, ...] = ()
    """Cosine similarity per selected pair (None for pairs not chosen by retrieval)."""
    requested: int = 0
    """How many pairs the strategy asked for before the budget."""
    dropped_for_budget: int = 0
    estimated_tokens: int = 0
    over_budget: bool = False
    """Only for profiles, which are never cut: the profile alone exceeds the budget."""

    def as_record(self) -> dict:
        return {
            "strategy": self.strategy,
            "profile": self.profile,
            "pair_ids": list(self.pair_ids),
            "scores": [None if s is None else round(s, 6) for s in self.scores],
            "requested": self.requested,
            "dropped_for_budget": self.dropped_for_budget,
            "estimated_tokens": self.estimated_tokens,
            "over_budget": self.over_budget,
        }

    @classmethod
    def from_record(cls, record: dict) -> ContextSelection:
        """The selection a contexts.jsonl record holds (:meth:`as_record` read back; the
        record's extra keys, personality and question, are not the selection's)."""
        return cls(strategy=record["strategy"], profile=record["profile"],
                   pair_ids=tuple(record["pair_ids"]), scores=tuple(record["scores"]),
                   requested=record["requested"], dropped_for_budget=record["dropped_for_budget"],
                   estimated_tokens=record["estimated_tokens"], over_budget=record["over_budget"])


def pair_text(pair: Pair) -> str:
    """How a pair is presented in a prompt (also what the budget counts)."""
    return f"Question: {pair.question}\nResponse: {pair.response}"


def pair_tokens(pair: Pair) -> int:
    return estimate_tokens(pair_text(pair)) + 2


def chronological(train: Sequence[Pair], n: int) -> list[Pair]:
    """The latest n training pairs, presented oldest to newest."""
    ordered = sorted(train, key=lambda p: (p.sequence, p.position))
    return ordered[len(ordered) - n :] if n else []


def random_sample(train: Sequence[Pair], n: int, seed: int, personality_id: str) -> list[Pair]:
    """A seeded sample that depends only on (seed, personality): adding people changes nothing."""
    rng = random.Random(f"{seed}:{personality_id}")
    ordered = sorted(train, key=lambda p: (p.sequence, p.position))
    return rng.sample(ordered, min(n, len(ordered)))


@dataclass
class RetrievalIndex:
    """Training pairs of one personality embedded once; ranked per query by cosine similarity."""

    pairs: list[Pair]
    vectors: np.ndarray
    embed: EmbedFn
    _query_cache: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def build(cls, train: Sequence[Pair], embed: EmbedFn, text: str) -> RetrievalIndex:
        pairs = sorted(train, key=lambda p: p.qa_id)
        texts = [p.question if text == "question" else f"{p.question}\n{p.response}"
                 for p in pairs]
        vectors = embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)
        return cls(pairs=pairs, vectors=np.asarray(vectors, dtype=np.float32), embed=embed)

    def warm(self, queries: Sequence[str]) -> None:
        """Embed many queries in one batch (the stage calls this once per personality)."""
        missing = [q for q in dict.fromkeys(queries) if q not in self._query_cache]
        if missing:
            for query, vector in zip(missing, self.embed(missing), strict=True):
                self._query_cache[query] = np.asarray(vector, dtype=np.float32)

    def top(self, query: str, k: int) -> list[tuple[Pair, float]]:
        """The k most similar pairs, best first; ties broken by qa_id."""
        if k == 0 or not self.pairs:
            return []
        self.warm([query])
        scores = self.vectors @ self._query_cache[query]
        # pairs are sorted by qa_id, so a stable sort on -score breaks ties by qa_id
        order = np.argsort(-scores, kind="stable")[:k]
        return [(self.pairs[i], float(scores[i])) for i in order]


def _dedupe(items: Sequence[tuple[Pair, float | None]]) -> list[tuple[Pair, float | None]]:
    seen: set[str] = set()
    kept = []
    for pair, score in items:
        if pair.qa_id not in seen:
            seen.add(pair.qa_id)
            kept.append((pair, score))
    return kept


def _fit_budget(
    items: list[tuple[Pair, float | None]], drop_order: list[int], budget: int
) -> tuple[list[tuple[Pair, float | None]], int]:
    """Drop items (by index, in ``drop_order``) until the rest fits the token budget."""
    total = sum(pair_tokens(p) for p, _ in items)
    dropped: set[int] = set()
    for index in drop_order:
        if total <= budget:
            break
        total -= pair_tokens(items[index][0])
        dropped.add(index)
    return [item for i, item in enumerate(items) if i not in dropped], len(dropped)


def select_context(
    strategy: str,
    personality: PersonalityData,
    queries: Sequence[str],
    params: ContextParams,
    seed: int,
    index: RetrievalIndex | None = None,
) -> ContextSelection:
    """Select the context for one prompt.

    ``queries`` is the new question (generation) or every atomic question of one held-out
    interview (MCQ answering, where retrieval uses the ordered, de-duplicated union).
    """
    if strategy == "no-context":
        return ContextSelection(strategy)
    if strategy in PROFILE_STRATEGIES:
        text = getattr(personality, PROFILE_STRATEGIES[strategy])
        tokens = estimate_tokens(text)
        return ContextSelection(strategy, profile=text, estimated_tokens=tokens,
                                over_budget=tokens > params.max_context_tokens)
    train = personality.train
    if strategy == "chronological":
        items = [(p, None) for p in chronological(train, params.chronological_pairs)]
        drop_order = list(range(len(items)))  # oldest first
    elif strategy == "random":
        items = [(p, None) for p in random_sample(train, params.random_pairs, seed,
                                                  personality.personality_id)]
        drop_order = list(reversed(range(len(items))))  # last drawn first
    elif strategy in INDEXED_STRATEGIES:
        if index is None:
            raise ValueError(f"strategy {strategy!r} needs a retrieval index")
        k = params.retrieval_pairs if strategy == "retrieval" else params.hybrid_retrieved
        index.warm(queries)
        retrieved = _dedupe([hit for q in queries for hit in index.top(q, k)])
        items = list(retrieved)
        if strategy == "hybrid":
            seen = {p.qa_id for p, _ in retrieved}
            recent = [(p, None) for p in chronological(train, params.hybrid_recent)
                      if p.qa_id not in seen]
            items += recent
            # recent part first (oldest of it first), then the lowest-ranked retrieved pairs
            drop_order = [*range(len(retrieved), len(items)),
                          *reversed(range(len(retrieved)))]
        else:
            drop_order = list(reversed(range(len(items))))
    else:
        raise ValueError(f"unknown strategy {strategy!r}")
    requested = len(items)
    kept, dropped = _fit_budget(items, drop_order, params.max_context_tokens)
    return ContextSelection(
        strategy,
        pair_ids=tuple(p.qa_id for p, _ in kept),
        scores=tuple(s for _, s in kept),
        requested=requested,
        dropped_for_budget=dropped,
        estimated_tokens=sum(pair_tokens(p) for p, _ in kept),
    )
