"""Rotated option orders and the robust MCQ metrics they allow.

The seeded shuffle already makes position carry no information on average, but one answerer
can still prefer a letter and score by luck on the items whose correct option sits there.
Asking each interview's items again with the options cyclically rotated moves every correct
option through other letters: an item is *robustly* correct only when it is answered
correctly in every order, and its robust reward is its worst, so a letter preference can no
longer pass for knowledge. Rotation 0 is the seeded shuffle itself, so the plain metrics (read
from rotation 0 only) are exactly those of an unrotated run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from interviewsim.mcq.models import McqItem, McqOption
from interviewsim.mcq.scoring import mean

PLAIN_METRICS = (("mcq_accuracy", "accuracy"), ("mcq_reward", "reward"))
"""Metric name and item field of the headline metrics (rotation 0 only)."""
ROBUST_METRICS = (("mcq_accuracy_robust", "accuracy"), ("mcq_reward_robust", "reward"))
"""Metric name and item field of the worst-over-rotations metrics."""

MetricValue = tuple[str, float | None, int, int]
"""(metric, value, n, invalid): one metric of one condition, before it becomes a row."""


def rotate_item(item: McqItem, rotation: int) -> McqItem:
    """``item`` with every option moved ``rotation`` labels down (cyclically), roles and texts
    travelling with it, so the correct label moves too; rotation 0 is the item itself."""
    n = len(item.options)
    if rotation % n == 0:
        return item
    labels = item.labels
    options = tuple(McqOption(label=labels[i], role=item.options[(i - rotation) % n].role,
                              text=item.options[(i - rotation) % n].text) for i in range(n))
    correct = next(o.label for o in options if o.role == "correct")
    return McqItem(**{**item.model_dump(), "options": options, "correct_label": correct})


def rotate_items(items: Sequence[McqItem], rotation: int) -> tuple[McqItem, ...]:
    return tuple(rotate_item(item, rotation) for item in items)


def robust_items(records: Iterable[dict]) -> list[dict]:
    """One entry per item over every rotation of the answer records of one condition: accuracy
    1 only when correct in every rotation, the worst reward, malformed when any rotation was.
    An item answered in fewer rotations than the others is an error (scoring it from fewer
    would make it easier to pass, silently).

    Items are keyed by (interview, item id) and kept in first-seen order, so with one rotation
    the entries are the rotation-0 items in the same order and the robust values equal them."""
    merged: dict[tuple[str, str], dict] = {}
    for record in records:
        for item in record["items"]:
            key = (record["interview_id"], item["item_id"])
            seen = merged.get(key)
            if seen is None:
                merged[key] = {"interview_id": record["interview_id"],
                               "item_id": item["item_id"], "accuracy": item["accuracy"],
                               "reward": item["reward"], "malformed": item["malformed"],
                               "rotations": 1}
                continue
            seen["accuracy"] = min(seen["accuracy"], item["accuracy"])
            seen["reward"] = min(seen["reward"], item["reward"])
            seen["malformed"] = seen["malformed"] or item["malformed"]
            seen["rotations"] += 1
    expected = max((m["rotations"] for m in merged.values()), default=0)
    short = [f"{m['interview_id']}/{m['item_id']}" for m in merged.values()
             if m["rotations"] != expected]
    if short:
        raise ValueError(f"{len(short)} item(s) miss a rotation of the {expected} the others "
                         f"have (first: {short[0]}); a robust score needs every rotation")
    return list(merged.values())


def condition_metrics(records: Sequence[dict]) -> list[MetricValue]:
    """Plain (rotation 0) and robust metrics of one condition's answer records (one
    personality, strategy or control, answerer). n counts every scored item, invalid the
    malformed ones, which the contract scores as wrong rather than excludes."""
    plain = [item for r in records if r["rotation"] == 0 for item in r["items"]]
    robust = robust_items(records)
    values: list[MetricValue] = []
    for items, names in ((plain, PLAIN_METRICS), (robust, ROBUST_METRICS)):
        invalid = sum(bool(item["malformed"]) for item in items)
        values += [(metric, mean(item[field] for item in items), len(items), invalid)
                   for metric, field in names]
    return values
