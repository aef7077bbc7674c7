"""The statistical half of the language layer: a fine-tuned sentence encoder behind the rules.

The rules (:mod:`~interviewsim.agent.signals`, :mod:`~interviewsim.agent.guardrails`) know
constructions; people paraphrase past any list of them. Here one encoder
(:mod:`interviewsim.text.encoder`, all-MiniLM-L6-v2 fine-tuned on the corpus's ``train`` and
``dev`` splits by ``python -m interviewsim.agent.language_train``) reads an interviewer turn
alone, or a candidate reply together with the turn it answers, and a linear head gives one
probability per output (:data:`OUTPUTS`). Each output has two numbers chosen on writers the
model never read: a **threshold**, at which the model gives the label alone, and a **gate**, the
probability a rule's finding of that label needs to stand (0: the rules stand alone; equal to
the threshold: the model decides alone). A rule's finding the model scores under the gate is
overruled. The fine-tuned weights are committed beside this module as low-rank differences from
the base encoder (:data:`ENCODER_WEIGHTS`, a dependency of the interview stage through its
package folder); the base is checked by SHA-256 when it is read, so a result never depends on
what is installed, and the same text always gets the same labels.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from interviewsim.errors import ConfigError, Problem
from interviewsim.text.encoder import AdaptedEncoder, read_weights

if TYPE_CHECKING:
    from interviewsim.agent.language_eval import CorpusItem

ENCODER_WEIGHTS = Path(__file__).with_name("language_weights") / "encoder.npz"
TURN_LABELS = ("invitation", "praise", "dismissive", "hint", "rubric_leak", "off_limits",
               "multiple_questions", "restating")
REPLY_LABELS = ("hint_request", "progress_question", "no_more_questions", "off_limits", "upset")
OUTPUTS = ("turn:question", *(f"turn:{label}" for label in TURN_LABELS),
           *(f"reply:{label}" for label in REPLY_LABELS))
"""The head's outputs; ``turn:question`` is learnt alongside but never used (the rules of
:mod:`interviewsim.text.discourse` decide what is a question)."""
REFIT = "python -m interviewsim.agent.language_train"
CODE_OWNED = ("turn:invitation", "reply:no_more_questions")
"""The labels the state machine runs on (an invitation opens the candidate's questions, a
closer after one ends them): the model may add an invitation, but never overrules a rule's
finding of either (their gate is 0)."""
AFTER_INVITATION = ("reply:no_more_questions",)
"""Labels the model gives only to a reply whose turn is an invitation (round 14): a closer ends
the candidate's questions, and the model's closers elsewhere include answers such as "That's
all I did on the migration itself." (round 8 dropped the n-gram models' closers for that
reason, and rounds 12b-13 kept the closer the rules' alone). After an invitation, on five
writers the weights never read, the model's closers are as precise as the rules' and find
what they miss ("Nope, I'm set", "Nothing springs to mind");
:func:`~interviewsim.agent.signals.detect_signals` drops a closer the rules did not find unless
the turn invites questions, and the threshold is set on replies to the rules' invitations only
(``language_train``)."""


def pair_of(kind: str, text: str, after: str | None = None) -> tuple[str, str | None]:
    """What the encoder reads: a turn alone, a reply followed by the turn it answers."""
    def plain(s: str) -> str:
        return s.replace("\u2019", "'").replace("\u2018", "'")
    return (plain(text), None) if kind == "turn" else (plain(text), plain(after or ""))


def item_pair(item: CorpusItem) -> tuple[str, str | None]:
    return pair_of(item.kind, item.text, item.after)


class EncoderClassifier:
    """The adapted encoder, and each output's threshold and gate."""

    def __init__(self, adapted: AdaptedEncoder, thresholds: Sequence[float],
                 gates: Sequence[float]):
        self.adapted = adapted
        self.thresholds = dict(zip(OUTPUTS, (float(t) for t in thresholds), strict=True))
        self.gates = dict(zip(OUTPUTS, (float(g) for g in gates), strict=True))

    @classmethod
    def from_arrays(cls, stored: dict[str, np.ndarray], thresholds: Sequence[float],
                    gates: Sequence[float]) -> EncoderClassifier:
        return cls(AdaptedEncoder.from_arrays(stored), thresholds, gates)

    @classmethod
    def load(cls, path: Path = ENCODER_WEIGHTS) -> EncoderClassifier:
        arrays = read_weights(path, REFIT)
        if tuple(str(o) for o in arrays["outputs"]) != OUTPUTS:
            raise ConfigError([Problem(str(path), "", "these weights have other outputs than "
                                       f"{', '.join(OUTPUTS)}; refit them with {REFIT}")])
        if "gates" not in arrays:
            raise ConfigError([Problem(str(path), "gates", "these weights have no gates (an "
                                       f"older format); refit them with {REFIT}")])
        return cls.from_arrays(arrays, arrays["thresholds"], arrays["gates"])

    def scores(self, pairs: Sequence[tuple[str, str | None]]) -> np.ndarray:
        """One row of probabilities per (text, after) pair (:data:`OUTPUTS`' order)."""
        return self.adapted.probabilities(pairs)

    def labels(self, kind: str, text: str, after: str | None = None) -> frozenset[str]:
        """The labels of ``kind`` whose probability reaches its threshold."""
        row = self.scores([pair_of(kind, text, after)])[0]
        return frozenset(o.split(":", 1)[1] for o, p in zip(OUTPUTS, row, strict=True)
                         if o.startswith(kind + ":") and o != "turn:question"
                         and p >= self.thresholds[o])

    def overruled(self, kind: str, found: Iterable[str], text: str,
                  after: str | None = None) -> set[str]:
        """The labels of ``found`` (the rules' finding on ``text``) the model scores under
        their gate (never one of :data:`CODE_OWNED`)."""
        row = self.scores([pair_of(kind, text, after)])[0]
        return {label for label in found if f"{kind}:{label}" not in CODE_OWNED
                and row[OUTPUTS.index(f"{kind}:{label}")] < self.gates[f"{kind}:{label}"]}

    def prefetch(self, pairs: Iterable[tuple[str, str | None]]) -> None:
        self.scores(list(pairs))


@lru_cache(maxsize=1)
def classifier() -> EncoderClassifier:
    """The committed classifier (read once a process)."""
    return EncoderClassifier.load()


def prefetch(pairs: Iterable[tuple[str, str | None]]) -> None:
    """Score ``pairs`` in batches now, so later lookups of them cost nothing."""
    classifier().prefetch(pairs)


def turn_labels(text: str) -> frozenset[str]:
    return classifier().labels("turn", text)


def reply_labels(text: str, question: str | None) -> frozenset[str]:
    return classifier().labels("reply", text, question)


def strongest(texts: Sequence[str], label: str) -> str:
    """The interviewer sentence the model scores highest for ``label`` (what it flagged)."""
    if len(texts) == 1:
        return texts[0]
    column = OUTPUTS.index(f"turn:{label}")
    scores = classifier().scores([pair_of("turn", t) for t in texts])[:, column]
    return texts[int(scores.argmax())]


def overruled(kind: str, found: Iterable[str], text: str, after: str | None = None) -> set[str]:
    """The rules' labels on ``text`` the model overrules (scored under their gate)."""
    return classifier().overruled(kind, found, text, after)
