"""Judge-free fidelity of each answer: is it *this* person, and does it copy?

For an answer to held-out question q of person p (embeddings of the configured ``embedder``,
unit vectors, similarities rounded to :data:`DIGITS` so ties are exact):

- **own similarity**: cosine to p's real answer to q (its target);
- **other similarity**: the mean cosine to each other personality's real answer to *their*
  held-out question most similar to q (their answer to the same question, as near as their
  interviews come);
- **individuation** = own − other: positive when the answer is closer to its person than to
  people answering the same question;
- **attribution**: 1 when the target is the single nearest of the N candidates (p's and one per
  other personality), 1/k when k candidates tie at the top with it, 0 otherwise: chance 1/N.

The ceiling applies the same to the *real* held-out answers against the training answers:
the target is p's training answer to their most similar training question (the retest's
source), the other candidates the others' training answers to theirs.

Memorization and copying (:mod:`interviewsim.text.verbatim`): the longest token run an answer
shares with its person's held-out answers and the share of its windows found there; and, for
a strategy, the share of its windows found in its own context (profile and selected training
pairs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

DIGITS = 6


@dataclass(frozen=True)
class Pool:
    """One personality's candidate targets: question vectors and the real answers' vectors,
    row for row."""

    questions: np.ndarray
    answers: np.ndarray

    def nearest(self, question: np.ndarray) -> int:
        """The row of the most similar question (the first among exact ties: rows are in time
        order, so the earliest)."""
        scores = np.round(self.questions @ question, DIGITS)
        return int(np.flatnonzero(scores == scores.max())[0])


@dataclass(frozen=True)
class Individuation:
    own: float
    other: float | None
    attribution: float | None
    candidates: int

    @property
    def individuation(self) -> float | None:
        return None if self.other is None else round(self.own - self.other, DIGITS)

    def record(self) -> dict[str, float | int | None]:
        return {"own_similarity": self.own, "other_similarity": self.other,
                "individuation": self.individuation, "attribution": self.attribution,
                "candidates": self.candidates}


def individuate(answer: np.ndarray, target: np.ndarray, question: np.ndarray, owner: str,
                pools: Mapping[str, Pool]) -> Individuation:
    """The measures of one answer vector against its ``target`` and the other personalities'
    nearest real answers to ``question`` (``pools`` without ``owner`` are the others; with no
    other personality, only the own similarity)."""
    own = round(float(answer @ target), DIGITS)
    others = [round(float(answer @ pool.answers[pool.nearest(question)]), DIGITS)
              for pid, pool in sorted(pools.items()) if pid != owner]
    if not others:
        return Individuation(own, None, None, 1)
    top = max(own, *others)
    tied = 1 + sum(o == top for o in others)
    attribution = 1.0 / tied if own == top else 0.0
    return Individuation(own, round(float(np.mean(others)), DIGITS), round(attribution, DIGITS),
                         1 + len(others))


def pools_of(questions: Mapping[str, np.ndarray], answers: Mapping[str, np.ndarray]
             ) -> dict[str, Pool]:
    """Per personality, the pool of (question, answer) vectors given row for row."""
    return {pid: Pool(questions[pid], answers[pid]) for pid in sorted(questions)
            if len(questions[pid])}
