"""Which evidence sentences may attest anything: denials and wishes are set aside.

"I have never used Kubernetes" shares the word Kubernetes with a requirement for it, and "I
would like to learn Yocto" shares Yocto; term overlap reads both as proof. A sentence is cut into
clauses (at ``;`` ``:`` dashes, brackets, contrast words such as "but", and a comma before a
negation), and a clause that negates ("never", "not", "no experience with", "haven't", "yet to")
or states a wish or a plan ("would like to learn", "keen to", "planning to", "hope to",
"interested in") attests nothing. What is set aside is kept, with its reason, so a verdict can
say which sentence did not count and why.
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
                    r"handled|supervised|driven|sold|closed|trained|qualified|certified)")
_NEGATION = re.compile(
    r"(?:^(?:no|not|never|none|nothing)\b"
    r"|\b(?:i|i've|i'd|i'm|we|we've|we're)\b[^.;:,]{0,30}?(?:\bnever\b|\bnot\b|n't\b)"
    r"|(?:\bnever|\bnot|n't)\s+(?:\w+\s+){0,2}?" + _EXPERIENCE_VERB + r"\b"
    r"|\bno (?:\w+[ -]){0,3}?(?:experience|exposure|background|knowledge|familiarity|training|"
    r"qualification|certificate|certification|licen[cs]e|degree|use)\b"
    r"|\b(?:yet to|not yet|lack(?:s|ing)?|unfamiliar with|little (?:or no )?(?:experience|"
    r"exposure))\b"
    r"|\bno\b[^.;:]*\byet\b"
    r"|\b(?:only|just) (?:read|heard|watched|seen|observed|shadowed)\b"
    r"|\bnot (?:had|something|formally|currently|certified|licen[cs]ed|registered|qualified|"
    r"trained|fully)\b"
    r"|\b(?:have|has|had|hold|held) no\b|\bnone of\b|\b(?:expired|lapsed|revoked|suspended)\b"
    r"|\bwithout (?:any )?(?:formal |hands-on |direct |real |professional )?(?:experience|"
    r"training|certification|qualification)\b"
    r"|\b(?:colleagues?|manager|supervisor|boss|contractors?|vendors?|consultants?|"
    r"predecessor|(?:other|another|platform|partner) team|someone else|others)\s+(?:\w+\s+){0,2}?"
    r"(?:did|does|handled|handles|ran|runs|owned|owns|managed|manages|looked after|wrote|"
    r"built|led|leads|set up|configured|kept|took care)\b"
    r"|\b(?:looked after|taken care of|done|handled|run|owned|managed|covered|written|built|"
    r"configured|kept|booked|led|made|signed) by (?!me\b|myself\b))", re.I)
"""A clause denying the candidate's experience: "I have never used", "not yet", "no experience
with", "haven't", a lapsed credential, or work someone else did ("the platform team looked
after it", "booked by the day office"); a negation about something else ("retries never
double-charge") is not."""
_WISH = re.compile(
    r"\b(?:would (?:like|love)|'d (?:like|love)|keen to|eager to|planning to|plan to|plans to|"
    r"hope to|hoping to|interested in|want to|wants to|wish to|aspire|intend to|aim to|"
    r"looking forward to|goal is to|next step is|on my list|(?:am|'m|currently|now|just) "
    r"(?:learning|studying|starting to learn|picking up)|started learning|would welcome|"
    r"(?:will|going to) (?:learn|study|pick up|get|start|take|enrol|enroll)|looking to|"
    r"(?:am|'m|currently) (?:enrolled|booked onto|signed up|registered for|waiting)|"
    r"applied (?:for|to)|one day|some ?day|in the future|would be keen|next (?:year|spring|"
    r"summer|autumn|fall|winter|month|term)|(?:happy|willing|open|ready|quick) to learn|"
    r"open to learning|(?:can|could) learn|learn quickly|working towards?|studying for|"
    r"preparing for|sitting (?:the|my)|due to (?:finish|complete|start|sit|qualify)|pending|"
    r"in progress|considering|thinking (?:about|of)|exploring|would (?:enjoy|relish)|hopeful|"
    r"aspiring|on my radar|(?:have|'ve) (?:signed up|registered|enrolled|applied)|am due|"
    r"expect to (?:finish|complete|qualify|pass|start))\b", re.I)
_CLAUSE_BREAK = re.compile(
    r"\s*[;:()\u2014\u2013]\s*|\s+-\s+|\s+\b(?:but|although|though|however|whereas|while|"
    r"except)\b\s*|,\s*(?=(?:never|not|no|although|though|but|yet|and (?:I )?(?:never|not|"
    r"would|hope|want|plan))\b)", re.I)


@dataclass(frozen=True)
class SetAside:
    """A clause that attests nothing, and why."""

    text: str
    reason: Reason


def clause_reason(clause: str) -> Reason | None:
    """Why a clause cannot attest its terms (None: it can)."""
    plain = clause.translate(_APOSTROPHES).strip()
    if _WISH.search(plain):
        return "wish"
    if _NEGATION.search(plain):
        return "denial"
    return None


def clauses(text: str) -> list[str]:
    """The clauses of ``text``, sentence by sentence."""
    found: list[str] = []
    for sentence in sentences(text.translate(_APOSTROPHES)):
        found += [part.strip(" ,.") for part in _CLAUSE_BREAK.split(sentence)
                  if part and part.strip(" ,.")]
    return found


def affirmative(text: str) -> tuple[list[str], list[SetAside]]:
    """The clauses of ``text`` that may attest terms, and those set aside with their reason."""
    kept: list[str] = []
    dropped: list[SetAside] = []
    for clause in clauses(text):
        reason = clause_reason(clause)
        if reason is None:
            kept.append(clause)
        else:
            dropped.append(SetAside(clause, reason))
    return kept, dropped
