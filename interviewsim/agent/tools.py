"""The agent's tools, their JSON schemas and the one validator every tool call goes through.

Two paths reach the validator. Providers with native tool calling return ``(name, arguments)``
pairs, arguments usually a JSON string: wrap them in :class:`ToolCall` directly. Providers
without it (the embedded model) are constrained to one JSON *action* object,
``{"action": NAME, "arguments": {...}}``, which :func:`parse_action_output` turns into the same
:class:`ToolCall`. From there :func:`validate_call` decides for both: unknown tools, tools the
persona may not use, arguments that fail their pydantic model, scores for unknown rubric areas,
flags quoting words the candidate never said and illegal transitions are rejected with a reason
that is sent back to the model. The constraint raises the hit rate; the validator decides.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from interviewsim.agent.scoring import FlagType, Priority
from interviewsim.errors import ParseError, validation_text
from interviewsim.llm.contract_json import parse_contract_object, require_text


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value.strip()


def _text(max_length: int) -> Any:
    return Annotated[str, Field(strict=True, max_length=max_length), AfterValidator(_not_blank)]


Score = Annotated[int, Field(strict=True, ge=0, le=10)]

MAX_SCHEMA_LENGTH = 800
"""Upper bound for any ``maxLength`` here. llama.cpp compiles ``maxLength`` into a bounded
repetition and aborts (the embedded runtime segfaults) at about 1,200; short limits are also
what stops a small model that repeats itself inside a string from running into its token cap
with the JSON unclosed."""


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SayArgs(_Args):
    """Speak to the candidate: ends the interviewer's turn."""

    text: _text(400)


class ScoreAnswerArgs(_Args):
    """Score the latest answer (the code binds it to that answer's turn and question)."""

    technical_accuracy: Score
    communication_clarity: Score
    depth_of_reasoning: Score
    relevance: Score
    rubric_area: _text(64)
    answer_summary: _text(160)
    notable_observations: Annotated[str, Field(strict=True, max_length=160)] = ""


class FlagFollowupArgs(_Args):
    """Mark the latest answer for follow-up; ``high`` means probe it on the next turn."""

    flag_type: FlagType
    answer_excerpt: _text(160)
    suggested_followup: _text(240)
    priority: Priority


class TransitionArgs(_Args):
    """Ask the code to move to another section; it decides whether that is allowed."""

    from_section: _text(64)
    to_section: _text(64)
    reason: _text(160)
    topics_covered: Annotated[list[Annotated[str, Field(strict=True, max_length=80)]],
                              Field(max_length=5)] = []


TOOLS: dict[str, type[_Args]] = {
    "say": SayArgs,
    "score_answer": ScoreAnswerArgs,
    "flag_followup": FlagFollowupArgs,
    "transition_section": TransitionArgs,
}


class ToolCall(BaseModel):
    """A tool call as any provider path delivers it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    arguments: dict[str, Any] | str
    """An object, or the JSON text of one (native tool calls send a string)."""
    call_id: str | None = None


def parse_action_output(text: str) -> ToolCall:
    """Read a constrained action output; :class:`ParseError` says what is wrong with it."""
    value = parse_contract_object(text, ("action", "arguments"))
    name = require_text(value["action"], "action")
    if not isinstance(value["arguments"], dict):
        kind = type(value["arguments"]).__name__
        raise ParseError(f"arguments must be a JSON object, got {kind}")
    return ToolCall(name=name, arguments=value["arguments"])


@dataclass(frozen=True)
class ToolContext:
    """What the validator checks a call against, for one persona at one moment."""

    persona: str
    allowed: tuple[str, ...]
    rubric_areas: tuple[str, ...] = ()
    answer: str | None = None
    """The answer being scored or flagged; a flag's excerpt must occur in it."""
    refuse_transition: Callable[[str, str], str | None] = field(default=lambda f, t: None)


class ToolVerdict(BaseModel):
    """The validator's decision on one call."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    call: ToolCall
    accepted: bool
    reason: str | None = None
    arguments: _Args | None = None


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("’", "'")).strip().lower()


def validate_call(call: ToolCall, context: ToolContext) -> ToolVerdict:
    """Accept or reject one call; a rejection's reason tells the model what to fix."""

    def reject(reason: str) -> ToolVerdict:
        return ToolVerdict(call=call, accepted=False, reason=reason)

    available = ", ".join(context.allowed)
    if call.name not in TOOLS:
        return reject(f"unknown tool {call.name!r}; available: {available}")
    if call.name not in context.allowed:
        return reject(f"{call.name} is not available to the {context.persona}; "
                      f"available: {available}")
    raw = call.arguments
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            return reject(f"arguments are not valid JSON ({exc.msg})")
        if not isinstance(raw, dict):
            return reject("arguments must be a JSON object")
    try:
        arguments = TOOLS[call.name].model_validate(raw)
    except ValidationError as exc:
        return reject(f"invalid arguments: {validation_text(exc)}")
    if isinstance(arguments, ScoreAnswerArgs) and arguments.rubric_area not in context.rubric_areas:
        return reject(f"unknown rubric_area {arguments.rubric_area!r}; use one of "
                      f"{', '.join(context.rubric_areas)}")
    if isinstance(arguments, FlagFollowupArgs):
        if context.answer is None:
            return reject("there is no answer to flag yet")
        if _squash(arguments.answer_excerpt) not in _squash(context.answer):
            return reject("answer_excerpt must quote the candidate's latest answer word for word")
    if isinstance(arguments, TransitionArgs):
        refusal = context.refuse_transition(arguments.from_section, arguments.to_section)
        if refusal is not None:
            return reject(f"transition refused: {refusal}")
    return ToolVerdict(call=call, accepted=True, arguments=arguments)


SCHEMA_DROPPED_KEYS = ("title", "default", "description")


def _clean(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _clean(v) for k, v in schema.items() if k not in SCHEMA_DROPPED_KEYS}
    if isinstance(schema, list):
        return [_clean(v) for v in schema]
    return schema


def arguments_schema(name: str, enums: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """JSON schema of one tool's arguments: every property required, nothing extra.

    Strict structured-output endpoints require every property to be listed as required, so
    optional arguments are required here and defaulted only for native tool calls.
    """
    schema = _clean(TOOLS[name].model_json_schema())
    schema["required"] = list(schema["properties"])
    schema["additionalProperties"] = False
    for prop, spec in schema["properties"].items():
        if spec.get("type") == "integer" and "minimum" in spec and "maximum" in spec:
            # llama.cpp ignores integer bounds; an enum it enforces
            schema["properties"][prop] = {
                "type": "integer", "enum": list(range(spec["minimum"], spec["maximum"] + 1))}
    for prop, values in (enums or {}).items():
        if prop in schema["properties"] and values:
            schema["properties"][prop] = {"type": "string", "enum": list(values)}
    return schema


def action_schema(tools: Sequence[str], enums: dict[str, list[str]] | None = None) -> dict:
    """The constrained-output schema: one action among ``tools`` with its arguments."""
    variants = [arguments_schema(t, enums) for t in tools]
    return {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(tools)},
            "arguments": variants[0] if len(variants) == 1 else {"anyOf": variants},
        },
        "required": ["action", "arguments"],
        "additionalProperties": False,
    }
