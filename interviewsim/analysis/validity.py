"""Can these numbers be trusted? Each judge's discrimination between the controls.

For every judge (and MCQ answerer) and metric, the item-level difference between the
``oracle`` control (the person's own held-out answer) and the ``impostor`` control (another
personality's real answer to the most similar question), signed so that a judge that tells
the person from an impostor gives a positive number, tested over personalities by
:func:`interviewsim.analysis.inference.control_test` (five verdicts), with a t-interval over
personalities printed only where its simulated coverage holds for the design present
(:mod:`interviewsim.analysis.calibration`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from interviewsim.analysis.calibration import interval_printable, metric_kind
from interviewsim.analysis.control_items import ItemValues
from interviewsim.analysis.controls import IMPOSTOR, ORACLE
from interviewsim.analysis.inference import ControlTest, ControlVerdict, control_test
from interviewsim.analysis.intervals import t_interval
from interviewsim.analysis.stats import derived_seed
from interviewsim.data.jsonio import read_jsonl
from interviewsim.data.records import ControlMetric

DISCRIMINATING: dict[str, int] = {
    "content_similarity": +1,
    "entailment_ratio": +1,
    "contradiction_ratio": -1,
    "personality_alignment": +1,
    "mcq_accuracy": +1,
    "mcq_reward": +1,
    "mcq_accuracy_robust": +1,
    "mcq_reward_robust": +1,
}
"""Metrics an honest judge scores better for the oracle, and which way better is (+1: the
oracle's value is higher; -1: lower, as for contradictions)."""

MARKS: dict[ControlVerdict, str] = {
    ControlVerdict.DISCRIMINATES: "✅", ControlVerdict.INVERTED: "❌",
    ControlVerdict.NO_VARIATION: "⚪", ControlVerdict.EQUIVALENT: "⚠️",
    ControlVerdict.INCONCLUSIVE: "❔"}


def sign_label(metric: str) -> str:
    """How the difference is taken: contradictions are better when lower."""
    return "impostor − oracle" if DISCRIMINATING.get(metric, 1) < 0 else "oracle − impostor"


@dataclass(frozen=True)
class Discrimination:
    """The verdict for one judge and metric and what it rests on."""

    judge: str
    metric: str
    test: ControlTest
    interval: tuple[float, float] | None
    """95% t-interval of the difference over personalities; None when its simulated coverage
    at this design is under 93% ("too few to interpret")."""
    oracle: float | None
    impostor: float | None

    @property
    def difference(self) -> float | None:
        return self.test.difference

    @property
    def discriminates(self) -> bool:
        return self.test.verdict is ControlVerdict.DISCRIMINATES

    def verdict(self) -> str:
        t = self.test
        head = f"{self.judge} on {self.metric}: **{t.verdict.value}**"
        if t.difference is None:
            return f"{head} (no personality has both controls scored)"
        ci = ("too few to interpret" if self.interval is None
              else f"95% CI [{self.interval[0]:+.3f}, {self.interval[1]:+.3f}]")
        line = (f"{head}; {sign_label(self.metric)} {t.difference:+.3f} ({ci}) over "
                f"{t.personalities} personalities, {t.items} items; one-sided p "
                f"{t.p_discriminates:.4f} right way, {t.p_inverted:.4f} wrong way")
        if t.p_equivalent is not None:
            line += f", TOST p {t.p_equivalent:.4f} (margin ±{t.margin:g})"
        if not t.reachable and t.verdict is not ControlVerdict.NO_VARIATION:
            line += (f" — at {t.personalities} personalities no p can be below "
                     f"{t.smallest_p:.4f}, so no verdict but inconclusive is possible")
        return line

    def flat(self) -> dict[str, float | int]:
        """``dvc metrics`` / MLflow values (None left out)."""
        t = self.test
        values = {"difference": t.difference, "oracle": self.oracle, "impostor": self.impostor,
                  "p_discriminates": t.p_discriminates, "p_inverted": t.p_inverted,
                  "p_equivalent": t.p_equivalent,
                  "ci_low": self.interval[0] if self.interval else None,
                  "ci_high": self.interval[1] if self.interval else None}
        out: dict[str, float | int] = {k: round(v, 6) for k, v in values.items()
                                       if v is not None}
        out["discriminates"] = int(self.discriminates)
        out["verdict"] = t.code
        out["personalities"] = t.personalities
        out["items"] = t.items
        return out


def paired_controls(by_control: Mapping[str, Mapping[str, Mapping[str, float]]], upper: str = ORACLE
            ) -> tuple[list[str], list[list[float]], list[list[float]]]:
    """Personalities with both controls (``upper`` and the impostor), and their items present
    under both (same keys)."""
    oracle, impostor = by_control.get(upper, {}), by_control.get(IMPOSTOR, {})
    people, o, i = [], [], []
    for pid in sorted(set(oracle) & set(impostor)):
        keys = sorted(set(oracle[pid]) & set(impostor[pid]))
        if keys:
            people.append(pid)
            o.append([oracle[pid][k] for k in keys])
            i.append([impostor[pid][k] for k in keys])
    return people, o, i


def judge_discrimination(judge: str, metric: str,
                         by_control: Mapping[str, Mapping[str, Mapping[str, float]]],
                         margins: Mapping[str, float], permutations: int,
                         seed: int, upper: str = ORACLE) -> Discrimination:
    """The test, interval and control means of one (judge, metric), seeded by its name:
    ``upper`` (the oracle, or the retest for normalized fidelity) against the impostor."""
    _, oracle, impostor = paired_controls(by_control, upper)
    sign = DISCRIMINATING[metric]
    test = control_test(oracle, impostor, sign, margins.get(metric), permutations,
                        derived_seed(seed, "discrimination", judge, metric,
                                     *([] if upper == ORACLE else [upper])))
    interval = None
    if oracle:
        items = int(round(np.mean([len(x) for x in oracle])))
        means = [sign * (np.mean(a) - np.mean(b)) for a, b in zip(oracle, impostor,
                                                                   strict=True)]
        if interval_printable(metric_kind(metric), len(oracle), items):
            interval = t_interval(means)
    return Discrimination(
        judge, metric, test, interval,
        float(np.mean([np.mean(x) for x in oracle])) if oracle else None,
        float(np.mean([np.mean(x) for x in impostor])) if impostor else None)


def discrimination(items: ItemValues, margins: Mapping[str, float], permutations: int,
                   seed: int) -> list[Discrimination]:
    """One :class:`Discrimination` per (judge, metric) of :data:`DISCRIMINATING` with control
    items, sorted by judge then metric."""
    return [judge_discrimination(judge, metric, by_control, margins, permutations, seed)
            for (judge, metric), by_control in sorted(items.items())
            if metric in DISCRIMINATING]


def read_control_rows(paths: Iterable[str | Path]) -> list[ControlMetric]:
    """The control metrics of the files that exist (a stage with controls off writes none)."""
    rows: list[ControlMetric] = []
    for path in paths:
        if Path(path).is_file():
            rows.extend(ControlMetric.model_validate(r) for r in read_jsonl(path))
    return rows
