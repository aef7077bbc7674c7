"""Markdown views of a plan, a package and an error report (the JSON artifacts stay canonical).

Every row shows the ids it rests on, so a reader can dispute one link — one requirement, one
cited item — rather than the document as a whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from interviewsim.prep.clarify import clarification_question
from interviewsim.prep.models import (
    EvidenceItem,
    FocusArea,
    Package,
    Requirement,
    Verdict,
)


def _cell(text: str, limit: int = 140) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def focus_table(requirements: Sequence[Requirement], matches: Sequence[Verdict],
                focus_areas: Sequence[FocusArea]) -> list[str]:
    text = {r.id: r.text for r in requirements}
    verdicts = {v.requirement_id: v for v in matches}
    lines = ["| priority | requirement | coverage | evidence | why |", "|---|---|---|---|---|"]
    for area in focus_areas:
        verdict = verdicts[area.requirement_id]
        why = verdict.explanation + (f" — missing: {verdict.missing}" if verdict.missing else "")
        requirement = _cell(text[area.requirement_id])
        lines.append(f"| {area.priority} | {area.requirement_id}: {requirement}"
                     f" | {area.coverage} | {', '.join(area.evidence_ids) or '—'} "
                     f"| {_cell(why)} |")
    return lines


def _evidence_list(evidence: Sequence[EvidenceItem]) -> list[str]:
    lines = []
    for item in evidence:
        source = f" (qa_id {item.qa_id})" if item.qa_id else ""
        if item.provenance:
            source = f" (admitted answer for {item.provenance.requirement_id})"
        lines.append(f"- **{item.id}**{source} {_cell(item.title, 80)}: {_cell(item.text, 240)}")
    return lines


def _practice(requirements: Sequence[Requirement], matches: Sequence[Verdict],
              focus_areas: Sequence[FocusArea]) -> list[str]:
    """One question per gap or partial match, in focus order, from the requirement's words."""
    by_id = {r.id: r for r in requirements}
    verdicts = {v.requirement_id: v for v in matches}
    lines = []
    for area in focus_areas:
        verdict = verdicts[area.requirement_id]
        if verdict.coverage == "FULL":
            continue
        missing = f"; not yet shown: {_cell(verdict.missing, 160)}" if verdict.missing else ""
        lines.append(f"- {area.requirement_id} ({verdict.coverage}{missing}): "
                     f"{clarification_question(by_id[area.requirement_id])}")
    return lines or ["- none: every requirement is supported"]


def render_plan(requirements: Sequence[Requirement], matches: Sequence[Verdict],
                focus_areas: Sequence[FocusArea], evidence: Sequence[EvidenceItem],
                read_by: str | None = None) -> str:
    """``read_by``: who extracted and who decided (:meth:`PrepConfig.provenance`)."""
    counts = {c: sum(v.coverage == c for v in matches) for c in ("FULL", "PARTIAL", "GAP")}
    lines = ["# Preparation plan", "",
             f"{len(requirements)} requirements: {counts['FULL']} supported, "
             f"{counts['PARTIAL']} in part, {counts['GAP']} gaps; {len(evidence)} evidence "
             "items.", "", *([read_by, ""] if read_by else []), "## Focus areas", "",
             *focus_table(requirements, matches, focus_areas), "",
             "## Practice for the gaps", "", *_practice(requirements, matches, focus_areas), "",
             "## Evidence", "", *_evidence_list(evidence), ""]
    return "\n".join(lines)


def render_package(package: Package, read_by: str | None = None) -> str:
    """``read_by``: who extracted and who decided (:meth:`PrepConfig.provenance`)."""
    strategy = package.strategy
    lines = ["# Interview preparation package", "", f"Stop reason: `{package.stop_reason}`", "",
             *([read_by, ""] if read_by else [])]
    if package.round_context is not None:
        rc = package.round_context
        lines += ["## Round", "", f"- type: {rc.round_type or '—'}; format: {rc.format or '—'}",
                  f"- interviewers: {', '.join(rc.interviewer_roles) or '—'}",
                  f"- focus: {', '.join(rc.focus) or '—'}", ""]
    lines += ["## Focus areas", "",
              *focus_table(package.requirements, package.matches, package.focus_areas), "",
              "## Strategy", "", strategy.positioning, "", "### Lead with", ""]
    lines += [f"- {p.requirement_id}: {_cell(p.note)} [{', '.join(p.evidence_ids) or '—'}]"
              for p in strategy.priorities]
    lines += ["", "### Stories", ""]
    lines += [f"- **{s.title}** ({s.requirement_id}; {', '.join(s.evidence_ids) or '—'}): "
              f"{_cell(s.outline, 300)}" for s in strategy.stories] or ["- none"]
    lines += ["", "### Risks", ""]
    lines += [f"- {r.requirement_id}: {_cell(r.mitigation, 300)}"
              for r in strategy.risks] or ["- none"]
    lines += ["", "## Practice questions", ""]
    lines += [f"{i}. {q.question} ({q.requirement_id}; {', '.join(q.evidence_ids) or '—'})"
              for i, q in enumerate(package.questions, start=1)]
    if package.clarifications:
        final = {v.requirement_id: v.coverage for v in package.matches}
        lines += ["", "## Clarifications", "",
                  "| requirement | admitted | reason | claim | final coverage |",
                  "|---|---|---|---|---|"]
        lines += [f"| {c.requirement_id} | {'yes ' + (c.evidence_id or '') if c.accepted else 'no'}"
                  f" | {_cell(c.reason)} | {_cell(c.accepted_claim or '—')} "
                  f"| {final.get(c.requirement_id, '—')} |"
                  for c in package.clarifications]
    lines += ["", *_verdict_changes(package)]
    if package.remaining_gaps:
        lines += ["", f"Gaps never asked (budget spent): {', '.join(package.remaining_gaps)}"]
    lines += ["", "## Evidence", "", *_evidence_list(package.evidence), ""]
    return "\n".join(lines)


def _verdict_changes(package: Package) -> list[str]:
    """Which verdicts the clarifications changed, and the new evidence that changed each."""
    lines = ["## Verdict changes after clarification", ""]
    if not package.verdict_changes:
        return [*lines, "No verdict changed between the initial and the final pass."]
    lines += ["A verdict may change only where the final pass cites new evidence; the package "
              "gate rejects any other change.", "",
              "| requirement | initial | final | changed by |", "|---|---|---|---|"]
    return lines + [f"| {c.requirement_id} | {c.before} | {c.after} | "
                    f"{', '.join(c.new_evidence_ids) or '— (no new evidence)'} |"
                    for c in package.verdict_changes]


def render_error_report(stop_reason: str, phase: str, problems: Sequence[str],
                        trajectory: Sequence[Sequence[str]], artifact: str = "package") -> str:
    """``artifact``: what the rejected run would have written (``package`` or ``plan``)."""
    command = "run" if artifact == "package" else "match"
    lines = [f"# Prep {command} rejected: no {artifact}", "",
             f"Stop reason: `{stop_reason}` (during the {phase} pass).", "",
             "A gate found these problems; nothing after it was assembled:", ""]
    lines += [f"- {problem}" for problem in problems]
    lines += ["", "## Trajectory", ""]
    lines += [f"{i}. {' → '.join(turn)}" for i, turn in enumerate(trajectory, start=1)]
    return "\n".join(lines) + "\n"
