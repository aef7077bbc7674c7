"""A candidate's own idea put to the interviewer for confirmation: a hint request in disguise.

Asking for help is rarely "can I get a hint?". More often the candidate offers a guess or a
choice and asks the interviewer to pick ("Is that the idea?", "Token bucket, yeah?", "DFS or
BFS, which do you prefer I use?", "Would a set be enough?", "Start me off?"): an answer would
hand them the approach. These forms count only in a question the reply does not go on to
answer itself (:func:`interviewsim.agent.signals.detect_signals` checks what follows).
"""

from __future__ import annotations

import re

CONFIRMATION = re.compile(
    r"\b(?:is|was) (?:that|this|it) (?:\w+ )?(?:the|what|where) ?(?:right |correct )?(?:idea"
    r"|direction|kind of order|approach|trick|way to go|one you|thing you"
    r"|you(?:'re| are)? (?:after|going|looking|getting|expecting|thinking|want|wanted|had|have))"
    r"|\byou(?:'re| are| were|'d)? (?:after|getting at|going with this|had in mind|have in mind"
    r"|thinking of|expecting me|hoping i'd|want me to (?:use|go|cite|focus|assume|lead))\b"
    r"|(?:^|, )(?:right|yeah|yes|presumably|isn't it|won't it|will it|that cool|correct)$"
    r"|\b(?:little|a little|some|a bit of) help\b|\bstart me off\b|\bnudg\w* me\b"
    r"|\ba (?:small |little |quick )?(?:steer|pointer|nudge)\b|\b(?:the )?(?:first|next) step\b"
    r"|\b(?:could|can|would) you (?:\w+ )?confirm|\bmind confirming\b"
    r"|\bwhat's the (?:trick|move|catch)\b|\bam i right (?:in thinking|direction)"
    r"|\bwhich (?:\w+ )?(?:do|would|should) you (?:\w+ )?(?:prefer|want|expect|go|do|use|pick"
    r"|choose)|\bwhich (?:one )?(?:you|are you) (?:want|prefer|thinking)|\bwhich one (?:is"
    r" (?:right|correct)|would you)|\bwould you (?:start|check|look|go|comp)\b"
    r"|\bshould (?:i|it) (?:be (?:worrying|using)|assume|reach)\b|\bdo i (?:start|give)\b"
    r"|\bwould i (?:\w+ )?(?:give|offer)\b|\bwould (?:a|an|the) [\w-]+ (?:\w+ )?(?:work|be"
    r" enough|be better|be involved|be appropriate|be overkill)|\bor (?:is|am) (?:that|there|i)"
    r" (?:\w+ )?(?:overkill|way off|out of scope|something (?:simpler|better|else)|a better"
    r"|overthinking|too elaborate)|\bwhere you(?:'re| are) going\b|\bgonna make me guess\b"
    r"|\bwhich is the one\b|\bwhich method is\b|\bcan you show\b|\bis there (?:a )?better\b")
"""The forms of a guess or choice put for the interviewer to confirm or make."""
