"""``interviewsim prep eval``: the rates, their intervals, the regression check CI runs, and the
documented prose example."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from interviewsim.prep import evaluation
from interviewsim.prep.evaluation import Case, GoldLabel, Rate, Tally, score_case
from interviewsim.prep.models import Requirement, Verdict
from stages.cli import cli
from tests.test_prep_support import REPO

SET = REPO / "tests" / "data" / "prep_eval"
BASELINE = SET / "baseline.json"
TOLERANCE = 0.05
"""How much worse than the committed baseline CI lets a rate get (5 points)."""
EXAMPLE = REPO / "docs" / "examples" / "prose_plan.md"
PROSE = SET / "tune" / "dataeng_vessa_wrapped"


def test_wilson_interval_matches_the_textbook_values() -> None:
    low, high = Rate(0, 27).interval() or (None, None)
    assert low == 0.0 and high == pytest.approx(0.1246, abs=1e-4)
    low, high = Rate(5, 10).interval() or (None, None)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert Rate(0, 0).interval() is None and Rate(0, 0).cell() == "— (0)"


def _label(phrase: str, verdict: str, why: str = "") -> GoldLabel:
    return GoldLabel(posting="p", key_phrase=phrase, requirement=phrase, importance="must",
                     verdict=verdict, evidence=[], why=why)  # type: ignore[arg-type]


def _requirement(number: int, text: str) -> Requirement:
    return Requirement(id=f"REQ-{number:03d}", text=text, normalized=text.lower(),
                       source_quote=text)


def test_a_gold_requirement_is_scored_by_the_extracted_one_containing_its_key_phrase() -> None:
    case = Case("p", "", [], [_label("Kubernetes", "GAP", "never used it"),
                              _label("Go", "FULL"), _label("budget", "FULL")])
    requirements = [_requirement(1, "Experience with  kubernetes in production"),
                    _requirement(2, "Rust or Go"), _requirement(3, "Free lunches")]
    verdicts = [Verdict(requirement_id="REQ-001", coverage="FULL", explanation="x",
                        confidence=1, evidence_ids=("EV-1",)),
                Verdict(requirement_id="REQ-002", coverage="GAP", explanation="x", confidence=0),
                Verdict(requirement_id="REQ-003", coverage="GAP", explanation="x", confidence=0)]
    tally = Tally()
    score_case(case, requirements, verdicts, tally)
    assert (tally.found, tally.gold, tally.extracted, tally.extracted_on_gold) == (2, 3, 3, 2)
    assert tally.rate("false_proof").value == 1.0 and tally.rate("false_gap").value == 1.0
    assert tally.rate("denial_or_wish_full").value == 1.0
    assert tally.misses == ["p: budget"]


def test_a_regression_beyond_the_tolerance_is_named_and_one_within_it_is_not() -> None:
    baseline = {"false_proof": 0.10, "full_recall": 0.80}
    assert evaluation.regressions({"false_proof": 0.14, "full_recall": 0.76}, baseline,
                                  0.05) == []
    worse = evaluation.regressions({"false_proof": 0.20, "full_recall": 0.70}, baseline, 0.05)
    assert [w.split()[0] for w in worse] == ["false_proof", "full_recall"]


def test_the_lexical_path_on_the_labelled_set_has_not_regressed_beyond_the_tolerance() -> None:
    """What CI guards: every rate of every part within 5 points of docs' committed numbers."""
    result = CliRunner().invoke(cli, ["prep", "eval", str(SET), "--baseline", str(BASELINE),
                                      "--tolerance", str(TOLERANCE)])
    assert result.exit_code == 0, result.output
    names = set(evaluation.parts(SET))
    assert {"tune", "tune2"} <= names
    assert all(f"| lexical | {name} |" in result.output for name in names)
    assert set(json.loads(BASELINE.read_text())) == {f"lexical/{name}" for name in names}


def test_a_labels_file_that_is_not_the_format_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "a.labels.jsonl").write_text('{"posting": "a"}\n', encoding="utf-8")
    (tmp_path / "a.posting.txt").write_text("- Python\n", encoding="utf-8")
    (tmp_path / "a.evidence.yaml").write_text(
        "evidence: [{id: EV-1, title: t, summary: Python}]\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["prep", "eval", str(tmp_path)])
    assert result.exit_code == 1 and "line 1" in result.output and "key_phrase" in result.output


def test_the_documented_prose_plan_is_what_prep_match_writes_and_keeps_its_promises(
        tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, [
        "prep", "match", "--posting", str(PROSE.with_suffix(".posting.txt")),
        "--evidence", str(PROSE.with_suffix(".evidence.yaml")), "--out-dir", str(tmp_path),
        "--params", str(REPO / "params.yaml")])
    assert result.exit_code == 0, result.output
    plan = (tmp_path / "plan.md").read_text(encoding="utf-8")
    assert plan == EXAMPLE.read_text(encoding="utf-8")
    requirements = json.loads((tmp_path / "requirements.json").read_text())
    matches = {m["requirement_id"]: m for m in json.loads((tmp_path / "matches.json").read_text())}
    posting = " ".join(PROSE.with_suffix(".posting.txt").read_text().split())
    for requirement in requirements:
        assert requirement["text"] in posting
        assert not re.search(r"salary|holiday|pension|CV|apply|Who we are|What we offer",
                             requirement["text"])
        verdict = matches[requirement["id"]]
        if verdict["coverage"] == "FULL":
            assert ' — "' in verdict["explanation"]
        else:
            assert f'asks for: "{requirement["text"].rstrip(" .")}"' in plan


def test_the_llm_path_is_scored_through_the_same_graph_with_the_configured_model(
        tmp_path: Path) -> None:
    """With the fixture model (a deterministic stand-in) the command runs the llm path end to
    end; its numbers say nothing about a real model."""
    part = tmp_path / "one"
    part.mkdir()
    for suffix in (".posting.md", ".evidence.yaml", ".labels.jsonl"):
        source = SET / "tune" / f"backend_tallis{suffix}"
        (part / source.name).write_bytes(source.read_bytes())
    result = CliRunner().invoke(cli, ["prep", "eval", str(part), "--path", "lexical", "--path",
                                      "llm", "--params", str(REPO / "data" / "prep" /
                                                             "params.fixture.yaml")])
    assert result.exit_code == 0, result.output
    assert "| lexical | one |" in result.output and "| llm | one |" in result.output
