"""The deterministic style metric: does a twin talk like the person, not only say the same?

For one personality and strategy, the speech analyzer measures filler rate, hedge rate and
answer length (words) over the generated answers and over the real held-out answers to the
same questions; each metric is the absolute difference of the two means. Collection means
rather than per-answer differences, because a single answer rarely has a filler at all: the
question is whether the twin's speech has the person's habits overall. No model is involved,
so the metric costs nothing and is exactly reproducible.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from statistics import fmean

from interviewsim.data.records import PersonalityMetric
from interviewsim.text.speech import SpeechAnalysis, analyze_speech

STYLE_METRICS: dict[str, str] = {
    "style_filler_rate_diff": "filler_rate",
    "style_hedge_rate_diff": "hedge_rate",
    "style_length_diff": "words",
}
"""Metric name -> the :class:`SpeechAnalysis` measure it compares."""
STYLE_JUDGE = "style"


def _measure(analysis: SpeechAnalysis, name: str) -> float:
    return float(getattr(analysis, name))


def style_metrics(answers: Iterable[Mapping], references: Mapping[tuple[str, str], str]
                  ) -> list[PersonalityMetric]:
    """Rows per (personality, strategy) from generated answer records and reference texts.

    ``answers`` are ``generate`` records (personality_id, strategy, qa_id, response, valid);
    ``references`` maps (personality_id, qa_id) to the real held-out response.
    """
    groups: dict[tuple[str, str], list[tuple[str | None, str]]] = {}
    for record in answers:
        key = (record["personality_id"], record["strategy"])
        reference = references.get((record["personality_id"], record["qa_id"]))
        if reference is None:
            raise KeyError(f"no held-out reference for {record['personality_id']}/"
                           f"{record['qa_id']}; rerun prepare and generate")
        text = record["response"] if record.get("valid") and record.get("response") else None
        groups.setdefault(key, []).append((text, reference))
    rows: list[PersonalityMetric] = []
    for (personality_id, strategy), pairs in groups.items():
        valid = [(analyze_speech(text), analyze_speech(ref)) for text, ref in pairs if text]
        for metric, measure in STYLE_METRICS.items():
            value = None
            if valid:
                generated = fmean(_measure(g, measure) for g, _ in valid)
                reference = fmean(_measure(r, measure) for _, r in valid)
                value = round(abs(generated - reference), 6)
            rows.append(PersonalityMetric(
                personality_id=personality_id, strategy=strategy, judge=STYLE_JUDGE,
                metric=metric, value=value, n=len(valid), invalid=len(pairs) - len(valid)))
    return sorted(rows, key=PersonalityMetric.sort_key)
