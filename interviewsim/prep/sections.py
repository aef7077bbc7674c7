"""A posting read as its author wrote it: sections, list items, paragraphs and sentences.

What a posting asks for is in its requirements and duties; its benefits, its company blurb and
its application instructions are not requirements, and a candidate told to "prepare" a salary
is misled. So the posting is cut into blocks (a list item, with its wrapped continuation lines;
a paragraph, hard-wrapped lines joined), each block carries the kind of the section it sits in
(from the heading above it), and prose is split into sentences that are classified by their own
wording when no heading says what they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

SectionKind = Literal["requirements", "nice", "duties", "benefits", "company", "apply", "other"]

LIST_MARKER = re.compile(r"^\s*(?:[-*+\u2022\u2023\u25e6\u2013\u25aa\u25cf]|\(?\d{1,2}[.)]"
                         r"|\(?[a-z][.)])\s+")
_MARKDOWN = re.compile(r"^[#>\s]+|[*_`]+")
_TERMINAL = (".", "!", "?", ";", ":")
_HEADING_WORDS = 9

# A section's kind from its heading's words; the first kind with a hit wins (so "preferred
# qualifications" is nice-to-have before it is a qualification).
_HEADING_CUES: tuple[tuple[SectionKind, tuple[str, ...]], ...] = (
    ("apply", ("apply", "application", "how to", "next step", "process", "equal opportunit",
               "eeo", "contact")),
    ("benefits", ("benefit", "offer", "perk", "compensation", "salary", "pay ", "package",
                  "what's in it", "what’s in it", "why join", "why you'll love", "we provide",
                  "rewards")),
    ("nice", ("nice to have", "nice-to-have", "nice to haves", "bonus", "preferred", "desirable",
              "plus", "ideally", "good to have", "extra", "optional", "advantage")),
    ("requirements", ("requirement", "qualification", "must", "what you bring", "what you'll bring",
                      "about you", "who you are", "you have", "skill", "looking for", "profile",
                      "essential", "required", "background", "what you need", "you will need",
                      "you'll need", "ideal candidate", "experience", "competenc", "criteria")),
    ("duties", ("responsibilit", "what you'll do", "what you will do", "what you’ll do",
                "the role", "duties", "your day", "day to day", "day-to-day", "tasks",
                "in this role", "mission", "doing", "the job", "your work", "role")),
    ("company", ("about us", "who we are", "about the company", "company", "our team",
                 "the team", "culture", "values", "about ", "story")),
)

_SENTENCE_CUES: tuple[tuple[SectionKind, re.Pattern[str]], ...] = (
    ("apply", re.compile(r"\b(apply|applications?|send (us )?your|submit|cover letter|cv\b|"
                         r"r[eé]sum[eé]|interview process|equal opportunity|look forward to)",
                         re.I)),
    ("benefits", re.compile(r"\b(we offer|salary|401\(k\)|pension|paid time off|pto\b|vacation|"
                            r"(?:paid|bank|public|national) holidays?|holidays? (?:a|per) year|"
                            r"health insurance|dental (?:insurance|cover(?:age)?|plans?|care|"
                            r"benefits?)|(?:health|medical),? (?:and )?dental|stock options|"
                            r"equity|parental "
                            r"leave|per (year|annum|hour)|compensation|benefits?|perks?|"
                            r"allowance|you('ll| will) (get|receive|enjoy)|we provide)\b", re.I)),
    ("nice", re.compile(r"(nice to have|nice-to-have|a plus\b|an advantage|a bonus|bonus points|"
                        r"\bpreferred\b|\bideally\b|\bdesirable\b|\bwelcome\b|would be great)",
                        re.I)),
    ("requirements", re.compile(r"\b(you have|you bring|you've|you hold|you are|you're|you can|"
                                r"experience|years?|knowledge|proficien|familiar|degree|certif|"
                                r"licen[cs]e|must|required?|requires|ability|able to|skills?|"
                                r"fluen|comfortable|background in|track record|understanding|"
                                r"looking for|we (?:also )?need|someone who can|should|expertise|"
                                r"qualified|registered)",
                                re.I)),
    ("duties", re.compile(r"\b(you will|you'll|you’ll|responsible for|in this role|your job|"
                          r"you would|day-to-day|you own|you lead)\b", re.I)),
    ("company", re.compile(r"^(we are|we're|founded|our (mission|team|company|customers)|"
                           r"since \d{4})\b", re.I)),
)

_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|incl|approx|vs|dr|mr|ms|st|no|u\.s|nr|ca)\.$",
                           re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"'“(]?[A-Z0-9])")


@dataclass(frozen=True)
class Block:
    """One list item or one paragraph, its lines joined, under a section of ``kind``."""

    text: str
    kind: SectionKind
    listed: bool


def heading_kind(text: str) -> SectionKind | None:
    """The section a heading opens, or None when its words name none we know."""
    words = f" {_MARKDOWN.sub(' ', text).strip().rstrip(':').casefold()} "
    return next((kind for kind, cues in _HEADING_CUES if any(cue in words for cue in cues)),
                None)


def _plain(line: str) -> str:
    return _MARKDOWN.sub("", line).strip()


def is_heading(line: str) -> bool:
    """A markdown heading, a short line ending in a colon, a bold or capitalised short line, or
    a known heading's words on a line of their own."""
    stripped = line.strip()
    plain = _plain(stripped)
    if not plain or LIST_MARKER.match(stripped):
        return False
    words = len(plain.split())
    if stripped.startswith("#"):
        return True
    if plain.endswith(":") and words <= 2 * _HEADING_WORDS:
        return True
    short = words <= _HEADING_WORDS and not plain.endswith(_TERMINAL[:3])
    if short and (stripped.startswith(("**", "__")) or plain.isupper()):
        return True
    return short and words <= 5 and heading_kind(plain) is not None and plain[:1].isupper()


def _wrap_width(lines: list[str]) -> int:
    lengths = sorted(len(line.rstrip()) for line in lines if line.strip())
    return lengths[int(0.9 * (len(lengths) - 1))] if lengths else 0


def _continues(previous: str, following: str, width: int) -> bool:
    """Whether ``following`` is a hard-wrapped continuation of ``previous``."""
    first = following.strip()[:1]
    if previous.rstrip().endswith(_TERMINAL):
        return False
    return first.islower() or len(previous.rstrip()) >= 0.6 * width


def _inline_heading(line: str) -> tuple[SectionKind, str] | None:
    """``Must have: Python and SQL`` — a heading and its first item on one line."""
    head, sep, rest = _plain(line).partition(":")
    if not sep or not rest.strip() or len(head.split()) > 4:
        return None
    kind = heading_kind(head)
    return (kind, rest.strip()) if kind else None


_RUN_IN = re.compile(r"^([A-Z][A-Z'’&/ -]{2,}[A-Z])[.:]\s+(?=\S)")
"""``THE POSITION. The Operator II runs …``: a capitalised run-in heading opening a paragraph."""


def _run_in_heading(line: str) -> tuple[SectionKind, str] | None:
    match = _RUN_IN.match(line.strip())
    if not match or len(match.group(1).split()) > 6:
        return None
    return heading_kind(match.group(1)) or "other", line.strip()[match.end():]


def _section_after(kind: SectionKind, heading: str) -> SectionKind:
    """A heading whose words name no kind ends a benefits, apply or company section only."""
    return heading_kind(heading) or ("other" if kind in ("benefits", "apply", "company")
                                     else kind)


def blocks(posting: str) -> Iterator[Block]:
    """The posting's list items and paragraphs, in order, each with its section's kind.

    A ``Key: value`` line (``Salary band: PW-7``) is a field: its kind holds for its own
    block and the list items right under it, never for the rest of the posting.
    """
    lines = posting.splitlines()
    width = _wrap_width(lines)
    kind: SectionKind = "other"
    field: SectionKind | None = None
    current: list[str] = []
    listed = False

    def flush() -> Iterator[Block]:
        if current:
            yield Block(" ".join(part.strip() for part in current), field or kind, listed)
        current.clear()

    for line in lines:
        if not line.strip():
            yield from flush()
            field = None
            continue
        if is_heading(line):
            yield from flush()
            kind, field = _section_after(kind, line), None
            continue
        run_in = _run_in_heading(line) if not LIST_MARKER.match(line) else None
        if run_in:
            yield from flush()
            field = None
            kind = run_in[0] if run_in[0] != "other" else _section_after(kind, "")
            current.append(run_in[1])
            listed = False
            continue
        inline = _inline_heading(line) if not LIST_MARKER.match(line) else None
        if inline:
            yield from flush()
            field, rest = inline
            current.append(rest)
            listed = True
            continue
        if LIST_MARKER.match(line):
            yield from flush()
            current.append(LIST_MARKER.sub("", line, count=1))
            listed = True
            continue
        if current and _continues(current[-1], line, width):
            current.append(line)
            continue
        yield from flush()
        current.append(line)
        listed = False
    yield from flush()


def sentences(text: str) -> list[str]:
    """A paragraph's sentences, verbatim; a full stop after an abbreviation ends none."""
    found: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        candidate = text[start:match.start()].strip()
        if _ABBREVIATION.search(candidate):
            continue
        if candidate:
            found.append(candidate)
        start = match.end()
    tail = text[start:].strip()
    return [*found, tail] if tail else found


_ASKED_OF_YOU = re.compile(
    r"\b(?:you|the (?:ideal |successful )?(?:candidate|person|applicant)(?: we(?:'re|’re| are) "
    r"looking for)?)\s+(?:must|should|will need to|need to|(?:will |'ll |’ll )?(?:be )?expected "
    r"to)\b|\byou(?:'ll|’ll| will)? (?:must |should )?(?:be|have|feel) (?:comfortable|"
    r"confident|able|experienced|familiar|fluent|proficient|happy)\b", re.I)
"""What is asked of the candidate, whatever the words after it ("You must be comfortable
submitting payroll returns", "You should be confident calculating statutory leave payments"):
a requirement, though its subject is pay, leave or an application."""
_GIVEN = re.compile(r"\b(?:we offer|we provide|you(?:'ll|’ll| will) (?:get|receive|enjoy)|"
                    r"gives? (?:you|everyone|all|every|each|staff|our))\b", re.I)
"""What the employer gives: a benefit, whatever else the sentence names."""
_NICE_CUE = dict(_SENTENCE_CUES)["nice"]
_NICE_IF = re.compile(r"\b(?:(?:would be|is) a (?:real |big )?(?:bonus|plus)|bonus points)\b",
                      re.I)


def sentence_kind(sentence: str) -> SectionKind:
    """What a sentence is by its own wording: what the employer gives is a benefit, what is
    asked of the candidate a requirement (a nice-to-have when a bonus), else the first cue
    that fires, else ``other``."""
    if _GIVEN.search(sentence):
        return "benefits"
    if _NICE_IF.search(sentence):
        return "nice"
    if _ASKED_OF_YOU.search(sentence):
        return "nice" if _NICE_CUE.search(sentence) else "requirements"
    return next((kind for kind, cue in _SENTENCE_CUES if cue.search(sentence)), "other")
