"""Writing a prep run's artifacts: JSON for machines, Markdown for the candidate.

A run starts by removing every file an earlier run may have left in its folder (only the files
prep writes), so nothing old can pass for this run's, even when this one stops at a bad input.
A valid run then writes the package; an invalid one writes an error report.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from interviewsim.data.jsonio import write_json_atomic, write_jsonl_atomic, write_text_atomic
from interviewsim.prep.pipeline import PrepOutcome
from interviewsim.prep.render import render_error_report, render_package, render_plan

PACKAGE_FILES = ("package.json", "package.md")
PLAN_FILES = ("plan.md",)
ERROR_FILES = ("error_report.json", "error_report.md")
STAGE_FILES = ("evidence.json", "requirements.json", "matches.json", "focus_areas.json",
               "trace.json", "calls.jsonl", "round_context.json", "strategy.json",
               "questions.json", "clarification_records.json")


def _dump(items: Sequence[BaseModel] | BaseModel | None) -> Any:
    if items is None:
        return None
    if isinstance(items, BaseModel):
        return items.model_dump(mode="json")
    return [item.model_dump(mode="json") for item in items]


def _remove(out_dir: Path, names: Sequence[str]) -> None:
    for name in names:
        (out_dir / name).unlink(missing_ok=True)


def clear_outputs(out_dir: Path) -> None:
    """Remove every file a prep run writes from ``out_dir`` (nothing else in it)."""
    if out_dir.is_dir():
        _remove(out_dir, (*STAGE_FILES, *PACKAGE_FILES, *PLAN_FILES, *ERROR_FILES))


def trace_record(outcome: PrepOutcome) -> dict[str, Any]:
    """How the run went: node sequence per turn, the loop's sets, the stop reason."""
    state = outcome.state
    return {
        "stop_reason": state.stop_reason,
        "phase": state.phase,
        "trajectory": outcome.trajectory,
        "interrupts": outcome.interrupts,
        "processed": state.processed,
        "accepted": state.accepted,
        "rejected": state.rejected,
        "remaining": state.remaining,
        "initial_package_valid": state.initial_package_valid,
        "verdict_changes": _dump(state.package.verdict_changes if state.package else ()),
        "gate_problems": state.gate_problems,
        "notes": state.notes,
    }


def _write_error(out_dir: Path, outcome: PrepOutcome, keep: Sequence[str], artifact: str
                 ) -> None:
    state = outcome.state
    gate = state.failed_gate or "unknown"
    problems = state.gate_problems.get(gate, [])
    _remove(out_dir, keep)
    write_json_atomic(out_dir / "error_report.json", {
        "stop_reason": state.stop_reason, "phase": state.phase, "gate": gate,
        "problems": problems, "trajectory": outcome.trajectory})
    write_text_atomic(out_dir / "error_report.md", render_error_report(
        state.stop_reason or "", state.phase, problems, outcome.trajectory, artifact))


def _write_common(out_dir: Path, outcome: PrepOutcome) -> None:
    state = outcome.state
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out_dir / "evidence.json", _dump(state.evidence))
    write_json_atomic(out_dir / "requirements.json", _dump(state.requirements))
    write_json_atomic(out_dir / "matches.json", _dump(state.matches))
    write_json_atomic(out_dir / "focus_areas.json", _dump(state.focus_areas))
    write_json_atomic(out_dir / "trace.json", trace_record(outcome))
    write_jsonl_atomic(out_dir / "calls.jsonl", (_dump(call) for call in state.calls))


def write_match_outputs(out_dir: Path, outcome: PrepOutcome, read_by: str | None = None
                        ) -> None:
    """requirements, matches, focus areas and plan.md, or an error report; ``read_by`` says
    in the plan who extracted and who decided."""
    _write_common(out_dir, outcome)
    state = outcome.state
    if outcome.valid:
        _remove(out_dir, ERROR_FILES)
        write_text_atomic(out_dir / "plan.md", render_plan(
            state.requirements, state.matches, state.focus_areas, state.evidence, read_by))
    else:
        _write_error(out_dir, outcome, PLAN_FILES, "plan")


def write_prep_outputs(out_dir: Path, outcome: PrepOutcome, read_by: str | None = None
                       ) -> None:
    """Stage artifacts, clarification_records.json, and the package or an error report;
    ``read_by`` says in the package who extracted and who decided."""
    _write_common(out_dir, outcome)
    state = outcome.state
    write_json_atomic(out_dir / "round_context.json", _dump(state.round_context))
    write_json_atomic(out_dir / "strategy.json", _dump(state.strategy))
    write_json_atomic(out_dir / "questions.json", _dump(state.questions))
    write_json_atomic(out_dir / "clarification_records.json", _dump(state.records))
    if state.package is not None:
        _remove(out_dir, ERROR_FILES)
        write_json_atomic(out_dir / "package.json", _dump(state.package))
        write_text_atomic(out_dir / "package.md", render_package(state.package, read_by))
    else:
        _write_error(out_dir, outcome, PACKAGE_FILES, "package")
