"""Stages 4–5 and the round parser: the model-written parts of a package.

Each prompt states rules the package gate will check, and each answer is schema-validated; the
gate, not the prompt, decides. Round context reaches only these prompts: it may change what to
emphasise, never what the candidate can claim, so extraction and matching never see it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from interviewsim.llm.asking import AskingClient
from interviewsim.prep.modelcall import PrepCall, Shape, call_json
from interviewsim.prep.models import (
    EvidenceItem,
    FocusArea,
    PracticeQuestionSet,
    PrepSettings,
    Requirement,
    RoundContext,
    Strategy,
)

_Label = Annotated[str, Field(min_length=1, max_length=120)]
_PRIORITIES = 5
"""Most focus areas a strategy leads with."""


class RoundContextOut(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    round_type: _Label | None
    format: _Label | None
    interviewer_roles: Annotated[list[_Label], Field(max_length=6)]
    focus: Annotated[list[_Label], Field(max_length=8)]
    notes: Annotated[str, Field(max_length=400)] | None


ROUND_RULES = """
You turn a short description of an upcoming interview round into structured fields, as JSON.
Fields: round_type (e.g. technical, behavioural, panel, screening), format (e.g. video call,
on-site, take-home), interviewer_roles, focus (topics the round will stress), notes.
Use null or [] for anything the description does not say. Add nothing it does not say.
Answer with one JSON object with exactly these five fields.
"""

STRATEGY_RULES = """
You write an interview preparation strategy, as JSON, from ranked focus areas.
Rules (each is checked by code; a violation rejects the package):
- priorities: what to lead with: the first (highest-priority) focus areas, in their order,
  each with its requirement_id and a short note.
- evidence_ids anywhere: only ids listed under that same focus area. A GAP has none; cite [].
- stories: concrete stories the candidate can tell, each tied to a covered requirement and
  citing its evidence.
- risks: every focus area that is not FULL, in order, each with an honest mitigation.
- positioning: two or three sentences on how to present the candidate.
- round_context, when given, only changes emphasis. Never claim anything the evidence does not
  show.
Answer with one JSON object: {"priorities": [...], "positioning": "...", "stories": [...],
"risks": [...]}.
"""

QUESTION_RULES = """
You write {low} to {high} practice questions for the candidate, as JSON, following the strategy.
Rules (each is checked by code; a violation rejects the package):
- Each question names the requirement_id of one focus area; cover the highest priorities first.
- evidence_ids: only ids listed under that focus area; [] for a GAP.
- Ask what an interviewer would really ask: specific, one question each.
- round_context, when given, shapes the questions' style and topics.
Answer with one JSON object: {{"questions": [...]}}.
"""


def focus_payload(focus_areas: Sequence[FocusArea], requirements: Sequence[Requirement],
                  evidence: Sequence[EvidenceItem]) -> list[dict[str, Any]]:
    """Focus areas as the model sees them: requirement text, coverage, the evidence it may cite."""
    text = {r.id: r.text for r in requirements}
    items = {e.id: e for e in evidence}
    return [
        {
            "requirement_id": area.requirement_id,
            "requirement": text[area.requirement_id],
            "coverage": area.coverage,
            "priority": area.priority,
            "evidence": [{"id": eid, "text": items[eid].text} for eid in area.evidence_ids],
        }
        for area in focus_areas
    ]


def _round(context: RoundContext | None) -> dict[str, Any] | None:
    return None if context is None else context.model_dump(mode="json")


def _choices(focus: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Ids a generated item may name: the focus areas' requirements and their matched evidence."""
    cited = sorted({e["id"] for area in focus for e in area["evidence"]})
    return {"requirement_id": [area["requirement_id"] for area in focus], "evidence_ids": cited}


def _pinned(item: dict[str, Any], area: dict[str, Any]) -> dict[str, Any]:
    """An item schema for one focus area: its requirement id fixed, only its evidence citable."""
    pinned = copy.deepcopy(item)
    props = pinned["properties"]
    props["requirement_id"] = {"enum": [area["requirement_id"]]}
    if "evidence_ids" in props:
        ids = [e["id"] for e in area["evidence"]]
        cited = props["evidence_ids"]
        cited.pop("minItems", None)
        if ids:
            cited["items"] = {"enum": ids}
            cited["maxItems"] = min(len(ids), cited.get("maxItems", len(ids)))
        else:
            cited["maxItems"] = 0
    return pinned


def _one_each(prop: dict[str, Any], areas: list[dict[str, Any]]) -> None:
    """The list holds exactly one item per area, in the areas' order (a JSON tuple)."""
    item = prop.pop("items")
    for key in ("minItems", "maxItems"):
        prop.pop(key, None)
    prop["prefixItems"] = [_pinned(item, area) for area in areas]


def _any_of(prop: dict[str, Any], areas: list[dict[str, Any]]) -> None:
    """Each item belongs to one of the areas and cites only that area's evidence."""
    if areas:
        prop["items"] = {"anyOf": [_pinned(prop["items"], area) for area in areas]}
    else:
        prop["minItems"] = prop["maxItems"] = 0


def strategy_shape(focus: list[dict[str, Any]]) -> Shape:
    """Local decoding shape of a strategy: priorities are the top focus areas in rank order,
    stories belong to covered areas, and the risks are exactly the uncovered areas."""
    def shape(schema: dict[str, Any]) -> dict[str, Any]:
        props = schema["properties"]
        _one_each(props["priorities"], focus[:_PRIORITIES])
        _any_of(props["stories"], [area for area in focus if area["coverage"] != "GAP"])
        _one_each(props["risks"], [area for area in focus if area["coverage"] != "FULL"])
        return schema
    return shape


def questions_shape(focus: list[dict[str, Any]]) -> Shape:
    """Local decoding shape of the questions: each names one focus area and cites only its
    evidence."""
    def shape(schema: dict[str, Any]) -> dict[str, Any]:
        _any_of(schema["properties"]["questions"], focus)
        return schema
    return shape


def parse_round(text: str, client: AskingClient, settings: PrepSettings
                ) -> tuple[RoundContext | None, PrepCall]:
    """Structure the round description once; None when the answer breaks the schema."""
    value, call = call_json(client, "round-context", ROUND_RULES, {"round_description": text},
                            RoundContextOut, settings.max_tokens)
    if value is None:
        return None, call
    context = RoundContext(round_type=value.round_type, format=value.format,
                           interviewer_roles=tuple(value.interviewer_roles),
                           focus=tuple(value.focus), notes=value.notes)
    return context, call


def write_strategy(focus: list[dict[str, Any]], round_context: RoundContext | None,
                   client: AskingClient, settings: PrepSettings
                   ) -> tuple[Strategy | None, PrepCall]:
    payload = {"focus_areas": focus, "round_context": _round(round_context)}
    uncovered = sum(area["coverage"] != "FULL" for area in focus)
    covered = len(focus) - sum(area["coverage"] == "GAP" for area in focus)
    counts = {"priorities": (1, max(1, min(_PRIORITIES, len(focus)))),
              "stories": (0, min(4, covered)), "risks": (0, uncovered)}
    return call_json(client, "strategy", STRATEGY_RULES, payload, Strategy, settings.max_tokens,
                     _choices(focus), counts, strategy_shape(focus))


def write_questions(focus: list[dict[str, Any]], strategy: Strategy,
                    round_context: RoundContext | None, client: AskingClient,
                    settings: PrepSettings) -> tuple[PracticeQuestionSet | None, PrepCall]:
    rules = QUESTION_RULES.format(low=settings.min_questions, high=settings.max_questions)
    payload = {"focus_areas": focus, "strategy": strategy.model_dump(mode="json"),
               "round_context": _round(round_context)}
    counts = {"questions": (settings.min_questions, settings.max_questions)}
    return call_json(client, "practice-questions", rules, payload, PracticeQuestionSet,
                     settings.max_tokens, _choices(focus), counts, questions_shape(focus))
