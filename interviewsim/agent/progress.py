"""Questions about the candidate's own performance, in the forms people ask them.

"How am I doing?" is one phrasing of many ("Was that any good?", "Did that land or nah?", "Am I
in the running?", "Did I lose marks for that?", "Scale of one to ten?"). What they share is a
question whose subject is the candidate or their answer ("that", "my example", "the last one",
"I") and whose predicate evaluates it, or a question about how the candidate is being assessed.
A clarification about the task ("Is it okay if I use Python?", "Is that right, the input is
sorted?") evaluates nothing and is left out.
"""

from __future__ import annotations

import re

_SELF = (r"(?:that|this|it|i|my (?:\w+ )?(?:answer|answers|example|explanation|approach"
         r"|role-play|design|last one|estimate|solution)|the (?:last|first|previous|earlier)"
         r" (?:one|answer|bit|part|question|example)|(?:that|this) (?:answer|example|bit"
         r"|one|last bit|explanation))")
_GAP = (r"(?: (?:answer|example|bit|one|really|roughly|actually|even|kind of|kinda|so|still"
        r"|honestly|overall|then|though|earlier|last|all|been|be|have been))*")
_EVALUATIVE = (
    r"(?:any good|good|great|ok|okay|alright|all right|fine|acceptable|sufficient|enough|bad"
    r"|terrible|rubbish|awful|weak|strong|clear|basic|convincing|relevant|up to scratch"
    r"|too (?:\w+)|(?:\w+ )?enough|what you (?:wanted|were after|were looking for|expected"
    r"|needed|need|asked)|the (?:right (?:answer|call|kind|level)|kind|sort|type|kinda|level)"
    r"|a (?:pass|fail|bad|good|strong|weak)|land|landed|make sense|come across|go (?:ok|okay"
    r"|well|alright|all right|badly|bad))")
_FORMS = re.compile(
    rf"\b(?:was|is|were|did|does|would) {_SELF}{_GAP} {_EVALUATIVE}\b"
    r"(?! (?:if|to|for me to|that i|with you if|for time)\b)(?!.* or (?:were|are|would|should"
    r"|is|do) (?:you|that|there)\b)"
    rf"|\b(?:was|were|did) (?:that|it|my answer|i) (?:\w+ )?(?:right|correct|wrong)\b"
    r"(?! (?:to|that|about)\b)"
    r"|\bhow(?:'m| am| are| is| was|'s|'d| did| have| badly did) (?:i|my \w+|the [\w-]+(?: \w+)?"
    r" (?:bit|part|one|section)|that|it)(?: been)? (?:going(?! to)|doing(?! for)|do|tracking|fare"
    r"|faring"
    r"|coming across|getting on|looking|landing|go|went)\b"
    r"|\b(?:am i|i'm|i am) (?:still )?(?:in the running|on track|doing (?:\w+ )?(?:good|well|ok"
    r"|okay|alright|better|worse|badly)|a (?:maybe|yes|no|hire)|being too|too \w+|slow\b"
    r"|coming (?:across|off)|meeting|giving you what|rambling|bombing|pitching)"
    r"|(?<!what )(?<!where )(?<!why )(?<!how )(?<!when )\bdid i (?:\w+ )?(?:answer|explain"
    r"|miss|lose|cover|fare|nail|mess|bomb|blow|get (?:that|it|this|the))\b"
    r"|\b(?:i've|i have|have i) (?:done|shown|said|covered) enough\b|\bhave i\?*$"
    r"|\b(?:any|some|get|give me|share) (?:\w+ )?(?:feedback|notes|red flags)\b"
    r"|\bfeedback (?:on|so far|for me)\b|\b(?:lose|lost|losing) (?:any )?(?:marks|points)\b"
    r"|\bmarked down\b|\bwhat are you (?:grading|scoring|marking|assessing) (?:on|me)\b"
    r"|\bhow are you (?:scoring|grading|marking|rating|assessing) (?:me|this|that|my)\b"
    r"|\bwriting down about me\b|\bscale of (?:one|1) to (?:ten|10)\b|\bpass or fail\b"
    r"|^(?:right or wrong|good enough|was that it)$|\bhow(?:'s| is) my level\b"
    r"|\bwhat (?:did|do) you (?:think|make) of (?:that|my|the answer|it)\b"
    r"|\bgeneral impression\b|\bhow (?:i(?:'m| am) (?:doing|getting on|coming across|going)"
    r"|i did)\b|\bwhether (?:my|that|i(?:'m| am| was| did))\b.{0,40}\b(?:up to scratch|good"
    r"|enough|expectations|marked|acceptable|right|well)\b"
    r"|\b(?:did|has|have|is|was|will) (?:that|it|the last one|my \w+|i) (?:\w+ ){0,2}(?:sink"
    r"|sunk|hurt"
    r"|count(?:ing)? against|cost|costing) me\b|\bcount(?:ing|s)? against me\b"
    r"|\bdo i (?:sound|come across|seem) (?:like|as)\b|\bjunior or (?:a )?senior\b"
    r"|\bhow (?:do|will|would) you (?:score|grade|mark|assess|rate) (?:these|this|the|my|me)\b"
    r"|\bhow much does (?:this|that|the) [\w-]+(?: \w+)? count\b|\b(?:marked|scored|graded) on\b"
    r"|\bwhat scores (?:highest|best|well)\b|\bwhat separates a (?:strong|good)\b"
    r"|\bwhat (?:are you|you're) looking for in (?:these|this|my|the) answers?\b"
    r"|\bwhat's a (?:strong|good) (?:one|answer)\b|\bwhat do i need to (?:get|score|do) to pass\b"
    r"|\bhow many (?:points|marks) do i\b|\bthumbs up or\b|\b(?:good|right|pass|fine good|noted"
    r" good|correct) or (?:bad|wrong|fail|not|fine bad|noted bad)\b|\bor not so much\b"
    r"|\bare (?:these|my) answers (?:any |good|too|ok|okay|enough|what)\b"
    r"|\b(?:am i|i'm) (?:nailing|smashing|acing) it\b|\bwhere (?:am i|do i stand|would i rank)\b"
    r"|\brank against\b|\banswer(?:s|ed)? better than me\b|\bam i behind\b|\bi improve\b"
    r"|\bhow the (?:first|last|earlier) (?:\w+ )?(?:sections?|parts?|rounds?) went\b"
    r"|\bdid (?:they|you|the panel) like my\b|^(?:so )?what did you think$"
    r"|\bdoes that match what you\b|\bthat (?:roughly )?what you were (?:looking for|after)\b"
    r"|\bwould that count as a (?:good|strong)\b|\bsufficient detail\b"
    r"|\bis (?:\w+) good\b(?=.*pass)"
    r"|\bdid i (?:\w+ )?pass (?:that|this|the)\b|\b(?:did|was) it\?*$|\bam i\?*$"
    r"|\bis it bad that i\b"
    r"|\banything i'm missing that you need\b|\bif (?:my|that|i(?:'m| am| was| did))\b"
    r"(?!.*\bon the (?:good|right)\b).{0,40}\b"
    r"(?:good|enough|correct|right|terrible|okay|ok|clear|level)\b"
    r"|\bhow(?:'s| is| has) (?:the|my|this) (?:interview|session|day|assessment|practical"
    r"|presentation) (?:been )?(?:going|gone)\b|\bis my (?:performance|answer|work) (?:\w+ )?"
    r"(?:satisfactory|acceptable|okay|ok|alright|fine)\b|\b(?:did|has|was) (?:the|my) [\w-]+"
    r"(?: [\w-]+)? (?:go|gone|went|been) (?:alright|ok|okay|well|down well|badly)\b|\b(?:am i"
    r"|i'm) in with a (?:shot|chance)\b|\bdid i (?:seem|sound|come across) (?:too )?\w+\b"
    r"|\bwas (?:the|my) (?:length|pace|timing|level|tone|detail) (?:right|okay|ok|alright)\b"
    r"|\b(?:get|earn|lose|cost) me (?:the |any )?(?:marks|points)\b|\bare you (?:scoring"
    r"|marking|grading|rating) (?:these|this|us|them)\b|\bwasn't a disaster\b|\bhas it been"
    r" (?:obvious|noticeable)\b|\bgot the (?:last|first) one wrong\b|\b(?:answer|thing) you're"
    r" (?:marking|scoring) for\b|\binteresting good or\b|\bgo down well\b|\bwas my"
    r" [\w -]{1,30} (?:okay|ok|alright|good enough|any good)\b|\bscoring [\w-]+ more than\b"
    r"|\brank us\b|\bthe (?:score|result|mark)s?\?*$")
"""The forms of a question about the candidate's own performance or its assessment."""


_WONDERS = re.compile(r"\b(?:know|knowing|wonder|wondered|wondering|ask|tell me|hear)"
                      r" (?:how|whether|if)\b")
"""A statement that is an indirect question ("I'd be grateful to know how I'm getting on")."""


def asks_progress(sentence: str, asks: bool) -> bool:
    """Whether ``sentence`` (a core, lower case; ``asks``: it is a question or request) asks
    how the candidate is doing."""
    return (asks or bool(_WONDERS.search(sentence))) and bool(_FORMS.search(sentence))
