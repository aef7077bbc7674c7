"""The leakage guard: held-out responses (and anything built from them, such as the fact
summary) must never reach a generation prompt. Every stage that builds a prompt from a
personality's context checks it here (generate, mcq-answer, the interview stage)."""

from __future__ import annotations

from collections.abc import Sequence

from interviewsim.context.strategies import ContextSelection
from interviewsim.data.corpus import PersonalityData
from interviewsim.errors import LeakageError
from interviewsim.llm.types import Message

SPAN = 40
"""Length of the held-out text windows the guard looks for."""


class LeakageGuard:
    """Fails the stage if held-out response text can reach a generation prompt.

    Two checks: every selected pair must be a training pair (structural), and no 40-character
    window of a held-out response that does not also occur in the training partition or in the
    held-out questions (which prompts legitimately contain) may appear in a prompt. The prompt
    is probed every ``stride`` (20) characters against the set of all 40-character windows of
    the held-out responses, so any leaked run of 60 or more characters is caught. A probe that
    hits is looked up in the allowed text once (hits are rare: the first such lookup builds the
    allowed text); windows found there are dropped, a window that is not is a leak.
    """

    def __init__(self, personality: PersonalityData, stride: int = 20):
        self.personality_id = personality.personality_id
        self.train_ids = {p.qa_id for p in personality.train}
        self.heldout_ids = {p.qa_id for p in personality.heldout}
        self.stride = stride
        self._personality = personality
        self._allowed: str | None = None
        windows: dict[str, str] = {}
        for pair in personality.heldout:
            text = pair.response
            for start in range(len(text) - SPAN + 1):
                windows.setdefault(text[start : start + SPAN], pair.qa_id)
        self.windows = windows

    def _is_allowed(self, window: str) -> bool:
        if self._allowed is None:
            person = self._personality
            self._allowed = "\n".join(
                [p.question + "\n" + p.response for p in person.train]
                + [p.question for p in person.heldout]
                + [person.profile, person.long_profile]
            )
        return window in self._allowed

    def check_selection(self, selection: ContextSelection) -> None:
        foreign = [q for q in selection.pair_ids if q not in self.train_ids]
        if foreign:
            kind = "held-out" if set(foreign) & self.heldout_ids else "unknown"
            raise LeakageError(
                f"{self.personality_id}: {selection.strategy} context contains {kind} "
                f"qa_id(s) {foreign[:5]}; only training pairs may be selected"
            )

    def check_prompt(self, messages: Sequence[Message], where: str) -> None:
        text = "\n".join(m.content for m in messages)
        windows = self.windows
        for start in range(0, len(text) - SPAN + 1, self.stride):
            window = text[start : start + SPAN]
            if window not in windows:
                continue
            if self._is_allowed(window):
                del windows[window]
                continue
            raise LeakageError(
                f"{self.personality_id}: prompt for {where} contains held-out response "
                f"text of {windows[window]} ({window!r}); the experiment would be invalid"
            )
