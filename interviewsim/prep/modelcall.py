"""One structured model call: prompt in, a validated pydantic value (or the reason why not) out.

The model only proposes. Its text must be one JSON object with exactly the model's fields
(:func:`interviewsim.llm.contract_json.parse_contract_object`), then pass the pydantic model; any
failure becomes a :class:`ParseError` message and nothing is salvaged. Every call is kept as a
:class:`PrepCall` so a reader can audit what was asked and what came back.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from interviewsim.errors import ConfigError, ParseError, Problem, validation_text
from interviewsim.llm.asking import AskingClient
from interviewsim.llm.contract_json import parse_contract_object
from interviewsim.llm.gbnf import gbnf_from_schema
from interviewsim.llm.types import CallRecord, ChatRequest, Message, OutputConstraint

M = TypeVar("M", bound=BaseModel)

TASK_MARKER = "InterviewSim prep task:"
INPUT_MARKER = "INPUT (JSON):"


class PrepCall(BaseModel):
    """The audit record of one prep model call."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    purpose: str
    call: CallRecord
    parse_error: str | None


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        inlined = {key: _inline(value, defs) for key, value in node.items()
                   if key not in ("title", "$defs", "default", "description", "properties")}
        if "properties" in node:
            inlined["properties"] = {name: _inline(value, defs)
                                     for name, value in node["properties"].items()}
        return inlined
    if isinstance(node, list):
        return [_inline(value, defs) for value in node]
    return node


MAX_DECODED_ITEMS = 12
Shape = Callable[[dict[str, Any]], dict[str, Any]]


def json_schema_of(model: type[BaseModel],
                   choices: Mapping[str, Sequence[str]] | None = None,
                   counts: Mapping[str, tuple[int, int]] | None = None,
                   *, lengths: bool = False) -> dict[str, Any]:
    """The schema sent as a decoding constraint: a hint that raises the hit rate, not a check.

    References are inlined and every field is required (what the strict parser wants). String
    patterns are left to the parser (grammar converters mistranslate regexes); string lengths
    too, unless ``lengths`` (for local grammars, which bound strings cheaply — hosted strict
    modes do not all accept them). Instead, fields named in
    ``choices`` (``requirement_id``, ``evidence_ids``, ...) are limited to the ids that exist,
    so even a small model can only cite real ids — whether it cites the *right* ones is still
    for the gates to say. ``counts`` bounds named arrays to what this call needs (one verdict
    per requirement, one risk per uncovered area), so a small model cannot loop on a list until
    its token budget runs out; other lists longer than a dozen lose their bound.
    """
    schema = model.model_json_schema()
    inlined = _inline(schema, schema.get("$defs", {}))
    allowed = dict(choices or {})
    bounds = dict(counts or {})

    def walk(node: Any, visit: Callable[[dict[str, Any]], None]) -> None:
        if isinstance(node, list):
            for value in node:
                walk(value, visit)
        elif isinstance(node, dict):
            visit(node)
            for value in node.values():
                walk(value, visit)

    drops = ("pattern",) if lengths else ("pattern", "minLength", "maxLength")

    def constrain(node: dict[str, Any]) -> None:
        for key in drops:
            node.pop(key, None)
        if node.get("maxItems", 0) > MAX_DECODED_ITEMS:
            node.pop("maxItems")
        if node.get("type") == "object" and "properties" in node:
            node["required"] = list(node["properties"])
            node["additionalProperties"] = False
            for name, prop in node["properties"].items():
                if name in allowed:
                    _limit(prop, list(allowed[name]))

    def bound(node: dict[str, Any]) -> None:
        for name, prop in node.get("properties", {}).items():
            if name in bounds and prop.get("type") == "array":
                prop["minItems"], prop["maxItems"] = bounds[name]

    walk(inlined, constrain)
    walk(inlined, bound)
    return inlined


def _limit(prop: dict[str, Any], values: list[str]) -> None:
    """Restrict a string property, or an array of strings, to ``values``."""
    target = prop["items"] if prop.get("type") == "array" else prop
    if values:
        target.clear()
        target["enum"] = values
    elif prop.get("type") == "array":
        prop["maxItems"] = 0


def grammar_converter_available() -> bool:
    """Whether llama-cpp-python (whose schema converter :mod:`interviewsim.llm.gbnf` extends)
    is installed; without it no grammar can be built."""
    return importlib.util.find_spec("llama_cpp") is not None


def constraint_for(client: AskingClient, task: str, model: type[BaseModel],
                   choices: Mapping[str, Sequence[str]] | None = None,
                   counts: Mapping[str, tuple[int, int]] | None = None,
                   shape: Shape | None = None) -> OutputConstraint | None:
    """The tightest constraint the client takes (the pattern of the MCQ builder's).

    A grammar-capable runtime (llama.cpp, embedded or behind a server) gets a grammar from the
    schema with bounded strings and, through ``shape``, per-position items — enough structure
    for a 135M model to finish a valid document. A strict JSON-schema endpoint gets the portable
    subset. Either way the parser and the gates still decide. Without llama-cpp-python a client
    that also takes a JSON schema (the scripted fixture model of the offline demo) gets the
    schema; one that takes only grammars cannot be constrained, which is a configuration error.
    """
    name = task.replace("-", "_")
    grammar = client.supports_grammar and grammar_converter_available()
    if client.supports_grammar and not grammar and not client.supports_json_schema:
        raise ConfigError([Problem("params.yaml", "providers", (
            "the prep model takes only grammar constraints, and building one needs "
            "llama-cpp-python, which is not installed (make setup installs it)"))])
    if grammar:
        local = json_schema_of(model, choices, counts, lengths=True)
        return OutputConstraint(kind="grammar", name=name,
                                grammar=gbnf_from_schema(shape(local) if shape else local))
    if client.supports_json_schema:
        return OutputConstraint(kind="json_schema", name=name,
                                json_schema=json_schema_of(model, choices, counts))
    return None


def parse_model(text: str, model: type[M]) -> M:
    """Strictly parse one model output into ``model``; raise ParseError saying what is wrong."""
    fields = tuple(model.model_fields)
    value = parse_contract_object(text, fields)
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise ParseError(f"schema violation: {validation_text(exc, limit=3)}") from None


def messages_for(task: str, instructions: str, payload: Any) -> list[Message]:
    """System message naming the task and its rules; user message carrying the JSON input."""
    return [
        Message(role="system", content=f"{TASK_MARKER} {task}\n{instructions.strip()}"),
        Message(role="user", content=f"{INPUT_MARKER}\n{json.dumps(payload, indent=1)}"),
    ]


def call_json(client: AskingClient, task: str, instructions: str, payload: Any,
              model: type[M], max_tokens: int,
              choices: Mapping[str, Sequence[str]] | None = None,
              counts: Mapping[str, tuple[int, int]] | None = None,
              shape: Shape | None = None) -> tuple[M | None, PrepCall]:
    """Ask the model for one ``model`` value; return it (or None) and the call's audit record.

    ``choices``, ``counts`` and ``shape`` shape the decoding constraint only
    (see :func:`constraint_for`).
    """
    request = client.request(messages_for(task, instructions, payload),
                             constraint=constraint_for(client, task, model, choices, counts,
                                                       shape),
                             max_tokens=max_tokens)
    result = client.complete_many([request], desc=f"prep {task}")[0]
    try:
        value: M | None = parse_model(result.text, model)
        error = None
    except ParseError as exc:
        value, error = None, str(exc)
    return value, PrepCall(purpose=task, call=CallRecord.of(request, result), parse_error=error)


def read_payload(request: ChatRequest) -> tuple[str, Any]:
    """The task name and JSON input of a prep request (for deterministic test providers)."""
    system = next(m.content for m in request.messages if m.role == "system")
    user = next(m.content for m in reversed(request.messages) if m.role == "user")
    task = system.split(TASK_MARKER, 1)[1].split("\n", 1)[0].strip()
    return task, json.loads(user.split(INPUT_MARKER, 1)[1])
