"""A deterministic speech-pattern analyzer: fillers, hedges, pace and a bounded confidence.

The coach is told what the analyzer counted instead of being asked to count itself: a model
that miscounts "basically" gives feedback the candidate can check and refute, a regex does not.
The same counts give the style metric of generated against reference answers.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

FILLERS: tuple[str, ...] = (
    r"u+m+", r"u+h+", r"e+r+m*", r"a+h+", r"hmm+", r"you know", r"i mean", r"basically",
    r"kind of", r"sort of", r"like(?=,)", r"(?<=, )like",
)
"""Filler words and phrases. ``like`` counts only when set off by a comma, because "I like
kilns" is content, while "it was, like, hot" is filler."""

HEDGES: tuple[str, ...] = (
    r"i think maybe", r"i'?m not (?:really )?sure", r"i could be wrong", r"i guess",
    r"i suppose", r"probably", r"perhaps", r"maybe", r"i'?m probably wrong",
    r"if i had to guess", r"not sure but",
)
"""Over-qualification: phrases that soften a claim the speaker could simply state."""

_FILLER_RE = re.compile(r"\b(?:" + "|".join(FILLERS) + r")\b", re.IGNORECASE)
_HEDGE_RE = re.compile(r"\b(?:" + "|".join(HEDGES) + r")\b", re.IGNORECASE)
_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’\-][A-Za-z0-9]+)*")

FILLER_PENALTY = 0.05
"""Confidence lost per filler, up to :data:`MAX_FILLER_PENALTY`."""
MAX_FILLER_PENALTY = 0.3
HEDGE_PENALTY = 0.08
"""Confidence lost per hedge, up to :data:`MAX_HEDGE_PENALTY` (hedges weigh more than fillers:
they undercut the claim itself, not only its delivery)."""
MAX_HEDGE_PENALTY = 0.3


class SpeechAnalysis(BaseModel):
    """What the analyzer found in one answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    words: int = Field(ge=0)
    """Word count (letters and digits; contractions count once)."""
    filler_count: int = Field(ge=0)
    fillers: list[str]
    """Distinct fillers found, lowercased, in order of first use."""
    hedge_count: int = Field(ge=0)
    hedges: list[str]
    """Distinct hedge phrases found, lowercased, in order of first use."""
    duration_s: float | None = None
    """Speaking (or typing) time when known; simulated answers have none."""
    words_per_minute: float | None = None
    """Pace, only when a positive duration is known."""
    confidence: float = Field(ge=0.0, le=1.0)
    """1 minus bounded filler and hedge penalties: at least 0.4, at most 1."""

    @property
    def filler_rate(self) -> float:
        """Fillers per word (0 for an empty answer)."""
        return self.filler_count / self.words if self.words else 0.0

    @property
    def hedge_rate(self) -> float:
        """Hedges per word (0 for an empty answer)."""
        return self.hedge_count / self.words if self.words else 0.0


def _distinct(matches: list[str]) -> list[str]:
    return list(dict.fromkeys(m.lower() for m in matches))


def count_words(text: str) -> int:
    return len(_WORD_RE.findall(text))


def analyze_speech(text: str, duration_s: float | None = None) -> SpeechAnalysis:
    """Count fillers and hedges in ``text``; compute pace when ``duration_s`` is positive."""
    normalized = text.replace("’", "'")
    fillers = _FILLER_RE.findall(normalized)
    hedges = _HEDGE_RE.findall(normalized)
    words = count_words(normalized)
    wpm = None
    if duration_s is not None and duration_s > 0:
        wpm = round(words / duration_s * 60.0, 1)
    penalty = min(len(fillers) * FILLER_PENALTY, MAX_FILLER_PENALTY) + min(
        len(hedges) * HEDGE_PENALTY, MAX_HEDGE_PENALTY
    )
    return SpeechAnalysis(
        words=words,
        filler_count=len(fillers),
        fillers=_distinct(fillers),
        hedge_count=len(hedges),
        hedges=_distinct(hedges),
        duration_s=duration_s,
        words_per_minute=wpm,
        confidence=round(max(0.0, 1.0 - penalty), 4),
    )
