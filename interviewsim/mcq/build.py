"""Build one personality's MCQ items: atomic item, grounding gate, MCQ generation, shuffle.

Every held-out pair ends in exactly one :class:`AtomicRecord` whose status says whether it was
kept or why it was dropped (invalid atomic output, grounding below the threshold with its
score, invalid MCQ output), so nothing is kept or dropped silently.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from interviewsim.data.corpus import Pair, PersonalityData
from interviewsim.data.records import CallRecord
from interviewsim.experiment.params import McqParams
from interviewsim.llm.client import ModelClient
from interviewsim.mcq.asking import Ask, ask_until_valid
from interviewsim.mcq.models import AtomicItem, McqItem
from interviewsim.mcq.parsers import parse_atomic, parse_mcq
from interviewsim.mcq.prompts import (
    atomic_constraint,
    atomic_messages,
    mcq_constraint,
    mcq_max_tokens,
    mcq_messages,
)
from interviewsim.mcq.shuffle import shuffle_options
from interviewsim.text.coverage import Coverage, DocumentFrequencies, coverage

Status = Literal["kept", "dropped_invalid_atomic", "dropped_by_gate", "dropped_invalid_mcq"]


def item_id(personality_id: str, qa_id: str) -> str:
    """The identity of an item: one per held-out pair (it also seeds the shuffle)."""
    return f"{personality_id}/{qa_id}"


@dataclass(frozen=True)
class GateResult:
    kept: bool
    coverage: Coverage


def grounding_gate(answer: str, response: str, frequencies: DocumentFrequencies,
                   threshold: float) -> GateResult:
    """Keep an atomic answer only if its IDF-weighted terms are attested in its source
    response (coverage at or above ``threshold``; df over the personality's held-out responses)."""
    result = coverage(answer, response, frequencies)
    return GateResult(kept=result.score >= threshold, coverage=result)


class AtomicRecord(BaseModel):
    """The fate of one held-out pair (one line of atomic_items.jsonl)."""

    model_config = ConfigDict(extra="forbid")

    item_id: str
    personality_id: str
    qa_id: str
    interview_id: str
    status: Status
    reason: str | None = None
    atomic_question: str | None = None
    atomic_answer: str | None = None
    grounding_score: float | None = None
    grounding_matched: list[str] | None = None
    atomic_calls: list[CallRecord]
    mcq_calls: list[CallRecord] = []


@dataclass
class BuiltPersonality:
    records: list[AtomicRecord]
    items: list[McqItem]

    def counts(self) -> Counter[str]:
        return Counter(r.status for r in self.records)


def atomic_asks(person: PersonalityData, constrained: bool) -> list[Ask]:
    constraint = atomic_constraint() if constrained else None
    return [Ask(atomic_messages(p.question, p.response), constraint=constraint)
            for p in person.heldout]


def _gate(pair: Pair, atomic: AtomicItem, frequencies: DocumentFrequencies,
          params: McqParams) -> tuple[GateResult, str | None]:
    gate = grounding_gate(atomic.answer, pair.response, frequencies, params.grounding_threshold)
    reason = None if gate.kept else (
        f"grounding {gate.coverage.score:.3f} below threshold {params.grounding_threshold:.2f} "
        f"(attested terms: {', '.join(gate.coverage.matched) or 'none'})")
    return gate, reason


def build_personality(person: PersonalityData, client: ModelClient,
                      params: McqParams) -> BuiltPersonality:
    """Atomic items for every held-out pair, gated, turned into shuffled MCQs."""
    pid = person.personality_id
    frequencies = DocumentFrequencies.of(p.response for p in person.heldout)
    atomics = ask_until_valid(client, atomic_asks(person, client.supports_grammar),
                              lambda _, text: parse_atomic(text), params.max_attempts,
                              desc=f"atomic {pid}")
    records: list[AtomicRecord] = []
    candidates: list[tuple[int, AtomicItem]] = []
    for index, (pair, asked) in enumerate(zip(person.heldout, atomics, strict=True)):
        record = AtomicRecord(item_id=item_id(pid, pair.qa_id), personality_id=pid,
                              qa_id=pair.qa_id, interview_id=pair.interview_id,
                              status="kept", atomic_calls=asked.calls)
        records.append(record)
        if asked.value is None:
            record.status, record.reason = "dropped_invalid_atomic", asked.error
            continue
        gate, reason = _gate(pair, asked.value, frequencies, params)
        record.atomic_question, record.atomic_answer = asked.value.question, asked.value.answer
        record.grounding_score = round(gate.coverage.score, 6)
        record.grounding_matched = list(gate.coverage.matched)
        if not gate.kept:
            record.status, record.reason = "dropped_by_gate", reason
            continue
        candidates.append((index, asked.value))

    n = params.option_count
    asks = [Ask(mcq_messages(atomic, n),
                constraint=mcq_constraint(atomic, n, client.supports_grammar,
                                          client.supports_json_schema),
                max_tokens=mcq_max_tokens(atomic, n, client.settings.max_tokens))
            for _, atomic in candidates]
    mcqs = ask_until_valid(client, asks, lambda i, text: parse_mcq(text, candidates[i][1], n),
                           params.max_attempts, desc=f"mcq {pid}")
    items: list[McqItem] = []
    for (index, _), asked in zip(candidates, mcqs, strict=True):
        record, pair = records[index], person.heldout[index]
        record.mcq_calls = asked.calls
        if asked.value is None:
            record.status, record.reason = "dropped_invalid_mcq", asked.error
            continue
        options, correct = shuffle_options(asked.value, params.shuffle_seed, record.item_id)
        items.append(McqItem(item_id=record.item_id, personality_id=pid, qa_id=pair.qa_id,
                             interview_id=pair.interview_id, option_count=n,
                             question=asked.value.question, options=options,
                             correct_label=correct))
    return BuiltPersonality(records=records, items=items)
