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

from interviewsim.agent.language_model import turn_labels
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


def invitation_rule(turn: str | None) -> bool:
    """The rules alone: a question about the candidate's questions, or a hand-over idiom."""
    if not turn:
        return False
    return any((s.is_question and INVITATION.search(s.core)) or HANDOVER.search(s.core)
               for s in sentences(turn))


def invites_questions(turn: str | None) -> bool:
    """Whether ``turn`` hands the floor to the candidate's own questions (rules or model)."""
    return bool(turn) and (invitation_rule(turn) or "invitation" in turn_labels(turn))
