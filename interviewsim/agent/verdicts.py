"""Verdicts on the candidate's answer, from an evaluative lexicon rather than fixed phrases.

Praise and dismissal come in open-ended wording ("That's a smart way to calm down an angry
caller", "That logic falls apart pretty quickly"); what they share is a statement whose
subject is the answer or the candidate (deictic "that", "this", "you", "your answer", at the
start of a clause) and an evaluative word or idiom in it. Questions are left out ("What made
the launch such a success?" evaluates nothing the candidate said), and so are subjects that
are someone else's ("the migration went wrong", "your users said the report was incorrect").
"""

from __future__ import annotations

import re

_SUBJECT = (r"(?:^|[,;:] |\b(?:and|but|so) )(?:(?:honestly|frankly|i'm afraid|i think|i'd say"
            r"|with respect"
            r"|respectfully|unfortunately|i mean|yeah|no|nah|um|uh|mm|hmm|okay|eh|er|erm"
            r"|i'll be honest),? )*(?:that|this|you|your"
            r" (?:answer|approach|logic|reasoning|explanation|instincts?|point|estimate|plan"
            r"|formula|code|design|idea|example|thinking|argument|structure|solution|answers)"
            r"|that (?:answer|approach|logic|reasoning|argument|idea|plan|formula|code"
            r"|estimate|explanation|example|solution))\b")
_POSITIVE = (
    r"(?:clear(?:est)?|smart|strong(?:est)?|excellent|great|good|nice|brilliant|impressive"
    r"|helpful|proper|solid|thorough|insightful|elegant|neat|clever|sharp|thoughtful|lovely"
    r"|superb|perfect|spot on|top[- ]notch|textbook|like a pro|really well|very well|so well"
    r"|nailed|aced|the right (?:instinct|call|idea|answer|approach)|exactly right"
    r"|(?:know|knew) (?:your way|what you're|your stuff)|(?:did|done|handled|explained|answered)"
    r".{0,30}\b(?:well|brilliantly|beautifully|perfectly|like a pro)|understood .{0,30}\bwell"
    r"|well-reasoned|first-class|cracking|very sound|bang on|a model answer|very mature"
    r"|a cut above|very sensible|wonderfully|one of the better|strongest|sound reasoning)\b")
_NEGATIVE = (
    r"(?:wrong|incorrect|naive|a mess|messy|a stretch|mixed up|contradicts|misses the point"
    r"|falls apart|overcomplicat\w*|a red flag|sloppy|vague|shallow|superficial|flawed"
    r"|nonsense|rubbish|way off|off the mark|inaccurate|muddled|garbled|wide of the mark"
    r"|off-?track|a non-starter|a non answer|a (?:common |rookie )?(?:misconception|mistake)"
    r"|an error|backwards|the opposite of|all over the place|not a thing|not how|doesn't stand"
    r"|doesn't (?:quite )?wash|doesn't (?:really )?(?:address|make sense)|isn't (?:right|how"
    r"|correct|accurate)|(?:a|rather|pretty|very) weak|(?:way )?too slow|off base|confused"
    r"|(?:kinda|a bit) off|(?:pretty )?generic|not gonna (?:work|scale)|missed the point"
    r"|hard no|would (?:breach|hurt)|won't fly|get you fired|not (?:true|right|correct|it|quite)"
    r"|doesn't (?:really )?(?:answer|work|add up|follow|hold)|(?:wouldn't|won't) (?:work|compile"
    r"|fly|scale)|hang up on you|reject (?:that|it)|not convinced|makes no sense)\b")
PRAISE_VERDICT = re.compile(
    rf"{_SUBJECT}(?:'s|'re|'ve| is| are| was| were| have| had| did| really| clearly| just"
    rf"| obviously| certainly)?\b(?:(?!\bnot\b|n't\b|\bnever\b|\bnothing\b).){{0,60}}?\b{_POSITIVE}"
    r"|^(?:very good|very nice|super helpful|cracking|sweet|nice catch|tr[eè]s bien|bravo"
    r"|nailed|love the way|good thinking|smart|clever|wow|brilliant)\b"
    r"|^i (?:really )?(?:like|love) (?:that|the way|how) you\b"
    r"|^i couldn't have put it better\b|^now we're talking\b"
    r"|^(?:quite right|jolly good|too right|hats off|(?:yep,? )?spot on|not bad(?: at all)?(?:,|$)"
    r"|very sound|very nicely put|right on the money)\b|\bi can't fault\b|\bi(?:'m| am)"
    r" (?:genuinely |really |very )?impressed\b|\bthe kind of answer we like\b"
    r"|\bi'd call that (?:textbook|excellent|great|spot on)\b")
"""Praise: a positive verdict on the answer or the candidate, or a positive interjection."""
DISMISSIVE_VERDICT = re.compile(
    rf"{_SUBJECT}(?:'s|'re|'ve| is| are| was| were| have| had| would| just| really)?\b"
    rf".{{0,50}}?\b{_NEGATIVE}"
    r"|^(?:wrong|incorrect) \w+$|^(?:a )?bit of a stretch\b|^(?:no,? )+try again\b"
    r"|^(?:no|nope),? (?:no,? )*(?:this|that|it)(?:'s| is) not\b|^i(?:'d| would) reject\b"
    r"|\ba no from me\b|^i don't follow\b|^you(?:'ve| have) (?:mixed|muddled|confused)\b"
    r"|^(?:yeah,? )?(?:no|nah|nope|not really|not it|bzzt|strike one|meh)(?:,? (?:no|nah|nope"
    r"|chief|sorry))*$|^(?:yeah,? )?nah\b|^no,? no,? (?:no,? )?(?:that|this|it|you can't|you never"
    r"|you wouldn't)\b|\bi don't (?:think|believe) that's"
    r" (?:quite |really )?(?:right|correct|what)|\bi'm not (?:sure that (?:holds|'s right)"
    r"|buying)|\bi'm struggling to see the logic\b|\b(?:i'd|i would) (?:disagree|push back)\b"
    r"|^hard disagree\b|\byou(?:'ve)? misread\b|\byou(?:'re| are) (?:kind of )?(?:mixing up"
    r"|conflating)\b|\byou lost me\b|\bi can't accept\b|\bi wouldn't say that's good\b")
"""Dismissal: a negative verdict on the answer or reasoning, or a flat rejection."""


def praise(statements: list[str]) -> str | None:
    return _first(PRAISE_VERDICT, statements)


def dismissal(statements: list[str]) -> str | None:
    return _first(DISMISSIVE_VERDICT, statements)


def _first(pattern: re.Pattern[str], statements: list[str]) -> str | None:
    for text in statements:
        match = pattern.search(text)
        if match:
            return match.group(0).strip(" ,;:")
    return None
