"""Whether an affirmative clause *asserts* that the candidate did or holds a thing.

:mod:`interviewsim.prep.polarity` sets aside what a clause denies or wishes. Named shapes do
not generalise: each new corpus phrases a hedge, a plan or an observation its own way ("my
employer has promised to put me on the course", "the buyer made the decisions"). So a clause
polarity keeps is held to a second, broader test before it may make a requirement FULL:

- no marker word anywhere in it (not only in front of the term) of negation, modality, plan
  or future, hedging, condition, learning, a lapsed or former state, observation or second-hand
  exposure, or private use (:data:`MARKERS`, words rather than phrases);
- its subject is the candidate: first person, or a headline with no other subject ("Led the
  ward audit"; "Three years as site manager"). A clause whose finite verb follows a subject
  that is not the candidate ("Signing the CRS was my supervisor's job", "the buyer made all
  the decisions") is someone else's.

A clause that fails is *qualified*: it may still support PARTIAL, never FULL. Precision comes
first; a false proof costs more than a false gap.
"""

from __future__ import annotations

import re

MARKERS: tuple[tuple[str, str], ...] = (
    ("negation", r"never|no|not|n't|nor|neither|none|lack\w*|unable|cannot|"
                 r"without(?!\s+(?:an?\s+|any\s+)?(?:single\s+)?(?:conditions?|restrictions?|"
                 r"endorsements?|a break|breaks|gaps?|lapses?|incidents?|errors?|complaints?|"
                 r"exceptions?|fail|interruptions?|supervision|"
                 r"issues?|problems?|prompting|being asked)\b)"),
    ("modality", r"would|could|might|may|should|perhaps|maybe|possibly|probably|hopefully|"
                 r"ideally|'d (?:be|like|love|need|want|have to|prefer|happily|gladly)|"
                 r"from scratch"),
    ("a wish or plan", r"hope\w*|plan(?:s|ned)? to|intend\w*|aim(?:s|ing)? to|want\w*|wish\w*|"
                       r"keen|eager|interest(?:ed)?|desire\w*|aspir\w*|goal|ambition"),
    ("a future step", r"will|'ll|shall|going to|upcoming|soon|future|promis\w*|next step|"
                      r"next (?:year|month|week|term|spring|summer|autumn|fall|winter|quarter|"
                      r"semester)(?!'s)|"
                      r"scheduled|booked|enrol\w*|enroll\w*|registered (?:for|to|on)|"
                      r"register(?:ed)? interest|registering|applied for|applying|pending|"
                      r"waiting|awaiting|offered|expect\w*"),
    ("learning", r"(?:am|'m|is|are|currently|now|still|been|started) (?:\w+ )?learning|"
                 r"learning (?:to|how)|studying|trainee|course(?:work)? (?:in|on) progress|"
                 r"working towards?|revising"),
    ("a lapsed or former state", r"lapsed?|lapses|expired|previously|formerly|once|used to|"
                                 r"no longer|out of date"),
    ("observation only", r"observ\w*|shadow(?:ed|ing)|watch(?:ed|ing|es)?|sat in|"
                         r"assist(?:ed|ing|s)?|helped|helping|supported|supporting|"
                         r"familiar\w*|exposure|exposed|aware\w*|read (?:about|up|of)|heard|"
                         r"overview|introduction|introductory|theory|theoretical|basics|basic|tried|"
                         r"opened|played with|dabbled|dipped into|touched on|glanced|"
                         r"rather than (?:\w+ ){0,2}(?:using|doing|working|running)|"
                         r"a name i know|know (?:it |them |of it )?(?:of|from|only)"),
    ("a condition", r"if|unless|whether"),
    ("outside work", r"hobby|hobbies|at weekends|spare time|personal|leisure|dissertation|"
                     r"thesis|coursework|lecturers?|society|club|"
                     r"(?:university|college|school|class) project"),
)
LIMITED = re.compile(r"\bonly (?:for|on|in|with|at|as|a|small|occasional|basic|briefly)\b|"
                      r"\b(?:a little|some exposure|basic knowledge|limited)\b|"
                      r"\b(?:conversational|intermediate|elementary|beginner|rusty|schoolboy|"
                      r"schoolgirl|(?:a )?working (?:level|knowledge) of (?:spoken|basic))\b",
                      re.I)
"""A use or a level short of the whole ("only for small jobs", "conversational in Spanish"):
a clause that says so supports PARTIAL at most."""


_MARKER = re.compile("|".join(f"(?P<m{i}>\\b(?:{words})\\b)" for i, (_, words)
                              in enumerate(MARKERS)), re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|we|we've|we're|me|myself)\b", re.I)
_POSSESSIVE = re.compile(r"\b(?:my|our)\b", re.I)
_AGENT = re.compile(
    r"\b(?:he|she|they|someone|somebody|others|supervisors?|managers?|buyers?|advis[eo]rs?|"
    r"employers?|colleagues?|team|leads?|consultants?|contractors?|vendors?|boss|directors?|"
    r"head|mentors?|seniors?|chemists?|engineers?|pharmacists?|doctors?|nurses?|"
    r"technicians?|accountants?|coordinators?|officers?|crew|department|office|staff|"
    r"predecessors?|\w{3,}(?:or|ist|ian|ant)s?)(?:'s)?\b", re.I)
"""Someone who may be the subject instead of the candidate: a role named, or a word formed as
one ("the chief instructor", "a periodontist", "the librarian", "our attendants")."""
_NOT_SUBJECT = re.compile(r"\b(?:as|with|to|for|alongside|under|among|of|at|and|like)\s+"
                          r"(?:\S+\s+){0,3}$", re.I)
"""An agent after one of these words is a role held or a partner, not the subject ("as site
manager", "with the lighting buyer")."""
_DETERMINED = re.compile(r"^(?:the|a|an|this|that|these|those)\s", re.I)
_FINITE = re.compile(
    r"\S\s+(?:was|were|is|are|has|had|did|does|made|makes|ran|runs|sat|sits|came|comes|took|"
    r"takes|kept|keeps|led|leads|signed|signs|decided|decides|handled|handles|owned|owns|"
    r"approved|approves|certified|certifies|wrote|writes|built|builds|belonged|belongs|"
    r"stayed|stays|remained|remains|went|goes|put|set|got|gave|brought|bought|sold|drove|found"
    r"|fitted|installed|commissioned|serviced)\b", re.I)
"""A finite verb after at least one word (a headline starts with its verb: "Led the audit")."""
_PAST = re.compile(r"\b[a-z]{2,}eed\b|\b[a-z]+[^e]ed\b", re.I)
"""Any regular past tense ("negotiated", "signed", "agreed"): a finite verb the closed list
above does not name. Only an agent *before* it is read as its subject."""
_ACTS = re.compile(r"\s+(?:\w+ly\s+)?(?:[a-z]{2,}ed|did|ran|led|"
                   r"(?:[a-z]{2,}(?<!s)s|does|runs|leads)\s+(?:the|a|an|all|our|my|his|her|their|its|it|them|this|that|these|those|"
                   r"every|each|any|most)\b)", re.I)
"""A verb right after an agent: it is that agent's act ("my team manager presents ...")."""


_COORDINATE = re.compile(
    r",?\s+(?:and|so|which|while)\s+(?=(?:i|we|he|she|they|it|our|my|his|her|their|the)\b)|"
    r",\s+(?=(?:so|which|who)\b)|"
    r"\s+(?=(?:so that|because|that|which|who|whom|where)\b)|"
    r",?\s+(?:after|before|following|prior to|followed by)\s+(?=(?:\w+|\d+)\s+(?:years?|"
    r"months?)\b)", re.I)
"""Where one clause ends and another with its own subject, purpose or relative starts ("I run
the huddle, and our shift has gone 14 months without an injury"; "… so that retries never
double-charge"; "a group that decided where sessions would run"), or a second spell of time
("three years as site manager after six years as an assistant"). The clauses of one sentence
are read together again for FULL; the cut only keeps a qualifier in one from the others."""


def coordinated(clause: str) -> list[str]:
    """``clause`` cut where a coordinated clause with its own subject begins."""
    return [part.strip(" ,") for part in _COORDINATE.split(clause) if part.strip(" ,")]


def marker(clause: str, own: frozenset[str] = frozenset()) -> str | None:
    """The first marker word in ``clause`` and its kind ("modality: 'could'"), or None; a
    marker that is part of ``own`` wording (word pairs of the requirement, "basic safety",
    "personal licence") names the thing asked for and qualifies nothing."""
    plain = clause.replace("\u2019", "'")
    for found in _MARKER.finditer(plain):
        if own and _in_own(plain, found.start(), found.end(), own):
            continue
        kind = MARKERS[int(next(k for k, v in found.groupdict().items() if v)[1:])][0]
        return f"{kind}: '{found.group(0)}'"
    return None


def word_pairs(text: str) -> frozenset[str]:
    """Adjacent word pairs of ``text`` in lower case ("gwo basic", "basic safety")."""
    words = re.findall(r"[\w'-]+", text.lower())
    return frozenset(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))


def _in_own(text: str, start: int, end: int, own: frozenset[str]) -> bool:
    before = re.findall(r"[\w'-]+", text[:start].lower())[-1:]
    after = re.findall(r"[\w'-]+", text[end:].lower())[:1]
    word = text[start:end].lower()
    pairs = [f"{w} {word}" for w in before] + [f"{word} {w}" for w in after]
    return any(pair in own for pair in pairs)


def someone_else(clause: str) -> bool:
    """The clause's finite verb has a subject that is not the candidate: no first person, and
    another agent in it ("was my supervisor's job", "the buyer made the decisions") or a
    thing as subject with nothing of the candidate's ("The audits were …"); or a regular past
    tense after another agent ("Our head of systems negotiated the contract")."""
    plain = clause.replace("\u2019", "'").strip()
    if _FIRST_PERSON.search(plain):
        return False
    agents = [m for m in _AGENT.finditer(plain) if not _NOT_SUBJECT.search(plain[:m.start()])]
    if _FINITE.search(plain):
        return bool(agents) or (not _POSSESSIVE.search(plain) and bool(_DETERMINED.match(plain)))
    if _PAST.match(plain):
        return False  # a headline that opens with its verb: "Managed five engineers and ..."
    agents = [m for m in agents if plain[m.end():m.end() + 1] != "-"]  # "nurse-driven"
    if any(_ACTS.match(plain, m.end()) for m in agents):
        return True  # "my team manager presents the analysis"
    verb = next((m for m in _PAST.finditer(plain) if m.start() > 0), None)
    return verb is not None and any(m.end() <= verb.start() for m in agents)


def qualification(clause: str, own: frozenset[str] = frozenset()) -> str | None:
    """Why ``clause`` supports at most PARTIAL (None: it asserts what it says); ``own``: word
    pairs of the requirement, whose markers are its wording (:func:`marker`)."""
    found = marker(clause, own)
    if found:
        return found
    return "someone else's work" if someone_else(clause) else None
