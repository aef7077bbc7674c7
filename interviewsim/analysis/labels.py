"""People's labels of judged items, and how well each judge agrees with them.

A label is one person's value for one item (:mod:`interviewsim.analysis.judged_items`), on the
metric's own scale. Labels live in ``data/labels/<rater>.jsonl`` (git-tracked, one label a
line, sorted, so a pull or an import that adds nothing leaves the file byte-identical); they
come from the MLflow UI (``interviewsim labels pull``) or from a file (``labels import``).

Agreement with people, per judge and metric: Krippendorff's alpha with the person as one coder
and the judge as the other (ordinal for CS scores and trait levels, nominal for FC labels), a
percentile bootstrap over whole personalities (printed where that bootstrap covers at this
design, as for the judges' agreement), the confusion matrix (person × judge) and n. A label
given against an answer that has since changed (its digest differs from the item's) is stale:
counted, never used. Between people: alpha among the raters on the items two or more of them
labelled.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interviewsim.analysis.agreement import alpha_with_ci
from interviewsim.analysis.calibration import MIN_COVERAGE, worst_bootstrap_coverage
from interviewsim.analysis.judged_items import (
    CS,
    KEY_FIELDS,
    LEVELS,
    PS,
    SCALES,
    ItemKey,
    JudgedItem,
)
from interviewsim.analysis.stats import derived_seed
from interviewsim.data.jsonio import write_text_atomic
from interviewsim.errors import InputError, Problem

RATER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
KIND = {CS: "likert", PS: "levels"}
"""The pinned model each metric's bootstrap check is simulated under (FC: binary)."""
DIGITS = 6
THRESHOLD = 0.667
"""The agreement a verdict is drawn against (the conventional floor for tentative
conclusions): benchmarks/bench_human_agreement.py simulates both verdicts at it."""


@dataclass(frozen=True, order=True)
class Label:
    key: ItemKey
    rater: str
    value: Any
    digest: str = ""
    """The item's digest when it was labelled ('' when unknown: an imported label)."""

    def record(self) -> dict[str, Any]:
        return {"rater": self.rater, **self.key.record(), "value": self.value,
                "digest": self.digest}

    def line(self) -> str:
        return json.dumps(self.record(), sort_keys=True, ensure_ascii=False)


def scale_value(metric: str, value: Any) -> Any:
    """``value`` on ``metric``'s scale (CS 1-5 as int; labels and levels in their spelling,
    any case); ValueError naming the scale otherwise."""
    scale = SCALES.get(metric)
    if scale is None:
        raise ValueError(f"unknown metric {metric!r} (one of {', '.join(SCALES)})")
    if metric == CS:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = None
        if number is not None and number.is_integer() and int(number) in scale:
            return int(number)
    else:
        for allowed in scale:
            if isinstance(value, str) and value.strip().lower() == allowed.lower():
                return allowed
    shown = ", ".join(map(str, scale))
    raise ValueError(f"{value!r} is not on the {metric} scale ({shown})")


def make_label(fields: Mapping[str, Any], rater: str | None, where: str) -> Label:
    """A label from a mapping with the key fields and ``value`` (``rater`` overrides a missing
    one); InputError naming ``where`` and the field on anything invalid."""
    problems = [Problem(where, name, "missing") for name in (*KEY_FIELDS, "value")
                if fields.get(name) in (None, "")]
    who = str(fields.get("rater") or rater or "")
    if not RATER.match(who):
        problems.append(Problem(where, "rater", f"{who!r} is not a rater name (letters, digits, "
                                "'.', '_', '-'; give --rater NAME)"))
    if problems:
        raise InputError(problems)
    key = ItemKey(*(str(fields[name]) for name in KEY_FIELDS))
    try:
        value = scale_value(key.metric, fields["value"])
    except ValueError as exc:
        raise InputError([Problem(where, "value", str(exc))]) from None
    return Label(key, who, value, str(fields.get("digest") or ""))


def read_label_file(path: Path, rater: str | None = None) -> list[Label]:
    """Labels of a CSV (header: the key fields, value, optional rater and digest) or JSON Lines
    file, every bad line named at once (InputError)."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() == ".csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        places = [f"row {n}" for n in range(2, len(rows) + 2)]
    else:
        rows, places = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise InputError([Problem(str(path), f"line {number}",
                                              f"invalid JSON: {exc.msg}")]) from None
                places.append(f"line {number}")
    labels, problems = [], []
    for row, place in zip(rows, places, strict=True):
        try:
            labels.append(make_label(row, rater, f"{path} {place}"))
        except InputError as exc:
            problems += exc.problems
    if problems:
        raise InputError(problems)
    return labels


def read_labels(labels_dir: Path) -> list[Label]:
    """Every label of ``labels_dir/*.jsonl`` (none when the folder holds none)."""
    found: list[Label] = []
    for path in sorted(labels_dir.glob("*.jsonl")) if labels_dir.is_dir() else ():
        found += read_label_file(path)
    return found


def merge_labels(labels_dir: Path, new: Sequence[Label]) -> list[Path]:
    """Write ``new`` into their raters' files: a label replaces the rater's earlier label of
    the same item, others stay. Every file written sorted (temp file, then rename); returns
    the files whose content changed."""
    changed = []
    by_rater: dict[str, dict[ItemKey, Label]] = defaultdict(dict)
    for label in new:
        by_rater[label.rater][label.key] = label
    for rater, labels in sorted(by_rater.items()):
        path = labels_dir / f"{rater}.jsonl"
        merged = {old.key: old for old in read_label_file(path)} if path.is_file() else {}
        merged.update(labels)
        text = "".join(merged[k].line() + "\n" for k in sorted(merged))
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            write_text_atomic(path, text)
            changed.append(path)
    return changed


# -- agreement ---------------------------------------------------------------------------------

@dataclass
class JudgeVsPeople:
    metric: str
    judge: str
    n: int
    personalities: int
    alpha: float | None
    interval: tuple[float, float] | None
    printable: bool
    confusion: dict[tuple[Any, Any], int]
    """(person's value, judge's value) -> count."""
    stale: int = 0


@dataclass
class HumanAgreement:
    judges: list[JudgeVsPeople] = field(default_factory=list)
    between: dict[str, tuple[float | None, int]] = field(default_factory=dict)
    """metric -> (alpha among raters, items labelled by two or more)."""
    labels: int = 0
    raters: tuple[str, ...] = ()
    unmatched: int = 0
    """Labels of items this experiment does not hold."""

    def flat(self) -> dict[str, float | int]:
        out: dict[str, float | int] = {}
        for j in self.judges:
            base = f"validity.human_agreement.{j.metric}.{j.judge}"
            out[f"{base}.n"] = j.n
            if j.alpha is not None:
                out[f"{base}.alpha"] = round(j.alpha, DIGITS)
            if j.interval is not None and j.printable:
                out[f"{base}.ci_low"] = round(j.interval[0], DIGITS)
                out[f"{base}.ci_high"] = round(j.interval[1], DIGITS)
        for metric, (alpha, n) in self.between.items():
            if alpha is not None:
                out[f"validity.human_agreement.{metric}.between_people.alpha"] = round(alpha,
                                                                                     DIGITS)
            out[f"validity.human_agreement.{metric}.between_people.n"] = n
        return out

    def render(self) -> str:
        if not self.labels:
            return ("No human labels yet, so no judge has been checked against people. Start "
                    "with `interviewsim "
                    "labels sample --n 40 --rater YOUR_NAME`, label the traces it lists in the "
                    "MLflow UI, then `interviewsim labels pull` and `dvc repro` "
                    "(docs/EXPERIMENTS.md \"Checking the judges against people\").")
        lines = [f"{self.labels} human labels by {len(self.raters)} rater(s) "
                 f"({', '.join(self.raters)}; data/labels/). "
                 "Krippendorff's alpha with the person as one coder and the judge as the other "
                 "(1 = agree, 0 = chance), 95% bootstrap over personalities where it covers at "
                 "this design:"]
        for j in self.judges:
            alpha = "–" if j.alpha is None else f"{j.alpha:.3f}"
            ci = ""
            if j.interval is not None:
                ci = (f" [{j.interval[0]:.3f}, {j.interval[1]:.3f}]" if j.printable else
                      " (interval: too few to interpret)")
            verdict = _verdict(j)
            stale = f"; {j.stale} stale label(s) set aside" if j.stale else ""
            lines.append(f"- {j.judge} on {j.metric}: alpha {alpha}{ci}, n = {j.n} over "
                         f"{j.personalities} personalities{stale}: {verdict}")
        for metric, (alpha, n) in self.between.items():
            lines.append(f"- between people on {metric}: alpha "
                         f"{'–' if alpha is None else f'{alpha:.3f}'} over {n} items")
        if self.unmatched:
            lines.append(f"- {self.unmatched} label(s) name items this experiment does not "
                         "hold (another configuration's), not used")
        for j in self.judges:
            lines += ["", *_confusion(j)]
        return "\n".join(lines)


def _verdict(j: JudgeVsPeople) -> str:
    if j.alpha is None:
        return "not computable (no variation, or fewer than one pair)"
    if j.interval is None or not j.printable:
        return "too few labels to say whether this judge agrees with people"
    if j.interval[0] >= THRESHOLD:
        return f"**agrees with people** (lower bound at least {THRESHOLD})"
    if j.interval[1] < THRESHOLD:
        return f"**does not agree well enough with people** (upper bound below {THRESHOLD})"
    return f"inconclusive (the interval straddles {THRESHOLD})"


def _confusion(j: JudgeVsPeople) -> list[str]:
    scale = SCALES[j.metric]
    head = f"{j.judge} on {j.metric} (rows: people; columns: the judge)"
    lines = [head, "", "| person \\ judge | " + " | ".join(map(str, scale)) + " |",
             "|---|" + "---:|" * len(scale)]
    for human in scale:
        lines.append(f"| {human} | " + " | ".join(str(j.confusion.get((human, judge), 0))
                                                for judge in scale) + " |")
    return lines


def human_agreement(items: Sequence[JudgedItem], labels: Sequence[Label], n_boot: int,
                    seed: int) -> HumanAgreement:
    """Agreement of each judge with people, and between people, from ``labels`` of ``items``."""
    by_key = {item.key: item for item in items}
    result = HumanAgreement(labels=len(labels), raters=tuple(sorted({x.rater for x in labels})))
    pairs: dict[tuple[str, str], list[tuple[Label, JudgedItem]]] = defaultdict(list)
    stale: dict[tuple[str, str], int] = defaultdict(int)
    for label in labels:
        item = by_key.get(label.key)
        if item is None:
            result.unmatched += 1
        elif label.digest and label.digest != item.digest:
            stale[(label.key.metric, label.key.judge)] += 1
        else:
            pairs[(label.key.metric, label.key.judge)].append((label, item))
    for (metric, judge) in sorted(set(pairs) | set(stale)):
        found = pairs.get((metric, judge), [])
        result.judges.append(_judge_vs_people(metric, judge, found, n_boot, seed,
                                              stale[(metric, judge)]))
    result.between = _between(labels, by_key)
    return result


def _judge_vs_people(metric: str, judge: str, pairs: Sequence[tuple[Label, JudgedItem]],
                     n_boot: int, seed: int, stale: int) -> JudgeVsPeople:
    units = [[label.value, item.value] for label, item in pairs]
    people = [label.key.personality_id for label, _ in pairs]
    confusion: dict[tuple[Any, Any], int] = defaultdict(int)
    for label, item in pairs:
        confusion[(label.value, item.value)] += 1
    groups = len(set(people))
    estimate = None
    if units:
        order = SCALES[metric] if LEVELS[metric] == "ordinal" else None
        estimate = alpha_with_ci(units, LEVELS[metric], order, n_boot,
                                 derived_seed(seed, "human_agreement", metric, judge),
                                 clusters=people)
    per = max(1, round(len(units) / max(1, groups)))
    printable = worst_bootstrap_coverage(KIND.get(metric, "binary"), groups, per) >= MIN_COVERAGE
    return JudgeVsPeople(metric, judge, len(units), groups,
                         None if estimate is None else estimate.alpha,
                         None if estimate is None else estimate.ci, printable, dict(confusion),
                         stale)


def _between(labels: Iterable[Label], by_key: Mapping[ItemKey, JudgedItem]
             ) -> dict[str, tuple[float | None, int]]:
    """Per metric, alpha among raters on the items two or more of them labelled."""
    table: dict[str, dict[ItemKey, dict[str, Any]]] = defaultdict(lambda: defaultdict(dict))
    for label in labels:
        item = by_key.get(label.key)
        if item is not None and not (label.digest and label.digest != item.digest):
            table[label.key.metric][label.key][label.rater] = label.value
    out = {}
    for metric, by_item in sorted(table.items()):
        raters = sorted({r for values in by_item.values() for r in values})
        shared = [k for k, values in sorted(by_item.items()) if len(values) >= 2]
        if len(raters) < 2 or not shared:
            continue
        units = [[by_item[k].get(r) for r in raters] for k in shared]
        order = SCALES[metric] if LEVELS[metric] == "ordinal" else None
        estimate = alpha_with_ci(units, LEVELS[metric], order, 0)
        out[metric] = (estimate.alpha, len(shared))
    return out
