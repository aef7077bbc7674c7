"""Judged items as MLflow traces, and people's labels on them (MLflow 3 assessments).

Each item (:mod:`interviewsim.analysis.judged_items`) is one trace of the experiment: its
inputs are what the judge read, its output the judge's decision, and the decision with the
judge's explanation is a *feedback* assessment whose source is ``LLM_JUDGE`` (source id: the
judge's model). A researcher opens a trace in the MLflow UI and adds a feedback of the same
name; its source is ``HUMAN``. ``interviewsim labels pull`` exports those.

Reruns: a trace is found by its item tag. Same inputs (same digest): the trace is kept, and a
new judge feedback is logged only when the decision changed. Changed inputs: the trace is
replaced, except that a trace carrying human assessments is kept under a *stale* tag (its
labels stay pullable and are recognised as stale by their digest). So the number of traces
grows only by items whose answer changed after a person labelled them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from interviewsim.analysis.judged_items import ItemKey, JudgedItem

ITEM_TAG = "interviewsim.item"
DIGEST_TAG = "interviewsim.digest"
STALE_TAG = "interviewsim.stale_item"
REQUEST_PREFIX = "interviewsim.label."
"""``interviewsim.label.<rater>`` = ``requested``: the trace is in that rater's sample."""
LLM_JUDGE = "LLM_JUDGE"
HUMAN = "HUMAN"


@dataclass(frozen=True)
class TracedItem:
    """One trace of the experiment as InterviewSim reads it back."""

    trace_id: str
    key: ItemKey
    digest: str
    stale: bool
    tags: dict[str, str]
    assessments: tuple[Any, ...]

    def feedback(self, source_type: str) -> list[Any]:
        return [a for a in self.assessments if a.name == self.key.metric
                and a.source.source_type == source_type]


@dataclass
class TraceTally:
    created: int = 0
    kept: int = 0
    updated: int = 0
    replaced: int = 0
    kept_stale: int = 0

    def line(self) -> str:
        return (f"traces: {self.created} created, {self.kept} kept, {self.updated} with a new "
                f"judge decision, {self.replaced} replaced, {self.kept_stale} kept as stale "
                "(human labels on an answer that changed)")


def synchronous_traces() -> None:
    """Traces are written before this process reads or annotates them (MLflow's async export
    queue off); call before mlflow is first used."""
    os.environ.setdefault("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")


def read_traces(client, experiment_id: str, include_stale: bool = True) -> Iterator[TracedItem]:
    """Every InterviewSim item trace of the experiment (paged; spans not loaded)."""
    token = None
    while True:
        page = client.search_traces(locations=[experiment_id], max_results=500,
                                    page_token=token, include_spans=False)
        for trace in page:
            info = trace.info
            tags = dict(info.tags or {})
            tag = tags.get(ITEM_TAG) or (tags.get(STALE_TAG) if include_stale else None)
            if not tag:
                continue
            yield TracedItem(info.trace_id, ItemKey.parse(tag), tags.get(DIGEST_TAG, ""),
                             ITEM_TAG not in tags, tags, tuple(info.assessments or ()))
        token = page.token
        if not token:
            return


def _judge_feedback(trace_id: str, item: JudgedItem) -> None:
    import mlflow
    from mlflow.entities import AssessmentSource

    mlflow.log_feedback(trace_id=trace_id, name=item.key.metric, value=item.value,
                        rationale=item.explanation or None,
                        source=AssessmentSource(source_type=LLM_JUDGE,
                                                source_id=item.model or item.key.judge),
                        metadata={"judge": item.key.judge})


def _create(client, experiment_id: str, item: JudgedItem) -> None:
    span = client.start_trace(name=f"{item.key.metric} · {item.key.condition}",
                              inputs=item.inputs, experiment_id=experiment_id,
                              tags={ITEM_TAG: item.key.tag(), DIGEST_TAG: item.digest})
    client.end_trace(span.trace_id, outputs={item.key.metric: item.value})
    _judge_feedback(span.trace_id, item)


def log_item_traces(tracking_uri: str, experiment_id: str, items: Sequence[JudgedItem]
                    ) -> TraceTally:
    """Write or refresh one trace per item (see the module docstring for reruns)."""
    synchronous_traces()
    import mlflow

    mlflow.set_tracking_uri(tracking_uri)  # log_feedback is the fluent API
    client = mlflow.MlflowClient(tracking_uri=tracking_uri)
    existing = {t.key: t for t in read_traces(client, experiment_id, include_stale=False)}
    tally = TraceTally()
    for item in items:
        found = existing.get(item.key)
        if found is not None and found.digest == item.digest:
            judged = found.feedback(LLM_JUDGE)
            if judged and assessment_value(judged[-1]) == item.value:
                tally.kept += 1
            else:
                _judge_feedback(found.trace_id, item)
                tally.updated += 1
            continue
        if found is not None:
            if found.feedback(HUMAN):
                client.delete_trace_tag(found.trace_id, ITEM_TAG)
                client.set_trace_tag(found.trace_id, STALE_TAG, item.key.tag())
                tally.kept_stale += 1
            else:
                client.delete_traces(experiment_id, trace_ids=[found.trace_id])
                tally.replaced += 1
        else:
            tally.created += 1
        _create(client, experiment_id, item)
    return tally


def assessment_value(assessment: Any) -> Any:
    feedback = getattr(assessment, "feedback", None)
    return feedback.value if feedback is not None else getattr(assessment, "value", None)


def human_feedback(traces: Iterable[TracedItem]) -> Iterator[tuple[TracedItem, Any]]:
    """(trace, assessment) for every valid human feedback named after its trace's metric."""
    for trace in traces:
        for assessment in trace.feedback(HUMAN):
            if getattr(assessment, "valid", True) is not False:
                yield trace, assessment

