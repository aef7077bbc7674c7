"""Talk of the offer and the competition for the job, in the many ways people put it.

Off-limits talk is open-ended ("What number gets you outta bed for this?", "The band tops out
at 85k", "You're one of five finalists"), so it is read from a lexicon of pay, perks, hiring and
competition words rather than from fixed phrases. The same words are also the substance of many
legitimate questions ("How did you budget for the conference?", "What are the benefits of a
monorepo?", "Design the salary microservice"), so a sentence about the candidate's own work
(a task, a question about what they did, a technical topic) raises nothing; what is left is
talk of this job's pay and hiring.
"""

from __future__ import annotations

import re

_PAY_WORDS = re.compile(
    r"\b(?:earn|earning|earnings|remuneration|salary|salaries|wages?|ctc|lakh|per annum|p\.a"
    r"|money(?:-wise)?|cash-wise|in cash|(?:get|got|be|are|were|being) paid|paying you|pay (?:you"
    r"|ya)|take-home pay|package|equity|share options|stock (?:units|options)|rsus?|options vest"
    r"|vests? over|cliff|(?:sign-on|signing|retention|annual|performance) bonus|bonus (?:scheme"
    r"|structure|is|pays)|commission|on-target earnings|pension|super(?:'s| is| contribution"
    r"|annuation)|salary sacrifice|(?:car|housing|travel|relocation) (?:allowance|assistance"
    r"|package|money)|company car|holiday entitlement|annual leave|pto|paid time off"
    r"|vacation days|dental|medical cover|health (?:cover|insurance|plan)|benefits (?:sheet"
    r"|package|kick|start)|401k|tips (?:get |are )?pooled|shift differentials?|penalty rates"
    r"|overtime (?:pay|rate)|staff discount|tuition reimbursement|annual uplift|pay rise"
    r"|(?:a|the|your) raise\b(?! (?:a|the|an|it|that|this)\b)|(?:day|hourly) rate|(?:\d+|pound"
    r"|pounds|dollars?|quid|bucks) an hour\b"
    r"|(?:salary|pay) (?:band|range|scale|expectations?)|(?:the|this|our) (?:band|range)"
    r" (?:for|tops|starts|is|goes)|top of the (?:band|range)|midpoint of the range"
    r"|(?:low|lower|top|upper|bottom) end of the (?:scale|band|range)|\d+\s?k\b"
    r"|step \w+ on the|eba|other offers?|(?:the|an|our) offer\b|negotiable|(?:room to|willing to"
    r"|open to) negotiate"
    r"|negotiate (?:on|the offer|salary|base)|counter-?offer"
    r"|pay (?:progression|bump|review)|payday|salaried|or hourly|(?:the|an) hourly\b"
    r"|hourly (?:rate|pay|wage)|ote|gym benefit|share purchase"
    r"|parental leave|maternity|paternity|(?:days|weeks) of (?:holiday|leave)|private health"
    r"|enhanced rate|toil|(?:staff|employee|get a) discount|compensation details"
    r"|what(?:'s| is) the number\b|is the number\b|the number on your"
    r"|what band|band is (?:this|it)|^(?:\w+, )?range$"
    r"|bottom line|what you(?:'re| are)? on now|how much (?:are you|you) on)")
"""Pay and perks: what the job would pay or give, or what the candidate earns now."""
_HIRING_WORDS = re.compile(
    r"\b(?:openings|an opening (?:on|in|for) (?:the|this|our)|vacanc(?:y|ies)|headcount|(?:adding"
    r"|add|two|three|four|more|new) heads"
    r"|(?:one|two|three|four|five|six|a few|several|\d+) (?:new )?hires\b|new hires|hiring"
    r" (?:freeze|manager wants|budget|plan|numbers)|(?:hiring|recruitment) freeze|(?:still"
    r" )?hiring\b(?! (?:bar|committee|pipeline|process for (?:your|the) team))"
    r"|budget(?:ed)? for (?:a|one|two|three|four|\d+) (?:more |new )?(?!\w+ (?:trip|upgrade))"
    r"\w+|signed off for|(?:fill|filling) (?:\w+ )?(?:seats|posts|roles)|taking on (?:roughly"
    r" |about )?\w+ (?:graduates|people|staff)|shortlist(?:ed)?|longlist(?:ed)?|finalists?"
    r"|front-?runner|you(?:'re| are) (?:in )?(?:the )?top (?:two|three|\d)\b|other (?:candidates?"
    r"|applicants?|finalists?"
    r"|contenders?)\b(?! (?:once|in (?:a|the) (?:leader|raft|election)|vote)\b)|other (?:chap|guy"
    r"|girl|woman|man|person|people|candidate)(?:'s)? (?:we|i|they|who|on|already|had|has|was)\b"
    r"|the others\b|post-holder|(?:interviewed|seen|saw|seeing|met) (?:a"
    r" bunch|\w+ (?:people|candidates|applicants)|someone|the other)|(?:the|you're the) (?:last"
    r"|first|next) (?:one|person) (?:i'm|we're) (?:seeing|interviewing)|one of (?:only )?\w+"
    r" (?:finalists|candidates|applicants|people)|the (?:odds|competition) (?:is|are)\b"
    r"|how many (?:of us|candidates)"
    r"|how many (?:\w+ )?(?:people|candidates|applicants|others)(?: \w+)? (?:applied|left"
    r"|made it|are you (?:seeing|interviewing|considering)|you(?:'re| are) (?:seeing"
    r"|interviewing))|(?:only|other) (?:one|person|people|candidate)s? you(?:'re| are) (?:seeing"
    r"|considering|interviewing)|interviewing (?:many|a lot of|lots of) people|taking on (?:a lot"
    r" of|many|lots of) (?:people|staff))")
"""Hiring and competition: openings, headcount, the other people in the running."""
_MORE_WORDS = re.compile(
    r"\b(?:candidates in the pipeline|interviewing (?:\w+ ){0,3}(?:people|candidates|others)\b"
    r"|interviewing you and|(?:one|two|three|four|five|\d+) other (?:people|person|applicants?"
    r"|candidates?)|you(?:'re|'d be| are| will be|'ll be) up against|internal applicants?"
    r"|(?:seen|seeing|talked to|interviewed) (?:maybe )?(?:a dozen|\w+) (?:people|others)"
    r"|(?:in|down to) the final (?:\w+)|the strongest (?:person|candidate)|best of the bunch"
    r"|(?:our|my) first choice|between you and (?:one|two|\w+) other|(?:only|just) (?:two|three)"
    r" of you|only one (?:spot|place|position)|only filling one|\d+ applicants|another applicant"
    r"|everyone else (?:i've|we've) (?:interviewed|seen|met)|the (?:guy|person|woman|man"
    r"|candidate) (?:before you|who had this job)|the previous (?:person|round|post-holder)"
    r"|(?:pay|paid) you\b|lowest you'd (?:accept|go|take)|(?:a|your) number (?:in mind|you could)"
    r"|what's your number|what (?:number|figure) (?:gets|would|makes)|(?:less|more) base\b"
    r"|pay cut|(?:lower|higher) (?:rate|tier)|an hour plus|(?:\d+|ten|five|twenty|thirty|forty"
    r"|fifty|a few) grand\b|subsidy|perks?\b|half-price|talk numbers|worth these days"
    r"|stock's worth|would you take (?:it|a)\b|(?:accept|sign) today|what would it take"
    r"|make this worth your while|offered you the job|start on the \w+ point"
    r"|grow(?:ing)? the team from"
    r"|fill (?:\w+ )?positions|budget (?:only )?covers|the budget for this role|a freeze\b"
    r"|layoffs|q[1-4] numbers|got let go|made (?:one|an) offer|offers (?:usually )?go out"
    r"|decision (?:will be made )?by (?:friday|monday|tuesday|wednesday|thursday|the end)"
    r"|leaning your way|(?:able|going) to move you forward|take whoever"
    r"|the team really likes you|bonus eligibility|pay step|the benefits(?! of)|insurance for|leave"
    r" allowance|gym membership|meals included|childcare|lease car|cycle-to-work|(?:london|city)"
    r" weighting|retention scheme|registration fees|the bonus pool (?:been|like|is)|the ute"
    r"|super on top"
    r"|how many (?:\w+ )?(?:are you|you're) (?:hiring|recruiting|bringing on|taking on)"
    r"|(?:others|anyone else|many others) (?:in the running|get this far|still in)"
    r"|the strongest of|(?:last|only) (?:one|candidate) (?:you're|you are) seeing"
    r"|the only one still|someone ahead of me|how i compare with|(?:with|to) other candidates"
    r"|close to (?:a )?decid\w*|competing offer|another offer|sign on bonus|pay better than"
    r"|the package|what's on the table|how many (?:people )?you've seen"
    r"|in the final round|the rest of the people"
    r"|what (?:kind of |sort of )?figure would you|how much would you need|(?:a bit |a little"
    r" )?less than you're on|the going rate|company (?:van|car)|fuel card|one of (?:two|three"
    r"|four|\d) (?:left|still in)|hear from hr|make (?:a |our )?decisions? within|interviewed"
    r" (?:about |around )?(?:a dozen|\w+) people|the (?:second|third|fourth|fifth|sixth|\w+th)"
    r" person i've seen|coming back for the second round|cheaper than the (?:last|other)"
    r"|bursary|laundry allowance|free meals|staff (?:night out|discount)|on a lot more"
    r"|the grade for this post|uniform'?s? (?:is )?provided)")
"""More of the same: the competition in numbers, the figure asked for, an offer's timing."""
_OWN_WORK = re.compile(
    r"^(?:(?:so|um|uh|okay|right|and|now|yeah),? )*(?:design|build|write|implement|model|create"
    r"|estimate|price|walk me through|talk me through|tell me about|describe|explain"
    r"|how (?:did|do|would|could|will) you\b(?! feel| be| take| want)|what (?:did|does|do) (?:the"
    r"|your|a|an)\b|in (?:raft|your|the)\b|what are the (?:benefits|pros|cons)|how (?:did|does"
    r"|do) (?:the|a|an|your)|give me an example|let me (?:get this straight|make sure)|to sum up"
    r"|if i'm following|what(?:'d| would) you do if)(?!.*\byour (?:salary|pay|compensation"
    r"|expectations|current package))")
"""A sentence about the candidate's work, where pay and hiring words are the topic."""
_NOT_OFFER = re.compile(
    r"\b(?:strong|lean|weak|no|a|mid-level|senior) hire\b|\bbonus (?:points?|marks?|if)\b"
    r"|\bon the money\b|\bheads up\b|\bband for (?:the|analytical|problem|\w+ing)\b|\bhire-me\b"
    r"|\bhiring (?:bar|committee)\b|\bnew hire's\b|\bheadcount of (?:the|your) \w+ you\b"
    r"|\b(?:headcount|hiring|payroll|commission|salary|bonus|pay) (?:report|app|system|service|data"
    r"|pipeline|database|tool|table|platform|module|feature|engine|job)s?\b")
"""Uses of the same words that are verdicts or rubric talk, not the offer."""


PAY_STATEMENT = re.compile(
    r"\bi(?:'m| am) on (?:about |around )?[\w-]+ (?:now|k\b|grand)|\bmy current (?:base|salary"
    r"|package)\b|\bi(?:'d| would) (?:need|want|be looking for|expect) (?:at least |around |about"
    r" |somewhere around )?[\w-]+(?: [\w-]+)? (?:to make|k\b|grand|lakh|thousand|now|a year)"
    r"|\bremuneration\b|\ba decent (?:salary|bump)\b|\b(?:competing|another) offer\b"
    r"|\bi'd need the base\b|\bwhat (?:would )?(?:this role|it) pays?\b|\bsomewhere around"
    r" (?:one|two|\d)[\w-]*\b.*\bequity\b|\bcompensation details\b|\bi was on [\w-]+ and\b")
"""A candidate stating what they earn or need: off-limits said as a statement."""


def about_own_work(sentence: str) -> bool:
    """Whether pay and hiring words in ``sentence`` can only be the topic of the candidate's
    work (a task, a question about what they did, a summary of their answer)."""
    return bool(_OWN_WORK.match(sentence))


def offer_talk(sentence: str) -> str | None:
    """The pay, perk, hiring or competition words of one sentence that raise the topic."""
    if about_own_work(sentence) or _NOT_OFFER.search(sentence):
        return None
    match = (_PAY_WORDS.search(sentence) or _HIRING_WORDS.search(sentence)
             or _MORE_WORDS.search(sentence))
    return match.group(0) if match else None
