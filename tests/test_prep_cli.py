"""``interviewsim prep match|run`` end to end through the CLI group, and their input files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from interviewsim.errors import InputError
from interviewsim.llm.types import ChatRequest
from interviewsim.prep.clarify import ScriptedAnswers
from interviewsim.prep.evidence import load_evidence_file, personality_evidence
from interviewsim.prep.fixture_model import fixture_responder
from stages.cli import cli
from tests.test_prep_support import REPO, SAMPLE_ANSWERS, SAMPLE_EVIDENCE, SAMPLE_POSTING

PERSONALITY = REPO / "data" / "personalities" / "ada-okonkwo"


def _no_risks(payload: Any) -> dict[str, Any]:
    area = payload["focus_areas"][-1]
    return {"priorities": [{"requirement_id": area["requirement_id"], "note": "n",
                            "evidence_ids": []}], "positioning": "p", "stories": [], "risks": []}


def riskless_model(request: ChatRequest) -> str:
    """Referenced from a test params file: a strategy that forgets every gap."""
    return fixture_responder({"strategy": _no_risks})(request)


def params_file(tmp_path: Path, script: str) -> Path:
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({
        "providers": {"local": {"kind": "scripted", "script": script}},
        "cache": {"path": str(tmp_path / "cache.sqlite")}}), encoding="utf-8")
    return path


def invoke(*args: object) -> Any:
    return CliRunner().invoke(cli, ["prep", *map(str, args)], catch_exceptions=True)


def test_prep_match_plans_the_sample_posting_against_a_personality_offline(
        tmp_path: Path) -> None:
    out = tmp_path / "match"
    result = invoke("match", "--posting", SAMPLE_POSTING, "--personality", PERSONALITY,
                    "--out-dir", out, "--params", REPO / "params.yaml")
    assert result.exit_code == 0, result.output
    assert "10 requirements" in result.output and "plan_ready" in result.output
    matches = json.loads((out / "matches.json").read_text())
    cited = {eid for m in matches for eid in m["evidence_ids"]}
    assert cited and all(eid.startswith("EV-ao-q") for eid in cited)
    assert (out / "plan.md").exists() and not (out / "calls.jsonl").read_text()


def test_prep_match_needs_exactly_one_evidence_source(tmp_path: Path) -> None:
    result = invoke("match", "--posting", SAMPLE_POSTING, "--out-dir", tmp_path,
                    "--params", REPO / "params.yaml")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "exactly one evidence source" in result.output


def test_prep_run_with_the_fixture_model_writes_a_package_and_the_audit(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = invoke("run", "--posting", SAMPLE_POSTING, "--evidence", SAMPLE_EVIDENCE,
                    "--answers", SAMPLE_ANSWERS, "--out-dir", out, "--params",
                    params_file(tmp_path, "interviewsim.prep.fixture_model:respond"))
    assert result.exit_code == 0, result.output
    assert "asked 4, admitted 2, rejected 2" in result.output
    records = json.loads((out / "clarification_records.json").read_text())
    assert [r["requirement_id"] for r in records] == ["REQ-005", "REQ-006", "REQ-008",
                                                      "REQ-009"]
    package = json.loads((out / "package.json").read_text())
    assert package["stop_reason"] == "completed" and len(package["questions"]) >= 8
    text = (out / "package.md").read_text()
    assert "# Interview preparation package" in text
    assert "| REQ-006 | no | answer shorter than 24 characters | — | GAP |" in text
    assert "| REQ-005 | GAP | FULL | CL-001 |\n| REQ-008 | GAP | FULL | CL-002 |" in text
    assert json.loads((out / "trace.json").read_text())["verdict_changes"][0] == {
        "requirement_id": "REQ-005", "before": "GAP", "after": "FULL",
        "new_evidence_ids": ["CL-001"]}
    assert not (out / "error_report.json").exists()


def test_prep_run_rejected_by_the_package_gate_leaves_an_error_report_and_no_package(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "package.md").write_text("stale package from an earlier run")
    result = invoke("run", "--posting", SAMPLE_POSTING, "--evidence", SAMPLE_EVIDENCE,
                    "--answers", SAMPLE_ANSWERS, "--out-dir", out, "--params",
                    params_file(tmp_path, "tests.test_prep_cli:riskless_model"))
    assert result.exit_code == 1
    assert "package_rejected" in result.output and "missing from the risks" in result.output
    assert not (out / "package.md").exists() and not (out / "package.json").exists()
    report = json.loads((out / "error_report.json").read_text())
    assert report["gate"] == "package" and report["phase"] == "initial"


def test_evidence_file_problems_are_all_reported_with_their_paths(tmp_path: Path) -> None:
    path = tmp_path / "evidence.yaml"
    path.write_text(yaml.safe_dump({"evidence": [
        {"id": "EV-1", "title": "a", "summary": "b"},
        {"id": "EV-1", "title": "a", "summary": "c"},
    ]}))
    with pytest.raises(InputError, match=r"evidence\[1\]\.id: duplicate 'EV-1'"):
        load_evidence_file(path)
    path.write_text(yaml.safe_dump({"evidence": [{"id": "X-1", "title": "a"}]}))
    with pytest.raises(InputError) as caught:
        load_evidence_file(path)
    assert {p.path for p in caught.value.problems} == {"evidence[0].id", "evidence[0].summary"}


def test_personality_evidence_holds_only_training_pairs_citing_their_qa_ids() -> None:
    items = personality_evidence(PERSONALITY, test_fraction=0.2)
    document = json.loads((PERSONALITY / "prepared_input.json").read_text())
    latest = max(document["interviews"], key=lambda i: i["sequence"])
    held_out = {p["qa_id"] for p in latest["qa_pairs"]}
    assert items and all(item.qa_id and item.id == f"EV-{item.qa_id}" for item in items)
    assert not held_out & {item.qa_id for item in items}


def test_scripted_answers_file_must_key_answers_by_requirement_id(tmp_path: Path) -> None:
    path = tmp_path / "answers.yaml"
    path.write_text(yaml.safe_dump({"answers": {"budget": "I managed one."}}))
    with pytest.raises(InputError, match="answers.budget"):
        ScriptedAnswers.load(path)


def test_prep_run_without_an_answers_file_asks_at_the_terminal(tmp_path: Path) -> None:
    budget = ("In 2022 I managed the outreach programme budget of £310,000 and reported spend "
              "to the board every month.")
    result = CliRunner().invoke(cli, [
        "prep", "run", "--posting", str(SAMPLE_POSTING), "--evidence", str(SAMPLE_EVIDENCE),
        "--out-dir", str(tmp_path / "run"), "--max-clarifications", "2", "--params",
        str(params_file(tmp_path, "interviewsim.prep.fixture_model:respond"))],
        input=f"{budget}\n\n")
    assert result.exit_code == 0, result.output
    assert "[REQ-005] The posting asks for" in result.output
    assert "asked 2, admitted 1, rejected 1, never asked 2" in result.output


@pytest.mark.model
def test_prep_run_with_the_embedded_model_produces_a_package(tmp_path: Path) -> None:
    """The must-show of the prep pipeline: SmolLM2-135M through the seam, behind every gate.

    Grammar-constrained decoding (bounded strings, one risk per uncovered area, citations
    limited per area) is what lets a 135M model finish documents the gates accept; the gates
    still run unchanged. Content quality is not asserted: at this size it is poor. No gap is
    asked (question budget 0), so the final pass replays the initial one from the cache and
    the test costs one strategy and one question call (a full run: docs/PREP.md).
    """
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({
        "providers": {"local": {"kind": "llama_cpp", "model_path": "smollm2-135m-instruct",
                                "n_ctx": 8192, "n_threads": 2}},
        "cache": {"path": str(tmp_path / "cache.sqlite")}}), encoding="utf-8")
    out = tmp_path / "run"
    result = invoke("run", "--posting", SAMPLE_POSTING, "--evidence", SAMPLE_EVIDENCE,
                    "--answers", SAMPLE_ANSWERS, "--max-clarifications", "0",
                    "--out-dir", out, "--params", params)
    assert result.exit_code == 0, result.output
    package = json.loads((out / "package.json").read_text())
    assert package["stop_reason"] == "budget_exhausted"
    assert 8 <= len(package["questions"]) <= 12
    gaps = [a["requirement_id"] for a in package["focus_areas"] if a["coverage"] == "GAP"]
    assert set(gaps) <= {r["requirement_id"] for r in package["strategy"]["risks"]}
    calls = [json.loads(line) for line in (out / "calls.jsonl").read_text().splitlines()]
    assert {c["call"]["model"] for c in calls} == {"smollm2-135m-instruct"}
    assert all(c["parse_error"] is None for c in calls)


def test_evidence_file_reports_duplicate_ids_together_with_schema_errors(
        tmp_path: Path) -> None:
    path = tmp_path / "evidence.yaml"
    path.write_text(yaml.safe_dump({"evidence": [
        {"id": "EV-1", "title": "a", "summary": "b"},
        {"id": "EV-1", "title": "a"},
        {"id": "EV-2", "title": "a", "summary": "c", "colour": "red"},
    ]}))
    with pytest.raises(InputError) as caught:
        load_evidence_file(path)
    assert {(p.path, p.message.split(" (")[0].split(";")[0])
            for p in caught.value.problems} >= {
        ("evidence[1].summary", "missing"), ("evidence[2].colour", "unknown field"),
        ("evidence[1].id", "duplicate 'EV-1'")}
    assert all("evidence: [{id: EV-001" in p.message for p in caught.value.problems
               if p.path != "evidence[1].id")


def test_prep_match_rejected_by_a_gate_reports_no_plan(tmp_path: Path) -> None:
    posting = tmp_path / "posting.md"
    posting.write_text("# Nothing listed\n\n## Requirements:\n")
    out = tmp_path / "match"
    result = invoke("match", "--posting", posting, "--evidence", SAMPLE_EVIDENCE,
                    "--out-dir", out, "--params", REPO / "params.yaml")
    assert result.exit_code == 1 and "no plan: extraction_rejected" in result.output
    report = (out / "error_report.md").read_text()
    assert report.startswith("# Prep match rejected: no plan\n") and "package" not in report


WITHOUT_LLAMA_CPP = ("import sys; sys.modules['llama_cpp'] = None; "
                     "from stages.cli import main; sys.argv[0] = 'interviewsim'; main()")
"""The CLI as installed, on a machine where llama-cpp-python is not importable."""


def test_offline_demo_runs_without_llama_cpp(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_LLAMA_CPP, "prep", "run", "--params",
         str(params_file(tmp_path, "interviewsim.prep.fixture_model:respond")), "--posting",
         str(SAMPLE_POSTING), "--evidence", str(SAMPLE_EVIDENCE), "--answers",
         str(SAMPLE_ANSWERS), "--out-dir", str(out)],
        cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and (out / "package.json").exists()
    assert "stop: completed" in result.stdout


def test_embedded_run_without_llama_cpp_exits_1_with_a_message_not_a_traceback(
        tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_LLAMA_CPP, "prep", "run", "--params",
         str(REPO / "params.yaml"), "--posting", str(SAMPLE_POSTING), "--evidence",
         str(SAMPLE_EVIDENCE), "--out-dir", str(tmp_path / "run")],
        cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "llama_cpp needs llama-cpp-python, which is not installed" in result.stderr
    assert "--params data/prep/params.fixture.yaml" in result.stderr
