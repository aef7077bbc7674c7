"""A model reached through two files: requests go out to one, answers come back in another.

Some models cannot be called from the machine that runs the experiment: no network, no key, a
model on another machine, a person. The relay provider lets such a model answer through the
same seam as any endpoint. A run writes every request the answers file does not hold to the
requests file (JSON Lines, one ``{"key", "model", "messages", "constraint", "max_tokens"}`` a
line, sorted by key, merged with what was already waiting) and stops with
:class:`AwaitingAnswers` (exit 2) naming both files; whoever answers appends
``{"key", "text"}`` lines to the answers file, and the rerun reads them. A step that depends
on an earlier answer (a re-ask, a second stage) shows up in the next round of requests.

Answers pass through the client like any model's: parsed, validated, gated and cached, so
the relay measures the project's own prompts, parsers and gates with whatever model answered.
The ``answerer`` label is part of the cache identity, so two answerers never share entries. An
answer longer than the request's ``max_tokens`` is cut there (finish reason ``length``), as
an endpoint would cut it. Committed with its answers file, a relayed run replays anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from interviewsim.config.settings import RelayProviderSettings
from interviewsim.data.jsonio import read_jsonl, write_jsonl_atomic
from interviewsim.errors import InputError, Problem, ProviderError
from interviewsim.llm.cache import cache_key
from interviewsim.llm.provider import Provider, estimate_prompt_tokens
from interviewsim.llm.types import ChatRequest, ChatResult, Usage
from interviewsim.text.tokens import estimate_tokens

CHARS_PER_TOKEN = 4
"""How :func:`estimate_tokens` counts; an over-long answer is cut at ``max_tokens`` of these."""


class AwaitingAnswers(ProviderError):
    """Requests were written to the relay's requests file and wait for answers there."""

    def __init__(self, waiting: int, requests: Path, answers: Path):
        self.waiting = waiting
        self.requests = requests
        self.answers = answers
        super().__init__(
            f"{waiting} requests wait for answers in {requests}: append one "
            f'{{"key", "text"}} line per request to {answers} and rerun')


def request_record(key: str, model: str, request: ChatRequest) -> dict:
    """One line of the requests file: what the answerer needs, and the key to answer under."""
    return {"key": key, "model": model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "constraint": request.constraint.model_dump() if request.constraint else None,
            "max_tokens": request.max_tokens}


class RelayProvider(Provider):
    """Answers from the answers file; what it lacks goes to the requests file."""

    kind = "relay"
    supports_json_schema = True

    def __init__(self, settings: RelayProviderSettings, name: str):
        self.name = name
        self.settings = settings
        self.requests_path = Path(settings.requests)
        self.answers_path = Path(settings.answers)

    def identity(self, model: str) -> dict[str, str]:
        return {"kind": self.kind, "answerer": self.settings.answerer, "model": model}

    def answers(self) -> dict[str, str]:
        """The answers file by key (empty when it does not exist yet); a line that is not
        ``{"key", "text"}`` names the file and the line."""
        if not self.answers_path.exists():
            return {}
        found: dict[str, str] = {}
        for number, row in enumerate(read_jsonl(self.answers_path), start=1):
            if not (isinstance(row, dict) and isinstance(row.get("key"), str)
                    and isinstance(row.get("text"), str)):
                raise InputError([Problem(str(self.answers_path), f"line {number}",
                                          'expected {"key": ..., "text": ...}')])
            found[row["key"]] = row["text"]
        return found

    def _result(self, model: str, request: ChatRequest, text: str) -> ChatResult:
        finish = "stop"
        if estimate_tokens(text) > request.max_tokens:
            text, finish = text[:request.max_tokens * CHARS_PER_TOKEN], "length"
        return ChatResult(text=text, finish_reason=finish, model=model,
                          usage=Usage(prompt_tokens=estimate_prompt_tokens(request),
                                      completion_tokens=estimate_tokens(text)))

    async def complete_batch(self, model: str, misses: Mapping[str, ChatRequest]
                             ) -> dict[str, ChatResult]:
        """The answered requests; the others are added to the requests file (the client
        then asks :meth:`complete` for them, which raises :class:`AwaitingAnswers`)."""
        answers = self.answers()
        waiting = {key: request for key, request in misses.items() if key not in answers}
        if waiting:
            self._enqueue(model, waiting, answers)
        return {key: self._result(model, request, answers[key])
                for key, request in misses.items() if key in answers}

    def _enqueue(self, model: str, waiting: Mapping[str, ChatRequest],
                 answers: Mapping[str, str]) -> int:
        """Add ``waiting`` to the requests file (dropping what ``answers`` now answers);
        returns how many requests the file holds."""
        queued = ({str(row["key"]): row for row in read_jsonl(self.requests_path)}
                  if self.requests_path.exists() else {})
        queued = {key: row for key, row in queued.items() if key not in answers}
        queued.update({key: request_record(key, model, request)
                       for key, request in waiting.items()})
        self.requests_path.parent.mkdir(parents=True, exist_ok=True)
        write_jsonl_atomic(self.requests_path, (queued[key] for key in sorted(queued)))
        return len(queued)

    async def complete(self, model: str, request: ChatRequest) -> ChatResult:
        key = cache_key(self.identity(model), request)
        answers = self.answers()
        if key in answers:
            return self._result(model, request, answers[key])
        waiting = self._enqueue(model, {key: request}, answers)
        raise AwaitingAnswers(waiting, self.requests_path, self.answers_path)

