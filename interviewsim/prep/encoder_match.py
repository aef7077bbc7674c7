"""Stage 2 by a fine-tuned encoder (``--matcher encoder``): a reader without a model server.

The lexical matcher recognises the requirement's own words and the constructions its rules
know; people say the same thing in other words, and say what they have not done in ways no list
covers. This matcher reads instead: one encoder (:mod:`interviewsim.text.encoder`,
all-MiniLM-L6-v2 fine-tuned by ``python -m interviewsim.prep.encoder_train``) takes the
requirement together with one evidence item (``[CLS] requirement [SEP] item [SEP]``; the item's
summary, title and tags, as the lexical matcher reads them) and gives two probabilities: that the
item shows the requirement itself (``full``), and that it is related at all (``related``: FULL
or PARTIAL by the verdict definitions). A requirement is FULL when some item's ``full`` reaches
its threshold (citing those items, best first, at most ``max_citations``), PARTIAL when some
item's ``related`` does, GAP otherwise, citing nothing. Because this path reads, it may say
PARTIAL on its own judgment, as the llm path may; it faces the same match gate, and the
explanation names each cited item's probability and quotes it. The thresholds were chosen on
labelled parts the fit never read (the training module says how); the weights are committed
beside this module as low-rank differences from the base encoder.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from interviewsim.errors import ConfigError, Problem
from interviewsim.prep.matching import matched_text
from interviewsim.prep.models import EvidenceItem, PrepSettings, Requirement, Verdict
from interviewsim.prep.polarity import affirmative
from interviewsim.text.encoder import AdaptedEncoder, read_weights

MATCHER_WEIGHTS = Path(__file__).with_name("matcher_weights") / "encoder.npz"
OUTPUTS = ("full", "related")
MAX_TOKENS = 256
"""Tokens of a (requirement, item) pair the encoder reads; the requirement keeps up to 192."""
REFIT = "python -m interviewsim.prep.encoder_train"


class EncoderMatcher:
    """The adapted encoder and the two thresholds."""

    def __init__(self, adapted: AdaptedEncoder, full: float, related: float):
        self.adapted = adapted
        self.full = full
        self.related = related

    @classmethod
    def load(cls, path: Path = MATCHER_WEIGHTS) -> EncoderMatcher:
        arrays = read_weights(path, REFIT)
        if tuple(str(o) for o in arrays["outputs"]) != OUTPUTS:
            raise ConfigError([Problem(str(path), "", f"these weights have other outputs than "
                                       f"{', '.join(OUTPUTS)}; refit them with {REFIT}")])
        full, related = (float(t) for t in arrays["thresholds"])
        return cls(AdaptedEncoder.from_arrays(arrays, MAX_TOKENS), full, related)

    def with_thresholds(self, full: float, related: float) -> EncoderMatcher:
        """The same encoder (and what it has scored) with other thresholds."""
        return EncoderMatcher(self.adapted, full, related)

    def scores(self, requirement: str, items: Sequence[EvidenceItem]) -> np.ndarray:
        """(items x 2): each item's ``full`` and ``related`` probability, read from what the
        item affirms (:func:`read_text`); an item that affirms nothing scores 0."""
        texts = [read_text(i)[0] for i in items]
        probs = np.zeros((len(items), len(OUTPUTS)))
        read = [n for n, text in enumerate(texts) if text]
        if read:
            probs[read] = self.adapted.probabilities([(requirement, texts[n]) for n in read])
        return probs

    def verdict(self, requirement: Requirement, items: Sequence[EvidenceItem],
                settings: PrepSettings) -> Verdict:
        probs = self.scores(requirement.text, items)
        aside = "".join(f"; {item.id}: set aside {read_text(item)[1]}" for item in items
                        if read_text(item)[1])
        full, related = probs[:, 0], np.maximum(probs[:, 0], probs[:, 1])
        for coverage, column, threshold in (("FULL", full, self.full),
                                            ("PARTIAL", related, self.related)):
            order = [i for i in np.argsort(-column, kind="stable") if column[i] >= threshold]
            if order:
                cited = [items[i] for i in order[:settings.max_citations]]
                best = " ".join(cited[0].text.split())[:160]
                named = ", ".join(f"{items[i].id} {column[i]:.2f}" for i in order[:3])
                return Verdict(
                    requirement_id=requirement.id, coverage=coverage,
                    evidence_ids=tuple(item.id for item in cited),
                    explanation=f"encoder: {'shows it' if coverage == 'FULL' else 'related'}"
                                f" ({named}; threshold {threshold:.2f}) — \"{best}\"{aside}",
                    confidence=round(float(column[order[0]]), 4),
                    missing=None if coverage == "FULL" else "read as incomplete")
        return Verdict(requirement_id=requirement.id, coverage="GAP",
                       explanation=f"encoder: no item shows or relates to it (best full "
                                   f"{full.max(initial=0.0):.2f}, related "
                                   f"{related.max(initial=0.0):.2f}){aside}",
                       confidence=round(float(full.max(initial=0.0)), 4))


def read_text(item: EvidenceItem) -> tuple[str, str]:
    """What the encoder reads of ``item`` and what it sets aside. The polarity gate every path
    shares (:func:`interviewsim.prep.polarity.affirmative`) comes first: a clause that denies or
    wishes ("I would like to learn Yocto", "never used Kubernetes") is not read, so it can attest
    nothing; an item with nothing set aside is read whole, as in training."""
    return _read(matched_text(item))


@lru_cache(maxsize=4096)
def _read(text: str) -> tuple[str, str]:
    kept, dropped = affirmative(text)
    if not dropped:
        return text, ""
    said = ", ".join(f"'{d.text.strip()}' ({d.reason})" for d in dropped[:2])
    return " ".join(kept), said + (f" and {len(dropped) - 2} more" if len(dropped) > 2 else "")


@lru_cache(maxsize=1)
def matcher() -> EncoderMatcher:
    """The committed matcher (read once a process)."""
    return EncoderMatcher.load()


def match_encoder(requirements: Sequence[Requirement], evidence: Sequence[EvidenceItem],
                  settings: PrepSettings, reader: EncoderMatcher | None = None) -> list[Verdict]:
    """One verdict per requirement, in order (``reader``: the committed matcher by default)."""
    reader = reader or matcher()
    return [reader.verdict(requirement, evidence, settings) for requirement in requirements]
