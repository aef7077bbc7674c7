"""Which evidence sentences may attest anything: denials, wishes and second-hand work are set aside.

"I have never used Kubernetes" shares the word Kubernetes with a requirement for it, and "I
would like to learn Yocto" shares Yocto; term overlap reads both as proof. A sentence is cut into
clauses (at ``;`` ``:`` dashes, brackets, contrast words such as "but", and a comma before a
negation), and each clause is tested against :data:`CONSTRUCTIONS`: grammatical shapes, not
phrases of any one corpus, that keep a clause from saying the candidate did or holds a thing.

- denial: a negated experience predicate ("I have never used", "haven't built", "not
  certified"), a failed attempt ("missed the pass mark", "failed the exam"), "no / not any /
  without / none of / lack" + an experience noun, "yet to / not yet", a lapsed or previously
  held credential ("expired", "no longer", "used to hold"), exposure only ("read about",
  "heard of", "shadowed", "watched a colleague", "assisted while the consultant ..."), and
  work someone else did ("the platform team ran it", "done by the day office", a relative
  clause: "handed it to the developers, who did the profiling").
- wish: a modal or future wish ("would like / love to", "hope / plan / intend / aim to", "keen
  / eager / interested to", "want to learn", "next on my list"), a course or exam booked or in
  progress ("enrolled", "registered to sit", "starting next month", "about to begin"), a
  future time ("this autumn", "next year") and a willingness to learn ("happy to learn").

A denial whose object is only a pronoun ("I've read about MEDDPICC but have never used it",
"I held the licence until 2022, but I let it lapse") also sets aside the clause before it in
the same sentence: the pronoun carries the term back.
What is set aside is kept, with its reason and construction, so a verdict can say which
sentence did not count and why. The rules are regular expressions, so the path stays
deterministic; a clause none of them fires on is affirmative.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from interviewsim.prep.sections import sentences

Reason = Literal["denial", "wish"]

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_EXPERIENCE_VERB = (r"(?:used|use|worked|work|touched|operated|done|do|had|have|held|hold|led|"
                    r"built|written|deployed|been|tried|managed|run|seen|practi[cs]ed|taken|"
                    r"completed|passed|got|gained|shipped|developed|owned|applied|met|reached|"
                    r"handled|supervised|driven|sold|closed|trained|qualified|certified|"
                    r"licen[cs]ed|registered|configured|performed|taught|administered|"
                    r"implemented|maintained|designed|tested|delivered|carried|prepared|"
                    r"compounded|dispensed|signed|earned|obtained|achieved|mentored|coached)")
_EXPERIENCE_NOUN = (r"(?:experience|exposure|background|knowledge|familiarity|training|"
                    r"qualification|certificate|certification|licen[cs]e|degree|use|"
                    r"involvement|responsibility|credential|accreditation|registration|"
                    r"hands-on|practice|chance|opportunity|time)")
_TIME = (r"(?:year|spring|summer|autumn|fall|winter|month|term|semester|quarter|week|"
         r"january|february|march|april|may|june|july|august|september|october|november|"
         r"december)")
_OTHERS = (r"(?:colleagues?|manager|supervisor|boss|contractors?|vendors?|consultants?|"
           r"predecessor|lead|seniors?|(?:other|another|platform|partner|sister|central|"
           r"head office|day|night) (?:team|office|shift|site)|someone else|somebody else|"
           r"others|another \w+|a senior \w+|the (?:senior|lead|charge|staff|attending) \w+)")


@dataclass(frozen=True)
class Construction:
    """One grammatical shape that keeps a clause from attesting, and the reason it gives."""

    name: str
    reason: Reason
    pattern: re.Pattern[str]


def _rule(name: str, reason: Reason, pattern: str) -> Construction:
    return Construction(name, reason, re.compile(pattern, re.I))


CONSTRUCTIONS: tuple[Construction, ...] = (
    _rule("a wish or hope", "wish",
          r"\b(?:would|'d|should) (?:most |really |quite |very much |dearly |so )?(?:like|love|"
          r"enjoy|relish|welcome|be (?:keen|happy|glad|interested|excited))\b|"
          r"\b(?:keep|kept|been|am|'m) meaning to\b|\bgrow into\b|"
          r"\b(?:keen|eager|interested|excited|hoping|hopeful|desire)"
          r" (?:to|in|on)\b|\b(?:hope|want|wants|wish|wishes|long|aspire|aspiring) to\b|"
          r"\binterested in\b|\bwould be keen\b|\bone day\b|\bsome ?day\b"),
    _rule("a plan or intention", "wish",
          r"\b(?:plan|plans|planning|planned|intend|intends|intending|aim|aims|aiming|"
          r"mean|looking|expect|expecting|set) to\b|\b(?:goal|ambition|aim|plan|intention|"
          r"next step) (?:is|was) to\b|"
          r"\b(?:next )?on my (?:[\w-]+ )?(?:list|radar|to-do|roadmap)\b|"
          r"\bin the future\b|\bconsidering\b|\bthinking (?:about|of)\b|\blooking forward to\b"),
    _rule("a future or scheduled step", "wish",
          r"\b(?:will|'ll|shall|going to|about to|due to|scheduled to|set to|booked to|"
          r"registered to|enrolled to) (?:\w+ ){0,2}?(?:learn|study|pick up|get|start|begin|"
          r"take|enrol|enroll|sit|finish|complete|qualify|pass|attend|do|gain|earn|obtain|"
          r"join|receive|be)\b|\b(?:am|'m|is|are|currently|now|just|recently) (?:\w+ )?"
          r"(?:enrolled|booked (?:onto|on|in|for)|signed up|registered (?:for|to|on)|"
          r"waiting|waitlisted|applying|starting|beginning)\b|\b(?:have|'ve|has) (?:\w+ )?"
          r"(?:signed up|registered|enrolled|applied|booked)\b(?!\s+(?:with|as|since)\b)|"
          r"\bapplied (?:for|to)\b|"
          r"\b(?:this|next|coming|later this) " + _TIME + r"\b(?!'s)|\bstarts? (?:in|on|next)\b|"
          r"\b(?:start|starts|begin|begins|sit|take)\b[^.;:]{0,40}\b(?:in|on|this|next) "
          + _TIME + r"\b|\bin progress\b|\bpending\b|\bunderway\b|\bworking towards?\b|"
          r"\b(?:studying|preparing|revising) for\b|\bsitting (?:the|my)\b|"
          r"\b(?:am|'m|are|is|been|currently|now|still) (?:\w+ )?training for\b"),
    _rule("learning it now", "wish",
          r"\b(?:am|'m|currently|now|just|still) (?:\w+ )?(?:learning|studying|starting to "
          r"learn|picking up|teaching myself|taking (?:a|an|the) (?:course|class|module))\b|"
          r"\bstarted (?:learning|studying)\b|\b(?:happy|willing|open|ready|quick|able) to "
          r"learn\b|\bopen to learning\b|\b(?:can|could) (?:learn|pick (?:it|this) up)\b|"
          r"\blearn quickly\b|\bif (?:i|we) (?:get|can|could|were|am|had)\b"),
    _rule("a lapsed or past credential", "denial",
          r"\b(?:expired|lapsed|revoked|suspended|inactive|out of date|no longer|used to "
          r"(?:hold|have|be)|previously (?:held|had|certified|licen[cs]ed|registered)|formerly"
          r"|let (?:it|them|my \w+(?: \w+)?) (?:lapse|expire)|ran out|run out)\b|"
          r"\b(?:sold|gave up|given up|got rid of|handed back|returned) (?:my|our|the) "
          r"(?:\w+ )?(?:car|van|vehicle|bike|licen[cs]e|card|membership|registration)\b"),
    _rule("exposure only", "denial",
          r"\b(?:read|heard|learned|learnt|know) (?:up )?(?:a (?:bit|little) )?(?:about|of|"
          r"on)\b|\b(?:am|'m) aware of\b|\bshadow(?:ed|ing)\b|\bsat in on\b|"
          r"\b(?:watched|observed|followed) (?:a|an|the|my|our|senior|experienced|colleagues?|"
          r"others|how|someone|\w+ (?:do|run|perform|lead))\b|\b(?:only|just) (?:read|heard|"
          r"watched|seen|observed|shadowed)\b|\b(?:assist(?:ed|ing)|help(?:ed|ing)|support"
          r"(?:ed|ing)) (?:while|as|when) (?:a|an|the|my|our)\b"),
    _rule("a failed attempt", "denial",
          r"\b(?:failed|flunked|did not pass|didn't pass|not (?:yet )?passed|never passed)\b"
          r"[^.;:]{0,30}?\b(?:exam|test|assessment|certification|certificate|course|module|"
          r"paper|audit|unit|part|section|practical|check ?ride|it|them)s?\b|"
          r"\bmissed the pass(?:ing)? (?:mark|grade|score)\b|\bfell "
          r"(?:just )?short of the pass\b|\bunsuccessful (?:attempt|sitting|application)\b|"
          r"\b(?:i|i've|i have|i had|i'd)\s+(?:(?:also|then|just|actually|already|even|sadly)"
          r"\s+)?(?:failed|flunked)\b(?!\s+(?:over|back|"
          r"to|safe|open|closed|fast|gracefully)\b)"),
    _rule("avoided or beyond me", "denial",
          r"\b(?:duck(?:ed)? out of|steer(?:ed)? clear of|sh(?:y|ied) away from|tend(?:ed)? to "
          r"(?:duck|avoid|dodge|skip)|passed me by|(?:a )?(?:black box|mystery|closed book) to "
          r"me|(?:beyond|over) my head|out of my depth|(?:haven't|have not|never) got round "
          r"to)\b"),
    _rule("someone else did it", "denial",
          r"^who\b|"  # a relative clause ("handed it to the developers, who did the profiling")
          r"\b(?:hand|hands|handed) (?:it|them|those|these)(?: straight| right)?"
          r"(?: over| off| on)? to (?:the|our|a|an|my)\b|"
          r"\b" + _OTHERS + r"\s+(?:\w+\s+){0,2}?(?:did|does|handled|handles|ran|runs|owned|"
          r"owns|managed|manages|looked after|wrote|built|led|leads|set up|configured|kept|"
          r"took care|performed|performs|did all|signed off|made)\b|\b(?:looked after|taken "
          r"care of|done|handled|run|owned|managed|covered|written|built|configured|kept|"
          r"booked|led|made|signed|performed|approved|carried out) by (?!me\b|myself\b)"),
    _rule("not yet", "denial",
          r"\b(?:yet to|not yet|still to)\b|\b(?:no|not)\b[^.;:]*\byet\b|n't\b[^.;:]*\byet\b"),
    _rule("no or without + experience noun", "denial",
          r"^(?:no|none|nothing|zero)\b|\bno (?:\w+[ -]){0,3}?" + _EXPERIENCE_NOUN + r"\b|"
          r"\bnot any\b|\bnot (?:much|a lot of) (?:\w+[ -]){0,3}?" + _EXPERIENCE_NOUN + r"\b|"
          r"\bwithout (?:any )?(?:\w+[ -]){0,2}?" + _EXPERIENCE_NOUN + r"\b|\b(?:have|has|had|"
          r"hold|held|got|gained) (?:no|none|nothing)\b|\bnone of\b|\black(?:s|ed|ing)?\b|"
          r"\bunfamiliar with\b|\blittle (?:or no )?(?:\w+ )?" + _EXPERIENCE_NOUN + r"\b"),
    _rule("a negated existence or identity", "denial",
          r"\b(?:there|it|that|this|they|which|ours|mine)\s+(?:is|are|was|were|'s|'re)\s*"
          r"(?:n't|not)\b|\b(?:isn't|aren't|wasn't|weren't)\s+(?:a|an|the|any|one|single|"
          r"even)\b|\bnot (?:a single|one|even one)\b"),
    _rule("a negated experience predicate", "denial",
          r"^(?:not|never)\b|\b(?:i|i've|i'd|i'm|we|we've|we're|my|our)\b[^.;:,]{0,30}?"
          r"(?:\bnever\b|\bnot\b|n't\b)|(?:\bnever|\bnot|n't)\s+(?:\w+\s+){0,2}?"
          + _EXPERIENCE_VERB + r"\b|\bnot (?:something|formally|currently|fully|personally|"
          r"directly|myself|me)\b"),
)
"""Checked in this order; the first that fires names the construction."""
_PRONOUN_OBJECT = re.compile(r"(?:\bnever|\bnot|n't)\s+(?:\w+\s+){0,3}?\w+\s+(?:it|them|one|"
                             r"this|that|these|those|any)\b(?!\s+\w*[A-Z0-9])|"
                             r"^(?:no|zero|not much|little)\s+(?:\w+[ -]){0,3}?" + _EXPERIENCE_NOUN
                             + r"\s+(?:with|on|in|of|to|using|doing)\s+(?:it|them|this|that|"
                             r"these|those)\b|"
                             r"\b(?:let|allowed|left) (?:it|them|this|that) (?:to )?(?:lapse|"
                             r"expire|run out)\b|\b(?:it|they|this|that) (?:has |have |had )?"
                             r"(?:lapsed|expired|ran out|run out)\b|\b(?:failed|didn't pass|"
                             r"did not pass) (?:it|them|this|that)\b", re.I)
"""A denial whose object is a pronoun ("but I let it lapse", "I never used it"): it denies
what the clause before it named."""
_ATTEMPT = re.compile(r"\b(?:sat|sit|took|taken|take|attempted|entered|did|wrote|went in for)\b",
                      re.I)
"""An attempt at an exam ("I sat the Level 3 exams in June"): a failure in the next clause of
the sentence ("but did not pass the land law unit") says how it ended."""
_CLAUSE_BREAK = re.compile(
    r"\s*[;()\u2014\u2013]\s*|(?<!\d):(?!\d)\s*|\s+-\s+|\s+\b(?:but|although|though|however|whereas|"
    r"except)\b\s*|(?<!assisted)(?<!helped)(?<!supported)\s+\bwhile\b\s*|"
    r",\s*(?=(?:never|not|no|although|though|yet|who|and (?:I )?(?:never|not|would|hope|"
    r"want|plan|will))\b)|\s+(?=and (?:I )?(?:would|'d|hope|want|plan|intend|am hoping|"
    r"'m hoping)\b)", re.I)
"""Clause boundaries; "assisted while the consultant ran it" stays one clause (exposure only),
"I worked nights for four years and would be glad to go back" is two (the wish is the
second's)."""


@dataclass(frozen=True)
class SetAside:
    """A clause that attests nothing, and why."""

    text: str
    reason: Reason
    construction: str = ""
    """The :data:`CONSTRUCTIONS` entry that fired (or "carried back by 'it'")."""
    denied: str = ""
    """What a negation denies: the clause after "never worked with", "no exposure to", ...
    ("robotic milkers"); empty for other reasons."""


OBJECT_DENIALS = frozenset({"a negated experience predicate", "no or without + experience noun",
                            "a negated existence or identity", "a failed attempt"})
"""The constructions whose words after the match are the thing denied."""


def denied_object(clause: str, found: Construction) -> str:
    """The words a negation denies (after its match), or '' for other constructions."""
    if found.name not in OBJECT_DENIALS:
        return ""
    plain = clause.translate(_APOSTROPHES).strip()
    match = found.pattern.search(plain)
    return plain[match.end():].strip() if match else ""


def construction(clause: str) -> Construction | None:
    """The first construction that keeps ``clause`` from attesting (None: it may attest)."""
    plain = clause.translate(_APOSTROPHES).strip()
    return next((c for c in CONSTRUCTIONS if c.pattern.search(plain)), None)


def clause_reason(clause: str) -> Reason | None:
    """Why a clause cannot attest its terms (None: it can)."""
    found = construction(clause)
    return found.reason if found else None


def _split(sentence: str) -> list[str]:
    return [part.strip(" ,.") for part in _CLAUSE_BREAK.split(sentence)
            if part and part.strip(" ,.")]


def clauses(text: str) -> list[str]:
    """The clauses of ``text``, sentence by sentence."""
    return [c for sentence in sentences(text.translate(_APOSTROPHES)) for c in _split(sentence)]


def affirmative(text: str) -> tuple[list[str], list[SetAside]]:
    """The clauses of ``text`` that may attest terms, and those set aside with their reason."""
    kept: list[str] = []
    dropped: list[SetAside] = []
    for sentence in sentences(text.translate(_APOSTROPHES)):
        verdicts: list[SetAside | None] = []
        for clause in _split(sentence):
            found = construction(clause)
            aside = (SetAside(clause, found.reason, found.name, denied_object(clause, found))
                     if found else None)
            if found and found.reason == "denial" and verdicts and verdicts[-1] is None:
                previous = _split(sentence)[len(verdicts) - 1]
                if _PRONOUN_OBJECT.search(clause):
                    verdicts[-1] = SetAside(previous, "denial", "carried back by a pronoun")
                elif found.name == "a failed attempt" and _ATTEMPT.search(previous):
                    verdicts[-1] = SetAside(previous, "denial", "carried back by a failed attempt")
            verdicts.append(aside)
        for clause, aside in zip(_split(sentence), verdicts, strict=True):
            if aside is None:
                kept.append(clause)
            else:
                dropped.append(aside)
    return kept, dropped
