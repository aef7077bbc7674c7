"""Position bias of each MCQ answerer: which letters it picks, and what that alone would score.

The seeded shuffle spreads correct answers over the letters, but over a small item set they
are never spread evenly, and a small model often picks one letter whatever the question. Its
accuracy then partly measures where the correct options happen to sit. The *position baseline*
says how much: the expected accuracy of a knowledge-free answerer with this answerer's letter
habit, Σ over letters of (share of answers with that letter) × (share of items keyed to it).
(The former baseline, the accuracy of the answerer's own most frequent letter, picked that
letter after the fact, so it rose with knowledge: 0.362 expected for an answerer knowing half
of six items against 0.25 for a guesser with the same habit.) Whether the accuracy beats the
baseline is a permutation test that shuffles the answers across items, which keeps the habit
and the key and breaks only the link between them. The robust accuracy (right in every rotated
order, :mod:`interviewsim.mcq.rotation`) has its own chance level, (1/k)^R for k options and R
rotations, printed beside it.

Letters, baseline and accuracy read rotation 0, the order the headline metrics score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from interviewsim.mcq.models import McqItem, labels_for
from interviewsim.mcq.rotation import robust_items

DIGITS = 6
"""Rounding of the shares and accuracies, so the file reads and diffs cleanly."""
PERMUTATIONS = 2000
"""Shuffles of the answers across items in the position test."""


@dataclass(frozen=True)
class ItemAnswer:
    """One item as one answerer answered it under one strategy."""

    answerer: str
    strategy: str
    selected_label: str | None
    """The rotation-0 choice; None when the group's output was malformed."""
    correct_label: str
    """The item's correct label in rotation 0 (the seeded shuffle's)."""
    accuracy: int
    robust_accuracy: int


def item_answers(records: Sequence[dict], items: Sequence[McqItem]) -> list[ItemAnswer]:
    """One entry per (strategy, answerer, item) of one personality's strategy answer records
    (every rotation of them), in record order."""
    correct = {item.item_id: item.correct_label for item in items}
    conditions: dict[tuple[str, str], list[dict]] = {}
    for record in records:
        conditions.setdefault((record["strategy"], record["answerer"]), []).append(record)
    answers = []
    for (strategy, answerer), own in conditions.items():
        robust = {(r["interview_id"], r["item_id"]): r["accuracy"] for r in robust_items(own)}
        answers += [ItemAnswer(answerer=answerer, strategy=strategy,
                               selected_label=item["selected_label"],
                               correct_label=correct[item["item_id"]],
                               accuracy=item["accuracy"],
                               robust_accuracy=robust[record["interview_id"], item["item_id"]])
                    for record in own if record["rotation"] == 0 for item in record["items"]]
    return answers


def _share(part: float, whole: int) -> float | None:
    return round(part / whole, DIGITS) if whole else None


def position_test(answers: Sequence[ItemAnswer], permutations: int = PERMUTATIONS,
                  seed: int = 0) -> float | None:
    """One-sided p that the accuracy beats the answerer's letter habit: the share of shuffles
    of the chosen letters across items (malformed ones travel as never right) scoring at
    least the observed accuracy, counting the observed labelling."""
    if not answers:
        return None
    chosen = np.array([a.selected_label or "" for a in answers])
    key = np.array([a.correct_label for a in answers])
    observed = int(np.count_nonzero(chosen == key))
    rng = np.random.default_rng(seed)
    shuffled = chosen[np.argsort(rng.random((permutations, chosen.size)), axis=1)]
    extreme = int(np.count_nonzero((shuffled == key).sum(axis=1) >= observed))
    return round((1 + extreme) / (1 + permutations), DIGITS)


def letter_stats(answers: Sequence[ItemAnswer], labels: Sequence[str]) -> dict[str, Any]:
    """Letter counts, the most frequent letter (ties: the earliest label) and its share of the
    chosen letters, the knowledge-free baseline of this letter habit and its permutation p,
    and the actual accuracies, all over the same answers (malformed ones count as wrong, as
    they are scored)."""
    letters = dict.fromkeys(labels, 0)
    keyed = dict.fromkeys(labels, 0)
    for answer in answers:
        keyed[answer.correct_label] = keyed.get(answer.correct_label, 0) + 1
        if answer.selected_label is not None:
            letters[answer.selected_label] = letters.get(answer.selected_label, 0) + 1
    chosen = sum(letters.values())
    top = max(letters, key=lambda label: letters[label]) if chosen else None
    answered = len(answers)
    baseline = (sum(letters[x] * keyed.get(x, 0) for x in letters) / (answered * answered)
                if answered else None)
    return {
        "letters": dict(sorted(letters.items())),
        "answered": answered,
        "malformed": sum(a.selected_label is None for a in answers),
        "top_letter": top,
        "top_letter_share": _share(letters[top], chosen) if top is not None else None,
        "position_baseline_accuracy": None if baseline is None else round(baseline, DIGITS),
        "position_p": position_test(answers),
        "accuracy": _share(sum(a.accuracy for a in answers), answered),
        "robust_accuracy": _share(sum(a.robust_accuracy for a in answers), answered),
    }


def position_bias(answers: Sequence[ItemAnswer], answerers: Sequence[str],
                  strategies: Sequence[str], option_count: int, rotations: int) -> dict[str, Any]:
    """position_bias.json: per answerer, all strategies pooled, and per strategy beside it.

    Every configured answerer and strategy appears (with zero counts when it answered nothing),
    so the file's shape depends on the params alone."""
    labels = labels_for(option_count)
    report: dict[str, Any] = {}
    for answerer in sorted(answerers):
        own = [a for a in answers if a.answerer == answerer]
        report[answerer] = {
            **letter_stats(own, labels),
            "strategies": {strategy: letter_stats([a for a in own if a.strategy == strategy],
                                                  labels)
                           for strategy in sorted(strategies)},
        }
    return {"option_count": option_count, "chance": round(1 / option_count, DIGITS),
            "rotations": rotations, "robust_chance": round(option_count ** -rotations, DIGITS),
            "answerers": report}
