"""The guardrail audit: deterministic checks of every interviewer turn.

The persona prompt asks the interviewer to stay neutral, give no hints, keep to scope and keep
the rubric secret; this module checks whether it did. It flags, it does not rewrite: the
transcript stays what the candidate actually heard, and the violation rate is a measurement of
the interviewer model, reported per session and per experiment.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.signals import OFF_LIMITS_TOPICS, Signal


class Rule(StrEnum):
    PRAISE = "praise"
    """Praise or filler affirmation ("Great answer!", "Perfect!")."""
    DISMISSIVE = "dismissive"
    """Verdicts such as "that's wrong": probe the reasoning instead."""
    HINT = "hint"
    """Volunteers an approach, a hint or the answer."""
    RUBRIC_LEAK = "rubric_leak"
    """Mentions scores, scoring, the rubric, its dimensions or its areas."""
    OFF_LIMITS = "off_limits"
    """Discusses pay, headcount or other candidates."""
    MULTIPLE_QUESTIONS = "multiple_questions"
    """Asks more than one question in one turn."""
    RESTATING = "restating"
    """Opens by summarising the candidate's answer back to them."""


_RULES: dict[Rule, re.Pattern[str]] = {
    Rule.PRAISE: re.compile(
        r"\b(?:great|excellent|perfect|awesome|wonderful|fantastic|amazing|brilliant|superb"
        r"|absolutely|impressive|love (?:that|it)|good job|well done|nice (?:answer|job|work"
        r"|one)|good (?:answer|point|question)|exactly right)\b",
        re.IGNORECASE,
    ),
    Rule.DISMISSIVE: re.compile(
        r"\b(?:that(?:'s| is) (?:wrong|incorrect|not right)|you(?:'re| are) wrong|incorrect"
        r"|bad answer)\b",
        re.IGNORECASE,
    ),
    Rule.HINT: re.compile(
        r"\b(?:hint|clue|the (?:right|correct) answer is|the answer is|you (?:should|could|might)"
        r" (?:use|try|consider)|try (?:using|thinking about)|have you (?:considered|thought "
        r"about)|consider using|a good approach (?:is|would be)|think about using)\b",
        re.IGNORECASE,
    ),
    Rule.RUBRIC_LEAK: re.compile(
        r"\b(?:rubric|scor(?:e|es|ed|ing)|grad(?:e|ed|ing)|evaluation criteria|out of (?:10|ten)"
        r"|\d+(?:\.\d+)?\s*/\s*10|technical accuracy|communication clarity|depth of reasoning"
        r"|composite)\b",
        re.IGNORECASE,
    ),
    Rule.OFF_LIMITS: re.compile(OFF_LIMITS_TOPICS, re.IGNORECASE),
    Rule.RESTATING: re.compile(
        r"^\s*(?:so,? (?:what )?you(?:'re| are)? (?:saying|said)|to summari[sz]e|in summary"
        r"|if i understand (?:you )?correctly|let me recap)\b",
        re.IGNORECASE,
    ),
}


class Violation(BaseModel):
    """One rule broken in one interviewer turn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int
    rule: Rule
    match: str
    """The offending text, so a reader can disagree with a specific finding."""
    after: list[Signal] = []
    """Signals of the candidate reply this turn answered (a hint after a hint request)."""


class TurnAudit(BaseModel):
    """The audit of one interviewer turn: clean, or the violations found."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int
    state: str
    text: str
    violations: list[Violation]


def _id_pattern(area_ids: Iterable[str]) -> re.Pattern[str] | None:
    """Internal multi-word area ids (``distributed_systems``) spoken verbatim.

    The plain words ("distributed systems") are a legitimate topic to ask about; the id with
    its underscore only reaches a turn by copying the confidential rubric.
    """
    ids = sorted({a for a in area_ids if "_" in a}, key=len, reverse=True)
    if not ids:
        return None
    return re.compile(r"\b(?:" + "|".join(re.escape(i) for i in ids) + r")\b", re.IGNORECASE)


class GuardrailAuditor:
    """Audits interviewer turns; knows the rubric's area ids so it can catch them leaking."""

    def __init__(self, rubric_area_ids: Sequence[str] = ()):
        self._ids = _id_pattern(rubric_area_ids)

    def audit(
        self, turn: int, state: str, text: str, after: Iterable[Signal] = ()
    ) -> TurnAudit:
        """Check one turn against every rule; ``after`` is what the candidate last asked."""
        signals = sorted(after)
        plain = text.replace("\u2019", "'")
        found: list[Violation] = []
        for rule, pattern in _RULES.items():
            match = pattern.search(plain)
            if match:
                found.append(Violation(turn=turn, rule=rule, match=match.group(0), after=signals))
        leaked_id = self._ids.search(plain) if self._ids is not None else None
        if leaked_id and not any(v.rule == Rule.RUBRIC_LEAK for v in found):
            found.append(Violation(turn=turn, rule=Rule.RUBRIC_LEAK, match=leaked_id.group(0),
                                   after=signals))
        questions = plain.count("?")
        if questions > 1:
            found.append(Violation(turn=turn, rule=Rule.MULTIPLE_QUESTIONS,
                                   match=f"{questions} question marks", after=signals))
        return TurnAudit(turn=turn, state=state, text=text, violations=found)


class GuardrailSummary(BaseModel):
    """Counts over a session's audited turns."""

    model_config = ConfigDict(extra="forbid")

    turns_audited: int
    turns_with_violations: int
    violations_by_rule: dict[str, int]

    @property
    def violation_rate(self) -> float | None:
        """Share of audited turns with at least one violation."""
        return self.turns_with_violations / self.turns_audited if self.turns_audited else None


def summarize_audits(audits: Sequence[TurnAudit]) -> GuardrailSummary:
    by_rule: Counter[str] = Counter(v.rule.value for a in audits for v in a.violations)
    return GuardrailSummary(
        turns_audited=len(audits),
        turns_with_violations=sum(1 for a in audits if a.violations),
        violations_by_rule=dict(sorted(by_rule.items())),
    )
