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
    r"|fly|scale)|hang up on you|reject (?:that|it)|not convinced|makes no sense"
    r"|untrue|poor(?:ly)?|disappointing|surface-level|amateur\w*|(?:pretty |very |a bit "
    r"|too )junior"
    r"|word salad|clich[eé]|cop-out|wishful thinking|circular|off-?topic|off by|(?:would|will)"
    r" crash|a disaster|unacceptable|not (?:a |an |the |really )?(?:valid|acceptable|good enough"
    r"|great|good|ideal|the point|what i (?:asked|meant|was after)|the answer|going to work"
    r"|(?:a )?(?:root cause|strategy|plan|solution)|even close|it at all|what we're looking for)"
    r"|nowhere near|lazy|unconvincing|careless|reckless|unsafe|worrying|alarming|sub-?par"
    r"|mediocre|underwhelming|so-so|nonsensical|light on|doesn't (?:quite )?(?:get there|cut it)"
    r"|out of your depth|misunderstood|misheard|(?:don't|didn't) (?:think you )?underst(?:an|oo)d"
    r"|too hard for you|(?:clearly )?never worked|a (?:lot|lot of words) for not much"
    r"|isn't a (?:great|good) sign|a textbook example of what not to do|skipped the most important"
    r"|(?:can't|cannot) just)\b")
LOGISTICS = (r"(?:let(?:'s| us) (?:get started|begin|start|kick off|get going)|so (?:we|you"
             r"|that's the)|the [\w-]+(?: [\w-]+)?(?:'s| is| are)|we're|we can|shall we)\b")
"""What follows a praise word that opens logistics, not a verdict ("Great, let's get started",
"Brilliant, the projector's working")."""
PRAISE_VERDICT = re.compile(
    rf"{_SUBJECT}(?:'s|'re|'ve| is| are| was| were| have| had| did| really| clearly| just"
    rf"| obviously| certainly)?\b(?:(?!\bnot\b|n't\b|\bnever\b|\bnothing\b).){{0,60}}?\b{_POSITIVE}"
    r"|^(?:very good|very nice|super helpful|cracking|sweet|nice catch|tr[eè]s bien|bravo"
    rf"|nailed|love the way|good thinking|smart|clever|wow|brilliant)\b(?![,.!]*\s*{LOGISTICS})"
    r"|^i (?:really )?(?:like|love) (?:that|the way|how) you\b"
    r"|^i couldn't have put it better\b|^now we're talking\b"
    r"|^(?:quite right|jolly good|too right|hats off|(?:yep,? )?spot on|not bad(?: at all)?(?:,|$)"
    r"|very sound|very nicely put|right on the money)\b|\bi can't fault\b|\bi(?:'m| am)"
    r" (?:genuinely |really |very )?impressed\b|\bthe kind of answer we like\b"
    r"|\bi'd call that (?:textbook|excellent|great|spot on)\b"
    r"|^(?:yes,? |yeah,? |mm,? |mmm,? |ooh,? |hah?,? )*(?:exactly|precisely|absolutely right|bingo"
    r"|beautiful|clean|solid|wicked|perfect|flawless|chef's kiss|nice one|good shout|good call"
    r"|nice call|dead-on|100%|no notes|smashed it|lovely|superb|excellent|fantastic|outstanding"
    r"|terrific|wonderful|great stuff|good stuff|on the money|(?:very |super |really )?(?:clear"
    r"|clean|slick|neat|sharp|good)|good,? good|yep,? (?:yep,? )?you got it|ooh,? i like that"
    r"|(?:really |very |super |pretty )?(?:sharp|top-notch|slick|dead-on|flawless|thoughtful"
    r"|impressive|excellent|clean|clever|strong|great|superb|brilliant) (?:\w+ ){0,2}?(?:work"
    r"|reasoning|answer|answers|thinking|explanation|call|catch|diagnosis|fix|point|shout|job"
    r"|interview|how|the way))(?:$|[,.!;]| (?:right|it|yeah|that|there|so far|really|honestly|on"
    r"|about|with|by"
    r" the way)\b)"
    r"|\byou(?:'re| are) (?:clearly |obviously |such )?a natural\b|\byou made (?:that|it) look"
    r" easy\b|\byou (?:clearly |obviously |really )(?:know|care|thought|understand|get)\b"
    r"|\byou(?:'ve| have) (?:clearly|obviously) (?:got|thought|done)\b|\bi (?:really )?like"
    r" (?:that|where|how|the way)\b|\b(?:the|one of the) (?:best|clearest|clearer|strongest)"
    r" (?:answers?|explanations?)\b|\btop(?:-shelf| two)\b|\bten out of ten\b"
    r"|\bsenior-level answer\b"
    r"|\bhire-me\b|\b(?:better|heaps better) than (?:mine|most)\b|\bticks the\b"
    r"|\bcan't fault\b|\bcouldn't have (?:put|said) it better\b|\bwouldn't change a word\b"
    r"|\bthe answer i'd give\b|\bthe bit most people miss\b|\bstepped right around\b"
    r"|\bgoing (?:really )?(?:great|well)\b|\bsmashing it\b|\bgood on ya\b"
    r"|\bwork(?:s|ed)? beautifully\b|\bwould be a breeze\b|\ba ripper\b")
"""Praise: a positive verdict on the answer or the candidate, or a positive interjection."""
PRAISE_IDIOMS = re.compile(
    r"\bif everyone (?:explained|answered|did) (?:it|that) like that\b|\bsteal that (?:phrasing"
    r"|line"
    r"|idea)\b|\bwhat separates a [\w-]+ from a\b|\bbetter than i did\b|\bmade my job easy\b"
    r"|\bmaking this (?:very |really )?easy for me\b|\bhow rarely i hear\b|\bgold star\b"
    r"|\b(?:really |very )?mature answer\b|\bcouldn't fault\b|^dead right\b"
    r"|\bsensible,? that's what i'd do\b|\bwhat a senior would say\b|\bi'd have you start\b"
    r"|\bgiven me everything i need\b|\bhow many people miss that\.? you didn't\b"
    r"|^(?:yep,? |yes,? )?that's it,? exactly\b|\bthat's the whole answer\b"
    r"|^(?:good|great|sound|sharp|nice) instincts?\b|\b(?:very |really )?nicely (?:reasoned"
    r"|argued|explained|done)\b|^correct(?:amundo|o)?[.!]*$|^(?:that's|that is) correct[.!]*$"
    r"|\byou(?:'re| are) (?:clearly |easily )?(?:the|one of the) (?:most|best|strongest)\b"
    r"|\byou(?:'re| are) (?:already )?thinking like an? [\w-]+\b|\byou'd fit right in\b"
    r"|\bi'd trust you\b|\byou(?:'re| are) overqualified\b|\bbetter than (?:what )?(?:our"
    r"|most|anyone)\b|\bnot many people (?:get|got|spot|see|think|manage)\b|\bnobody else"
    r" (?:has|had) (?:mentioned|spotted|got|said|thought)\b|\bfirst person (?:today |all day )?"
    r"(?:to|who)\b|\bcome and teach\b|\bso glowing\b|\bhit every point\b"
    r"|\btop of the (?:class|list|pile)\b|\bmore experience than anyone\b"
    r"|\bthat's an? (?:five|ten|nine|eight|[5-9]|10),? easily\b"
    r"|\b(?:absolutely|totally|completely|really) nailed\b|\bnailed (?:that|it)\b"
    r"|\bthe (?:cleanest|clearest|best|strongest|most \w+) (?:[\w-]+ ){0,4}i've (?:heard|seen"
    r"|had)\b|\bone of the best i've heard\b|\bthe kind of answer (?:our|my) (?:senior|best"
    r"|top)\b|^look at you\b|\bkudos\b|\bi hadn't thought of\b|\byou've been (?:terrific"
    r"|great|brilliant|excellent|fantastic|amazing|superb)\b|\byou'd be (?:amazing|brilliant"
    r"|fantastic|an asset|a real asset)\b|^i (?:really )?like you\b|\bi was hoping someone"
    r" would say that\b|^(?:beautifully|wonderfully|brilliantly|nicely|perfectly) put\b"
    r"|^smashing\b|\bsay (?:that|this) was (?:brilliant|great|excellent|superb)\b"
    r"|\b(?:precisely|exactly) the (?:[\w-]+ )?i had in mind\b|\bmy pick so far\b"
    r"|\bmiles ahead\b|\byour [\w -]{1,30} (?:is|was) (?:right|correct|spot on)\b"
    r"|\bseen enough to know you're\b|\bdon't see how they won't\b")
"""Praise in idioms that carry no evaluative word ("You've made my job easy", "Gold star")."""
SARCASM_FORMS = (r"^(?:brilliant|great|sweet|lovely|perfect|wonderful|fantastic|excellent"
                 r"|super)[,.!]* so (?:you'd|we'd|you|we) (?:just|rather|simply)\b"
                 r"|^(?:so )?you'd (?:rather|just)\b.*\b(?:great|brilliant|lovely|wonderful|perfect"
                 r"|super)[.!]*$|\? wow[.!]*$")
"""Praise words said in sarcasm ("Brilliant, so we'd just ignore the fire regs then"): dismissal,
and never praise."""
_SARCASM = re.compile(SARCASM_FORMS)
DISMISSIVE_IDIOMS = re.compile(
    r"\b(?:did|do) you (?:actually|even|really) (?:read|know|understand|prepare|listen)\b"
    r"|\bsurely you(?:'ve| have)? (?:heard|know|seen)\b|\byou do realise\b"
    r"|\byou(?:'re| are) (?:really |just )?not getting (?:this|it)\b|\btell me you're joking\b"
    r"|\bis this really the level\b|\bare we still on the same question\b|\bwhy would you ever\b"
    r"|\bwho taught you that\b|\byou(?:'re| are) (?:just )?guessing\b|\bmy (?:nephew|niece|kid"
    r"|son|daughter|gran|grandmother|mum|dad) could\b|\bfirst-week stuff\b|\bthis is basic\b"
    r"|\bfirst-year (?:apprentice|student) (?:would|could|knows|should)\b|\bexpecting (?:a lot "
    r"|much )?more\b"
    r"|\bi was hoping for (?:something )?(?:a bit |a lot )?(?:less|more|better)\b"
    r"|\bi(?:'m| am) (?:a bit |quite |really )?disappointed\b|\bpainful to listen to\b"
    r"|\bsounds made up\b|\bbeginner's mistake\b|\ba (?:bit of a )?silly thing\b"
    r"|\bgive (?:that|you) a zero\b|\bnever (?:actually )?set foot\b"
    r"|\bone way to lose a\b|\bpretend i didn't hear\b|\bnot waste time on\b"
    r"|\bget someone killed\b|\bbold choice\b|\bi'll just put 'no idea'"
    r"|\b(?:try to|please) keep up\b|\bget to the point\b|\bi asked (?:you )?a (?:simple"
    r"|straightforward|basic) question\b|\blet's not waste (?:any more |more )?time\b"
    r"|\b(?:i'm going to|let me|i'll) stop you (?:right )?there\b|\bnone of (?:that|this) is"
    r" relevant\b|\bnot what i'd expect from\b|\bis that (?:honestly|really|seriously"
    r"|genuinely) (?:your|the) best\b|\byour (?:cv|resume|application) (?:promised|suggested"
    r"|claimed)\b|\bnot sure why you applied\b|\bdumb (?:it|this) down\b|\bi'll be generous\b"
    r"|\b(?:gcse|school|student|entry|first-year|beginner|kindergarten|primary)-level answer\b"
    r"|\b(?:nobody|no one|no-one) in (?:their right mind|[\w-]+(?: [\w-]+)?) would\b"
    r"|\byou(?:'re| are|'ve got to be) kidding\b|^(?:oh,? )?seriously\?|^\*?sigh\*?\b|^ugh\b"
    r"|^okaa+y\b|^oh,? sure\b|\bthat fixes everything\b|^great,? another\b"
    r"|\byou clearly (?:haven't|have not|don't|didn't)\b|\bi don't think you (?:really "
    r"|actually |fully )?(?:understand|know|get)\b|\b(?:that|this|your) answer (?:worries"
    r"|concerns|bothers) me\b|\bpainful to watch\b|\bround in circles\b|\byou'd last"
    r" (?:about )?(?:a|one) (?:day|week|shift)\b|\ba terrible idea\b|\bthat's what people say"
    r" when\b|\bcome on,? (?:you (?:must|should|have to) know|it's)\b|\bplease don't tell me\b"
    r"|\b(?:pretty )?middling\b"
    r"|\bwhere did you get that idea\b|\blet me guess,? you\b|\bthat's cute,? but\b"
    r"|\bworse than the last\b|\bdidn't understand a word\b|\bdon't think you understood\b"
    r"|\bgets? (?:firms|people|you|us) (?:struck off|sued|sacked|fired)\b|\bno,? silly\b"
    r"|\bif it were (?:19|20)\d\d\b|\bnot even in the ballpark\b|\bnot (?:really )?listening"
    r" to\b|\bbit embarrassing\b|\bisn't going anywhere\b|\bvery basic only\b|\bget a"
    r" (?:patient|child|resident|someone) (?:killed|hurt)\b|^sure,? if you want\b|\byou can do"
    r" better than that\b|\bapplied for the right job\b|\bsomething a bit more\b"
    r"|\bthink before you speak\b|\btechnically an answer\b|\byou do know what\b"
    r"|\bthe weakest part\b|\byou're dithering\b|\blosing patience\b|\bplease don't say\b"
    r"|\bthat was thin\b|\b(?:please )?tell me you wouldn't\b|" + SARCASM_FORMS)
"""Dismissal by sarcasm, a rhetorical challenge or a belittling comparison ("Surely you've
heard of GDPR?", "My nephew could tell you that", "Did you actually read the job description?")."""
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
    r"|^hard disagree\b|\byou(?:'ve)? misread\b"
    r"|^(?:sorry,? |eh,? |ehh,? |ugh,? |yikes,? |sigh,? )?(?:weak|poor|disappointing|not great"
    r"|not good(?: enough)?|unacceptable|so-so|incorrect|wrong|totally off base|bit off the mark)"
    r"(?: answer)?(?:,? (?:sorry|mate|i'm afraid))?$|\bi(?:'ve| have) heard better\b"
    r"|\bi(?:'d| would) (?:have )?(?:fail(?:ed)?|send (?:a|you|them) \w+ back)\b"
    r"|\bi (?:wouldn't|would not|couldn't) (?:hire|accept|pass|sign off)\b|\bi feel sorry for\b"
    r"|\bmakes me (?:nervous|worried|wince|cringe)\b|\bi'm not hearing anything\b"
    r"|\bdon't have all day\b|\bdid you (?:actually|even) (?:prepare|read|listen)\b"
    r"|\bbefore this gets (?:any )?worse\b|(?<!don't )(?<!not )\bforget it\b"
    r"|\b(?:a|any) first-year (?:\w+ )?(?:knows|would know|could)\b|\bnobody in (?:a|the) real\b"
    r"|\banyone who(?:'s| has) (?:done|worked)\b.{0,40}\bknows\b|\byou(?:'ve| have) clearly never\b"
    r"|\bif you'd (?:done|worked|ever)\b|\bgoing in circles\b|\bwhy didn't we think of that\b"
    r"|\byou(?:'re| are) (?:kind of )?(?:mixing up"
    r"|conflating)\b|\byou lost me\b|\bi can't accept\b|\bi wouldn't say that's good\b")
"""Dismissal: a negative verdict on the answer or reasoning, or a flat rejection."""


def praise(statements: list[str]) -> str | None:
    return _first(PRAISE_VERDICT, statements) or _first(PRAISE_IDIOMS, statements)


def sarcastic(text: str) -> bool:
    """Whether a turn says its praise words in sarcasm (:data:`SARCASM_FORMS`)."""
    return bool(_SARCASM.search(text))


def dismissal(statements: list[str], said: list[str] = ()) -> str | None:
    """A dismissive verdict in a statement, or an idiom of dismissal in any sentence
    (``said``: the turn's sentences, questions included, for rhetorical challenges)."""
    return _first(DISMISSIVE_VERDICT, statements) or _first(DISMISSIVE_IDIOMS, [*statements,
                                                                              *said])


def _first(pattern: re.Pattern[str], statements: list[str]) -> str | None:
    for text in statements:
        match = pattern.search(text)
        if match:
            return match.group(0).strip(" ,;:")
    return None
