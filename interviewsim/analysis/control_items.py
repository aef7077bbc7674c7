"""The item-level values of the controls, the data the discrimination test pairs.

An item is one judged answer for CS and FC (keyed by its question, which oracle and impostor
both answer), one trait of one profile for PS (its agreement with the reference profile,
1 − |level difference| / 2, whose mean over the five traits is personality alignment), and
one MCQ item for MCQ, its rotations together (the robust metrics: right only when right in
every rotation). Where a stage wrote no item-level file, its per-personality values stand as
one item each, so the test still runs (with less information about spread).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from interviewsim.analysis.agreement import PS_LEVELS
from interviewsim.data.jsonio import read_jsonl
from interviewsim.data.records import ControlMetric
from interviewsim.mcq.rotation import PLAIN_METRICS, ROBUST_METRICS, robust_items

ItemValues = dict[tuple[str, str], dict[str, dict[str, dict[str, float]]]]
"""(judge, metric) -> control -> personality -> item key -> value."""

FC_LABELS: dict[str, str] = {"Contradiction": "contradiction_ratio",
                             "Entailment": "entailment_ratio", "Neutral": "neutral_ratio"}


def _nested() -> ItemValues:
    return defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))


def judgment_items(records: Iterable[dict], found: ItemValues) -> None:
    """CS scores and FC labels (one 0/1 value per label metric) of valid control judgments."""
    for r in records:
        if not r.get("valid") or "control" not in r:
            continue
        where = (r["control"], r["personality_id"])
        key = f"{r['interview_id']}/{r['qa_id']}"
        if r["metric"] == "content_similarity":
            found[(r["judge"], "content_similarity")][where[0]][where[1]][key] = float(
                r["parsed"]["score"])
        elif r["metric"] == "factual_consistency":
            for label, metric in FC_LABELS.items():
                found[(r["judge"], metric)][where[0]][where[1]][key] = float(
                    r["parsed"]["label"] == label)


def ps_items(reference_votes: Iterable[dict], control_votes: Iterable[dict],
             found: ItemValues) -> None:
    """Per trait, the control profile's agreement with the reference profile's vote."""
    rank = {level: i for i, level in enumerate(PS_LEVELS)}
    reference = {(v["judge"], v["personality_id"], v["trait"]): v["level"]
                 for v in reference_votes if v.get("side") == "reference" and v.get("valid")}
    for v in control_votes:
        ref = reference.get((v["judge"], v["personality_id"], v["trait"]))
        if not v.get("valid") or ref is None:
            continue
        value = 1.0 - abs(rank[ref] - rank[v["level"]]) / 2.0
        found[(v["judge"], "personality_alignment")][v["control"]][v["personality_id"]][
            v["trait"]] = value


def mcq_items(records: Iterable[dict], found: ItemValues) -> None:
    """Plain (rotation 0) and robust accuracy and reward per MCQ item of the control answers."""
    groups: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for r in records:
        groups[(r["answerer"], r["control"], r["personality_id"])].append(r)
    for (answerer, control, pid), own in groups.items():
        for r in own:
            if r["rotation"] == 0:
                for item in r["items"]:
                    for metric, field in PLAIN_METRICS:
                        found[(answerer, metric)][control][pid][
                            f"{r['interview_id']}/{item['item_id']}"] = float(item[field])
        for item in robust_items(own):
            for metric, field in ROBUST_METRICS:
                found[(answerer, metric)][control][pid][
                    f"{item['interview_id']}/{item['item_id']}"] = float(item[field])


def metric_items(rows: Iterable[ControlMetric], found: ItemValues) -> None:
    """Per-personality values as one item each, for (judge, metric) without item files."""
    covered = set(found)
    for row in rows:
        if row.value is not None and (row.judge, row.metric) not in covered:
            found[(row.judge, row.metric)][row.control][row.personality_id]["all"] = row.value


def read_control_items(rows: Iterable[ControlMetric], judged_dir: Path | None,
                       mcq_dir: Path | None) -> ItemValues:
    """Every control item the stages wrote (files absent are skipped), with the metric rows
    filling in for whatever has no item-level file."""
    found = _nested()
    if judged_dir is not None:
        if (path := judged_dir / "control_judgments.jsonl").is_file():
            judgment_items(read_jsonl(path), found)
        votes, reference = judged_dir / "control_ps_votes.jsonl", judged_dir / "ps_votes.jsonl"
        if votes.is_file() and reference.is_file():
            ps_items(read_jsonl(reference), read_jsonl(votes), found)
    if mcq_dir is not None and (path := mcq_dir / "control_answers.jsonl").is_file():
        mcq_items(read_jsonl(path), found)
    metric_items(rows, found)
    return found


def item_files(judged_dir: Path, mcq_dir: Path) -> list[Path]:
    """The item-level files :func:`read_control_items` reads that exist (for the run's
    identity)."""
    candidates = [judged_dir / "control_judgments.jsonl", judged_dir / "control_ps_votes.jsonl",
                  judged_dir / "ps_votes.jsonl", mcq_dir / "control_answers.jsonl"]
    return [p for p in candidates if p.is_file()]
