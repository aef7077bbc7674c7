"""The grounding gate: is an atomic item (question and answer) attested by its source response?

The gate verifies the item, not the answer's words alone. Three kinds of answer:

- **text** — the answer's IDF-weighted terms must be attested in the response (coverage at or
  above the threshold), as a claim must be.
- **number** (``3``, ``three``, ``3 years``) — every number the answer states must appear in the
  response, in digits or in words, and the question with the answer's other words must be
  attested by the source pair (so "3" is not kept against a response that merely mentions
  some three).
- **yes/no** (``Yes``, ``No.``) — the atomic question's content must be attested by the source
  pair (the interviewer's question and the response: a spoken "Yes, but ..." rarely repeats
  what was asked), and a response that opens with the opposite word is a rejection. Beyond
  that, lexical overlap cannot read polarity: a yes/no item about what the pair discusses is
  kept and its polarity left to the item's model (the MCQ offers the other answer as a
  distractor). A decision, documented here and in docs/MCQ_GATE.md, not an oversight.

Document frequencies come from the personality's held-out responses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from interviewsim.text.coverage import Coverage, DocumentFrequencies, coverage, terms
from interviewsim.text.numbers import NUMBER_WORDS, numbers_in

AnswerKind = Literal["text", "number", "yes_no"]
_YES_NO = re.compile(r"\s*(?:yes|no)\b[\s.!,;]*", re.IGNORECASE)
_NUMERIC_TERM = re.compile(r"^[\d.,]+$")


def answer_kind(answer: str) -> AnswerKind:
    """How the gate reads an atomic answer (see the module doc)."""
    if _YES_NO.fullmatch(answer):
        return "yes_no"
    return "number" if numbers_in(answer) else "text"


def _other_words(answer: str) -> str:
    """The answer's content terms that are not part of a number."""
    return " ".join(sorted(t for t in terms(answer)
                           if t not in NUMBER_WORDS and not _NUMERIC_TERM.match(t)))


@dataclass(frozen=True)
class GateResult:
    kept: bool
    kind: AnswerKind
    coverage: Coverage
    """Of the answer (text), of the question and the answer's other words (number), or of
    the question (yes/no)."""
    missing_numbers: tuple[float, ...] = ()
    contradicted: bool = False
    """A yes/no answer whose response opens with the other word."""

    def reason(self, threshold: float) -> str | None:
        """Why the item was dropped (None when kept)."""
        if self.kept:
            return None
        if self.contradicted:
            return "yes/no answer: the response opens with the opposite word"
        if self.missing_numbers:
            shown = ", ".join(f"{n:g}" for n in self.missing_numbers)
            return f"number answer: {shown} not stated in the response"
        what = {"text": "the answer", "number": "the question and answer",
                "yes_no": "the question of a yes/no answer"}[self.kind]
        if self.kind != "text":
            what += " by the source pair"
        return (f"grounding of {what} {self.coverage.score:.3f} below threshold "
                f"{threshold:.2f} (attested terms: {', '.join(self.coverage.matched) or 'none'})")


def _opening_word(text: str) -> str:
    match = re.match(r"\W*(\w+)", text.lower())
    return match.group(1) if match else ""


def grounding_gate(question: str, answer: str, response: str,
                   frequencies: DocumentFrequencies, threshold: float,
                   source_question: str = "") -> GateResult:
    """Keep the item only if its source pair attests it (see the module doc); the
    ``source_question`` is the interviewer's question the response answered."""
    kind = answer_kind(answer)
    pair = f"{source_question}\n{response}"
    if kind == "yes_no":
        found = coverage(question, pair, frequencies)
        said, opening = _opening_word(answer), _opening_word(response)
        contradicted = opening in ("yes", "no") and opening != said
        return GateResult(found.score >= threshold and not contradicted, kind, found,
                          contradicted=contradicted)
    if kind == "number":
        stated = numbers_in(response)
        missing = tuple(sorted(n for n in numbers_in(answer) if n not in stated))
        found = coverage(f"{question} {_other_words(answer)}", pair, frequencies)
        return GateResult(not missing and found.score >= threshold, kind, found, missing)
    found = coverage(answer, response, frequencies)
    return GateResult(found.score >= threshold, kind, found)
