"""Who answers: a simulated personality (a twin) or a person at the terminal.

A twin answers every interviewer turn exactly as the ``generate`` stage answers a held-out
question: the strategy's context is selected for the turn's text by
:func:`interviewsim.context.strategies.select_context` and the prompt is
:func:`interviewsim.generation.prompt.generation_messages`, checked by the same
:class:`~interviewsim.generation.prompt.LeakageGuard`. A plan question that is a held-out question
therefore yields the very prompt ``generate`` sent, and its cached answer. The twin is given
its personality with the held-out partition removed, so no held-out response can reach it even
through a future strategy; the guard would stop the run (exit 3) if one did.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Protocol, TextIO

from pydantic import BaseModel, ConfigDict

from interviewsim.config.params import ContextParams
from interviewsim.context.strategies import RetrievalIndex, select_context
from interviewsim.data.corpus import PersonalityData
from interviewsim.generation.leakage import LeakageGuard
from interviewsim.generation.prompt import generation_messages
from interviewsim.llm import ModelClient
from interviewsim.llm.types import CallRecord, Message


class CandidateReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    duration_s: float | None = None
    """How long the answer took, when it was measured (a person at the terminal)."""
    calls: list[CallRecord] = []
    valid: bool = True
    """False when a twin gave only blank answers; the text is then empty."""


class CandidateLeft(Exception):
    """The person ended the session (end of input, or /quit)."""


class Candidate(Protocol):
    kind: str

    def answer(self, utterance: str) -> CandidateReply:
        """Reply to one interviewer turn."""

    def hear(self, speaker: str, text: str) -> None:
        """Something said that needs no reply (coach feedback, the closing line)."""


class SimulatedCandidate:
    """A personality twin under one context strategy."""

    kind = "simulated"

    def __init__(self, personality: PersonalityData, strategy: str, client: ModelClient,
                 context_params: ContextParams, seed: int, index: RetrievalIndex | None,
                 max_attempts: int):
        self.guard = LeakageGuard(personality)
        self.personality = dataclasses.replace(personality, heldout=())
        self.pairs = self.personality.train_by_id()
        self.strategy = strategy
        self.client = client
        self.context_params = context_params
        self.seed = seed
        self.index = index
        self.max_attempts = max_attempts

    def messages_for(self, utterance: str) -> list[Message]:
        """The generation prompt for one interviewer turn, leak-checked."""
        selection = select_context(self.strategy, self.personality, [utterance],
                                   self.context_params, self.seed, self.index)
        self.guard.check_selection(selection)
        messages = generation_messages(self.personality.personality_id, utterance, selection,
                                       self.pairs)
        self.guard.check_prompt(messages, f"interview/{self.strategy}")
        return messages

    def answer(self, utterance: str) -> CandidateReply:
        """Like ``generate``: a blank answer is re-asked with the next sample index."""
        messages = self.messages_for(utterance)
        calls: list[CallRecord] = []
        for attempt in range(self.max_attempts):
            request = self.client.request(messages, sample_index=attempt)
            result = self.client.complete(request)
            calls.append(CallRecord.of(request, result))
            if result.text.strip():
                return CandidateReply(text=result.text.strip(), calls=calls)
        return CandidateReply(text="", calls=calls, valid=False)

    def hear(self, speaker: str, text: str) -> None:
        """A twin answers each turn from its context alone; nothing else reaches it."""


QUIT_WORDS = frozenset({"/quit", "/exit"})


class HumanCandidate:
    """A person typing one line per answer; end of input or /quit ends the session, and an
    empty line is an empty answer, which the live guardrails treat as silence."""

    kind = "human"

    def __init__(self, reader: TextIO, writer: TextIO,
                 now: Callable[[], float] = time.monotonic):
        self.reader = reader
        self.writer = writer
        self.now = now

    def answer(self, utterance: str) -> CandidateReply:
        self.writer.write(f"\nInterviewer: {utterance}\nYou: ")
        self.writer.flush()
        started = self.now()
        line = self.reader.readline()
        if not line or line.strip().lower() in QUIT_WORDS:
            raise CandidateLeft()
        return CandidateReply(text=line.strip(), duration_s=round(self.now() - started, 3))

    def hear(self, speaker: str, text: str) -> None:
        self.writer.write(f"\n{speaker}: {text}\n")
        self.writer.flush()
