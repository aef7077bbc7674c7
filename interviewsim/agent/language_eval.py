"""Precision and recall of the agent's rule classifiers on a labelled corpus.

The corpus (JSON Lines) holds interviewer turns, labelled question or not and with the
guardrail rules they break, and candidate replies, labelled with their signals (none: a normal
answer), each reply with the interviewer turn it answers. Every class is scored one-vs-rest:
an item may carry several labels, and a reply without signals is the class ``normal``.

``python -m interviewsim.agent.language_eval CORPUS`` prints the table docs/AGENT.md shows.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.guardrails import GuardrailAuditor, Rule
from interviewsim.agent.signals import Signal, detect_signals
from interviewsim.data.jsonio import read_jsonl
from interviewsim.text.discourse import is_question

NORMAL = "normal"
TURN_CLASSES = ("question", "not_question", *(r.value for r in Rule))
REPLY_CLASSES = (*(s.value for s in Signal), NORMAL)
RUBRIC_IDS = ("distributed_systems", "system_design")
"""Area ids the audit is given (the technical plan's multi-word ones)."""


class CorpusItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: Literal["turn", "reply"]
    text: str
    hard: bool
    """Written to defeat a phrase search (a quoted, reported, attributive or elliptical use)."""
    split: Literal["dev", "holdout"] = "dev"
    """``holdout``: written after the rules, never used to tune them."""
    question: bool | None = None
    guardrails: list[Rule] = []
    after: str | None = None
    """The interviewer turn a reply answers."""
    signals: list[Signal] = []

    def gold(self) -> set[str]:
        if self.kind == "turn":
            return {"question" if self.question else "not_question",
                    *(r.value for r in self.guardrails)}
        return {s.value for s in self.signals} or {NORMAL}


def load_corpus(path: str | Path) -> list[CorpusItem]:
    return [CorpusItem.model_validate(row) for row in read_jsonl(Path(path))]


def predict(item: CorpusItem, auditor: GuardrailAuditor | None = None) -> set[str]:
    """The labels the rules give one item, in the corpus's vocabulary."""
    if item.kind == "turn":
        audit = (auditor or GuardrailAuditor(RUBRIC_IDS)).audit(0, "", item.text)
        return {"question" if is_question(item.text) else "not_question",
                *(v.rule.value for v in audit.violations)}
    return {s.value for s in detect_signals(item.text, item.after)} or {NORMAL}


class ClassScore(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    label: str
    support: int
    """Items carrying the label."""
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def score_classes(items: Iterable[CorpusItem]) -> list[ClassScore]:
    auditor = GuardrailAuditor(RUBRIC_IDS)
    counts: dict[tuple[str, str], list[int]] = {
        **{("turn", c): [0, 0, 0] for c in TURN_CLASSES},
        **{("reply", c): [0, 0, 0] for c in REPLY_CLASSES}}
    for item in items:
        gold, got = item.gold(), predict(item, auditor)
        for (kind, label), row in counts.items():
            if kind != item.kind:
                continue
            row[0] += label in gold and label in got
            row[1] += label in got and label not in gold
            row[2] += label in gold and label not in got
    return [ClassScore(kind=kind, label=label, support=tp + fn, tp=tp, fp=fp, fn=fn)
            for (kind, label), (tp, fp, fn) in counts.items()]


def misclassified(items: Iterable[CorpusItem]) -> list[tuple[CorpusItem, set[str]]]:
    auditor = GuardrailAuditor(RUBRIC_IDS)
    return [(item, got) for item in items if (got := predict(item, auditor)) != item.gold()]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def render_table(scores: Sequence[ClassScore]) -> str:
    lines = ["| items | class | support | precision | recall |", "| --- | --- | --- | --- | --- |"]
    for s in scores:
        lines.append(f"| {'interviewer turns' if s.kind == 'turn' else 'candidate replies'} "
                     f"| {s.label} | {s.support} | {_pct(s.precision)} | {_pct(s.recall)} |")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> None:
    items = load_corpus(argv[0])
    for split in ("dev", "holdout"):
        part = [i for i in items if i.split == split]
        hard = sum(i.hard for i in part)
        print(f"\n{split}: {len(part)} items ({hard} hard)\n")
        print(render_table(score_classes(part)))
    for item, got in misclassified(items):
        print(f"\n{item.id}: gold {sorted(item.gold())}, rules {sorted(got)}: {item.text[:80]}")


if __name__ == "__main__":
    main(sys.argv[1:])
