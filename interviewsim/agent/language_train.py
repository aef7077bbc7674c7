"""Train the language layer's n-gram models: ``python -m interviewsim.agent.language_train CORPUS``.

Weights are learnt on ``train`` and ``dev`` (the rules were tuned on ``dev``, so fitting on
both gives the model the phrasings the rules never saw). Each label's threshold is set for
precision first on two-fold scores: a model fitted on ``train`` scores ``dev`` and one fitted
on ``dev`` scores ``train``, and the threshold is the lowest probability at which the rules and
those scores together keep precision at or above :data:`PRECISION_FLOOR` (with at least two
items to judge by); a label no threshold keeps that precise is left to the rules. The
``holdout`` split is never read. The weights land in
:data:`~interviewsim.agent.language_model.WEIGHTS`; rerun this after changing the corpus, the
features or the rules, then ``make lock``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

from interviewsim.agent.guardrails import rule_matches
from interviewsim.agent.invitations import invitation_rule, invites_questions
from interviewsim.agent.language_eval import CorpusItem, load_corpus
from interviewsim.agent.language_model import (
    REPLY_LABELS,
    TURN_LABELS,
    WEIGHTS,
    reply_features,
    turn_features,
)
from interviewsim.agent.signals import rule_signals
from interviewsim.text.ngrams import LinearModel, hashed, save_model, train

PRECISION_FLOOR = 0.95
FIT_SPLITS = ("train", "dev")
CANDIDATE_THRESHOLDS = tuple(round(0.30 + 0.05 * i, 2) for i in range(14))
"""0.30 to 0.95; a label with none precise enough gets 1.01 (never fires)."""
OFF = 1.01


def rule_labels(item: CorpusItem) -> set[str]:
    """What the rules alone say, in the model's label vocabulary."""
    if item.kind == "turn":
        return {*(["invitation"] if invitation_rule(item.text) else []),
                *(r.value for r in rule_matches(item.text))}
    return {s.value for s in rule_signals(item.text, item.after)}


def item_ids(item: CorpusItem) -> np.ndarray:
    if item.kind == "turn":
        return hashed(turn_features(item.text))
    return hashed(reply_features(item.text, invites_questions(item.after)))


def _threshold(label: str, probs: np.ndarray, rules: list[set[str]],
               gold: list[set[str]]) -> float:
    for t in CANDIDATE_THRESHOLDS:
        got = [label in r or p >= t for r, p in zip(rules, probs, strict=True)]
        tp = sum(g and label in y for g, y in zip(got, gold, strict=True))
        fired = sum(got)
        if fired >= 2 and tp / fired >= PRECISION_FLOOR:
            return t
    return OFF


def _fit(items: Sequence[CorpusItem], labels: Sequence[str]) -> LinearModel:
    gold = np.array([[label in i.gold() for label in labels] for i in items], dtype=float)
    return train([item_ids(i) for i in items], gold, labels)


def fit(items: Sequence[CorpusItem], kind: str, labels: Sequence[str]) -> LinearModel:
    """Weights from ``train`` and ``dev`` together; thresholds from two-fold scores (each item
    scored by the model fitted on the other split), so no threshold is set on an item its
    model has seen."""
    folds = [[i for i in items if i.kind == kind and i.split == split] for split in FIT_SPLITS]
    scored: list[tuple[CorpusItem, dict[str, float]]] = []
    for learn, tune in ((folds[0], folds[1]), (folds[1], folds[0])):
        fold_model = _fit(learn, labels)
        scored += [(i, fold_model.scores(item_ids(i))) for i in tune]
    model = _fit(folds[0] + folds[1], labels)
    rules = [rule_labels(i) for i, _ in scored]
    golds = [i.gold() for i, _ in scored]
    thresholds = np.array([
        _threshold(label, np.array([s[label] for _, s in scored]), rules, golds)
        for label in labels])
    return LinearModel(labels=model.labels, buckets=model.buckets, weights=model.weights,
                       bias=model.bias, thresholds=thresholds)


def main(argv: Sequence[str]) -> None:
    items = load_corpus(argv[0])
    WEIGHTS.mkdir(exist_ok=True)
    for kind, labels, name in (("turn", TURN_LABELS, "turns"),
                               ("reply", REPLY_LABELS, "replies")):
        model = fit(items, kind, labels)
        save_model(model, WEIGHTS / f"{name}.npz")
        print(name, len(model.buckets), "buckets;", ", ".join(
            f"{label} {t:.2f}" for label, t in zip(labels, model.thresholds, strict=True)))


if __name__ == "__main__":
    main(sys.argv[1:])
