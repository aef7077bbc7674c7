"""A capable model behind the language layer: the fallback for what the rules cannot see.

The rules know constructions and the n-gram models know the corpus's writers; a new writer's
paraphrases get past both (docs/AGENT.md, "Reading what was said"). When ``agent.yaml`` names
a ``language_fallback`` model, each interviewer turn and each candidate reply is also put to
it, once, as one JSON question: which of the classes below does this text carry? What the
model's reading is final (round 16, docs/AGENT.md): a turn's guardrails and a reply's
signals are the labels it gives, and whether a turn invites the candidate's questions is its
reading too (the code keeps a rubric id it finds leaked verbatim, drops a hint request after an
invitation and counts a closer only after one). An output that never parses leaves the text to
the rules and the encoder.

The embedded SmolLM2-135M is refused as the fallback (``interviewsim.llm.capability``):
asked this question it answers yes almost everywhere (precision equal to the base rate, issue
#34). Whether a model is good enough is measured, not assumed: ``python -m
interviewsim.agent.language_eval CORPUS --fallback`` scores the layer with it on every split.
Calls go through the model seam, so they are cached like any other and a replay asks nothing
again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from interviewsim.agent.language_model import REPLY_LABELS, TURN_LABELS
from interviewsim.errors import ParseError
from interviewsim.llm.asking import Ask, AskingClient, AskTask
from interviewsim.llm.relay import AwaitingAnswers
from interviewsim.llm.types import Message, OutputConstraint

GUARDRAIL_LABELS = tuple(label for label in TURN_LABELS if label != "invitation")
TURN_ASKED = ("invitation", *GUARDRAIL_LABELS)
"""What the fallback is asked of a turn: its guardrails, and whether it invites questions."""
MAX_ATTEMPTS = 2

TURN_CLASSES = {
    "invitation": "hands the floor to the candidate to ask their own questions (about the "
                  "role, the team or the employer), now; a question about a task, or a "
                  "promise of time later, is not one",
    "praise": "tells the candidate that their answer, or they, are good, right or impressive "
              "(a verdict given away, a favourable comparison, a grade-like compliment)",
    "dismissive": "tells the candidate that their answer, or they, are wrong, poor or silly, "
                  "or belittles them (sarcasm, impatience, contempt)",
    "hint": "gives away part of a solution or steers the candidate toward an approach, "
            "technique, fact or mistake to notice",
    "rubric_leak": "reveals how the candidate is scored: criteria, weights, the scale, a "
                   "score, points, pass marks, what does or does not count",
    "off_limits": "raises pay, benefits, perks, headcount, other candidates or the timing of "
                  "an offer or decision, in any person",
    "multiple_questions": "asks two or more separate questions in the one turn",
    "restating": "sums up or restates the candidate's own answer back to them",
}
REPLY_CLASSES = {
    "hint_request": "asks for help toward the answer: a pointer, whether they are on the "
                    "right track, a guess put for confirmation",
    "progress_question": "asks how they are doing or how they are being assessed",
    "no_more_questions": "says, after being invited to ask questions, that they have none",
    "off_limits": "asks about pay, benefits, perks, leave, the offer, headcount or the other "
                  "candidates",
    "upset": "says they feel distressed, anxious, overwhelmed, humiliated or offended right "
             "now, in this interview",
}

_SYSTEM = (
    "You label one utterance from a job interview. Decide each class on its own, from the "
    "utterance's meaning in context, not from its keywords: a class mentioned, quoted, denied, "
    "or told as a past story is not carried. Most utterances carry no class at all. Reply with "
    'JSON only: {"labels": [...]}, listing the classes the utterance carries (an empty list '
    "when none)."
)


def _schema(labels: Sequence[str]) -> OutputConstraint:
    return OutputConstraint(kind="json_schema", name="labels", json_schema={
        "type": "object", "additionalProperties": False, "required": ["labels"],
        "properties": {"labels": {"type": "array", "uniqueItems": True,
                                  "items": {"type": "string", "enum": list(labels)}}}})


def _parser(labels: Sequence[str]):
    allowed = set(labels)

    def parse(text: str) -> frozenset[str]:
        try:
            data = json.loads(text.strip())
        except json.JSONDecodeError as exc:
            raise ParseError(f"not JSON: {exc}") from None
        found = data.get("labels") if isinstance(data, dict) else None
        if not isinstance(found, list) or not all(isinstance(x, str) for x in found):
            raise ParseError('expected {"labels": [class names]}')
        unknown = sorted(set(found) - allowed)
        if unknown:
            raise ParseError(f"unknown classes {unknown}; allowed: {sorted(allowed)}")
        return frozenset(found)

    return parse


def _classes(glosses: dict[str, str]) -> str:
    return "\n".join(f"- {name}: the speaker {gloss}" for name, gloss in glosses.items())


def turn_messages(text: str) -> list[Message]:
    return [Message(role="system", content=_SYSTEM),
            Message(role="user", content=(
                f"Classes of an interviewer's turn:\n{_classes(TURN_CLASSES)}\n\n"
                f"The interviewer said:\n{text}"))]


def reply_messages(text: str, after: str | None, invited: bool) -> list[Message]:
    context = (f"The interviewer had said:\n{after}\n"
               f"({'an' if invited else 'not an'} invitation to ask questions)\n\n"
               if after else "")
    return [Message(role="system", content=_SYSTEM),
            Message(role="user", content=(
                f"Classes of a candidate's reply:\n{_classes(REPLY_CLASSES)}\n\n"
                f"{context}The candidate replied:\n{text}"))]


Key = tuple[str, str, str | None, bool]
"""(kind, text, the turn a reply answers, whether that turn invited questions)."""


class LanguageFallback:
    """Asks the configured model which classes a turn or reply carries; answers are kept, so
    each text is asked once per session (and the cache makes a replay ask nothing)."""

    def __init__(self, client: AskingClient):
        self.client = client
        self._turns = AskTask(parse=_parser(TURN_ASKED), constraints=(_schema(TURN_ASKED),))
        self._replies = AskTask(parse=_parser(REPLY_LABELS), constraints=(_schema(REPLY_LABELS),))
        self._known: dict[Key, frozenset[str] | None] = {}
        self.invalid = 0
        """Texts whose outputs never parsed (left to the rules and the n-gram models)."""

    def prefetch(self, keys: Iterable[Key], desc: str = "language fallback") -> None:
        """Ask for many texts at once (one batch per attempt), e.g. a whole corpus."""
        todo = list(dict.fromkeys(k for k in keys if k not in self._known))
        waiting: AwaitingAnswers | None = None
        for kind, task in (("turn", self._turns), ("reply", self._replies)):
            mine = [k for k in todo if k[0] == kind]
            if not mine:
                continue
            asks = [Ask(messages=turn_messages(k[1]) if kind == "turn"
                        else reply_messages(k[1], k[2], k[3])) for k in mine]
            try:
                outcomes = task.run(self.client, asks, MAX_ATTEMPTS, desc)
            except AwaitingAnswers as exc:  # a relayed model: queue the replies' asks too
                waiting = exc
                continue
            for key, outcome in zip(mine, outcomes, strict=True):
                self._known[key] = outcome.value
                self.invalid += outcome.value is None
        if waiting is not None:
            raise waiting

    def _labels(self, key: Key) -> frozenset[str] | None:
        if key not in self._known:
            self.prefetch([key])
        return self._known[key]

    def turn(self, text: str) -> frozenset[str] | None:
        """The guardrail classes the model reads in an interviewer turn; None: no valid answer."""
        labels = self._labels(("turn", text, None, False))
        return None if labels is None else labels - {"invitation"}

    def invites(self, text: str) -> bool | None:
        """Whether the model reads the turn as handing the floor to the candidate's own
        questions; None: no valid answer."""
        labels = self._labels(("turn", text, None, False))
        return None if labels is None else "invitation" in labels

    def reply(self, text: str, after: str | None, invited: bool) -> frozenset[str] | None:
        """The signal classes the model reads in a reply; None: no valid answer."""
        return self._labels(("reply", text, after, invited))
