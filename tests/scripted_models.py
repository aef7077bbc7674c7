"""Scripted model behaviours referenced from test params.yaml files (``module:attribute``).

Every request a script answers is appended to ``SEEN`` so tests can inspect the exact prompts
that went through the production seam.
"""

from __future__ import annotations

from interviewsim.llm.types import ChatRequest

SEEN: list[ChatRequest] = []


def echo_answer(request: ChatRequest) -> str:
    """A plausible simulated answer that quotes the question's first words."""
    SEEN.append(request)
    question = request.messages[-1].content.rsplit("New question: ", 1)[-1].split("\n")[0]
    return f"Well, about {question[:30].lower()}: I would say it depends on the day."


def blank_then_answer(request: ChatRequest) -> str:
    """Blank on the first sample, an answer on the next: exercises the bounded re-ask."""
    SEEN.append(request)
    return "" if request.sample_index == 0 else "Second time lucky."


def always_blank(request: ChatRequest) -> str:
    SEEN.append(request)
    return "   "
