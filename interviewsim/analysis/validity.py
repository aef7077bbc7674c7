"""Can these numbers be trusted? Each judge's discrimination between the controls.

For every judge (and MCQ answerer) and metric, the per-personality difference between the
``oracle`` control (the person's own held-out answer) and the ``impostor`` control (another
personality's real answer to the most similar question), signed so that a judge that tells
the person from an impostor gives a positive number, with a paired bootstrap interval over
personalities. A judge whose interval includes 0, or lies below it, cannot tell this person
from anyone else on that metric, and strategy differences on it are not evidence.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from interviewsim.analysis.controls import IMPOSTOR, ORACLE
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

MIN_PERSONALITIES = 3
"""Fewer personalities with both controls give no interval worth a verdict (a bootstrap of
one or two differences is the differences themselves)."""


@dataclass(frozen=True)
class Discrimination:
    """Oracle minus impostor (signed so that positive = discriminates) for one judge and
    metric, averaged over the personalities that have both."""

    judge: str
    metric: str
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    personalities: int
    oracle: float | None
    impostor: float | None

    @property
    def discriminates(self) -> bool:
        """The whole interval is above zero (the judge scores the person's own answer better
        than an impostor's, beyond resampling noise)."""
        return (self.ci_low is not None and self.ci_low > 0
                and self.personalities >= MIN_PERSONALITIES)

    def verdict(self) -> str:
        if self.difference is None:
            return (f"{self.judge} on {self.metric}: not measurable (no personality has both "
                    "controls scored)")
        interval = f"{self.difference:+.3f} [{self.ci_low:+.3f}, {self.ci_high:+.3f}]"
        if self.personalities < MIN_PERSONALITIES:
            return (f"{self.judge} on {self.metric}: oracle − impostor {interval} over "
                    f"{self.personalities} personalities, too few to tell (at least "
                    f"{MIN_PERSONALITIES})")
        if self.discriminates:
            return (f"{self.judge} tells the person from an impostor on {self.metric}: "
                    f"oracle − impostor {interval} over {self.personalities} personalities")
        return (f"{self.judge} cannot tell this person from an impostor on {self.metric} "
                f"(oracle − impostor {interval} over {self.personalities} personalities); "
                "strategy differences on it are not evidence")

    def flat(self) -> dict[str, float | int]:
        """``dvc metrics`` / MLflow values (None left out)."""
        values = {"difference": self.difference, "ci_low": self.ci_low,
                  "ci_high": self.ci_high, "oracle": self.oracle, "impostor": self.impostor}
        out: dict[str, float | int] = {k: round(v, 6) for k, v in values.items()
                                       if v is not None}
        out["discriminates"] = int(self.discriminates)
        out["personalities"] = self.personalities
        return out


def _bootstrap(diffs: np.ndarray, n_boot: int, seed: int) -> tuple[float, float]:
    """Percentile interval (2.5%, 97.5%) of the mean of ``diffs`` resampled over
    personalities."""
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), size=(n_boot, len(diffs)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def discrimination(rows: Iterable[ControlMetric], n_boot: int, seed: int
                   ) -> list[Discrimination]:
    """One :class:`Discrimination` per (judge, metric) of :data:`DISCRIMINATING` that has
    both controls, sorted by judge then metric."""
    values: dict[tuple[str, str], dict[str, dict[str, float]]] = defaultdict(
        lambda: defaultdict(dict))
    for row in rows:
        if row.metric in DISCRIMINATING and row.value is not None:
            values[(row.judge, row.metric)][row.control][row.personality_id] = row.value
    found = []
    for (judge, metric), by_control in sorted(values.items()):
        oracle, impostor = by_control.get(ORACLE, {}), by_control.get(IMPOSTOR, {})
        both = sorted(set(oracle) & set(impostor))
        sign = DISCRIMINATING[metric]
        if not both:
            found.append(Discrimination(judge, metric, None, None, None, 0, None, None))
            continue
        diffs = np.array([sign * (oracle[p] - impostor[p]) for p in both])
        low, high = _bootstrap(diffs, n_boot, seed)
        found.append(Discrimination(
            judge, metric, float(diffs.mean()), low, high, len(both),
            float(np.mean([oracle[p] for p in both])),
            float(np.mean([impostor[p] for p in both]))))
    return found


def read_control_rows(paths: Iterable[str | Path]) -> list[ControlMetric]:
    """The control metrics of the files that exist (a stage with controls off writes none)."""
    rows: list[ControlMetric] = []
    for path in paths:
        if Path(path).is_file():
            rows.extend(ControlMetric.model_validate(r) for r in read_jsonl(path))
    return rows
