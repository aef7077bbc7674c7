"""One persona step: ask the model for an action, parse it, validate it, log the verdict.

Every model output a persona produces passes through :func:`ask_action` and ends up in the
tool log, accepted or rejected with its reason, with the audit record of the call. A
rejection is returned to the model as a tool result, so the next attempt can fix it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from interviewsim.agent.tools import (
    ToolContext,
    ToolVerdict,
    action_schema,
    parse_action_output,
    validate_call,
)
from interviewsim.errors import ParseError
from interviewsim.llm import ModelClient
from interviewsim.llm.types import CallRecord, Message, OutputConstraint


class ToolLogEntry(BaseModel):
    """One model output of a persona and what the validator made of it."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    state: str
    persona: str
    tool: str | None
    """The requested tool; None when the output was not a readable action."""
    accepted: bool
    reason: str | None
    arguments: dict[str, Any] | None
    call: CallRecord


def constraint_for(client: ModelClient, tools: Sequence[str],
                   enums: dict[str, list[str]] | None) -> OutputConstraint | None:
    """The JSON-schema constraint when the provider can enforce it; None otherwise."""
    if not client.supports_json_schema:
        return None
    return OutputConstraint(kind="json_schema", name="action",
                            json_schema=action_schema(tools, enums))


def ask_action(
    client: ModelClient,
    messages: Sequence[Message],
    context: ToolContext,
    enums: dict[str, list[str]] | None,
    where: tuple[int, str],
) -> tuple[ToolVerdict | None, ToolLogEntry]:
    """One call, parsed and validated. The verdict is None when the output was unreadable."""
    request = client.request(list(messages), constraint_for(client, context.allowed, enums))
    result = client.complete(request)
    record = CallRecord.of(request, result)
    turn, state = where
    try:
        call = parse_action_output(result.text)
    except ParseError as exc:
        entry = ToolLogEntry(turn=turn, state=state, persona=context.persona, tool=None,
                             accepted=False, reason=f"unreadable action: {exc}", arguments=None,
                             call=record)
        return None, entry
    verdict = validate_call(call, context)
    entry = ToolLogEntry(
        turn=turn, state=state, persona=context.persona, tool=call.name,
        accepted=verdict.accepted, reason=verdict.reason,
        arguments=call.arguments if isinstance(call.arguments, dict) else None, call=record,
    )
    return verdict, entry


def feedback(raw: str, result: dict[str, Any]) -> list[Message]:
    """The exchange appended after a step: the model's output, then the tool result."""
    return [Message(role="assistant", content=raw),
            Message(role="user", content="Tool result: " + json.dumps(result, ensure_ascii=False))]


def rejection(entry: ToolLogEntry) -> dict[str, Any]:
    return {"status": "rejected", "reason": entry.reason}
