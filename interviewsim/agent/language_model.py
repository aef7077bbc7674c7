"""The statistical half of the language layer: n-gram classifiers behind the rules.

The rules (:mod:`~interviewsim.agent.signals`, :mod:`~interviewsim.agent.guardrails`) know
constructions; people paraphrase past any list of them. Two linear models over hashed word and
character n-grams (:mod:`interviewsim.text.ngrams`), one for interviewer turns and one for
candidate replies, were trained on the corpus's ``train`` split, their thresholds set on
``dev`` for precision first (``python -m interviewsim.agent.language_train``); a label is
predicted when the rules or the model find it. The weights are committed beside this module
(a dependency of the interview stage through its package folder), so a result never depends
on what is installed, and the same text always gets the same labels.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from interviewsim.text.ngrams import LinearModel, features, hashed, load_model

WEIGHTS = Path(__file__).with_name("language_weights")
TURN_LABELS = ("invitation", "praise", "dismissive", "hint", "rubric_leak", "off_limits",
               "multiple_questions", "restating")
REPLY_LABELS = ("hint_request", "progress_question", "no_more_questions", "off_limits", "upset")


def turn_features(text: str) -> list[str]:
    return features(text)


def reply_features(text: str, invited: bool) -> list[str]:
    """The reply's n-grams; after an invitation to ask questions, its words once more under
    their own names, so "I'm set" can mean "no questions" there and nothing elsewhere."""
    grams = features(text)
    if invited:
        grams += ["ctx:invited", *(f"inv|{g}" for g in grams if g.startswith("w"))]
    return grams


@lru_cache(maxsize=2)
def model(kind: str) -> LinearModel:
    """The committed model for ``turns`` or ``replies``."""
    return load_model(WEIGHTS / f"{kind}.npz")


@lru_cache(maxsize=4096)
def turn_labels(text: str) -> frozenset[str]:
    return frozenset(model("turns").predict(hashed(turn_features(text))))


@lru_cache(maxsize=4096)
def reply_labels(text: str, invited: bool) -> frozenset[str]:
    return frozenset(model("replies").predict(hashed(reply_features(text, invited))))
