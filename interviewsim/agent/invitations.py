"""Whether an interviewer turn hands the floor to the candidate's own questions.

It matters for one decision the code owns: after an invitation a closer ("Nope, I'm set",
"That's it from my side") ends the candidate-questions section, and there is no open problem
to ask a hint for; anywhere else those words are an answer. The commonest hand-overs are
recognised by form (a question about the candidate's questions, "What questions do you have
for me?", "Anything you'd like to ask?") or as fixed hand-over idioms that need no question
mark ("The floor is yours", "Over to you", "Ask away"); the turn model
(:mod:`~interviewsim.agent.language_model`) covers the paraphrases.
"""

from __future__ import annotations

import re

from interviewsim.agent.language_model import overruled, turn_labels
from interviewsim.text.discourse import sentences

_NOT_THE_JOB = (r"(?! (?:about|on) (?:the|this|that) (?:exercise|scenario|task|problem|question"
                r"|case|format|brief)\b)(?! before you (?:begin|start)\b)")
INVITATION = re.compile(
    r"\b(?:any|more|other|further) questions\b" + _NOT_THE_JOB
    + r"|\bquestions" + _NOT_THE_JOB + r" (?:for|about|on|from) (?:me|us|the|your)\b"
    + r"|\bwhat questions (?:do|have|can|would) you\b(?! (?:usually |normally )?ask (?:a|an|the"
    r"|your|when|in|during)\b)|\byou(?:'d| would)? (?:like|want|wish|love) to (?:ask|know)\b"
    r"|^anything (?:else|more)(?: (?:for me|at all|from you))?$|\banything (?:else|more) (?:you"
    r"(?:'d| would)? (?:like|want) to (?:ask|know)|for me|i can)\b"
    r"|\bwhat (?:else )?would you like to (?:ask|know)\b"
    r"|\bwhat (?:else )?(?:can|could|should) i tell you\b|\bwhat do you want to know\b"
    r"|\banything (?:you(?:'re| are)? (?:curious|wondering)|i (?:can|could) (?:tell|answer))"
    r"|^(?:any |got any |other )?questions$|\banything about (?:the|this|our) (?:role|job|team"
    r"|company|position|school|hospital|store)\b"
)
"""A question about the candidate's own questions (not "any questions about the exercise?",
nor "what questions do you ask a patient?")."""
HANDOVER = re.compile(
    r"\bthe floor is (?:yours|all yours)\b|(?<!then it's )\bover to you\b|\b(?:your|you're) turn\b"
    r"|\bask (?:me |us )?(?:away|anything|whatever)\b|\bfire away\b|\byour chance to ask\b"
    r"|\b(?:hand|turn|pass) (?:it|things|the floor) over to you\b|\bnow(?:'s| is) your chance\b"
    r"|\bit's your (?:chance|turn)\b|\bnow(?:'s| is) a good time\b"
    r"|\b(?:happy|glad) to answer (?:any|anything|your)\b|\bgrill me\b"
    r"|\bthe (?:rest|last part|last few minutes|remaining time) (?:is|are) (?:yours|for you)\b"
)
"""Hand-over idioms: an invitation whatever the sentence's form."""
_ASK = (r"(?:ask|know|raise|find out|hear about|learn|dig into|clarify|speak to|expand on|cover"
        r"|pick my brain|quiz (?:me|us)|clear up|answer)")
_WANT = r"(?:(?:like|want|wanted|wanting|hoping|hope|keen)(?: (?:me|us))? to|wanna)"
_PLACE = (r"(?:the|this|our) (?:role|job|team|company|position|firm|place|culture|day-to-day|ward"
          r"|school|store|office|shop|clinic|site|organisation|business|department|panel|hours"
          r"|people|manager)|us|working here")
FLOOR = re.compile(
    r"\b(?:any|more|other|further|final|last|burning|remaining|outstanding|some|a few)"
    r"(?: \w+)? (?:questions|qs|queries)\b|\bany (?:\w+ )?question\b"
    r"|\byour (?:own )?(?:questions|list)\b|\bwhat questions (?:do|would|can) you (?:have|got)\b"
    r"|\bquestions? (?:of your own|for (?:me|us)|you(?:'ve| have)? (?:brought|got)"
    r"|(?:have |has )?come up)\b|\bhave any for (?:me|us)\b|\byou have questions\?"
    r"|\b(?:what(?:'s| is| has)?|anything) (?:(?:else|still) )?"
    r"(?:on your (?:mind|end|side|list)|(?:come|came) up for you|unclear for you"
    r"|(?:are )?you(?:'re| are)? (?:curious|wondering) about)\b"
    r"|\b(?:anything|something|things|stuff) (?:else |at all |more )?(?:(?:that )?you(?:'d| would"
    r"|'ve been| were| have been)? " + _WANT + " " + _ASK + r"|i (?:haven't covered|can " + _ASK
    + r"|could " + _ASK + r"))\b|\b(?:anything|something) (?:else |at all )?about (?:" + _PLACE
    + r")\b|\banything (?:else |at all )?(?:(?:from|on) your (?:side|end)|from you|for (?:me|us))\b"
    r"|\bwhat (?:else |questions )?(?:can|could|should) i (?:answer|clarify|clear up|tell you)\b"
    r"|\buseful for you to know\b"
    r"|\bwhat (?:else )?(?:(?:do|would) )?(?:you|people) " + _WANT
    + r" (?:ask|dig into|find out|know|learn)\b|\bwhat you(?:'d| would) (?:want to )?ask\b"
    r"|\bplease,? ask\b"
    r"|^(?:do )?you have (?:any )?questions$"
    r"|\b(?:you(?:'ve)? )?(?:got|have|had|did you have) anything (?:for (?:me|us)|you wanted)\b"
    r"|\binterview (?:me|us)\b|\bturn the tables\b|\breverse interview\b|\bflip it\b"
    r"|\byou ask,? i answer\b|\bopen (?:it|the floor|things) (?:up )?to you\b"
    r"|\b(?:the )?floor(?:'s| is) (?:yours|all yours|open)\b|\ball ears\b"
    r"|\b(?:the )?(?:rest|last (?:bit|part|few minutes)|next \w+ minutes)(?: of (?:the|our) time)?"
    r" (?:is|are) (?:yours|for you)\b|\b(?:leave|give|make) (?:some )?(?:room|space|time) for"
    r" (?:your|the candidate's|anything)\b|\btime for your\b|\bquiz me\b"
    r"|\bask (?:me|us) (?:things|stuff|anything|any questions?)\b|\byou can ask\b"
    r"|\bfeel free to ask\b|^(?:what about you|yours|and you)$")
"""The wider family of hand-overs, tried only on a turn that sets no task and defers nothing
(:data:`NOT_NOW`): a request for the candidate's own questions in any words ("Any burning
questions?", "What's on your mind about the role?", "Anything I can clear up for you?",
"Interview me")."""
NOT_NOW = re.compile(
    r"\b(?:exercise|scenario|task|problem|dataset|data set|requirements|input|format|role-?play"
    r"|design|demo|lesson|case|brief|whiteboard|clarifying|(?:your|the|my) (?:answer|approach"
    r"|solution|code)|what i(?:'m| am) asking|what i want you to do|before (?:you|we) (?:begin"
    r"|start|present)|walk (?:me|us) through|first meeting|discovery call|a (?:new )?(?:client"
    r"|patient|customer)|so far about|as you go|at the end(?! of (?:my|our) (?:list|questions))"
    r"|we'll|we will|later|first let's)\b",
    re.I)
"""What sets the candidate a task or puts the questions off: then questions are about the
task, or not yet ("Any questions about the exercise?", "Over to you for the design", "We'll
leave time at the end for your questions")."""


def invitation_rule(turn: str | None) -> bool:
    """The rules alone: a question about the candidate's questions, or a hand-over idiom."""
    if not turn:
        return False
    said = sentences(turn)
    if any((s.is_question and INVITATION.search(s.core)) or HANDOVER.search(s.core)
           for s in said):
        return not NOT_NOW.search(turn)
    return not NOT_NOW.search(turn) and any(FLOOR.search(s.core) for s in said)


def invites_questions(turn: str | None) -> bool:
    """Whether ``turn`` hands the floor to the candidate's own questions (rules or model)."""
    if not turn:
        return False
    model = turn_labels(turn)
    return "invitation" in model or (
        invitation_rule(turn) and not overruled("turn", ["invitation"], turn))
