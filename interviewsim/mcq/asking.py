"""The MCQ stages' asks through the project's one re-ask loop (:mod:`interviewsim.llm.asking`).

Each ask carries its own constraint and completion budget, and its parser needs to know which
ask it reads (the atomic item an MCQ was written for), so every ask is its own task. Re-asks
use a new sample index and, when the model is greedy, a sampling temperature
(``interviewsim.llm.asking.REASK_TEMPERATURE``); after ``max_attempts`` the last parse error is
the recorded reason, and every call is kept for the audit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from interviewsim.llm.asking import Ask, AskingClient, AskTask, Outcome, run_together
from interviewsim.llm.types import CallEstimate

T = TypeVar("T")

__all__ = ["Ask", "Outcome", "ask_until_valid", "estimate_asks"]


def ask_until_valid(
    client: AskingClient,
    asks: Sequence[Ask],
    parse: Callable[[int, str], T],
    max_attempts: int,
    desc: str,
) -> list[Outcome[Any]]:
    """Outcomes in ``asks`` order; ``parse(index, text)`` raises ParseError to reject."""
    groups = [(AskTask(parse=partial(parse, i)), [ask]) for i, ask in enumerate(asks)]
    return [outcomes[0] for outcomes in run_together(client, groups, max_attempts, desc)]


def estimate_asks(client: AskingClient, asks: Sequence[Ask]) -> CallEstimate:
    """What the first attempts of ``asks`` would cost (re-asks depend on outputs)."""
    return AskTask(parse=str).estimate(client, asks)
