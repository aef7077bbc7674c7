"""Seeded per-item option shuffle: position carries no information, roles travel with options.

The order depends only on ``(mcq.shuffle_seed, item_id)``, so adding or removing other items,
personalities or strategies never reorders an item, and a rerun is byte-identical.
"""

from __future__ import annotations

import hashlib
import random

from interviewsim.mcq.models import GeneratedMcq, McqOption, labels_for


def item_rng(shuffle_seed: int, item_id: str) -> random.Random:
    """A generator private to one item (sha256 of seed and identity, so no hash randomisation)."""
    digest = hashlib.sha256(f"{shuffle_seed}:{item_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def shuffle_options(generated: GeneratedMcq, shuffle_seed: int,
                    item_id: str) -> tuple[tuple[McqOption, ...], str]:
    """The options in shuffled order, labelled A.. in that order, and the correct label."""
    order = list(generated.options)
    item_rng(shuffle_seed, item_id).shuffle(order)
    options = tuple(McqOption(label=label, role=option.role, text=option.text)
                    for label, option in zip(labels_for(len(order)), order, strict=True))
    correct = next(o.label for o in options if o.role == "correct")
    return options, correct
