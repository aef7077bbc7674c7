"""Sentence-level reading of what was said: which sentences ask, request or report.

Both sides of the interview are classified from the same analysis. A turn is split into
sentences with reported speech masked (a question inside quotes was said by someone else), each
sentence is stripped of its leading discourse markers ("Okay.", "So,", "I see,") and then read
for its *form*: a direct question (a question mark, or an inverted or wh- opening in a
transcript without punctuation), an imperative request for information ("Walk me through...",
"Describe..."), or an indirect one ("I'd like to hear how...", "I'm curious why..."). The
signal and guardrail rules only look for their content inside sentences of the right form, so a
phrase like "what would you use" counts as a request to the interviewer only when the candidate
actually asks it, not when an answer quotes or reports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from interviewsim.text.coverage import STOPWORDS

_QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|(?<![A-Za-z])'(?=[A-Za-z])[^']*?[^\s']'"
                     r"(?![A-Za-z])")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
_MARKER = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|all right|right|so|now|well|then|and|also|next|first|finally"
    r"|thanks|thank you|i see|got it|understood|interesting|hmm+|um+|uh+|mm+|ha|eh|oh|ah|sure"
    r"|honestly"
    r"|actually|just|please|then again)\s*(?:[,.;:!\u2014-]+\s*|\s+))+",
)
"""Discourse markers that open a sentence without changing what it does."""

REQUEST_VERBS = (
    r"tell (?:me|us)\b(?! (?:if|when) you(?:'re| are| need| want))|walk (?:me|us) through"
    r"|talk (?:me|us) through|take (?:me|us) through|talk to (?:me|us) about|describe"
    r"|explain|elaborate|expand on|give (?:me|us) (?:an? |some |one |two |three )?"
    r"(?:example|examples|sense|overview|rundown|picture)|share|list|compare|outline|sketch"
    r"|estimate|define|name|help (?:me|us) understand|say (?:a bit |a little )?more"
)
"""Imperatives that ask for an answer: the closed class of verbs of telling and showing."""
_REQUEST = re.compile(rf"^(?:{REQUEST_VERBS})\b")
_INDIRECT = re.compile(
    r"^i(?:'d| would) (?:also )?(?:like|love) (?:you )?to (?:hear|know|understand|learn|describe"
    r"|explain"
    r"|walk|talk|go through)|^i(?:'m| am) (?:curious|interested|wondering)\b"
    r"|^i (?:want|wanted) (?:you )?to (?:hear|know|understand|learn)|^i wonder\b"
)
"""Declaratives whose point is a question: a wish to hear or know, curiosity, wondering."""
_AUX = (r"(?:am|is|are|was|were|do|does|did|can|could|would|will|should|shall|may|might|have"
        r"|has|had)(?:n't)?")
_INTERROGATIVE = re.compile(
    rf"^(?:(?:what|how|why|which|who|whom|whose|when|where)(?: (?:many|much|long|often|far))?"
    rf"(?:'s|'re|'d| {_AUX}\b)|{_AUX} (?:i|you|we|it|that|this|there|they|he|she)\b"
    r"|any(?:thing| questions)\b)"
)
"""A question's opening when a transcript lost its question mark (wh- word or inversion)."""
_FUNCTION_WORDS = frozenset(STOPWORDS | {
    "here", "there", "please", "though", "too", "again", "now", "then", "today", "yet", "so",
    "like", "you're", "you've", "you'd", "you'll", "we're", "they're", "i'd", "i'll", "later",
    "soon", "first", "also", "either", "anyway", "instead", "afterwards", "right"})


def normalise(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'").strip()


def mask_quotes(text: str) -> tuple[str, bool]:
    """The text with quoted speech replaced by ``QUOTE``, and whether any was found."""
    masked, count = _QUOTED.subn("QUOTE", normalise(text))
    return masked, count > 0


@dataclass(frozen=True)
class Sentence:
    raw: str
    """The sentence as said, quotes masked."""
    core: str
    """Lowercased, without its leading discourse markers or its final punctuation."""
    asks: bool
    """A direct question (question mark, or an interrogative opening)."""
    requests: bool
    """An imperative or indirect request for an answer (no question mark needed)."""
    reports: bool
    """Contains quoted speech."""
    clauses: tuple[str, ...] = ()
    """Clause openings of ``core`` (it is split at colons, semicolons and dashes)."""

    @property
    def is_question(self) -> bool:
        return self.asks or self.requests


def strip_markers(text: str) -> str:
    return _MARKER.sub("", text.strip().lower()).strip()


def _clauses(core: str) -> list[str]:
    """Clause openings: the sentence, and whatever follows a colon, semicolon or dash."""
    return [strip_markers(part) for part in re.split(r"\s*[;:\u2014]\s*|\s+-\s+", core)
            if part.strip()]


def _sentence(raw: str, reports: bool) -> Sentence:
    text = raw.strip()
    core = strip_markers(text).rstrip(" .!?,;:")
    clauses = _clauses(core)
    asks = text.rstrip("\"') ").endswith("?") or \
        any(_INTERROGATIVE.match(c) for c in clauses)
    requests = any(_REQUEST.match(c) or _INDIRECT.match(c) for c in clauses)
    return Sentence(raw=text, core=core, asks=asks, requests=requests,
                    reports=reports and "QUOTE" in text, clauses=tuple(clauses))


@lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[Sentence, ...]:
    """The sentences of one turn, read for their form."""
    masked, reports = mask_quotes(text)
    parts = [p for p in _SENTENCE_END.split(masked) if p and p.strip()]
    return tuple(_sentence(p, reports) for p in parts)


def question_count(text: str) -> int:
    """How many questions (or requests for an answer) one turn contains."""
    return sum(1 for s in sentences(text) if s.is_question)


def is_question(text: str) -> bool:
    """Whether a turn asks something: a question or an imperative/indirect request."""
    return question_count(text) > 0


def head_noun(pattern: str) -> str:
    """``pattern`` only where it ends its noun phrase: what follows is punctuation, the end,
    or a function word or adverb, not another content word ("your salary?" but not "your
    salary service", "the right answer here" but not "the answer format")."""
    words = "|".join(sorted(_FUNCTION_WORDS, key=len, reverse=True))
    return rf"(?:{pattern})(?!\s+(?!(?:{words})\b|[a-z]+ly\b)[a-z])"
