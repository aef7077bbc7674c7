"""A deterministic stand-in for the prep model: rule-based answers to every prep task.

The offline regression suite and the offline demo run through the real model seam with this as
the scripted provider (``params.yaml``: ``kind: scripted``, ``script:
interviewsim.prep.fixture_model:respond``). Its answers are well-formed and honest by
construction — it cites only what it was given — so a run with it exercises the happy paths;
scenarios override single tasks (e.g. the answer assessor) to exercise the others.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from interviewsim.llm.types import ChatRequest
from interviewsim.prep.extraction import extract_lexical
from interviewsim.prep.modelcall import read_payload
from interviewsim.text.coverage import DocumentFrequencies, LexicalCorpus, terms

Handler = Callable[[Any], Any]

_ESSENTIAL = re.compile(r"\b(must|required|essential|need|needs|at least)\b", re.I)
_OPTIONAL = re.compile(r"\b(nice to have|bonus|plus|ideally|preferred)\b", re.I)


def _extract(payload: Any) -> dict[str, Any]:
    found = []
    for requirement in extract_lexical(payload["posting"]):
        text = requirement.text
        importance = 5 if _ESSENTIAL.search(text) else 2 if _OPTIONAL.search(text) else 3
        found.append({"id": requirement.id, "text": text, "source_quote": text,
                      "importance": importance, "category": "other"})
    return {"requirements": found}


def _match(payload: Any) -> dict[str, Any]:
    """Lexical scores with weights from the original items only (not the ``CL-`` claims), as
    the lexical matcher does: a claim never reweights a requirement it does not attest."""
    items = [(e["id"], e["text"]) for e in payload["evidence"]]
    original = DocumentFrequencies.of(text for item_id, text in items
                                      if not item_id.startswith("CL-"))
    corpus = LexicalCorpus(items, reference=original)
    out = []
    for requirement in payload["requirements"]:
        ranked = corpus.rank(requirement["text"])
        best = ranked[0] if ranked else None
        score = best.score if best else 0.0
        coverage = "FULL" if score >= 0.30 else "PARTIAL" if score >= 0.15 else "GAP"
        missing = None
        if coverage == "PARTIAL" and best is not None:
            unattested = sorted(terms(requirement["text"]) - set(best.matched))
            missing = "not attested: " + ", ".join(unattested[:5])
        out.append({"requirement_id": requirement["requirement_id"], "coverage": coverage,
                    "evidence_ids": [best.item_id] if best and coverage != "GAP" else [],
                    "explanation": f"best overlap {score:.2f}", "confidence": round(score, 2),
                    "missing": missing})
    return {"assessments": out}


def _round_clause(context: Mapping[str, Any] | None) -> str:
    if not context:
        return ""
    focus = ", ".join(context.get("focus") or []) or "the posting's priorities"
    return f" For this {context.get('round_type') or 'upcoming'} round, stress {focus}."


def _ids(area: Mapping[str, Any], limit: int = 2) -> list[str]:
    return [e["id"] for e in area["evidence"]][:limit]


def _strategy(payload: Any) -> dict[str, Any]:
    focus = payload["focus_areas"]
    covered = [f for f in focus if f["coverage"] != "GAP"]
    gaps = [f for f in focus if f["coverage"] == "GAP"]
    return {
        "priorities": [{"requirement_id": f["requirement_id"],
                        "note": f"{f['coverage']}: {f['requirement'][:120]}",
                        "evidence_ids": _ids(f)} for f in (covered + gaps)[:5]],
        "positioning": (f"Lead with {len(covered)} supported requirements and be candid about "
                        f"{len(gaps)} gaps." + _round_clause(payload["round_context"])),
        "stories": [{"requirement_id": f["requirement_id"], "title": f["requirement"][:80],
                     "outline": f["evidence"][0]["text"][:200], "evidence_ids": _ids(f)}
                    for f in covered[:4]],
        "risks": [{"requirement_id": f["requirement_id"],
                   "mitigation": f"Name the nearest experience to: {f['requirement'][:100]}"}
                  for f in focus if f["coverage"] != "FULL"],
    }


_ANGLES = ("Walk me through a time you showed this: {req}",
           "What result are you proudest of that relates to: {req}",
           "What would you do differently next time regarding: {req}")


def _questions(payload: Any) -> dict[str, Any]:
    focus = payload["focus_areas"]
    context = payload["round_context"]
    prefix = f"[{context['focus'][0]}] " if context and context.get("focus") else ""
    count = max(8, min(12, len(focus)))
    out = []
    for index in range(count):
        area = focus[index % len(focus)]
        angle = _ANGLES[(index // len(focus)) % len(_ANGLES)]
        if area["coverage"] == "GAP":
            text = f"This role needs: {area['requirement'][:150]}. How would you get there?"
        else:
            text = angle.format(req=area["requirement"][:150]) + "?"
        out.append({"requirement_id": area["requirement_id"], "question": prefix + text,
                    "evidence_ids": _ids(area, 1)})
    return {"questions": out}


_ROUND_TYPES = ("technical", "behavioural", "behavioral", "panel", "screening", "final")
_FORMATS = ("video", "on-site", "onsite", "phone", "take-home")
_ROLES = ("hiring manager", "recruiter", "engineer", "director", "team lead", "scientist")


def _round(payload: Any) -> dict[str, Any]:
    text = payload["round_description"]
    lower = text.lower()
    focus_match = re.search(r"focus(?:es|ing)? on ([^.]+)", lower)
    focus = ([p.strip() for p in re.split(r",| and ", focus_match.group(1)) if p.strip()]
             if focus_match else [])
    return {"round_type": next((t for t in _ROUND_TYPES if t in lower), None),
            "format": next((f for f in _FORMATS if f in lower), None),
            "interviewer_roles": [r for r in _ROLES if r in lower],
            "focus": focus[:8], "notes": text[:400]}


_NEGATION = re.compile(r"\b(not|never|no|don't|can't|cannot|haven't)\b", re.I)


def _assess(payload: Any) -> dict[str, Any]:
    answer = payload["answer"].strip()
    relevant = bool(terms(answer) & terms(payload["requirement"]))
    specific = len(answer.split()) >= 12
    denies = bool(_NEGATION.search(answer))
    supports = relevant and specific and not denies
    first = re.split(r"(?<=[.!?])\s+", answer, maxsplit=1)[0]
    return {"target_requirement_id": payload["requirement_id"],
            "verdict": "supports" if supports else "does_not_support",
            "relevance_reason": "says the candidate lacks it" if denies
            else "shares the requirement's terms" if relevant
            else "does not address the requirement",
            "specificity_reason": "names a concrete situation" if specific else "too vague",
            "claim": first[:400] if supports else ""}


HANDLERS: dict[str, Handler] = {
    "extract-requirements": _extract,
    "match-evidence": _match,
    "strategy": _strategy,
    "practice-questions": _questions,
    "round-context": _round,
    "assess-answer": _assess,
}


def fixture_responder(overrides: Mapping[str, Handler] | None = None
                      ) -> Callable[[ChatRequest], str]:
    """A ``request -> text`` function; ``overrides`` replace handlers by task name.

    A handler returns a JSON-able value (serialised here) or a string (sent as is, for
    malformed-output scenarios).
    """
    handlers = {**HANDLERS, **(overrides or {})}

    def respond(request: ChatRequest) -> str:
        task, payload = read_payload(request)
        answer = handlers[task](payload)
        return answer if isinstance(answer, str) else json.dumps(answer)

    return respond


respond = fixture_responder()
