"""Grouped MCQ answering: one prompt per held-out interview, strategy and answering model.

The context follows the strategy exactly as in generation, with the contract's MCQ rule for
retrieval and hybrid: every atomic question of the interview retrieves on its own and their
ordered, de-duplicated union is the one shared context (hybrid appends the recent pairs after
it). The leakage guard checks the selection and the rendered context: the questions and
options legitimately quote held-out responses, the context never may. With ``mcq.rotations``
each group is asked again with its options rotated (:mod:`interviewsim.mcq.rotation`): same
context, one prompt per order, rotation 0 exactly the unrotated prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from interviewsim.config.params import ContextParams
from interviewsim.context.strategies import ContextSelection, RetrievalIndex, select_context
from interviewsim.data.corpus import PersonalityData
from interviewsim.generation.leakage import LeakageGuard
from interviewsim.generation.prompt import context_block
from interviewsim.llm.client import ModelClient
from interviewsim.llm.types import Message
from interviewsim.mcq.asking import Ask, Outcome, ask_until_valid
from interviewsim.mcq.models import McqItem
from interviewsim.mcq.parsers import parse_grouped_answers
from interviewsim.mcq.prompts import AnswerPrompt, answer_constraint
from interviewsim.mcq.rotation import rotate_items
from interviewsim.mcq.scoring import score_answer

LINE_TOKENS = 6
"""Completion tokens budgeted per answer line ("Q12: C" and a newline, generously)."""


def interview_groups(person: PersonalityData,
                     items: Sequence[McqItem]) -> list[tuple[str, list[McqItem]]]:
    """Items grouped by held-out source interview, interviews and items in time order.

    An item that is not a held-out pair of ``person`` (items built from an older split) is an
    error, never silently left out of the answers.
    """
    by_qa = {item.qa_id: item for item in items}
    heldout = {p.qa_id: p.interview_id for p in person.heldout}
    stale = [i.item_id for i in items if heldout.get(i.qa_id) != i.interview_id]
    if stale:
        raise ValueError(f"{len(stale)} item(s) are not held-out pairs of {person.personality_id} "
                         f"in this split (e.g. {stale[0]}); rebuild them with mcq-build")
    groups = []
    for interview_id, pairs in person.heldout_interviews():
        group = [by_qa[p.qa_id] for p in pairs if p.qa_id in by_qa]
        if group:
            groups.append((interview_id, group))
    return groups


@dataclass(frozen=True)
class GroupPrompt:
    strategy: str
    interview_id: str
    selection: ContextSelection
    prompt: AnswerPrompt
    rotation: int = 0
    """Labels the options sit down from the seeded shuffle (0: the shuffle itself)."""

    def where(self) -> dict[str, Any]:
        """The condition and context this group was asked under, for its audit record."""
        return {"strategy": self.strategy,
                "context_pair_ids": list(self.selection.pair_ids),
                "context_profile": self.selection.profile is not None,
                "context_dropped_for_budget": self.selection.dropped_for_budget}


class Prompted(Protocol):
    """Anything answered as one grouped prompt (a strategy's group or a control's)."""

    @property
    def prompt(self) -> AnswerPrompt: ...

    @property
    def interview_id(self) -> str: ...

    @property
    def rotation(self) -> int: ...

    def where(self) -> dict[str, Any]: ...


def rotated(prompt: AnswerPrompt, rotation: int) -> AnswerPrompt:
    """``prompt`` with every item's options rotated; rotation 0 returns it unchanged, so its
    messages, request and cache key are exactly the unrotated ones."""
    return prompt if rotation == 0 else replace(prompt, items=rotate_items(prompt.items, rotation))


def with_rotations(group: GroupPrompt, rotations: int) -> list[GroupPrompt]:
    """``group`` (rotation 0) and its rotations 1..rotations-1: same leak-checked context,
    each order its own prompt."""
    return [group, *(replace(group, rotation=r, prompt=rotated(group.prompt, r))
                     for r in range(1, rotations))]


def group_prompt(strategy: str, person: PersonalityData, interview_id: str,
                 items: Sequence[McqItem], params: ContextParams, seed: int,
                 index: RetrievalIndex | None, guard: LeakageGuard) -> GroupPrompt:
    """The answering prompt of one interview's items under one strategy, leak-checked."""
    selection = select_context(strategy, person, [item.question for item in items],
                               params, seed, index)
    guard.check_selection(selection)
    context = context_block(selection, person.train_by_id())
    guard.check_prompt([Message(role="user", content=context)],
                       f"mcq {strategy}/{interview_id} context")
    prompt = AnswerPrompt(person.personality_id, context, tuple(items))
    return GroupPrompt(strategy, interview_id, selection, prompt)


def answer_ask(group: Prompted, client: ModelClient, min_tokens: int) -> Ask:
    """The request of one group: a grammar when supported, room for every answer line."""
    labels = group.prompt.labels()
    constraint = answer_constraint(labels) if client.supports_grammar else None
    return Ask(group.prompt.messages(), constraint=constraint,
               max_tokens=max(min_tokens, LINE_TOKENS * len(labels) + 4))


def ask_and_score(client: ModelClient, groups: Sequence[Prompted], max_attempts: int,
                  desc: str) -> list[tuple[Outcome[Any], list[dict]]]:
    """Ask, parse (with re-asks) and score every group: its outcome and one scored entry per
    item, in ``groups`` order (a malformed group scores every item as malformed)."""
    asks = [answer_ask(g, client, client.settings.max_tokens) for g in groups]

    def parse(i: int, text: str) -> list[str]:
        return parse_grouped_answers(text, groups[i].prompt.labels())

    outcomes = ask_until_valid(client, asks, parse, max_attempts, desc)
    scored = []
    for group, outcome in zip(groups, outcomes, strict=True):
        labels: Sequence[str | None] = outcome.value or [None] * len(group.prompt.items)
        items = []
        for number, (item, label) in enumerate(zip(group.prompt.items, labels, strict=True), 1):
            score = score_answer(item, label)
            items.append({"number": number, "item_id": item.item_id, "qa_id": item.qa_id,
                          "selected_label": label, "selected_role": score.role,
                          "outcome": score.outcome, "accuracy": score.accuracy,
                          "reward": score.reward, "malformed": label is None})
        scored.append((outcome, items))
    return scored


def answer_groups(client: ModelClient, answerer: str, groups: Sequence[Prompted],
                  max_attempts: int, desc: str) -> list[dict]:
    """Ask, parse (with re-asks) and score every group, strategies' and controls' alike in one
    model batch; one audit record per group, in ``groups`` order."""
    return [group_record(group, answerer, outcome, items, group.where())
            for group, (outcome, items)
            in zip(groups, ask_and_score(client, groups, max_attempts, desc), strict=True)]


def group_record(group: Prompted, answerer: str, outcome: Outcome,
                 items: list[dict], where: dict[str, Any]) -> dict[str, Any]:
    """The audit record of one answered group (a strategy's or a control's): ``where`` says
    which condition and context it was asked under."""
    return {"personality_id": group.prompt.personality_id, "answerer": answerer,
            "interview_id": group.interview_id, "rotation": group.rotation, **where,
            "malformed": outcome.value is None, "parse_error": outcome.error, "items": items,
            "calls": [c.model_dump() for c in outcome.calls]}
