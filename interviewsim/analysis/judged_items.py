"""Every judged item of an experiment, as a person would label it: what was judged, and each
judge's decision.

An item is one CS score or FC label of one answer (a strategy's or a control's), or one Big
Five trait vote of one condition's answers. Its key names it in every place it travels (the
MLflow trace's tag, a label file's line): personality, condition (``strategy:<name>`` or
``control:<name>``), unit (the qa_id, or the trait), metric and judge. Its digest is a hash of
what a labeller sees (the texts); a label carries the digest it was given against, so a label
of an answer that has since changed is recognised as stale rather than silently reused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interviewsim.analysis.agreement import CS_SCORES, PS_LEVELS
from interviewsim.data.jsonio import canonical_json, read_jsonl, sha256_hex

CS = "content_similarity"
FC = "factual_consistency"
PS = "personality_trait"
SCALES: dict[str, tuple[Any, ...]] = {
    CS: tuple(CS_SCORES),
    FC: ("Entailment", "Neutral", "Contradiction"),
    PS: tuple(PS_LEVELS),
}
"""The values a judge or a person may give per metric (CS 1-5, FC's three labels, a trait's
three levels)."""
LEVELS: dict[str, str] = {CS: "ordinal", FC: "nominal", PS: "ordinal"}
"""Krippendorff's level of measurement per metric (agreement with people)."""
KEY_FIELDS: tuple[str, ...] = ("personality_id", "condition", "unit", "metric", "judge")
SEPARATOR = "|"


@dataclass(frozen=True, order=True)
class ItemKey:
    personality_id: str
    condition: str
    """``strategy:<name>`` or ``control:<name>``."""
    unit: str
    """The qa_id of a CS or FC item; the trait of a PS item."""
    metric: str
    judge: str

    def tag(self) -> str:
        """The key as one string (the trace tag's value, sortable and human-readable)."""
        return SEPARATOR.join(getattr(self, name) for name in KEY_FIELDS)

    @classmethod
    def parse(cls, text: str) -> ItemKey:
        parts = text.split(SEPARATOR)
        if len(parts) != len(KEY_FIELDS) or not all(parts):
            raise ValueError(f"not an item key: {text!r} (expected "
                             f"{SEPARATOR.join(KEY_FIELDS)})")
        return cls(*parts)

    def record(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in KEY_FIELDS}

    @property
    def stratum(self) -> tuple[str, str]:
        """(condition, metric): what a labelling sample is balanced over."""
        return self.condition, self.metric


@dataclass(frozen=True)
class JudgedItem:
    key: ItemKey
    inputs: dict[str, Any]
    """What the judge read and a labeller sees (question, real answer, candidate, ...)."""
    value: Any
    """The judge's decision on the metric's scale."""
    explanation: str
    model: str

    @property
    def digest(self) -> str:
        return sha256_hex(canonical_json(self.inputs))[:16]


def _condition(record: Mapping[str, Any]) -> str | None:
    if record.get("control"):
        return f"control:{record['control']}"
    if record.get("strategy"):
        return f"strategy:{record['strategy']}"
    return None


def _answers(generated: Path, controls: Path) -> dict[tuple[str, str, str], dict]:
    found: dict[tuple[str, str, str], dict] = {}
    for path in (generated, controls):
        if path.is_file():
            for r in read_jsonl(path):
                condition = _condition(r)
                if condition is not None and r.get("response") is not None:
                    found[(r["personality_id"], condition, r["qa_id"])] = r
    return found


def _value(record: Mapping[str, Any]) -> Any:
    parsed = record.get("parsed")
    if not record.get("valid") or not isinstance(parsed, dict):
        return None
    return parsed.get("score" if record["metric"] == CS else "label")


def judged_items(judged_dir: Path, generated: Path, controls: Path, heldout: Path,
                 fact_summaries: Path) -> list[JudgedItem]:
    """The valid judged items of the judge stage's files (strategies and controls), sorted by
    key. Files that do not exist contribute nothing."""
    answers = _answers(generated, controls)
    real = ({(r["personality_id"], r["qa_id"]): r for r in read_jsonl(heldout)}
            if heldout.is_file() else {})
    summaries = ({(r["personality_id"], r["judge"]): (r.get("parsed") or {}).get("summary")
                  for r in read_jsonl(fact_summaries)} if fact_summaries.is_file() else {})
    items: list[JudgedItem] = []
    for name in ("judgments.jsonl", "control_judgments.jsonl"):
        path = judged_dir / name
        for r in (read_jsonl(path) if path.is_file() else ()):
            condition, value = _condition(r), _value(r)
            if condition is None or value is None or r["metric"] not in (CS, FC):
                continue
            pid, qa_id = r["personality_id"], r["qa_id"]
            answer, pair = answers.get((pid, condition, qa_id)), real.get((pid, qa_id))
            if answer is None or pair is None:
                continue
            inputs = {"personality_id": pid, "condition": condition, "qa_id": qa_id,
                      "question": pair["question"], "candidate": answer["response"]}
            if r["metric"] == CS:
                inputs["reference"] = pair["response"]
            else:
                inputs["fact_summary"] = summaries.get((pid, r["judge"])) or ""
            items.append(JudgedItem(ItemKey(pid, condition, qa_id, r["metric"], r["judge"]),
                                    inputs, value, str(r["parsed"].get("explanation", "")),
                                    r.get("model", "")))
    items += _trait_items(judged_dir, answers)
    return sorted(items, key=lambda item: item.key)


def _trait_items(judged_dir: Path, answers: Mapping[tuple[str, str, str], dict]
                 ) -> list[JudgedItem]:
    """One item per (personality, condition, trait, judge): the modal vote of its runs."""
    by_condition: dict[tuple[str, str], list[str]] = {}
    for (pid, condition, _), answer in sorted(answers.items()):
        by_condition.setdefault((pid, condition), []).append(answer["response"])
    items = []
    for name in ("ps_votes.jsonl", "control_ps_votes.jsonl"):
        path = judged_dir / name
        for r in (read_jsonl(path) if path.is_file() else ()):
            condition = _condition(r)
            if condition is None or not r.get("valid") or r.get("level") is None:
                continue
            texts = by_condition.get((r["personality_id"], condition))
            if not texts:
                continue
            inputs = {"personality_id": r["personality_id"], "condition": condition,
                      "trait": r["trait"], "answers": texts}
            items.append(JudgedItem(
                ItemKey(r["personality_id"], condition, r["trait"], PS, r["judge"]), inputs,
                r["level"], f"runs voted {', '.join(r.get('votes') or [])}",
                r.get("model", "")))
    return items


def sample_keys(items: Iterable[JudgedItem], cap: int, seed: int) -> list[JudgedItem]:
    """At most ``cap`` items, seeded and stable: the same items are chosen on every rerun
    (an item's rank is a hash of the seed and its key, never of its position)."""
    ranked = sorted(items, key=lambda item: sha256_hex(f"{seed}|{item.key.tag()}"))
    return sorted(ranked[:cap], key=lambda item: item.key)
