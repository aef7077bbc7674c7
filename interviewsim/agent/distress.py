"""Distress about this interview in the words candidates use beyond the fixed phrases of
:mod:`interviewsim.agent.signals` ("I'm pure panicking here", "My palms are sweating like
crazy", "I'm starting to spiral a little", "I really don't appreciate being talked to like
that"): a feeling word said now, in the first person or about this interview. A story told in
the past ("I was anxious before my first audit") is an answer, and those sentences never reach
here (the caller reads only sentences without quoted speech, and the past forms are not listed).
"""

from __future__ import annotations

import re

_NOW = r"(?:i'm|i am|i feel|i'm feeling|i am feeling|feeling|i'm getting|i'm starting to feel)"
UPSET_FORMS = re.compile(
    _NOW + r" (?:\w+ ){0,3}?(?:anxious|panick(?:ing|y)|overwhelmed|frazzled|flummoxed|humiliated"
    r"|upset|rattled|shaky|sweating|a nervous wreck|freaking out|out of my depth|not coping"
    r"|struggling to (?:keep|breathe|think|focus)|so bad at this|too anxious|thrown)\b"
    r"|\b(?:this|it)(?:'s| is) (?:making me|getting to me|rattling me)\b"
    r"|\bit's really getting to me\b"
    r"|\bkicking myself\b|\bfreezing up\b|\bnot coping\b|\bpalms are sweating\b"
    r"|\bheart's (?:going|racing|pounding)\b|\b(?:starting to |going to )?spiral\w*\b"
    r"|\bmental block\b|\bforgotten everything\b|\bcan't (?:focus|concentrate|breathe)\b"
    r"|^i can't do this\b|\bwant to cry\b|\bannoyed (?:at|with) myself\b|\bupset with myself\b"
    r"|\bthis is (?:so )?embarrassing\b|\bruining (?:it|this)\b|\bmessing (?:this|it) (?:whole"
    r" thing )?up\b|\bmessing up\b|\b(?:this|it)(?:'s| is) going (?:so |really )?(?:badly|horribly"
    r"|terribly)\b|\bthis is a nightmare\b|\bi can't even\b|\breally thrown\b"
    r"|\bdon't appreciate being\b|\bi'm not fine\b|\bhaving a (?:bit of a )?moment\b"
    r"|\bdeep breath\b|^breathe$|\bit's scary\b|\bwhite noise\b|\bmy mind is (?:just )?blank\b"
    r"|\b(?:i'm|i am) (?:pure |really |so |totally |completely |a bit |kind of )*(?:panicking"
    r"|drowning|sweating|shaking|stuck and (?:upset|stressed))\b|\bnot what i was told\b"
    r"|\bbeing rushed\b|\bthis is a lot\b")
"""A feeling of distress, said now."""


HELP_FORMS = re.compile(
    r"\b(?:would|could|is|does|will|might) (?:a|an|the)? ?[\w-]+(?: [\w-]+)? (?:be the right"
    r"|be involved|work here|be the move|the move|the right (?:tool|structure|approach|way)"
    r"|help here)\b|\b(?:is|was) (?:it|the trick|the answer|the key|this) (?:something )?(?:to do"
    r" with|a [\w-]+ thing|closer to|that the)\b|^(?:oh |so )?is it (?:a |an |the )?[\w-]+"
    r"(?: [\w-]+)?(?: maybe)?$|\bis that it$|\bis that (?:the kind of|how you'd)\b"
    r"|\bam i (?:on|along) the right (?:lines|track)\b|\bam i (?:overthinking|overcomplicating)\b"
    r"|\bbarking up the wrong tree\b|\bring any bells\b|\bcorrect instinct\b"
    r"|\bis (?:my|the) (?:formula|approach|instinct|logic) (?:right|going to|correct)\b"
    r"|\bis there a (?:formula|simpler way|trick|standard)\b|\bthrow me a bone\b"
    r"|\b(?:a bit of a |a )steer\b|\bhelp me out\b|\bget me started\b|\bstart me off\b"
    r"|\bkick this (?:one )?off\b|\bwhere (?:would|do|should) (?:you|i) (?:start|take it|begin)\b"
    r"|\bwhat(?:'s| is| would be) the (?:first thing|key idea|trick)\b|\bwhat would you (?:expect"
    r"|check|measure|do first)\b|\b(?:can|could) you (?:just )?tell me (?:what|which|where"
    r"|whether|if (?:my|i'm))\b|\bwhich would you (?:prefer|do|pick)\b|\bdo you think i should\b"
    r"|\b(?:can|could) you remind me\b|\btip of my tongue\b|\bi'd love a hint\b"
    r"|\bgive me an example input\b|\bi'm at a loss\b|\bdunno which\b|\bif you were me\b"
    r"|\bwhat's the name of the thing\b|\bam i missing something\b|\bthat i'm missing\b"
    r"|\bwhat you(?:'re| are| were)? (?:fishing|pointing|getting|driving|angling) (?:for"
    r"|at)\b|\bwhat you'd (?:normally |usually )?(?:expect|want|like) me to\b"
    r"|\bwhich (?:way|one) you'd want\b|\bwhat tone you want\b|\bis that (?:the"
    r" bit|the sort of thing|the kind of thing|what) you mean\b|\b(?:am|would) i (?:be )?right"
    r" (?:that|to|in)\b|\bon the right (?:road|lines|path)\b|\bgive me a (?:clue|hint|pointer"
    r"|steer)\b|\bwalk me through how you'd\b|\bwhere would an? [\w-]+(?: [\w-]+)? (?:begin"
    r"|start)\b|\bis the (?:right )?answer\b|\bwhere's a sensible place to start\b"
    r"|\bsanity-check\b|\bi'm fishing\b|\bthe kind of thing you"
    r" mean\b|\banswer you're (?:expecting|after|marking for)\b|\bis that the sort of thing\b"
    r"|\bone word to go on\b|\bor is it just\b|\bwhere would (?:the|it|that) (?:usually )?"
    r"(?:\w+ )?come from\b|\bvalue a pointer\b|\bshow me how you'd start\b"
    r"|\b(?:can|could|may) i (?:get|have)"
    r" a (?:clue|hint|pointer|nudge)\b|\bhow would you say it\b|\bin the right (?:area|postcode"
    r"|ballpark|direction)\b|\ba typical [\w -]{1,20} i should be\b|\bwould most [\w-]+ \w+\b"
    r"|\bgive me a steer\b|\btell me if that's a dead end\b|\bi'm guessing\b|\byou'd expect me"
    r" to mention\b|\bwould it be cheating to ask\b")
"""A request for direction on the problem in hand, put as a question about the approach."""
