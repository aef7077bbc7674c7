"""Hints in the ways interviewers actually slip them, beyond "try using" and "have you
considered".

A hint hands over part of the solution: a technique offered as a question ("Might a two-pointer
approach simplify matters?", "Could a trie help with the prefix bit?"), the crux stated ("The
key insight is...", "The trick most people miss is..."), a step given away ("I'll give you the
first bit"), what most people would do ("A lot of people reach for a min heap here"), or a
nudge announced as one ("Little nudge:", "Hot tip:", "just throwing that out there"). A plain
question about the candidate's work ("What would you change?") proposes nothing.
"""

from __future__ import annotations

import re

_TOOL = r"(?!(?:it|that|this|you|i|we|they|he|she)\b)(?:a|an|the)? ?[\w-]+(?: [\w-]+){0,2}"
HINT_FORMS = re.compile(
    rf"\b(?:might|could|would|mightn't|wouldn't|can't|couldn't) {_TOOL} (?:perhaps |maybe"
    r" |really )?(?:help(?! you decide)|work|simplify|give you|make (?:this|it|that)"
    r"|be (?:of (?:some )?help"
    r"|useful|applicable|handy|sensible|the natural fit|easier))\b"
    rf"|\b(?:a|an|the) [\w-]+(?: [\w-]+){{0,2}} (?:might|would|could) (?:\w+ )?(?:be useful"
    r"|be handy|make (?:the|this|it)|help|be the (?:move|way))\b"
    r"|\bthe (?:key|real|main) (?:insight|trick|point|thing)(?: here)?(?:'s| is)\b"
    r"|\bthe trick(?: here)?(?:'s| is| most people miss)\b|\bthe missing piece\b"
    r"|\b(?:the )?first half (?:of the answer )?is\b|\bthe answer(?:'s| is| involves)"
    r" (?:kinda |kind of |really )?(?:in|a|an|the|that)\b|\bhere's (?:half|a worked start"
    r"|the first)\b|\b(?:i'll|lemme|let me|i will) (?:just )?(?:give|tell) you the first"
    r" (?:bit|step|part)\b|\bi'll nudge you\b|\b(?:little|one little|small|gentle) nudge\b"
    r"|\bhot tip\b|\bbit of a clue\b|\bjust a thought\b|\bthrowing that out there\b"
    r"|\bgently,? (?:i'd )?(?:point out|note)\b|\b(?:most|a lot of|many) people(?:'d| would)?"
    r" (?:reach for|use|compare|start with|go for)\b|\bpeople in your position usually (?:ask"
    r"|check|start) the\b"
    r"|\bone often finds\b|\bif i were (?:you|in your shoes)\b|\byou might find (?:a|an|the)"
    r" [\w-]+(?: [\w-]+)? (?:rather |quite |really )?(?:useful|helpful|handy)\b"
    r"|\byou may wish to recall\b|\b(?:it )?(?:may|might) be worth (?:your while|considering)\b"
    r"|^think (?:about it (?:in terms|like)|bigger|of it as)\b|\bhave you accounted for\b"
    r"|\bdid you consider\b|\bisn't there a (?:standard|well-known|classic|simpler)\b"
    r"|\bever heard of\b|\bcould be handy\b|\bis there (?:perhaps )?a way (?:to do it|you could)"
    r"|\bsupposing you\b|\bwhat would happen if you\b|\bwhat if (?:what if )?you\b"
    r"|\bwhat's the complexity if you\b|\bwhat (?:data structure|structure) gives you\b"
    r"|\brather than \w+ing (?:every|each|all)\b|\bperhaps revisit\b|\b(?:and )?do remember\b"
    r"|^remember\b|\btry (?:starting|drawing|using|looking|sorting|thinking)\b"
    r"|\bpretty sure you want\b|, (?:maybe|perhaps)$|^what about (?:um )?(?:a|an|using"
    r"|caching|sorting|dynamic|memoi\w+|the case)\b|\bwhat about (?:using|caching|sorting)\b"
    r"|\bthe first step,? i'd suggest\b|\bi'd be inclined to begin\b"
    r"|\bthe key(?: here| insight| thing)?(?:'s| is)\b|\b(?:it's|this is|that's) (?:really |just "
    r"|basically |kind of |sort of )?(?:a|an) (?:classic |standard |simple )?(?!(?:hard|tricky"
    r"|tough"
    r"|difficult|big|real|common|open|interesting|fair|good|great|nice)\b)(?:[\w-]+ ){1,3}"
    r"(?:problem|shape|pattern)\b|^(?:\w+ ){0,2}problem,? (?:basically|really)\b"
    r"|\bclassic [\w-]+ (?:[\w-]+ )?(?:thing|shape|pattern|problem)\b"
    r"|\b(?:throw|give) you a bone\b|\bto nudge you\b|\ba (?:little|bit of) help\b"
    r"|\bpoint you (?:toward|towards|to|at)\b|\bnot to put words in your mouth\b"
    r"|\bi won't give it away\b|\bhere's a thought\b|\bone thing(?: that might (?:help|unblock"
    r" you))?(?: —|:| -)|\bone thing that might (?:help|unblock)\b|\bone option would be\b"
    r"|\byou'll see something\b|\bdoes that help\b"
    r"|\b(?:a lot of|most|many) (?:good |experienced |other )?(?:[\w-]+ )?(?:would|candidates"
    r" forget|people forget|went with)\b|\bthe others we've talked to\b"
    r"|^(?:have a )?look (?:again|closer|at line|at the)\b|^(?:careful|watch out|notice|recall"
    r"|note)\b|^(?:i'd )?double-check\b|\bi'd (?:think about|look there|double-check"
    r"|check)\b|\byou(?:'re| are) missing (?:the|a|an) (?!point\b)|\byou haven't accounted for\b"
    r"|\bdon't (?:overlook|overthink)\b|\bthere's a (?:much )?(?:simpler|easier|faster|better)"
    r" way\b|\b(?:maybe|perhaps) (?:think|check|ask|add|you check)\b"
    r"|\bmight be easier (?:with|if)\b|\byou could (?:always|speed|bucket|reuse|try)\b"
    r"|\byou can reuse\b|\bif you (?:memoi[sz]e|sort|cache|check|use)\b"
    r"|^try (?:splitting|working|plugging|the|it|a|an)\b"
    r"|\bhow would that change\b|\bi wonder if you've noticed\b|\bthe first half of the answer\b"
    r"|\byour (?:loop|code|function|query|formula)(?:'s| is) (?:off|wrong|missing)\b"
    r"|\bthere's a library function\b|\bthe (?:usual|first) thing to check\b"
    r"|\bwhat about (?:negative|the case|the boundary|when|empty|zero|null)\b"
    r"|\bjust thinking aloud\b"
    r"|\bgets easier once you\b|\b(?:big|little|small) (?:hint|clue)\b|\bthat's all i'll say\b"
    r"|\bkeep that in mind\b|\bif that changes anything\b|\bthat's your way in\b"
    r"|\bwould save you\b|^go back to\b|^glance at\b|\bi'd use [\w-]+ for this\b"
    r"|^make sure you(?:'re| are)? (?:counting|checking|including)\b|\byou might want to check\b"
    r"|\bthere's a standard (?:formula|way|approach|method)\b|\bit's (?:really )?just a [\w-]+"
    r" (?:table|problem|lookup|loop|map|queue|stack)\b")
"""Forms of a hint that name or give away part of the solution."""
