"""Build one personality's MCQ items: atomic item, grounding gate, MCQ generation, shuffle.

Every held-out pair ends in exactly one :class:`AtomicRecord` whose status says whether it was
kept or why it was dropped (invalid atomic output, an item the grounding gate rejected with its
kind and score, invalid MCQ output), so nothing is kept or dropped silently. An atomic item the
gate rejects is re-asked like a broken contract (as the fact summary's gate does), up to
``mcq.max_attempts``; it is dropped by the gate when its last attempt parsed but was rejected.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from interviewsim.config.params import McqParams
from interviewsim.data.corpus import Pair, PersonalityData
from interviewsim.errors import ParseError
from interviewsim.llm.client import ModelClient
from interviewsim.llm.progress import group_label
from interviewsim.llm.types import CallRecord
from interviewsim.mcq.asking import Ask, Outcome, ask_until_valid
from interviewsim.mcq.gate import AnswerKind, grounding_gate
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
from interviewsim.text.coverage import DocumentFrequencies

Status = Literal["kept", "dropped_invalid_atomic", "dropped_by_gate", "dropped_invalid_mcq"]


def item_id(personality_id: str, qa_id: str) -> str:
    """The identity of an item: one per held-out pair (it also seeds the shuffle)."""
    return f"{personality_id}/{qa_id}"


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
    grounding_kind: AnswerKind | None = None
    """How the gate read the answer: text, number or yes_no (interviewsim.mcq.gate)."""
    grounding_score: float | None = None
    grounding_matched: list[str] | None = None
    atomic_calls: list[CallRecord]
    mcq_calls: list[CallRecord] = []


@dataclass
class BuiltPersonality:
    records: list[AtomicRecord]
    items: list[McqItem]

    def counts(self) -> Counter[str]:
        """Records by status, and the gate's drops by answer kind (``dropped_by_gate.number``)."""
        counts = Counter(r.status for r in self.records)
        counts.update(f"dropped_by_gate.{r.grounding_kind}" for r in self.records
                      if r.status == "dropped_by_gate")
        return counts


def atomic_asks(person: PersonalityData, constrained: bool,
                params: McqParams | None = None) -> list[Ask]:
    """One atomic-item ask per held-out pair; with ``params``, each carries the grounding gate
    as its check, so a rejected item is re-asked (the requests are the same either way)."""
    constraint = atomic_constraint() if constrained else None
    frequencies = DocumentFrequencies.of(p.response for p in person.heldout)

    def gated(pair: Pair) -> Callable[[AtomicItem], None] | None:
        if params is None:
            return None
        threshold = params.grounding_threshold

        def check(atomic: AtomicItem) -> None:
            gate = grounding_gate(atomic.question, atomic.answer, pair.response, frequencies,
                                  threshold, pair.question)
            if not gate.kept:
                raise ParseError(f"{GATE_REJECTED}{gate.reason(threshold)}")

        return check

    return [Ask(atomic_messages(p.question, p.response), constraint=constraint, check=gated(p))
            for p in person.heldout]


GATE_REJECTED = "rejected by the grounding gate: "


def build_personality(person: PersonalityData, client: ModelClient,
                      params: McqParams) -> BuiltPersonality:
    """Atomic items for every held-out pair, gated, turned into shuffled MCQs."""
    return build_personalities([person], client, params)[0]


def mcq_asks(atomics: Sequence[AtomicItem], client: ModelClient, option_count: int
             ) -> list[Ask]:
    """One MCQ ask per atomic item that passed the gate, constrained as the client allows."""
    return [Ask(mcq_messages(atomic, option_count),
                constraint=mcq_constraint(atomic, option_count, client.supports_grammar,
                                          client.supports_json_schema),
                max_tokens=mcq_max_tokens(atomic, option_count, client.settings.max_tokens))
            for atomic in atomics]


def build_personalities(people: Sequence[PersonalityData], client: ModelClient,
                        params: McqParams) -> list[BuiltPersonality]:
    """:func:`build_personality` of several personalities with one model batch per phase
    (atomic items, then MCQs), so an endpoint's concurrency stays busy across personalities;
    the requests, and so the cached answers and the records, are those of one at a time."""
    label = group_label([p.personality_id for p in people])
    per_person = [atomic_asks(person, client.supports_grammar, params) for person in people]
    flat = [ask for asks in per_person for ask in asks]
    outcomes = ask_until_valid(client, flat, lambda _, text: parse_atomic(text),
                               params.max_attempts, desc=f"atomic {label}")
    states: list[tuple[PersonalityData, list[AtomicRecord], list[tuple[int, AtomicItem]]]] = []
    start = 0
    for person, asks in zip(people, per_person, strict=True):
        mine = outcomes[start:start + len(asks)]
        start += len(asks)
        states.append((person, *_gated(person, mine, params)))
    n = params.option_count
    owners = [(k, index, atomic) for k, (_, _, candidates) in enumerate(states)
              for index, atomic in candidates]
    asks = mcq_asks([atomic for _, _, atomic in owners], client, n)
    mcqs = ask_until_valid(client, asks, lambda i, text: parse_mcq(text, owners[i][2], n),
                           params.max_attempts, desc=f"mcq {label}")
    built = [BuiltPersonality(records=records, items=[]) for _, records, _ in states]
    for (k, index, _), asked in zip(owners, mcqs, strict=True):
        person, records, _ = states[k]
        record, pair = records[index], person.heldout[index]
        record.mcq_calls = asked.calls
        if asked.value is None:
            record.status, record.reason = "dropped_invalid_mcq", asked.error
            continue
        options, correct = shuffle_options(asked.value, params.shuffle_seed, record.item_id)
        built[k].items.append(McqItem(
            item_id=record.item_id, personality_id=person.personality_id, qa_id=pair.qa_id,
            interview_id=pair.interview_id, option_count=n, question=asked.value.question,
            options=options, correct_label=correct))
    return built


def _gated(person: PersonalityData, atomics: Sequence[Outcome], params: McqParams
           ) -> tuple[list[AtomicRecord], list[tuple[int, AtomicItem]]]:
    """One record per held-out pair from its atomic outcome and the gate, and the items that
    go on to an MCQ (with their held-out position)."""
    pid = person.personality_id
    frequencies = DocumentFrequencies.of(p.response for p in person.heldout)
    records: list[AtomicRecord] = []
    candidates: list[tuple[int, AtomicItem]] = []
    for index, (pair, asked) in enumerate(zip(person.heldout, atomics, strict=True)):
        record = AtomicRecord(item_id=item_id(pid, pair.qa_id), personality_id=pid,
                              qa_id=pair.qa_id, interview_id=pair.interview_id,
                              status="kept", atomic_calls=asked.calls)
        records.append(record)
        atomic = asked.value
        if atomic is None and (asked.error or "").startswith(GATE_REJECTED):
            atomic = parse_atomic(asked.calls[-1].raw)  # parsed, then rejected: show why
        if atomic is None:
            record.status, record.reason = "dropped_invalid_atomic", asked.error
            continue
        gate = grounding_gate(atomic.question, atomic.answer, pair.response, frequencies,
                              params.grounding_threshold, pair.question)
        record.atomic_question, record.atomic_answer = atomic.question, atomic.answer
        record.grounding_kind = gate.kind
        record.grounding_score = round(gate.coverage.score, 6)
        record.grounding_matched = list(gate.coverage.matched)
        if not gate.kept:
            record.status = "dropped_by_gate"
            record.reason = gate.reason(params.grounding_threshold)
            continue
        candidates.append((index, atomic))
    return records, candidates
