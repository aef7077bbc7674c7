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
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.hints import HINT_FORMS
from interviewsim.agent.hiring import about_own_work, offer_talk
from interviewsim.agent.language_model import overruled, strongest, turn_labels
from interviewsim.agent.leaks import LEAK_FORMS
from interviewsim.agent.restating import restatement
from interviewsim.agent.signals import OTHER_CANDIDATES, PAY_TOPIC, Signal
from interviewsim.agent.verdicts import LOGISTICS, dismissal, praise, sarcastic
from interviewsim.text.discourse import Sentence, head_noun, question_count, sentences

if TYPE_CHECKING:
    from interviewsim.agent.language_fallback import LanguageFallback


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
                r"|love (?:it|that|this)|correct|bang on|textbook|spot-on|bravo|superb|splendid"
                r"|well reasoned|well put|well said|nailed it)")
_OPENER = re.compile(r"^(?:(?:oh|wow|ah|okay|ok|alright|yes|yeah|so|and|hmm+)[,.!]?\s+)+")
_SUBJECT = (r"(?:^|[,;:\u2014] |\b(?:and|but) )(?:no,? )?(?:that|this|it|you|your (?:answer"
            r"|approach|explanation|reasoning|design|point|example|math|assumption"
            r"|understanding))(?:'s|'re| is| was| are| were)")
"""A clause that opens on the answer (or the candidate) and passes a verdict on it: a verdict
is about *this* answer, so the subject is deictic and starts its clause ("Excellent, that's
right"), unlike "the data was wrong" or "users said it was wrong"."""
_PRAISE = (
    re.compile(rf"^{_PRAISE_WORD}(?:\s*(?:[!,.;:\u2014]|$)(?!\s*{LOGISTICS})| (?:answer"
               r"|point|question|job|work|one|example|thinking|explanation|stuff)\b)"),
    re.compile(rf"{_SUBJECT}(?: (?:a|an|really|very|so|such a|truly|just|quite|pretty))* "
               rf"(?:{_PRAISE_WORD}|right\s*(?:[!,.;]|$)|correct\s*(?:[!,.;]|$))"),
    re.compile(r"\b(?:well|nicely) done\b|\b(?:good|nice|great) (?:job|answer|work)\b"
               r"|\byou(?:'re| are) doing (?:really |very |so )?(?:well|great|fine)\b"
               r"|\byou(?:'ve| have)? (?:nailed|aced|smashed|crushed|cracked) (?:it|that|this)\b"
               r"|\bexactly what i (?:was|were) (?:hoping|looking|wanting) (?:to hear|for)\b"
               r"|\b(?:really |very )?(?:strong|solid|excellent|brilliant|great|impressive|clear)"
               r" (?:answer|reasoning|explanation|instinct|instincts|thinking|catch)\b"
               r"|\byou(?:'re| are) (?:absolutely|exactly|completely|totally|quite) right\b"
               r"|\bi couldn't have put it better\b|\bthat's the one\b"),
)
"""Praise is an interjection that opens a sentence ("Great!", "Perfect.", "Good answer."), or a
verdict on the answer: "Great Britain", "the perfect size" and "a great handover" are neither."""
_DISMISSIVE = (
    re.compile(r"^(?:no,? )?(?:wrong|incorrect|nope|not quite|not really|not even close)$"
               r"|^(?:no,? )?(?:wrong|incorrect|not quite|not even close)\b"
               r"(?! (?:to|for|if|when))"),
    re.compile(rf"{_SUBJECT}(?: (?:just|simply|completely|totally|plain|quite|an?))*"
               r" (?:wrong|incorrect|mistaken)\b"),
    re.compile(rf"{_SUBJECT} not (?:quite |really |entirely )?(?:right|correct|accurate|how"
               r"|what|true|it)\b|\bbad answer\b"
               r"|\byou(?:'ve| have)? got (?:that|it|this) (?:backwards|back to front|wrong"
               r"|the wrong way (?:round|around))\b"
               r"|\byou(?:'re| are) (?:way |completely |totally )?(?:off|mistaken|wrong)\b"
               r"|\bi(?:'m| am) (?:afraid|sorry),? (?:that's|that is|you're)"
               r" (?:wrong|incorrect|not)\b"
               r"|\bi(?:'m| am) not (?:at all )?convinced\b"
               r"|^(?:that|this|it) (?:really )?(?:doesn't|does not|wouldn't|won't|can't|isn't"
               r"|is not) (?:make (?:any )?sense|work|compile|answer the question|hold water"
               r"|add up|how|true)\b"),
)
_HINT_CLAUSE = re.compile(
    r"^(?:hint\b|(?:try|consider|think about) (?:using|adding|thinking|looking|switching)\b"
    r"|(?:the|one) (?:right |correct |best )?answer (?:is|would be)\b"
    r"|(?:a|one) good (?:approach|idea|option|way|solution) (?:is|would be|here is)\b"
    r"|have you (?:considered|thought about|tried)\b|(?:what|how) about using\b"
    r"|why not (?:use|try|add)\b|what if you\b|don't forget\b|do not forget\b"
    r"|remember (?:that|the|to|it|you)\b|think about (?:what|how|the|using|whether|why|which)\b"
    r"|(?:a|one|the) (?:common|standard|classic|usual|useful|neat|handy) (?:trick|approach|pattern"
    r"|technique|way|move)\b|(?:here(?:'s| is) )?(?:a |one |another |quick |small )*(?:nudge|hint"
    r"|clue|tip|pointer)\b(?! of\b)|(?:maybe|perhaps) (?:try|use|look|start|consider|a|an|the)\b"
    r"|(?:it )?might (?:help|be worth)\b|if it helps\b|consider (?:the|using|what|how)\b"
    r"|try (?:it|drawing|writing|starting|sorting|using|with)\b"
    r"|start (?:with|from|by)\b(?! (?:telling|walking|describing|introducing|giving) (?:me|us)"
    r"|(?:telling|walking) me\b)"
    r"|let me give you a (?:starting point|hint|clue|nudge)\b|have you (?:looked at|checked"
    r"|thought of)\b|psst\b|(?:one thing to|you(?:'ll| will)? (?:want|need) to) (?:keep|bear) in"
    r" mind\b|(?:keep|bear) in mind\b|(?:the|your) first step (?:is|would be)\b"
    r"|half (?:of )?the answer\b|i(?:'d| would) (?:maybe |probably )?(?:check|look at|start"
    r" with|try)\b|(?:sort|count|draw|reverse|split|cache|memoi[sz]e|hash|track|group)"
    r" (?:it|them|the|each|by|with|from)\b|use (?:a|an|the|two|extra)\b(?! (?:example|story"
    r"|moment|minute|scenario)))")
_HINT_ANYWHERE = re.compile(
    r"\byou (?:should|could|might|(?:may|might|'d|would) want to|need to) (?:use|try"
    r"|consider|look at|think about|add|switch to)\b|\bhere(?:'s| is) (?:a|one|another) "
    r"(?:hint|clue|tip)\b|\b(?:give|offer) you (?:a|one|another|some) (?:hint|clue|tip"
    r"|pointer)s?\b|\byou (?:could|can|might|may) (?:start|begin|try|use|look|check)\b"
    r"|\b(?:a|an) [a-z-]+ (?:would|could|might) (?:help|make this|work|do it)\b"
    r"|\byou(?:'re| are) allowed to\b|\b(?:perhaps|maybe) you (?:can|could)\b")
_HINT_PROBE = re.compile(
    r"\bwhat happens (?:to|if|when|with) your\b|\bwould (?!it\b)(?:\w+ ){1,4}help\b"
    r"|\bwhat would (?:a|an) [\w-]+ .{0,30}\bgive you\b|\bwhat if you\b"
    r"|\b(?:have|did) you (?:considered|thought about|tried|looked at|checked)\b"
    r"|^(?:could|can|might) you (?:use|try|sort|add)\b")
"""Questions that point the way: at the candidate's own solution's edge, or at a tool."""
"""A hint proposes an approach or states the answer: a clause that opens with it ("Try using",
"The answer is", "Have you considered..."), or a suggestion addressed to the candidate;
"What do you think the answer is?" and "any hint of trouble" propose nothing."""
_LEAK = (
    re.compile(r"\b(?<!a )(?<!a marking )(?<!a grading )(?:rubrics?|scorecard"
               r"|evaluation criteria|scoring (?:criteria|guide|sheet"
               r"|system))\b|\bi(?:'m| am) (?:grading|scoring|marking|rating|assessing|judging)"
               r" (?:this|you|that|it|on|against)\b|\byou(?:'re| are) (?:at|sitting at|on)"
               r" (?:about |around |roughly )?(?:an? )?(?:\d+|one|two|three|four|five|six|seven"
               r"|eight|nine|ten)\b|\b(?:worth|counts? for|carries) (?:about |roughly )?"
               r"(?:a (?:third|quarter|half|fifth)|\d+ ?%|\w+ percent)\b"
               r"|\bon my (?:sheet|form|scorecard|list)\b|\bout of (?:five|5|four|4|three|3)\b"
               r"|\b(?:my|our|one of (?:my|our)) criteri(?:a|on)\b|\bpass mark\b"
               r"|\bto pass this (?:round|stage|section|interview)\b|\bbonus points\b"
               r"|\bscored (?:category|section|dimension)\b|\b(?:i|we) weight\b"
               r"|\d+(?:\.\d+)?\s*/\s*10\b|\bout of (?:10|ten)\b"
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
_LEAK_STATEMENT = re.compile(
    r"\b(?:graded|scored|weighted|assessed)\b|\b(?:criteri(?:a|on)|tick-?box|a box (?:here )?for"
    r"|rating from|points for|marks for)\b|\b(?:full|bonus|extra) (?:points|marks)\b|\bmaxed out\b"
    r"|\bputs? you at\b|\bon (?:our|the|my) (?:ladder|scale|sheet|form|grid)\b"
    r"|\bthe bar for (?:this|the) (?:role|level|position)\b|\bwhat i(?:'m| am) (?:checking"
    r"|looking for|listening for)\b|\b(?:the panel|we|i)(?:'re|'m| is| are| am)? looking for"
    r" (?:\w+ )?(?:things|signals)\b|\bmeets expectations\b|\b(?:in|going in) my notes\b"
    r"|\b(?:matters|counts|weighs) (?:a lot )?(?:more|less) than\b|\b(?:percent|%) overall\b"
    r"|\bto (?:move forward|pass|get through)\b|\b(?:each|every) (?:answer|question|section)"
    r" (?:gets|is worth|carries)\b|\b(?:grade|grading|mark|marking) (?:the|this|that|you|it)\b"
    r"|\bthe (?:communication|technical|design|coding|culture|problem-solving) (?:score|mark"
    r"|rating|criterion)\b")
"""Assessment vocabulary in a statement (questions such as "How do you mark essays?" ask
about the candidate's own work): the apparatus, a level or score the candidate is at."""
_ROLE_LINK = re.compile(r"\b(?:you|your|you'd|you'll|you would|we|we'll|we'd|we're|our|us|this "
                        r"(?:role|position|job|team|company)|the (?:role|position|offer|job)"
                        r"|offer)\b")
_PAY_ANY_PERSON = re.compile(
    head_noun(r"\b(?:salary|salaries|compensation|equity|commission|stipend|ctc|base pay"
              r"|(?:salary|pay) (?:range|band|expectations))")
    + r"|\b(?:range|band)s? for (?:this|the) (?:role|position|job|post)\b"
    r"|\b(?:hiring|recruiting) (?:budget|plan|numbers)\b|\bnew hires\b"
    r"|" + head_noun(r"\b(?:bonus|bonuses|pension|overtime|pay|equity|dental plan|relocation money"
                    r"|stock options|commission split|sign-on bonus)\b")
    + r"|\bbenefits-wise\b|\bequity vests\b|\b(?:lower|higher|your|the) base\b(?! (?:case|class"
    r"|image|layer|station|model|rate|url|path|64))|\bhow much would it take\b"
    r"|\bthe (?:band|range) for\b|\b(?:strongest|best|weakest) (?:person|candidate|applicant)s?"
    r" (?:i(?:'ve| have)?|we(?:'ve| have)?) (?:spoken|seen|interviewed|met)\b")
"""Pay and hiring words that raise the topic in any person ("What kind of salary are you
looking for?"), as the head of their noun phrase, so "the salary microservice" is a system."""
_RESTATE = re.compile(
    r"^(?:you(?:'re| are) (?:saying|telling me)|what (?:you(?:'re| are) saying|i(?:'m| am) "
    r"hearing) is|in other words"
    r"|to summari[sz]e(?! (?:the|today's|our) (?:format|plan|agenda|session))"
    r"|in summary|to recap|let me recap"
    r"|if i (?:understand|understood|heard) (?:you )?(?:correctly|right)|basically,? you"
    r"|so what you(?:'re| are) (?:saying|telling me)|let me (?:make sure|check|see if) i(?:'ve|"
    r" have)? (?:got|understood|follow)(?! the right)|if i (?:follow|understand|understood|heard)"
    r" you|if i(?:'ve| have) (?:got (?:it|that|this) right|followed)|just so i(?:'m| am) clear"
    r"|(?:to )?play(?:ing)? (?:it|that) back|let me (?:repeat|play|read|sum) (?:that|it|what|up)"
    r"|in a nutshell|(?:so )?in short|i(?:'m| am) clear|basically\b(?=:|$)"
    r"|let me summari[sz]e\b(?! the (?:scenario|problem|task|format|question|case))"
    r"|summari[sz]ing|(?:your|so your) (?:point|position|view|answer"
    r"|argument)(?:,? then,?)? is|so,? (?:you|it was|the \w+ (?:was|were))\b(?! (?:mentioned"
    r"|said|think|want|need|know)\b)|correct me if i'm wrong|paraphrasing|restating"
    r"|what i(?:'m| am)"
    r" hearing|(?:it )?sounds like you|so your (?:point|position|view) is)\b")
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


_STACKED = re.compile(
    r"(?:, (?:and |but )?(?:then |(?:like )?also (?:like )?|perhaps also |second "
    r"|while you're at it,? |if so,? )?| (?:and|or) (?:then |also |perhaps also ))"
    r"(?:(?:what|how|why|when|where|who"
    r"|which|whether)\b(?! to\b)(?=\s+\w)(?! (?:you|i|we|they|he|she|it) (?:did|do|does|said|say"
    r"|mean"
    r"|meant|think|thought|know|knew|need|needed|want|wanted|were|was|are|is|had|have|handled"
    r"|dealt|felt|learned|learnt|decided|chose|went|got|made)\b)"
    r"|(?:did|would|will|could|can|do|does|is|are|was|were|have|has|had) (?:you|she|he|they|it"
    r"|we)\b|(?:tell|show|give|walk|pitch|talk) me\b|explain\b|describe\b|for (?:what|how much"
    r"|whom)\b|if so\b)")
_ASKING_START = re.compile(r"^(?:what|how|why|when|where|who|which|did|do|does|is|are|was|were"
                           r"|would|will|can|could|describe|tell|name|walk|explain)\b")


def _stacked(said: tuple[Sentence, ...]) -> int:
    """Questions stacked inside one question sentence ("Why did you leave, and would you go
    back?"): each coordinated clause that opens like a question, after one that does."""
    extra = 0
    for s in said:
        for clause in s.clauses:
            if (s.is_question or clause.endswith("?")) and _ASKING_START.match(clause):
                extra += len(_STACKED.findall(clause.split(" ", 1)[-1]))
    return extra


def _off_limits(cores: list[str]) -> str | None:
    return _first((re.compile(OTHER_CANDIDATES),), cores) or _first(
        (re.compile(PAY_TOPIC),), [c for c in cores if _ROLE_LINK.search(c)]) or _first(
        (_PAY_ANY_PERSON,), cores) or next(filter(None, map(offer_talk, cores)), None)


def rule_matches(text: str) -> dict[Rule, str]:
    """What each rule finds in one turn (the offending words), sentence by sentence."""
    said = sentences(text)
    openings = [_OPENER.sub("", s.raw.lower()).strip() for s in said]
    cores = [s.core for s in said]
    clauses = [c for s in said for c in s.clauses]
    statements = [s.core for s in said if not s.asks and not s.reports]
    found = {
        Rule.PRAISE: _first(_PRAISE, openings) or praise(statements),
        Rule.DISMISSIVE: _first(_DISMISSIVE[:1], cores) or _first(_DISMISSIVE[1:], openings)
        or dismissal(statements, [s.core for s in said if not s.reports]),
        Rule.HINT: _first((_HINT_CLAUSE,), clauses) or
        _first((_HINT_ANYWHERE,), [s.core for s in said if not s.asks]) or
        _first((_HINT_PROBE,), [s.core for s in said if s.asks and not s.reports]) or
        _first((HINT_FORMS,), [s.core for s in said if not s.reports]),
        Rule.RUBRIC_LEAK: _first(_LEAK, cores) or _first((_LEAK_STATEMENT,), statements)
        or _first((LEAK_FORMS,), [s.core for s in said if not s.reports]),
        Rule.OFF_LIMITS: _off_limits([c for c in cores if not about_own_work(c)]),
        Rule.RESTATING: _first((_RESTATE,), clauses)
        or restatement([s.raw for s in said if not s.reports]),
    }
    if sarcastic(" ".join(cores)):  # "Brilliant, so we'd just ignore the fire regs then."
        found[Rule.PRAISE] = None
        found[Rule.DISMISSIVE] = found[Rule.DISMISSIVE] or "praise said in sarcasm"
    count = question_count(text) + _stacked(said)
    if count > 1:
        found[Rule.MULTIPLE_QUESTIONS] = f"{count} questions"
    return {rule: match for rule, match in found.items() if match}


def _model_match(text: str, rule: Rule) -> str:
    """What the turn model flagged, named by the sentence it scores highest for ``rule``."""
    return f"(model) {strongest([s.raw for s in sentences(text)] or [text], rule.value)}"


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

    def __init__(self, rubric_area_ids: Sequence[str] = (),
                 fallback: LanguageFallback | None = None):
        self._ids = _id_pattern(rubric_area_ids)
        self.fallback = fallback
        """The capable model whose reading of a turn is final (``language_fallback``)."""

    def audit(
        self, turn: int, state: str, text: str, after: Iterable[Signal] = ()
    ) -> TurnAudit:
        """Check one turn against every rule; ``after`` is what the candidate last asked."""
        signals = sorted(after)
        plain = text.replace("\u2019", "'")
        matches = rule_matches(plain)
        leaked_id = self._ids.search(plain) if self._ids is not None else None
        if leaked_id and Rule.RUBRIC_LEAK not in matches:
            matches[Rule.RUBRIC_LEAK] = leaked_id.group(0)
        said = [s.core for s in sentences(plain) if s.core]
        # a turn of acknowledgements only ("Okay.", "Got it.") has nothing for the model
        model_labels = turn_labels(plain) if said else frozenset()
        asked = self.fallback.turn(text) if self.fallback is not None and said else None
        if asked is not None:  # the capable model's reading is final; a leaked id stays
            matches = {rule: match for rule, match in matches.items()
                       if rule is Rule.RUBRIC_LEAK and leaked_id and match == leaked_id.group(0)}
            for rule in sorted(Rule(label) for label in asked):
                matches.setdefault(rule, f"(fallback) {text}")
        else:
            # a rule's finding the model scores under its gate is overruled (set on writers the
            # model never read); a leaked rubric id is the code's own finding and stays
            for label in overruled("turn", [r.value for r in matches], plain):
                if not (Rule(label) is Rule.RUBRIC_LEAK and leaked_id):
                    del matches[Rule(label)]
            for rule in sorted(Rule(label) for label in model_labels if label != "invitation"):
                matches.setdefault(rule, _model_match(plain, rule))
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
