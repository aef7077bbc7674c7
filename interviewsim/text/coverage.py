"""IDF-weighted term coverage: how much of a claim's content is attested in a piece of evidence.

The deterministic check behind "the model proposes, code verifies": an MCQ atomic answer must be
attested in its source response, a prep requirement in its evidence, a generated claim in a
personality's earlier answers. ``coverage = sum(w(t) for t in claim & evidence) / sum(w(t) for t
in claim)`` with ``w(t) = log(1 + N / (1 + df(t)))`` over a reference collection of N texts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

_TOKEN = re.compile(r"[a-z0-9]+(?:[-'/.][a-z0-9]+)*[+#]*")
"""A word; ``- ' / .`` between word characters keep a compound in one token (``follow-up``,
``o'brien``, ``a/b``, ``sql/python``, ``node.js``), and trailing ``+``/``#`` stay on it (``c++``,
``c#``). A ``.`` or ``/`` not followed by a word character ends the token (sentence ends)."""
_JOINER = re.compile(r"[-'/.]")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    i'm i've i'd i'll it's that's there's don't didn't doesn't isn't wasn't can't won't""".split()
)


def terms(text: str) -> frozenset[str]:
    """Content terms: lowercased words without stopwords or one-character tokens.

    The one tokenizer of the MCQ gate, the claims stage and prep matching. A compound
    (``follow-up``, ``a/b``, ``sql/python``, ``node.js``) counts whole and by its parts, so
    either spelling in the evidence attests it; ``c++`` and ``c#`` stay whole (their ``c`` is
    not a term). Typographic apostrophes read as ``'``.
    """
    found: set[str] = set()
    for token in _TOKEN.findall(text.lower().translate(_APOSTROPHES)):
        if token in STOPWORDS:
            continue  # a contraction's pieces ("don", "isn") are not content either
        parts = _JOINER.split(token)
        for term in (token, *parts) if len(parts) > 1 else (token,):
            if len(term) > 1 and term not in STOPWORDS:
                found.add(term)
    return frozenset(found)


@dataclass(frozen=True)
class DocumentFrequencies:
    """How many texts of a reference collection contain each term."""

    n_docs: int
    df: dict[str, int]

    @classmethod
    def of(cls, texts: Iterable[str]) -> DocumentFrequencies:
        return cls.of_terms(terms(text) for text in texts)

    @classmethod
    def of_terms(cls, term_sets: Iterable[frozenset[str]]) -> DocumentFrequencies:
        """From texts already tokenised (a corpus tokenises each of its texts once)."""
        counts: Counter[str] = Counter()
        n = 0
        for found in term_sets:
            counts.update(found)
            n += 1
        return cls(n_docs=n, df=dict(counts))

    def weight(self, term: str) -> float:
        return math.log(1 + self.n_docs / (1 + self.df.get(term, 0)))


@dataclass(frozen=True)
class Coverage:
    score: float
    """Weighted share of the claim's terms found in the evidence, 0 to 1."""
    matched: tuple[str, ...]
    """Claim terms present in the evidence, sorted."""
    claim_terms: tuple[str, ...]
    """All content terms of the claim, sorted."""


def coverage(claim: str, evidence: str, frequencies: DocumentFrequencies) -> Coverage:
    """Score how much of ``claim`` is attested in ``evidence`` (0 when the claim has no terms)."""
    return coverage_of_terms(terms(claim), terms(evidence), frequencies)


def coverage_of_terms(claim_terms: frozenset[str], evidence_terms: frozenset[str],
                      frequencies: DocumentFrequencies) -> Coverage:
    """:func:`coverage` of texts already tokenised. The sums are ``math.fsum`` over sorted
    terms: correctly rounded, so a score never depends on set order (``PYTHONHASHSEED``)."""
    claimed = tuple(sorted(claim_terms))
    matched = tuple(t for t in claimed if t in evidence_terms)
    total = math.fsum(frequencies.weight(t) for t in claimed)
    score = math.fsum(frequencies.weight(t) for t in matched) / total if total else 0.0
    return Coverage(score=score, matched=matched, claim_terms=claimed)


LEXICAL_THRESHOLD = 0.30
"""Coverage at which an item attests a text (the prep matcher's and the claims stage's)."""


@dataclass(frozen=True)
class Support:
    """How much of a text one corpus item attests."""

    item_id: str
    score: float
    matched: tuple[str, ...]


class LexicalCorpus:
    """Items to match against, with the document frequencies that weight their terms."""

    def __init__(self, items: Sequence[tuple[str, str]],
                 reference: DocumentFrequencies | None = None):
        """``reference``: the collection whose document frequencies weight terms; by default
        the items themselves. A caller that adds items over time (prep's admitted
        clarifications) passes one fixed reference, so adding an item never reweights the
        terms of a text it does not attest."""
        self.items = list(items)
        self.item_terms = [terms(text) for _, text in self.items]
        """Each item tokenised once, however many texts are ranked against it."""
        self.frequencies = (reference if reference is not None
                            else DocumentFrequencies.of_terms(self.item_terms))

    def rank(self, text: str) -> list[Support]:
        """Every item's support for ``text``, best first; ties keep corpus order."""
        claimed = tuple(sorted(terms(text)))
        weights = [self.frequencies.weight(term) for term in claimed]
        total = math.fsum(weights)
        scored = []
        for (item_id, _), item_terms in zip(self.items, self.item_terms, strict=True):
            hits = [i for i, term in enumerate(claimed) if term in item_terms]
            score = math.fsum(weights[i] for i in hits) / total if total else 0.0
            scored.append(Support(item_id, score, tuple(claimed[i] for i in hits)))
        return sorted(scored, key=lambda s: -s.score)


@dataclass(frozen=True)
class LexicalJudgment:
    coverage: Literal["FULL", "GAP"]
    cited: tuple[Support, ...]
    best: Support | None


def judge_lexically(text: str, corpus: LexicalCorpus, threshold: float = LEXICAL_THRESHOLD,
                    max_citations: int = 3) -> LexicalJudgment:
    """FULL citing the best items at or above ``threshold`` (at most ``max_citations``), or GAP."""
    ranked = corpus.rank(text)
    best = ranked[0] if ranked else None
    cited = tuple(s for s in ranked if s.score >= threshold and s.score > 0)[:max_citations]
    return LexicalJudgment("FULL" if cited else "GAP", cited, best)
