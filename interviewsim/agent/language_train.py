"""Train the language layer's n-gram models: ``python -m interviewsim.agent.language_train CORPUS``.

Weights are learnt on ``train`` and ``dev`` (the rules were tuned on ``dev``, so fitting on
both gives the model the phrasings the rules never saw). Each label's threshold is set for
precision first on cross-validated scores (:data:`FOLDS` folds over train and dev, each item
scored by the model fitted on the other folds), and the threshold is the lowest probability at
which rules and model together stay at least :data:`PRECISION_FLOOR` precise, or,
for a label whose rules alone fall short of that, at which what the model adds (items it labels
that the rules do not) is (with at least two items to judge by): the rules' own errors no
longer switch the model off for a label. A label no threshold keeps that precise is left to the
rules. The
``holdout`` split is never read. The weights land in
:data:`~interviewsim.agent.language_model.WEIGHTS`; rerun this after changing the corpus, the
features or the rules, then ``make lock``.
"""

from __future__ import annotations

import sys
import zlib
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
FOLDS = 5
"""Cross-validation folds over train and dev for the thresholds. Two folds (train scored by a
model of dev and back) stopped working once train outgrew dev fourfold in new voices: a model
of 772 dev items scored the 3,070 train items too poorly to trust any threshold."""
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
    by_rules = [label in r for r in rules]
    rule_tp = sum(f and label in y for f, y in zip(by_rules, gold, strict=True))
    # Judge the union while the rules alone are precise enough, else only what the model adds.
    union = not any(by_rules) or rule_tp / sum(by_rules) >= PRECISION_FLOOR
    for t in CANDIDATE_THRESHOLDS:
        got = [(union and f) or (not f and p >= t) for f, p in zip(by_rules, probs, strict=True)]
        tp = sum(g and label in y for g, y in zip(got, gold, strict=True))
        fired = sum(got)
        if fired >= 2 and tp / fired >= PRECISION_FLOOR:
            return t
    return OFF


def _fit(items: Sequence[CorpusItem], labels: Sequence[str]) -> LinearModel:
    gold = np.array([[label in i.gold() for label in labels] for i in items], dtype=float)
    return train([item_ids(i) for i in items], gold, labels)


def fold_of(item: CorpusItem) -> int:
    """A fixed fold per item, from its id (CRC32, stable across processes and corpus order)."""
    return zlib.crc32(item.id.encode()) % FOLDS


def fit(items: Sequence[CorpusItem], kind: str, labels: Sequence[str]) -> LinearModel:
    """Weights from ``train`` and ``dev`` together; thresholds from cross-validated scores
    (each item scored by the model fitted on the other folds), so no threshold is set on an
    item its model has seen."""
    mine = [i for i in items if i.kind == kind and i.split in FIT_SPLITS]
    scored: list[tuple[CorpusItem, dict[str, float]]] = []
    for fold in range(FOLDS):
        fold_model = _fit([i for i in mine if fold_of(i) != fold], labels)
        scored += [(i, fold_model.scores(item_ids(i))) for i in mine if fold_of(i) == fold]
    model = _fit(mine, labels)
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
