"""The test double: a deterministic provider whose answers come from rules or a callable.

It goes through the same hub, cache and usage accounting as a real model, so a unit or pipeline
test exercises the production path. Rules are ``(regex, response)`` pairs; the first rule whose
regex matches the last user message answers, and if none does, the first that matches the whole
prompt (every message, joined by newlines). A response is a string or ``callable(request) -> str``.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence

from interviewsim.errors import ConfigError, Problem, ProviderError
from interviewsim.llm.provider import Provider, estimate_prompt_tokens
from interviewsim.llm.types import ChatRequest, ChatResult, Usage
from interviewsim.text.tokens import estimate_tokens

Responder = Callable[[ChatRequest], str]
Rule = tuple[str | re.Pattern[str], str | Responder]
Script = Responder | Sequence[Rule]


def _last_user_message(request: ChatRequest) -> str:
    return next((m.content for m in reversed(request.messages) if m.role == "user"), "")


class ScriptedProvider(Provider):
    """Answers from a script; records every request it answers in :attr:`calls`."""

    kind = "scripted"
    supports_json_schema = True
    supports_grammar = True

    def __init__(self, script: Script, name: str = "injected"):
        self.name = name
        self.calls: list[ChatRequest] = []
        if callable(script):
            self._responder: Responder | None = script
            self._rules: list[tuple[re.Pattern[str], str | Responder]] = []
        else:
            self._responder = None
            self._rules = [(re.compile(pattern), response) for pattern, response in script]

    @classmethod
    def from_reference(cls, reference: str) -> ScriptedProvider:
        """Build from ``module:attribute`` naming a callable or a rule list (params.yaml form)."""
        module_name, _, attribute = reference.partition(":")
        try:
            script = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError, ValueError) as exc:
            raise ConfigError(
                [Problem("params.yaml", "providers.*.script", f"cannot load {reference!r}: {exc}")]
            ) from None
        return cls(script, name=reference)

    def identity(self, model: str) -> dict[str, str]:
        return {"kind": self.kind, "script": self.name, "model": model}

    def _respond(self, request: ChatRequest) -> str:
        if self._responder is not None:
            return self._responder(request)
        prompt = "\n".join(m.content for m in request.messages)
        for text in (_last_user_message(request), prompt):
            for pattern, response in self._rules:
                if pattern.search(text):
                    return response(request) if callable(response) else response
        raise ProviderError(
            f"scripted provider {self.name!r}: no rule matches the prompt "
            f"(last user message starts {_last_user_message(request)[:80]!r})"
        )

    async def complete(self, model: str, request: ChatRequest) -> ChatResult:
        self.calls.append(request)
        text = self._respond(request)
        usage = Usage(
            prompt_tokens=estimate_prompt_tokens(request),
            completion_tokens=estimate_tokens(text),
        )
        return ChatResult(text=text, finish_reason="stop", usage=usage, model=model)
