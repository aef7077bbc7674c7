"""Interview time: real for a person, virtual (from word counts) for a simulation.

Minute budgets must not make a simulated interview depend on how fast the machine is, so a
simulated session advances a virtual clock by the time its words would take to say; a person
at the terminal is timed by the wall clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from interviewsim.text.speech import count_words


class Clock(Protocol):
    def minute(self) -> float:
        """Minutes since the session started."""

    def spoke(self, text: str) -> None:
        """Someone said ``text``."""


class VirtualClock:
    """Advances by speaking time at a fixed pace; reproducible by construction."""

    def __init__(self, words_per_minute: float):
        self.words_per_minute = words_per_minute
        self._minutes = 0.0

    def minute(self) -> float:
        return self._minutes

    def spoke(self, text: str) -> None:
        self._minutes += count_words(text) / self.words_per_minute


class WallClock:
    def __init__(self, now: Callable[[], float] = time.monotonic):
        self._now = now
        self._start = now()

    def minute(self) -> float:
        return (self._now() - self._start) / 60.0

    def spoke(self, text: str) -> None:
        """Real time passes by itself."""
