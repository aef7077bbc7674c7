"""Restating in the words interviewers use: a summary of the candidate's answer handed back
("So you'd shard by customer ID", "If I'm hearing you right, the client wanted a fixed fee",
"Let me reflect that back: …", "You'd basically rebuild it from scratch, then"). The sentence
keeps its "so" here (the discourse layer strips it as a marker, and "so you …" is the commonest
restatement); "So, you mentioned Kafka. Why?" anchors a question and restates nothing.
"""

from __future__ import annotations

import re

_FILLER = re.compile(r"^(?:(?:ok(?:ay)?|alright|all right|right|mm+|hmm+|yeah|yep|ah|oh|gotcha"
                     r"|got it|i see|hang on|wait|cool)[,.!]?\s+)+")
_LEAD = (r"(?:basically |in effect |essentially |effectively |reading between the lines,? "
         r"|boiled down,? |putting it all together:? |to paraphrase,? |just to check,? "
         r"|if i'm (?:hearing you right|following|understanding),? |if i follow,? "
         r"|what i'm taking away is(?: that)? |it sounds like "
         r"|the long and short of it is(?: that)? )")
RESTATE_FORMS = re.compile(
    r"^so,? " + _LEAD + r"*(?:you(?:'d| would| were| did| didn't| used"
    r"| went| chose| picked| caught| closed| split| rewrote| stepped| started)?(?![\w'’])"
    r"|your (?:plan|take"
    r"|approach|answer|view|point) (?:would be|was|is to)|the (?!(?:next|way|role|scenario|first"
    r"|last"
    r"|teaching|question|section|part)\b)(?:[\w-]+ ){1,3}(?:was|were|went)|it was"
    r"|what you (?:did|mean|did was)|(?:in effect|essentially|basically),? you)\b"
    r"(?! (?:mentioned|said|think|want|need|know|have any|like|prefer to|mean to|ever)\b)"
    r"|^(?:if i'm (?:hearing you right|following)|if i (?:follow|get you|'ve got it)"
    r"|let me (?:see if i (?:have|'ve got|'ve grasped) (?:this|it)|reflect (?:that|it) back"
    r"|paraphrase|restate that|just repeat that back|repeat that back)|to (?:sum up|paraphrase"
    r"|put it another way|be clear, you said)|sounds like what you're (?:telling|saying)"
    r"|what i (?:got|took|take) (?:from|away from) that|am i (?:correct|right) in understanding"
    r"|summing up|putting it all together|the gist (?:being|is)|the long and short of it"
    r"|boiled down|reading between the lines|your (?:answer|take|plan|approach)(?:, as i"
    r" understand it,|, then,) is|ok so you are telling|you(?:'re| are) telling me)\b"
    r"|\b(?:would that be|is that) a fair (?:summary|description)\b|^that's your approach\b"
    r"|\bthat's the (?:plan|order you)\b|\bas i understand it\b|\bas you see it\b"
    r"|^you(?:'d| would)? (?:basically |just |essentially )?[\w-]+ .*, then$"
    r"|^you(?:'d| would) [\w-]+ .*, (?:got it|understood|okay|fine)\b"
    r"|\bhave i got that(?: right)?$|^that's (?:your|the) (?:[\w-]+ )?(?:plan|approach|order"
    r"|answer)$"
    r"|^(?:okay,? |right,? )?the short version\b|^(?:so,? )?for you,? (?:it all comes down to"
    r"|the key"
    r" is|it's)\b|^what you(?:'re| are) describing is\b|^am i right that you\b"
    r"|^your (?:approach|plan|answer) (?:would be|boils down to)\b|\bboils down to\b"
    r"|^what you mean is\b|^that's what you'd do$|^right,? you'd\b")
"""Forms of a restatement, matched on a sentence with its fillers stripped but its "so" kept."""


def restatement(raw_sentences: list[str]) -> str | None:
    """The first restating words among ``raw_sentences`` (as said), or None."""
    for raw in raw_sentences:
        text = _FILLER.sub("", raw.strip().lower()).rstrip(" .!?")
        found = RESTATE_FORMS.search(text)
        if found:
            return found.group(0).strip(" ,;:") or text[:40]
    return None
