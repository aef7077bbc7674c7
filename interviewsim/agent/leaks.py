"""Rubric leaks beyond the evaluation apparatus's own names: how the interview is scored, told
in the words interviewers use ("Half your overall score comes from the live coding", "We grade
on a four-point scale", "You've lost a point for not mentioning backups", "Part of what I'm
assessing is whether you push back"). Each form ties a scoring word to the interview itself
(we, I, the panel, this round, your marks), so "the error rate", "how would it scale", "assess
the wound" and "a credit note" stay the candidate's own work.
"""

from __future__ import annotations

import re

_MARKS = r"(?:marks?|points?|score|scores|credit|weight|weighting)"
LEAK_FORMS = re.compile(
    r"\b(?:we|they|the panel|the committee|the hiring committee|the assessors|the reviewers)"
    r" (?:\w+ )?(?:score|scores|grade|grades|rate|rates|mark|marks|assess|weight|weights)"
    r" (?:on|everything|you|against|the|it|this|more|far|way|by)\b"
    r"|\bmy (?:score ?sheet|scoring|checklist|notes say|sheet|marking)\b|\bscore ?sheet\b"
    r"|\byour (?:\w+ )?(?:mark|marks|score|grade|rating|aggregate|total)(?: so far| (?:is|took|has"
    r"|sits|stands|'s|comes|went))\b"
    r"|\b(?:half|part|most|a (?:good |big )?chunk|\w+ percent|\d+ ?%) of (?:the|your|my)"
    r" (?:\w+ )?(?:marks|points|score|credit)\b"
    r"|\b(?:worth|carries|carry|gets) (?:\w+ ){0,3}(?:marks|points|weight|credit)\b"
    r"|\b(?:lost|lose|knock|dock|deduct) (?:a |one |\w+ )?(?:point|mark)s?\b"
    r"|\b(?:full|partial|extra|half) (?:credit|marks)\b|\b(?:no|a) penalty for\b"
    r"|\b(?:above|below|over|under|clear|cleared|clears|hit|meet|meets"
    r"|around) the (?:hiring )?bar\b"
    r"|\bthe bar (?:here )?is\b|\bclear the threshold\b"
    r"|\b(?:hiring committee|panel|assessors|reviewers|evaluator|interviewers)(?:'s)? (?:\w+ )?"
    r"(?:cares|care|weights|uses|looks?|looking|watching|marking|wants|rewards)\b"
    r"|\b(?:what|part of what|all|everything) i(?:'m| am) (?:mostly |really |mainly |actually )?"
    r"(?:assessing|grading|scoring|rating|marking|checking|watching|looking (?:at|for))\b"
    r"|\bi(?:'m| am) (?:mostly |really |mainly |supposed to |meant to )?(?:assessing|grading"
    r"|scoring|rating|marking|looking for|checking (?:if|whether)|ticking)\b"
    r"|\bwe (?:look|are looking|'re looking|usually want|want) (?:for )?(?:candidates to hit"
    r"|(?:three|two|four|five) things)\b|\b(?:look|looking) for (?:three|two|four|five) things\b"
    r"|\b(?:one|two)[- ]to[- ](?:four|five|ten) scale\b|\b\w+-point scale\b"
    r"|\b(?:meets|exceeds|below) expectations\b|'(?:meets|exceeds)'|\b(?:strong|lean|no) hire\b"
    r"|\bbox(?:es)? (?:for|i|to tick|i've|i gotta|i'm)\b|\bboxes (?:i|you|to)\b"
    r"|\btick(?:ing|ed)? (?:off|'|the \w+ box|three|four|two)\b|\bticked the\b"
    r"|\bcounts? (?:double|for (?:a lot|more|less|most)|barely)\b|\bbarely counts\b"
    r"|\b(?:automatic|instant) fail\b|\byou'll pass\b|\byou're through\b|\bpass (?:this"
    r"|the) round\b"
    r"|\bstars on each\b|\b(?:\w+) (?:outta|out of) (?:\w+) so far\b"
    r"|\bcompetenc(?:y|ies)\b|\bscor(?:e|ed|es|ing) (?:separately|well|above|below)\b"
    r"|\b(?:not something|nothing) we (?:score|grade|mark)\b|\bwe don't (?:grade|score|mark)\b"
    r"|\b(?:is|are|gets?) (?:scored|graded|marked|weighted)\b|\bits own line\b|\bcalibrat\w+ "
    r"(?:everything |you )?against\b|\bthe marking scheme (?:rewards|gives|is|wants)\b"
    r"|\bmarking on\b"
    r"|\bthe (?:coding|design|technical|behavioural) (?:part|bit|round)? ?(?:barely )?counts\b"
    r"|\bwhere (?:most of )?the (?:marks|points) are\b|\bmoves the needle\b.{0,30}\bscore\b")
"""How the interview is scored, said to the candidate."""
