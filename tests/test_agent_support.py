"""Test doubles for the interview agent: a per-persona scripted model and a scripted candidate.

The model double answers through the production seam (``ModelHub`` + ``ScriptedProvider``):
each persona is recognised by its system prompt and answered from its own queue, then from a
deterministic default. ``scripted_model`` is the same double as a module attribute, so a
params.yaml can name it (``providers.local.script``) for command-line tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml

from interviewsim.agent.candidates import CandidateReply
from interviewsim.config.params import Params
from interviewsim.experiment import offline_responder
from interviewsim.experiment.offline_responder import action, score
from interviewsim.experiment.offline_responder import say as say  # for the tests
from interviewsim.llm import ModelHub
from interviewsim.llm.scripted import ScriptedProvider
from interviewsim.llm.types import ChatRequest

Response = str | Callable[[ChatRequest], str] | None
"""A queued response: text, a callable of the request, or None for the persona's default."""

TWIN_ANSWER = "I fired the anagama kiln for nine days with my neighbours."


def flag(excerpt: str, followup: str, priority: str, kind: str = "vague_answer") -> str:
    return action("flag_followup", flag_type=kind, answer_excerpt=excerpt,
                  suggested_followup=followup, priority=priority)


def transition(from_section: str, to_section: str, reason: str = "enough signal") -> str:
    return action("transition_section", from_section=from_section, to_section=to_section,
                  reason=reason, topics_covered=[])


def persona_of(request: ChatRequest) -> str:
    return offline_responder.persona_of(request.messages[0].content)


def default_response(persona: str, request: ChatRequest) -> str:
    """The offline model's agent answers (interviewsim/experiment/offline_responder.py); a
    twin always gives :data:`TWIN_ANSWER`."""
    if persona == "candidate":
        return TWIN_ANSWER
    return offline_responder.agent_answer(persona, [(m.role, m.content)
                                                    for m in request.messages])


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


def scripted_params_file(tmp_path: Path) -> Path:
    """A params.yaml whose ``local`` provider is :func:`scripted_model`, for command tests."""
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({
        "cache": {"path": str(tmp_path / "cache.sqlite"),
                  "embeddings_dir": str(tmp_path / "emb")},
        "providers": {"local": {"kind": "scripted",
                                "script": "tests.test_agent_support:scripted_model"}},
    }), encoding="utf-8")
    return path


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
