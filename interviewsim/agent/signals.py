"""What a candidate's reply asks of the interviewer, detected by code rather than by the model.

Edge cases ("can I get a hint?", "how am I doing?") are where a model interviewer fails most,
so the code recognises them, tells the interviewer persona how to handle them, does not score
them as answers, and audits the interviewer's next turn against the matching rule.

Recognition is sentence-level (:mod:`interviewsim.text.discourse`), not a phrase search over
the whole reply. A request for help counts only in a sentence that is a request to the
interviewer (a direct question, an imperative, or "I need a hint"), never in reported speech,
and only where it is not the speaker's own rhetorical question that the reply goes on to
answer. "No more questions" needs a declaration of having no questions that is not followed by
a question; the elliptical forms ("That's all.", "No, I'm good.") count only as the answer to
an invitation to ask questions. After such an invitation there is no open problem, so nothing
in the reply is a hint request.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import TYPE_CHECKING

from interviewsim.agent.confirmation import CONFIRMATION
from interviewsim.agent.distress import HELP_FORMS, UPSET_FORMS
from interviewsim.agent.hiring import PAY_STATEMENT, offer_talk
from interviewsim.agent.invitations import invites_questions
from interviewsim.agent.language_model import overruled, reply_labels
from interviewsim.agent.progress import asks_progress
from interviewsim.text.discourse import Sentence, head_noun, sentences

if TYPE_CHECKING:
    from interviewsim.agent.language_fallback import LanguageFallback


class Signal(StrEnum):
    HINT_REQUEST = "hint_request"
    """Asks for a hint, the right answer or whether they are on the right track."""
    PROGRESS_QUESTION = "progress_question"
    """Asks how they are doing or whether an answer was good."""
    NO_MORE_QUESTIONS = "no_more_questions"
    """Says they have no (more) questions: closes a candidate-questions section."""
    OFF_LIMITS = "off_limits"
    """Asks about pay, headcount or other candidates."""
    UPSET = "upset"
    """Says they are frustrated, stressed or fed up with the interview, now."""


_PAY = (r"(?:salary|salaries|compensation|equity|bonus|bonuses|stock options|headcount|pay"
        r"|base pay|base salary|commission|stipend|pension|ctc|pay rise|relocation money"
        r"|sign-on bonus|hiring budget|benefits package)")
PAY_TOPIC = (
    rf"\b(?:do|does|did|will|would|is|was) (?:the|your|this|our) {_PAY}\b|" + head_noun(
        rf"\b{_PAY}(?: (?:range|ranges|band|bands|package|expectations|details|levels?|split"
        r"|structure|scale))?\b")
    + r"|\bwhat (?:are|were) you (?:earning|making|paid|on)\b|\bhow much (?:would it take|are you"
    r" (?:earning|making|after|expecting)|do you (?:earn|make|want))\b|\b(?:your|the) (?:current"
    r" |expected )?package\b|\bwe(?:'re| are) (?:only )?(?:hiring|backfilling|recruiting)"
    r" (?:\w+ )?(?:\d+|one|two|three|four|five|six|several|a few)\b|\bnew hires\b"
    r"|\bhow many (?:people|hires|positions|roles|openings|nurses|engineers)(?: are)? (?:you|we)"
    r"(?:'re| are)? (?:hiring|taking on|recruiting)\b|\bapplications for this\b")
"""Pay and headcount as the head of their noun phrase ("the salary band", not "the salary
service"; after an inverted auxiliary the next word is the verb, "does the compensation
look"): one vocabulary for both sides, a candidate who asks sends a signal, an interviewer who
raises it breaks a guardrail."""
OTHER_CANDIDATES = (
    r"\b(?:ahead of|behind|than|compared (?:to|with)|against|versus) (?:the |all the )?other "
    r"candidates\b|\bother candidates (?:for|in) (?:this|the) (?:role|position|job|process)\b"
    r"|\bother candidates (?:are |is )?(?:you|we)(?:'re| are)? (?:talking to|interviewing|seeing"
    r"|considering|meeting)\b"
    r"|\bother applicants\b"
    r"|\b(?:ahead of|better than|compared (?:to|with)) (?:most of |all of )?the others\b"
    r"|\bthe (?:last|previous|other|first) (?:person|candidate|applicant)s? (?:we|i)(?:'ve)?"
    r" (?:interviewed|saw|seen|spoke|met)\b|\b(?:than|of) (?:most|all|any) of the (?:other )?"
    r"(?:people|candidates|applicants) (?:i|we)(?:'ve| have)? (?:saw|seen|interviewed|met|spoke)"
    r"|\b(?:\w+) of you in the (?:final|next|last) round\b|\binterviewing (?:anywhere|elsewhere)\b"
    r"|\bhow do i compare (?:with|to) (?:the )?others\b")
"""Other candidates *for this job*: a comparison or the hiring process, not Raft's candidates."""

_HELP = re.compile(
    head_noun(r"\b(?:hint|clue|tip|pointer|nudge|trick)s?") + r"(?! of\b)"
    r"|" + head_noun(r"\b(?:the|an?) (?:(?:right|correct|expected|best|ideal|real) )?answer")
    + r"|\bon the (?:right|good) (?:track|way|path|lines)\b|\bin the right direction\b"
    r"|\b(?:would|should) you (?:do|use|choose|pick|go with|go for|approach|start)\b"
    r"|\bshould (?:i|we) (?:use|do|choose|pick|go with|start|focus|consider|think about"
    r"|be (?:thinking|using|looking|sorting|doing))\b"
    r"|\b(?:can|could|would) you (?:help|assist) (?:me|us)\b"
    r"(?! understand (?:what you|the question|what the question|what you're))"
    r"|\bam i (?:even )?(?:close|warm|getting (?:close|warm|there)"
    r"|(?:on|going|heading) (?:the right"
    r"|in the right))|\bwhere (?:would|should|do) (?:you|i|we) (?:even )?(?:begin|start)\b"
    r"|\b(?:point|steer|nudge) me\b|\bwhat would you (?:use|do|pick|choose|try)\b"
    r"|\bstarting point\b|\bwhich (?:\w+ )?(?:would|should) (?:you|i)\b|\byou'd (?:reach for"
    r"|pick|use|go for|do first)\b|\bwarm or cold\b|\bthe (?:way|thing) to go\b"
    r"|\bwhat (?:would|do) you (?:suggest|recommend)\b|\bdo i need (?:a|an|to use)\b"
    r"|\b(?:tell|show) me (?:what|if|whether|how) (?:the|it|i|this|that)\b"
)
"""What a hint request asks for: a hint, the answer, a direction, the interviewer's choice."""
_IMPERATIVE_HELP = re.compile(r"^(?:just )?(?:give|get|tell|show|point|help) (?:me|us)\b")
_NEED = re.compile(r"^(?:i|we) (?:really |could really )?(?:need|could use|use|would like"
                   r"|'d like|want)\b")
_NEGATED = re.compile(r"\b(?:don't|do not|doesn't|never|no longer|won't)\b")
_FIRST_PERSON = re.compile(r"^(?:i|i'm|i've|i'd|i'll|my|me)\b")
_COMMITMENT = re.compile(r"\b(?:i'd|i would|i'll|i will|we'd|we would)\b(?! (?:love|like) to"
                         r" (?:know|hear)| rather\b)|^(?:it would|it does|actually|no,? i've got"
                         r" it|i've got it)\b")
_PERKS = re.compile(
    r"\b(?:pto|paid time off|vacation days|holiday allowance|annual leave|health (?:cover"
    r"|insurance|plan)|dental|tuition|relocation|shift differentials?|raises?|pay rises?"
    r"|paid (?:extra|more|overtime)|get paid|ballpark|room to negotiate|negotiate on the offer"
    r"|the offer|budgeted|openings|adding seats|applicants|up against|who else|others going for"
    r"|internal (?:people|candidates)|rank against|compared? (?:with|to) the others?)\b")
"""What a candidate asks about the offer, the perks, the budget or the competition."""
_SELF_ANSWER = re.compile(r"^(?:yes|yeah|yep|no|nope|well|only|because|actually|it is|it isn't)\b")
"""How a reply opens that answers its own guess ("Is it linear? Well, yes, it is...")."""
_GUESS = re.compile(
    r"^(?:is it|is this|is that|could it be|would it be|would (?:a|an)|it's|so it's) (?:a |an |the "
    r"|just )?[\w-]+(?: [\w-]+){0,3}(?: (?:thing|problem|issue|error|here))?$"
    r"|^(?!(?:honestly|really|sorry|pardon|what|huh|sure|right|okay|ok|seriously|me|yes|no|why"
    r"|how|who|when|where|which|now|again|questions?)\b)[\w-]+(?: [\w-]+)?$")
"""A guess offered for confirmation on the open problem ("Is it the clock?", "Union-find?")."""

_PROGRESS = re.compile(
    r"\bhow (?:am i|have i been) doing\b|\bhow did i do\b|\bhow'?s it going so far\b"
    r"|\b(?:was|is) (?:that|this|it|my answer) (?:an? )?(?:good|right|correct|ok|okay|fine"
    r"|acceptable|what you (?:were|are) looking for)\b(?! if\b| to\b| for time\b)|\bdid i (?:pass"
    r"|get (?:it|that|this) right"
    r"|do (?:ok|okay|well|alright))\b|\bwhat(?:'s| is| was) my (?:score|grade|result)\b"
    r"|\bhow(?:'s| is| was) my (?:performance|answer|interview|progress)\b"
    r"|\bhow am i (?:coming across|getting on|scoring|doing|holding up)\b"
    r"|\bhow (?:did|do) i (?:do|score|come across)\b|\bhow(?:'d| did) (?:that|it|i) go\b"
    r"|\b(?:was|is) (?:that|this|it|my (?:answer|example)) (?:the )?(?:right call|too long"
    r"|too short|enough|clear enough|the (?:sort|kind|type) of (?:answer|example|thing)"
    r"|what a good answer)|\bwhere do i stand\b|\b(?:any )?feedback on (?:how i|my)"
    r"|\bam i (?:doing (?:ok|okay|alright|all right|well)|blowing|messing|in with a chance"
    r"|on track for)|\b(?:what are you|how am i being|are you) (?:assessing|scoring|grading"
    r"|evaluating|marking) (?:me|this|that)\b|\bis (?:this|that) (?:portion|part|bit|section)"
    r" (?:scored|graded|assessed)\b|\bdid (?:that|it) (?:land|go) (?:ok|okay|well|alright)"
    r"|\bwhat would you (?:give|rate|score) (?:that|me|it)\b|\bhave i passed\b"
    r"|\bdid i (?:mess|bomb|blow|screw) (?:that|it|this)|\bhow would you (?:rate|score|grade)"
    r" (?:what i|my|that|me)|\bwhere am i (?:right now|so far|at)\b"
    r"|\bhow(?:'s| is) it looking for me\b|\bget me (?:through|to the next)\b"
    r"|\bis (?:this|it|that) going (?:well|ok|okay|alright|all right)\b"
    r"|\bdid i get (?:it|that|this)"
    r"(?: right)?$|\bcriteria (?:are )?for this\b|\bwhat are the criteria\b")
_UPSET = re.compile(
    r"\bi(?:'m| am) (?:(?:getting|feeling|so|really|a bit|very|quite|just|kind of) )*"
    r"(?:frustrated|annoyed|stressed|nervous|upset|angry|overwhelmed|anxious|panicking|blanking"
    r"|fed up|flustered|rattled|freaking out|losing it)\b"
    r"|\bi(?:'m| am) (?:\w+ )?blanking\b|\bmy (?:head|mind) is (?:spinning|racing|blank|all over)"
    r"|\bi(?:'m| am) (?:starting|beginning) to (?:panic|freak out|lose it|get (?:nervous|stressed"
    r"|flustered|overwhelmed))|\b(?:this|it|that)(?:'s| is) (?:really |seriously )?(?:stressing"
    r"|freaking) me out\b|\b(?:this|these)(?: whole)?(?: \w+)? (?:is|are|feels?|seems?)"
    r"(?: (?:so|really|just|completely|totally|a|an|like))* (?:ridiculous|stupid|pointless"
    r"|unfair|absurd|annoying|stressful|waste|trick|frustrating|impossible|uncomfortable"
    r"|overwhelming|doing my head in|killing me)\b|\bi (?:hate|can't stand) (?:this|these|role"
    r"|being put)|\bi(?:'m| am)(?: (?:so|really|just|a bit|getting|completely))* (?:drowning"
    r"|gutted|terrified|choking|close to tears|all over the place|worked up|shaking|freaking"
    r"|lost|a wreck|a mess|scared|embarrassed|mortified|struggling here|in bits|falling apart)\b"
    r"|\bi feel (?:like i'm |so |really |a bit )*(?:drowning|stupid|sick|awful|terrible|lost"
    r"|overwhelmed|useless|dumb|like an idiot)\b|\bmy (?:heart|hands?)(?:'s| is| are)"
    r" (?:pounding|racing|shaking|sweating)|\bmy (?:mind|head)(?:'s| has| is)(?: just)?"
    r" (?:gone|a mess|spinning|blank|empty|fried)|\bi(?:'ve| have) (?:lost it|gone blank"
    r"|completely blanked)|\bcan't think straight\b|\b(?:wind|winding|stressing|freaking)"
    r" me (?:up|out)\b|^(?:ugh|argh|urgh)$|\b(?:this|it) isn't going well\b")
"""Present-tense distress or hostility about *this* interview: first person now ("I'm getting
frustrated") or a deictic verdict ("this is ridiculous"); a past or third-person story ("I was
frustrated with the old pipeline", "the customer was furious") is an answer, not a signal."""

_DECLARES_NONE = re.compile(
    r"^(?:(?:no|nope),? )?no (?:more |further |other )?questions(?:$|,| (?:from me|for now"
    r"|at the moment|right now|thanks|thank you|at this point|today|really)\b)"
    r"|^(?:i|we) (?:have|'ve got|have got|got) no (?:more |further |other )?questions\b"
    r"|^i (?:don't|do not) (?:have|think i have) any (?:more |further |other )?questions\b"
    r"|^i(?:'m| am) (?:done|finished) with (?:my )?questions\b"
    r"|^(?:none|nothing|no questions) (?:else )?from me\b|^that's all (?:from me|my questions)\b"
    r"|^i can't think of any (?:more |further |other )?questions\b"
    r"|^(?:zero|no) (?:more )?questions,? (?:all good|i'm good|thanks)\b")
"""Saying outright that there are no (more) questions."""
_CLOSER = re.compile(
    r"(?:i think )?(?:no|nope|nah|not really|none|nothing(?: else| more)?|that's (?:all|it"
    r"|everything)|that covers it|all good|i(?:'m| am) (?:all set|good|fine|done)"
    r"|(?:thanks|thank you)(?: (?:so|very) much)?(?: for your time)?"
    r"|i(?:'m| am) (?:all )?set|that's (?:it|all|everything) (?:from|on|for) (?:me|my (?:side|end))"
    r"|i can't think of anything(?: (?:else|more))?(?: (?:right now|at the moment|for now))?"
    r"|not (?:at the moment|right now|for now)|(?:i think )?you(?:'ve| have) (?:covered|answered)"
    r" (?:everything|it all|all of it|all my questions))")
"""Elliptical closers: a complete answer only to "any (more) questions?"."""
_CLOSER_OPENING = re.compile(
    r"^(?:(?:honestly|hmm+|um+|oh|well|ah|erm|i think|to be honest),? )*(?:no|nope|nah|naw"
    r"|not (?:really|at (?:this|the) (?:point|moment)|right now|for now|today)"
    r"|(?:nothing|none|zero)(?! (?:else |more )?(?:changed|happened|went|was|were|did|came|in"
    r"|about|on|of)\b)|no more|can't think of|i can't think of|i don't (?:think so|have anything)"
    r"|that's me|that's (?:it|all|everything)(?! (?:i|we|they|there|he|she)\b)"
    r"|all (?:good|clear)|i(?:'m| am) (?:all )?(?:good|fine|set"
    r"|covered|clear|grand|sorted|ok|okay)|it's all clear|everything(?:'s| is) clear"
    r"|you(?:'re| are) (?:alright|all right|good)|(?:i think )?(?:you(?:'ve| have)|i(?:'ve| have))"
    r" (?:answered|covered|got) (?:them|it|everything|all|what))\b")
"""How a reply that declines the invitation opens ("Nah, you're alright", "Honestly, nothing
comes to mind", "I think I've got everything I need"): a decline only after an invitation,
and only in a reply that asks nothing."""


_DECLINES = re.compile(
    r"(?:^|[,.;] |\b(?:so|but|and|thanks|thank you),? )(?:no|nope|nah)\b(?! (?:one|way|idea"
    r"|problem)\b)"
    r"|\bnot (?:really|a one|at (?:the moment|present|this (?:stage|point))|right now|for now"
    r"|today|off the top of my head|that i can think of)\b|\b(?:let's say|i guess|i think) not\b"
    r"|\b(?:i )?don't think so\b|\b(?:nothing|none)(?: (?:else|more|further|at all))?"
    r"(?: (?:to (?:ask|add)|from me|on my (?:side|end)|(?:right )?now|comes to mind|for now))?$"
    r"|\b(?:nothing|none) (?:else |more )?(?:from me|on my (?:side|end)|to (?:ask|add)"
    r"|comes to mind)\b|\b(?:i've|i have|i've got|i got) nothing\b"
    r"|\b(?:i|we)(?:'m|'re| am| are) (?:quite |really |all |pretty much |actually )*(?:good|fine"
    r"|set|sorted|okay|ok|alright|all right|done|out of questions|happy|covered|grand)\b"
    r"(?! (?:with|to|at|about|if|that)\b)"
    r"|\b(?:don't|do not|really don't|genuinely don't) (?:have|need|believe i have) (?:any"
    r"|anything)\b"
    r"|\b(?:i )?(?:don't|do not)(?:, but| thanks|$)|\bcan't think of (?:a single thing|one|anything"
    r"|any)\b|\byou(?:'ve| have)? (?:already |pretty much |kind of |basically )*(?:answered"
    r"|covered|told me|explained|mentioned|gone through|went through|got to|ticked|pre-empted"
    r"|read my mind|cleared)\b|\b(?:all|it's all|it all|they're (?:both|all)|everything(?:'s|"
    r" is| has been)?) (?:been )?(?:(?:made )?(?:very )?(?:clear|covered|sorted|answered|sweet"
    r"|ticked off|crossed off|cleared up))\b|\b(?:this|that|it) covers it\b"
    r"|\bthat's (?:all|everything|it)(?: (?:i (?:wanted|needed|had)|from me|for me|actually"
    r"|thanks))?$|\bi'll (?:pass|leave it there|let you off)\b|\b(?:i've|i have) got what i need\b"
    r"|\bi (?:think i )?know what i need\b|\bmy (?:list|questions?) (?:is empty|(?:got|were|was"
    r"|have been) (?:all )?answered)\b|\bnothing to ask\b|\bfor me is enough\b"
    r"|\bsave my questions\b|\b(?:i'm|i am) (?:blanking|drawing a blank)\b"
    r"|\bcleared (?:it all|everything) up\b|\bmind's (?:gone|completely gone|totally gone) blank\b")
"""Ways to decline the invitation anywhere in the reply ("I had a list, but it's all been
ticked off", "You've given me a really full picture, so I'll pass", "Not off the top of my
head"): a closer only after an invitation, and only in a reply that asks nothing else."""
_STILL_ASKS = re.compile(
    r"\b(?:i do have|i have (?:one|a couple|a few)|one thing|the only thing|i'd (?:love|like) to"
    r" (?:hear|know|ask)|could i ask|can i ask|i wanted to ask|my question is|just one)\b")
"""A reply that declines in part and asks in the same breath ("No questions about the role as
such, but I'd love to hear what you enjoy about working here")."""


_CLAUSE_ASKS = re.compile(
    r"^(?:(?:um+|uh|so|like|sorry|honestly|yeah|okay|ok|and|but|oh|quick question),? )*"
    r"(?:was|is|are|were|am|do|does|did|what's|how's|how'd|how'm|would|could|can|any|have|has"
    r"|should|will|(?:what|how|where) (?:am|are|is|was|did|do|does|would|should|can|could"
    r"|kind))\b")
"""A clause that opens as a question, in speech transcribed without question marks."""


def _asked_clauses(said: tuple[Sentence, ...]) -> list[str]:
    """The clauses that ask: every clause of a sentence that asks, and a clause that opens
    as a question anywhere ("so yeah that's my design, did that answer land")."""
    found = []
    for s in said:
        for clause in () if s.reports else s.clauses or (s.core,):
            pieces = re.split(r",\s*", clause)
            found += [clause] if s.asks else [", ".join(pieces[i:]) for i, p in
                                              enumerate(pieces) if _CLAUSE_ASKS.match(p)]
    return found


def _elliptical_closer(sentence: Sentence) -> bool:
    chunks = [c.strip() for c in sentence.core.split(",") if c.strip()]
    return bool(chunks) and all(_CLOSER.fullmatch(c) for c in chunks)


def _requests_help(reply: tuple[Sentence, ...]) -> bool:
    for i, s in enumerate(reply):
        asked = any(_HELP.search(c) or CONFIRMATION.search(c) or HELP_FORMS.search(c)
                    for c in _asked_clauses((s,)))
        if s.reports or not (asked or _HELP.search(s.core)):
            continue
        asking = asked or _IMPERATIVE_HELP.match(s.core) or \
            (_NEED.match(s.core) and not _NEGATED.search(s.core))
        after = reply[i + 1:]
        # A question the speaker goes on to answer is rhetorical: what follows a real request
        # is the speaker's own state ("I'm stuck between..."), not a committed answer.
        genuine = all((_FIRST_PERSON.match(t.core) or t.asks) and not _COMMITMENT.search(t.core)
                      for t in after)
        if asking and genuine:
            return True
    return _guesses(reply)


def _guesses(reply: tuple[Sentence, ...]) -> bool:
    """A reply that opens on a short guess put as a question and commits to nothing after."""
    first = reply[0] if reply else None
    if first is None or not first.raw.rstrip().endswith("?") or not _GUESS.match(first.core):
        return False
    return not any(_COMMITMENT.search(t.core) or _SELF_ANSWER.match(t.core) for t in reply[1:])


def _declares_done(reply: tuple[Sentence, ...], invited: bool) -> bool:
    if invited and any(_STILL_ASKS.search(s.core) for s in reply):
        return False
    if invited and any(_DECLINES.search(s.core) for s in reply if not s.reports) and not any(
            s.is_question and not asks_progress(s.core, True) for s in reply):
        return True
    if invited and reply and _CLOSER_OPENING.match(reply[0].core) and \
            not any(s.is_question for s in reply):
        return True
    for i, s in enumerate(reply):
        if s.is_question:
            continue
        if _DECLARES_NONE.match(s.core) or (invited and _elliptical_closer(s)):
            return not any(t.is_question for t in reply[i + 1:])
    return False


def invitation_reading(turn: str | None, fallback: LanguageFallback | None = None) -> bool:
    """Whether a turn hands the floor to the candidate's own questions: a capable fallback
    model's reading when it gives one, else the code's (:func:`invites_questions`)."""
    read = fallback.invites(turn) if fallback is not None and turn else None
    return invites_questions(turn) if read is None else read


def detect_signals(reply: str, question: str | None = None,
                   fallback: LanguageFallback | None = None) -> frozenset[Signal]:
    """Every signal present in one candidate reply (usually none): the rules' and the reply
    model's, or, with a ``fallback`` model, the fallback's alone.

    ``question`` is the interviewer turn the reply answers: an invitation to ask questions
    makes "That's all." a closing and rules out hint requests. The encoder reads a reply with
    that turn, so without one the rules decide alone.
    """
    invited = invitation_reading(question, fallback)
    rules = rule_signals(reply, question, invited)
    asked = fallback.reply(reply, question, invited) if fallback is not None else None
    if asked is not None:  # the capable model's reading is final
        found = set(map(Signal, asked))
    elif question:  # the encoder reads a reply with the turn it answers, never without one
        model = reply_labels(reply, question)
        found = {*rules, *map(Signal, model)} - set(
            map(Signal, overruled("reply", [s.value for s in rules], reply, question)))
    else:
        found = set(rules)
    if invited:
        found.discard(Signal.HINT_REQUEST)
    elif asked is not None or Signal.NO_MORE_QUESTIONS not in rules:
        found.discard(Signal.NO_MORE_QUESTIONS)  # a model's closer counts after an invitation
    return frozenset(found)


_SELF_ANSWER_YES = re.compile(r"(?:yes|no|yep|nope)\b")


def rule_signals(reply: str, question: str | None = None,
                 invited: bool | None = None) -> frozenset[Signal]:
    """The signals the sentence rules find (what :func:`detect_signals` adds the model to);
    ``invited`` overrides whether ``question`` counts as an invitation (the rules' and the
    model's reading of it by default)."""
    said = sentences(reply)
    invited = invites_questions(question) if invited is None else invited
    asked = [s for s in said if s.asks and not s.reports]
    found: set[Signal] = set()
    # a question its speaker answers at once ("Did I pass? Yes, first time") asks nothing
    own = tuple(s for s, after in zip(said, (*said[1:], None)[:len(said)], strict=True)
                if after is None or not _SELF_ANSWER_YES.match(after.raw.lower()))
    progress = any(s.asks and _PROGRESS.search(s.core) for s in own if not s.reports) or any(
        asks_progress(c, True) for c in _asked_clauses(own)) or any(
        asks_progress(s.core, False) for s in own if not s.reports)
    if not invited and not progress and _requests_help(said):
        found.add(Signal.HINT_REQUEST)
    if progress:
        found.add(Signal.PROGRESS_QUESTION)
    if _declares_done(said, invited):
        found.add(Signal.NO_MORE_QUESTIONS)
    if any(re.search(PAY_TOPIC, s.core) or re.search(OTHER_CANDIDATES, s.core)
           or _PERKS.search(s.core) for s in asked) or any(
            offer_talk(c) for c in _asked_clauses(said)) or any(
            PAY_STATEMENT.search(s.core) for s in said if not s.reports):
        found.add(Signal.OFF_LIMITS)
    if any(_UPSET.search(s.core) or UPSET_FORMS.search(s.core) for s in said if not s.reports):
        found.add(Signal.UPSET)
    return frozenset(found)


HANDLING: dict[Signal, str] = {
    Signal.HINT_REQUEST: (
        "The candidate just asked for help. Give no hint, no approach and no answer; ask for "
        "their current thinking on the question instead."
    ),
    Signal.PROGRESS_QUESTION: (
        "The candidate asked how they are doing. Do not evaluate anything; say the team will "
        "follow up after the interview, then continue."
    ),
    Signal.OFF_LIMITS: (
        "The candidate raised a topic outside this interview (pay, headcount or other "
        "candidates). Say it is outside today's scope and continue."
    ),
}
"""Instruction added to the interviewer's prompt for the turn after a signal (the live
guardrails, :mod:`interviewsim.agent.live`, handle an upset candidate)."""
