"""MCQ controls: each held-out interview's items answered from a context no strategy may build.

``oracle`` gives the answerer the person's own held-out responses of that interview (the upper
bound: the options were written from them); ``impostor`` gives another personality's real
answers to the most similar questions (a plausible person who is not this one); ``retest``
gives, for each of the interview's held-out questions, the person's own real answer to their
most similar *training* question, paired with the held-out question (what the person said
when asked something like it before: the person answering again). The contexts
come from the ``controls`` stage's answers.jsonl and are rendered exactly like a strategy's
context pairs, so a control differs from a strategy only in what its context says.

These prompts deliberately hold held-out text, so they are built here, never by
:func:`interviewsim.mcq.answering.group_prompt`, are not passed through the leakage guard, and
their records carry ``control`` (never ``strategy``): nothing that reads strategy results can
pick a control up by accident.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from interviewsim.context.strategies import ContextSelection
from interviewsim.data.corpus import Pair
from interviewsim.data.jsonio import read_jsonl
from interviewsim.data.records import ControlAnswer
from interviewsim.errors import InputError, Problem, validation_problems
from interviewsim.generation.prompt import context_block
from interviewsim.mcq.answering import rotated
from interviewsim.mcq.models import McqItem
from interviewsim.mcq.prompts import AnswerPrompt

ControlRecords = dict[tuple[str, str], list[ControlAnswer]]
"""(personality_id, control) -> that control's records, in file (held-out) order."""


def read_control_records(path: str | Path, controls: Sequence[str]) -> ControlRecords:
    """The records of the configured ``controls``, naming every bad line at once."""
    records: ControlRecords = {}
    problems: list[Problem] = []
    for number, raw in enumerate(read_jsonl(path), start=1):
        try:
            record = ControlAnswer.model_validate(raw)
        except ValidationError as exc:
            problems += validation_problems(exc, str(path), prefix=f"line {number}")
            continue
        if record.control in controls:
            records.setdefault((record.personality_id, record.control), []).append(record)
    if problems:
        raise InputError(problems)
    return records


def control_context(pairs: Sequence[tuple[str, str]]) -> str:
    """(question, response) pairs rendered by the strategies' own ``context_block``, as if
    they were selected training pairs, so the format cannot drift from a strategy's."""
    synthetic = {f"control-{i}": Pair(personality_id="", interview_id="", sequence=0, position=i,
                                      qa_id=f"control-{i}", question=question, response=response)
                 for i, (question, response) in enumerate(pairs)}
    return context_block(ContextSelection(strategy="control", pair_ids=tuple(synthetic)),
                         synthetic)


@dataclass(frozen=True)
class ControlPrompt:
    control: str
    interview_id: str
    pairs: tuple[ControlAnswer, ...]
    """The control records the context was rendered from (their provenance is recorded)."""
    prompt: AnswerPrompt
    rotation: int = 0

    def where(self) -> dict[str, Any]:
        """The control and the provenance of its context pairs, for the audit record."""
        return {"control": self.control,
                "context_pairs": [{"qa_id": r.qa_id,
                                   "source_personality_id": r.source_personality_id,
                                   "source_qa_id": r.source_qa_id, "similarity": r.similarity}
                                  for r in self.pairs]}


def control_group_prompts(personality_id: str, groups: Sequence[tuple[str, Sequence[McqItem]]],
                          records: ControlRecords, controls: Sequence[str],
                          rotations: int) -> list[ControlPrompt]:
    """One prompt per (control, held-out interview, rotation): the interview's items after a
    context of that interview's control records. An item whose held-out pair has no record is
    an error (a controls file from another split), never a silently thinner context."""
    prompts = []
    for control in controls:
        own = records.get((personality_id, control), [])
        for interview_id, items in groups:
            pairs = tuple(r for r in own if r.interview_id == interview_id)
            missing = sorted({i.qa_id for i in items} - {r.qa_id for r in pairs})
            if missing:
                raise ValueError(f"no {control} record for {len(missing)} held-out pair(s) of "
                                 f"{personality_id} (e.g. {missing[0]} in {interview_id})")
            context = control_context([(r.question, r.response) for r in pairs])
            prompt = AnswerPrompt(personality_id, context, tuple(items))
            prompts += [ControlPrompt(control, interview_id, pairs, rotated(prompt, r), r)
                        for r in range(rotations)]
    return prompts
