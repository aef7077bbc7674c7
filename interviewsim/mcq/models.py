"""Atomic items, generated MCQs and shuffled MCQ items, with the role rules of the contract.

A 3-option item is exactly one ``correct``, one ``opposite_negation`` and one ``near_miss``
option; a 4-option item adds one ``plausible_misconception``. Labels are exactly A-C or A-D.
These rules are checked wherever an item is built or read back, so an item that breaks them
(the reference 3-option examples label a distractor ``plausible_misconception``) can never be
scored.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

Role = Literal["correct", "opposite_negation", "near_miss", "plausible_misconception"]
ROLE_ORDER: tuple[Role, ...] = ("correct", "opposite_negation", "near_miss",
                                "plausible_misconception")
"""Pre-shuffle option order of a generated MCQ; 3-option items use the first three."""

OPTION_COUNTS = (3, 4)


def roles_for(option_count: int) -> tuple[Role, ...]:
    """The roles, in generation order, of an item with ``option_count`` options."""
    if option_count not in OPTION_COUNTS:
        raise ValueError(f"option_count must be 3 or 4, got {option_count}")
    return ROLE_ORDER[:option_count]


def labels_for(option_count: int) -> tuple[str, ...]:
    """The labels of an item with ``option_count`` options: A-C or A-D."""
    roles_for(option_count)
    return tuple("ABCD"[:option_count])


def normalized_text(text: str) -> str:
    """Option text as compared for uniqueness: case-folded, whitespace collapsed."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def duplicate_texts(texts: Sequence[str]) -> list[str]:
    """Texts that equal an earlier one case- and whitespace-insensitively."""
    seen: set[str] = set()
    duplicates = []
    for text in texts:
        key = normalized_text(text)
        if key in seen:
            duplicates.append(text)
        seen.add(key)
    return duplicates


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AtomicItem(_Frozen):
    """One explicit claim of a held-out response as a question with one short answer."""

    question: str
    answer: str


class GeneratedOption(_Frozen):
    role: Role
    text: str


class GeneratedMcq(_Frozen):
    """A parsed MCQ generation: options in the contract's role order, answer key A."""

    question: str
    options: tuple[GeneratedOption, ...]


class McqOption(_Frozen):
    label: str
    role: Role
    text: str


def option_problems(option_count: int, options: Sequence[McqOption],
                    correct_label: str) -> list[str]:
    """Every way ``options`` break the contract for an ``option_count``-option item."""
    if option_count not in OPTION_COUNTS:
        return [f"option_count must be 3 or 4, got {option_count}"]
    problems = []
    labels = [o.label for o in options]
    expected_labels = list(labels_for(option_count))
    if labels != expected_labels:
        problems.append(f"labels must be exactly {', '.join(expected_labels)} in order, "
                        f"got {', '.join(labels) or 'none'}")
    roles = Counter(o.role for o in options)
    expected_roles = roles_for(option_count)
    if sorted(roles.elements()) != sorted(expected_roles):
        foreign = sorted(set(roles) - set(expected_roles))
        missing = sorted(set(expected_roles) - set(roles))
        repeated = sorted(r for r, n in roles.items() if n > 1)
        detail = "; ".join(part for part in (
            f"role(s) not allowed: {', '.join(foreign)}" if foreign else "",
            f"missing: {', '.join(missing)}" if missing else "",
            f"repeated: {', '.join(repeated)}" if repeated else "",
        ) if part)
        problems.append(f"a {option_count}-option item needs exactly one option of each role "
                        f"{', '.join(expected_roles)} ({detail})")
    correct = [o.label for o in options if o.role == "correct"]
    if correct and correct_label != correct[0]:
        problems.append(f"correct_label {correct_label!r} is not the label of the correct "
                        f"option ({correct[0]!r})")
    duplicates = duplicate_texts([o.text for o in options])
    if duplicates:
        problems.append(f"option texts must be unique (case/space-insensitive): "
                        f"{duplicates[0]!r} repeats")
    if any(not o.text.strip() for o in options):
        problems.append("option text must not be blank")
    return problems


class McqItem(_Frozen):
    """A kept, shuffled MCQ: what mcq-answer presents and scores (one line of mcqs.jsonl)."""

    item_id: str
    personality_id: str
    qa_id: str
    interview_id: str
    option_count: int
    question: str
    options: tuple[McqOption, ...]
    correct_label: str

    @model_validator(mode="after")
    def _follows_contract(self) -> McqItem:
        problems = option_problems(self.option_count, self.options, self.correct_label)
        if problems:
            raise ValueError(f"invalid {self.option_count}-option item {self.item_id}: "
                             + "; ".join(problems))
        return self

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(o.label for o in self.options)

    def role_of(self, label: str) -> Role | None:
        """The role of the option labelled ``label``; None when the item has no such label."""
        return next((o.role for o in self.options if o.label == label), None)
