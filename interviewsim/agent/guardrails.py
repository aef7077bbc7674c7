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

from interviewsim.agent.signals import OTHER_CANDIDATES, PAY_TOPIC, Signal
from interviewsim.text.discourse import head_noun, question_count, sentences


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


_PRAISE_WORD = (r"(?:great|excellent|perfect|awesome|wonderful|fantastic|amazing|brilliant|superb"
                r"|absolutely|exactly|lovely|nice|good|impressive|outstanding|terrific|spot on"
                r"|love (?:it|that|this))")
_OPENER = re.compile(r"^(?:(?:oh|wow|ah|okay|ok|alright|yes|yeah|so|and|hmm+)[,.!]?\s+)+")
_SUBJECT = (r"(?:^|[,;:\u2014] |\b(?:and|but) )(?:no,? )?(?:that|this|it|you|your (?:answer"
            r"|approach|explanation|reasoning|design|point|example|math|assumption"
            r"|understanding))(?:'s|'re| is| was| are| were)")
"""A clause that opens on the answer (or the candidate) and passes a verdict on it: a verdict
is about *this* answer, so the subject is deictic and starts its clause ("Excellent, that's
right"), unlike "the data was wrong" or "users said it was wrong"."""
_PRAISE = (
    re.compile(rf"^{_PRAISE_WORD}(?:\s*(?:[!,.;:\u2014]|$)| (?:answer|point|question|job|work"
               r"|one|example|thinking|explanation|stuff)\b)"),
    re.compile(rf"{_SUBJECT}(?: (?:a|an|really|very|so|such a|truly|just|quite|pretty))* "
               rf"(?:{_PRAISE_WORD}|right\s*(?:[!,.;]|$)|correct\s*(?:[!,.;]|$))"),
    re.compile(r"\b(?:well|nicely) done\b|\b(?:good|nice|great) (?:job|answer|work)\b"
               r"|\byou(?:'re| are) doing (?:really |very |so )?(?:well|great|fine)\b"),
)
"""Praise is an interjection that opens a sentence ("Great!", "Perfect.", "Good answer."), or a
verdict on the answer: "Great Britain", "the perfect size" and "a great handover" are neither."""
_DISMISSIVE = (
    re.compile(r"^(?:no,? )?(?:wrong|incorrect|nope|not quite|not really)$"),
    re.compile(rf"{_SUBJECT}(?: (?:just|simply|completely|totally|plain|quite|an?))*"
               r" (?:wrong|incorrect|mistaken)\b"),
    re.compile(rf"{_SUBJECT} not (?:quite |really |entirely )?(?:right|correct|accurate|how"
               r"|what)\b|\bbad answer\b"),
)
_HINT_CLAUSE = re.compile(
    r"^(?:hint\b|(?:try|consider|think about) (?:using|adding|thinking|looking|switching)\b"
    r"|(?:the|one) (?:right |correct |best )?answer (?:is|would be)\b"
    r"|(?:a|one) good (?:approach|idea|option|way|solution) (?:is|would be|here is)\b"
    r"|have you (?:considered|thought about|tried)\b|(?:what|how) about using\b"
    r"|why not (?:use|try|add)\b)")
_HINT_ANYWHERE = re.compile(
    r"\byou (?:should|could|might|(?:may|might|'d|would) want to|need to) (?:use|try"
    r"|consider|look at|think about|add|switch to)\b|\bhere(?:'s| is) (?:a|one|another) "
    r"(?:hint|clue|tip)\b|\b(?:give|offer) you (?:a|one|another|some) (?:hint|clue|tip"
    r"|pointer)s?\b")
"""A hint proposes an approach or states the answer: a clause that opens with it ("Try using",
"The answer is", "Have you considered..."), or a suggestion addressed to the candidate;
"What do you think the answer is?" and "any hint of trouble" propose nothing."""
_LEAK = (
    re.compile(r"\b(?:rubrics?|scorecard|evaluation criteria|scoring (?:criteria|guide|sheet"
               r"|system))\b|\d+(?:\.\d+)?\s*/\s*10\b|\bout of (?:10|ten)\b"
               r"|\byour (?:technical accuracy|communication clarity|depth of reasoning"
               r"|relevance|composite)\b"),
    re.compile(r"\byour (?:(?:overall|final|current|total|interview|average) )?" + head_noun(
        r"(?:score|scores|grade|grades|rating|marks|points)")),
    re.compile(r"\b(?:i|we|i'd|we'd|i'll|we'll|i'm|we're|they|the team|the panel)(?: (?:will"
               r"|would|are|am|be))* (?:score|scores|scoring|scored|grade|grades|grading|graded"
               r"|rate|rating|rated|mark|marking|assess|assessing|evaluate|evaluating) (?:you|your"
               r"|(?:that|this|every|each) (?:answer|section)|answers|the candidates?)\b"),
    re.compile(r"\byou(?:'re| are| were|'ll be| will be| would be|'d be| get| got)(?: being)? "
               r"(?:scored|graded|rated|evaluated|assessed|marked)\b|\byou scored (?:well"
               r"|highly|high|low|poorly|above|below|an? \d|\d)|\b(?:you|nobody|no one|everyone"
               r"|candidates?) (?:get|gets|got|receives?) (?:an? |the )?(?:\w+ )?(?:score|grade"
               r"|rating)\b"),
)
"""Scores leak when they are the candidate's: the evaluation apparatus itself, "your score", an
evaluator scoring "you" or "that answer", "you'll be graded". "Player scores", "a relevance
score", "how would you grade the severity" and "a composite key" belong to the candidate's
own work."""
_ROLE_LINK = re.compile(r"\b(?:your|you'd|you'll|you would|we|we'll|we'd|we're|our|us|this "
                        r"(?:role|position|job|team|company)|the (?:role|position|offer|job)"
                        r"|offer)\b")
_RESTATE = re.compile(
    r"^(?:you(?:'re| are) (?:saying|telling me)|what (?:you(?:'re| are) saying|i(?:'m| am) "
    r"hearing) is|in other words|to summari[sz]e|in summary|to recap|let me recap"
    r"|if i (?:understand|understood|heard) (?:you )?(?:correctly|right)|basically,? you)\b")
"""Restating opens a sentence with a summary of the answer, wherever that sentence is in the
turn ("I see. So you are saying..."); "You said X; why?" anchors a question, it restates
nothing."""


def _first(patterns: tuple[re.Pattern[str], ...], texts: list[str]) -> str | None:
    for text in texts:
        for pattern in patterns:
            match = pattern.search(text)
            if match:
                return match.group(0).strip(" ,;:")
    return None


def _rule_matches(text: str) -> dict[Rule, str]:
    """What each rule finds in one turn (the offending words), sentence by sentence."""
    said = sentences(text)
    openings = [_OPENER.sub("", s.raw.lower()).strip() for s in said]
    cores = [s.core for s in said]
    clauses = [c for s in said for c in s.clauses]
    found = {
        Rule.PRAISE: _first(_PRAISE, openings),
        Rule.DISMISSIVE: _first(_DISMISSIVE[:1], cores) or _first(_DISMISSIVE[1:], openings),
        Rule.HINT: _first((_HINT_CLAUSE,), clauses) or
        _first((_HINT_ANYWHERE,), [s.core for s in said if not s.asks]),
        Rule.RUBRIC_LEAK: _first(_LEAK, cores),
        Rule.OFF_LIMITS: _first((re.compile(OTHER_CANDIDATES),), cores) or _first(
            (re.compile(PAY_TOPIC),), [c for c in cores if _ROLE_LINK.search(c)]),
        Rule.RESTATING: _first((_RESTATE,), clauses),
    }
    count = question_count(text)
    if count > 1:
        found[Rule.MULTIPLE_QUESTIONS] = f"{count} questions"
    return {rule: match for rule, match in found.items() if match}


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
        matches = _rule_matches(plain)
        leaked_id = self._ids.search(plain) if self._ids is not None else None
        if leaked_id and Rule.RUBRIC_LEAK not in matches:
            matches[Rule.RUBRIC_LEAK] = leaked_id.group(0)
        found = [Violation(turn=turn, rule=rule, match=matches[rule], after=signals)
                 for rule in Rule if rule in matches]
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
