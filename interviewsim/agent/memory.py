"""Rolling context compression: recent turns verbatim, older ones as a structured summary.

Past ``max_messages``, the oldest half of the verbatim messages becomes one summary holding
what later turns need: the sections and topics covered, the candidate's claims, the flags and
the scores. The summary is built by code, not by a model: it is reproducible, costs no call,
and cannot invent a claim the candidate never made. A cut never separates an answer from its
question, so a verbatim answer always follows the question it answers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.scoring import AnswerScore, Flag
from interviewsim.llm.types import Message


def say_action(text: str) -> str:
    """A ``say`` action as the constrained output writes it."""
    return json.dumps({"action": "say", "arguments": {"text": text}}, ensure_ascii=False)


CLAIM_CHARS = 160
"""A claim is the first sentence of an answer, cut to this many characters."""


class MemoryEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int
    role: Literal["interviewer", "candidate"]
    state: str
    text: str


class MemorySummary(BaseModel):
    """What a compressed stretch of the interview established."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first_turn: int
    last_turn: int
    sections: list[str]
    topics: list[str]
    """Rubric areas the evaluator scored in these turns."""
    claims: list[str]
    flags: list[str]
    scores: list[str]

    def render(self, with_scores: bool = True) -> str:
        lines = [f"Turns {self.first_turn}-{self.last_turn} ({', '.join(self.sections)}):"]
        if self.topics:
            lines.append(f"- topics covered: {', '.join(self.topics)}")
        lines.extend(f"- candidate said: {claim}" for claim in self.claims)
        lines.extend(f"- flag: {flag}" for flag in self.flags)
        if with_scores:
            lines.extend(f"- score: {score}" for score in self.scores)
        return "\n".join(lines)


def first_sentence(text: str, limit: int = CLAIM_CHARS) -> str:
    sentence = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def summarize(entries: Sequence[MemoryEntry], scores: Sequence[AnswerScore],
              flags: Sequence[Flag]) -> MemorySummary:
    """The structured summary of ``entries``, with the scores and flags of their turns."""
    turns = {e.turn for e in entries}
    own_scores = [s for s in scores if s.turn in turns]
    own_flags = [f for f in flags if f.turn in turns]
    return MemorySummary(
        first_turn=min(turns),
        last_turn=max(turns),
        sections=list(dict.fromkeys(e.state for e in entries)),
        topics=list(dict.fromkeys(s.rubric_area for s in own_scores)),
        claims=[first_sentence(e.text) for e in entries if e.role == "candidate" and e.text],
        flags=[f"{f.flag_type} ({f.priority}) on \"{f.answer_excerpt}\"" +
               (" [followed up]" if f.resolved else "") for f in own_flags],
        scores=[f"turn {s.turn} {s.rubric_area}: {s.composite:.1f}/10" for s in own_scores],
    )


class ConversationMemory:
    """The interviewer's view of the conversation, compressed as it grows."""

    def __init__(self, max_messages: int):
        if max_messages < 2:
            raise ValueError("max_messages must be at least 2")
        self.max_messages = max_messages
        self.entries: list[MemoryEntry] = []
        self.summaries: list[MemorySummary] = []

    def add(self, entry: MemoryEntry, scores: Sequence[AnswerScore] = (),
            flags: Sequence[Flag] = ()) -> MemorySummary | None:
        """Append one message; returns the new summary when this addition triggered one."""
        self.entries.append(entry)
        if len(self.entries) <= self.max_messages:
            return None
        cut = self.max_messages // 2
        while cut < len(self.entries) and self.entries[cut].role == "candidate":
            cut += 1
        oldest, self.entries = self.entries[:cut], self.entries[cut:]
        summary = summarize(oldest, scores, flags)
        self.summaries.append(summary)
        return summary

    def chat_messages(self) -> list[Message]:
        """Recent turns as chat messages: the interviewer is the assistant.

        The interviewer's own turns are shown as the ``say`` actions it produced, so that a
        small model sees its output format in every earlier turn.
        """
        return [
            Message(role="assistant", content=say_action(e.text)) if e.role == "interviewer"
            else Message(role="user", content=e.text)
            for e in self.entries
        ]

    def summary_text(self, with_scores: bool = True) -> str:
        return "\n".join(s.render(with_scores) for s in self.summaries)
