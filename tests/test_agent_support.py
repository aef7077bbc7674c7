"""Test doubles for the interview agent: a per-persona scripted model and a scripted candidate.

The model double answers through the production seam (``ModelHub`` + ``ScriptedProvider``):
each persona is recognised by its system prompt and answered from its own queue, then from a
deterministic default. ``scripted_model`` is the same double as a module attribute, so a
params.yaml can name it (``providers.local.script``) for command-line tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from interviewsim.agent.candidates import CandidateReply
from interviewsim.experiment.params import Params
from interviewsim.llm import ModelHub
from interviewsim.llm.scripted import ScriptedProvider
from interviewsim.llm.types import ChatRequest

Response = str | Callable[[ChatRequest], str] | None
"""A queued response: text, a callable of the request, or None for the persona's default."""

SECTION_AREAS = {
    "WARM_UP": "background",
    "TECHNICAL_DEEP_DIVE": "distributed_systems",
    "SYSTEM_DESIGN": "system_design",
    "BEHAVIORAL": "collaboration",
    "TOPICS": "experience",
    "FOLLOW_UPS": "views",
}
FEEDBACK = json.dumps({
    "what_worked": "You named the quorum size you used.",
    "what_to_improve": "The trade-off came late.",
    "how_to_improve": "Lead with the trade-off, then the numbers.",
})
TWIN_ANSWER = "I fired the anagama kiln for nine days with my neighbours."


def action(name: str, **arguments: object) -> str:
    return json.dumps({"action": name, "arguments": arguments})


def say(text: str) -> str:
    return action("say", text=text)


def score(accuracy: int, clarity: int, depth: int, relevance: int, area: str,
          summary: str = "answered") -> str:
    return action("score_answer", technical_accuracy=accuracy, communication_clarity=clarity,
                  depth_of_reasoning=depth, relevance=relevance, rubric_area=area,
                  answer_summary=summary, notable_observations="")


def flag(excerpt: str, followup: str, priority: str, kind: str = "vague_answer") -> str:
    return action("flag_followup", flag_type=kind, answer_excerpt=excerpt,
                  suggested_followup=followup, priority=priority)


def transition(from_section: str, to_section: str, reason: str = "enough signal") -> str:
    return action("transition_section", from_section=from_section, to_section=to_section,
                  reason=reason, topics_covered=[])


def persona_of(request: ChatRequest) -> str:
    system = request.messages[0].content
    if system.startswith("You are Morgan"):
        return "interviewer"
    if system.startswith("You are a silent evaluator"):
        return "evaluator"
    if system.startswith("You are Sam"):
        return "coach"
    return "candidate"


def _section(request: ChatRequest, pattern: str) -> str:
    text = "\n".join(m.content for m in request.messages[:2])
    match = re.search(pattern, text)
    return match.group(1) if match else "WARM_UP"


def default_response(persona: str, request: ChatRequest) -> str:
    if persona == "interviewer":
        section = _section(request, r"Current section: ([A-Z_]+)")
        asked = sum(1 for m in request.messages if m.role == "assistant")
        return say(f"Question {asked + 1} on {section.lower().replace('_', ' ')}: "
                   "how did you approach it?")
    if persona == "evaluator":
        section = _section(request, r"Section: ([A-Z_]+)")
        return score(6, 7, 5, 8, SECTION_AREAS.get(section, "background"))
    if persona == "coach":
        return FEEDBACK
    return TWIN_ANSWER


class PersonaScript:
    """A responder: per-persona queues first, then :func:`default_response`."""

    def __init__(self, **queues: list[Response]):
        self.queues = {persona: list(items) for persona, items in queues.items()}
        self.requests: list[tuple[str, ChatRequest]] = []

    def __call__(self, request: ChatRequest) -> str:
        persona = persona_of(request)
        self.requests.append((persona, request))
        queue = self.queues.get(persona)
        item = queue.pop(0) if queue else None
        if item is None:
            return default_response(persona, request)
        return item(request) if callable(item) else item


def scripted_model(request: ChatRequest) -> str:
    """The defaults alone, for a params.yaml ``providers.local.script`` reference."""
    return default_response(persona_of(request), request)


def make_hub(tmp_path: Path, script: Callable[[ChatRequest], str],
             params: Params | None = None) -> ModelHub:
    """A hub whose ``local`` provider is the script, with a private response cache."""
    params = params or Params.model_validate({"cache": {"path": str(tmp_path / "cache.sqlite")}})
    return ModelHub(params.hub, provider_overrides={"local": ScriptedProvider(script)})


class ScriptedCandidate:
    """Replies from a list (then a fixed answer); records what it was asked."""

    kind = "scripted"

    def __init__(self, replies: list[str], default: str = "I would shard by customer id and "
                 "replicate each shard three ways across zones."):
        self.replies = list(replies)
        self.default = default
        self.asked: list[str] = []
        self.heard: list[tuple[str, str]] = []

    def answer(self, utterance: str) -> CandidateReply:
        self.asked.append(utterance)
        return CandidateReply(text=self.replies.pop(0) if self.replies else self.default)

    def hear(self, speaker: str, text: str) -> None:
        self.heard.append((speaker, text))


def fidelity_model(request: ChatRequest) -> str:
    """The defaults, except that the evaluator rates the real held-out answers of
    ``tests.factories.make_doc`` ("... the kiln ran N hours") 8 on every dimension."""
    persona = persona_of(request)
    if persona == "evaluator" and "the kiln ran" in request.messages[1].content:
        return score(8, 8, 8, 8, "experience")
    return default_response(persona, request)
