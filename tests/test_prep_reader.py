"""Prep's reader (data/prep/prep.yaml, ``reader:``): a capable model named once makes the model
path the default of ``prep match`` and ``prep run``; the flags still choose the rules; the plan
says who decided; the embedded 135M model and unknown providers are refused in one line.

Two scripted models stand behind the real seam: the *writer* (``models.generator``) answers
only what the generator is for (strategy, questions, round context) and writes nonsense for any
reading task, so a reading task sent to it fails its gate; the *reader* is the fixture model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from interviewsim.llm.types import ChatRequest
from interviewsim.prep.fixture_model import read_payload, respond
from stages.cli import cli
from tests.test_prep_support import REPO, SAMPLE_ANSWERS, SAMPLE_EVIDENCE, SAMPLE_POSTING

READING = {"extract-requirements", "match-evidence", "assess-answer"}
EXAMPLE = REPO / "docs" / "examples" / "prose_plan_reader.md"
RELAY = REPO / "tests" / "data" / "prep_relay"
FIFTEENTH = REPO / "tests" / "data" / "prep_eval" / "tune16"
PROSE = "hospital-procurement-officer"


def writer_model(request: ChatRequest) -> str:
    """Referenced from the test params: the generator, useless for reading."""
    task, _ = read_payload(request)
    return "not JSON" if task in READING else respond(request)


def _files(tmp_path: Path, reader: dict[str, Any] | None) -> tuple[Path, Path]:
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({
        "providers": {
            "local": {"kind": "scripted", "script": "tests.test_prep_reader:writer_model"},
            "reader": {"kind": "scripted", "script": "interviewsim.prep.fixture_model:respond"},
            "small": {"kind": "llama_cpp",
                      "model_path": "models/SmolLM2-135M-Instruct-Q4_1.gguf"}},
        "models": {"generator": {"provider": "local", "model": "writer-model",
                                 "max_tokens": 2048}},
        "cache": {"path": str(tmp_path / "cache.sqlite")}}), encoding="utf-8")
    settings = tmp_path / "prep.yaml"
    settings.write_text(yaml.safe_dump({"reader": reader}), encoding="utf-8")
    return params, settings


READER = {"provider": "reader", "model": "reader-model", "max_tokens": 2048}


def invoke(*args: object) -> Any:
    return CliRunner().invoke(cli, ["prep", *map(str, args)], catch_exceptions=True)


def _calls(out: Path) -> list[tuple[str, str]]:
    lines = (out / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    return [(row["purpose"], row["call"]["model"]) for row in map(json.loads, lines)]


def _match(tmp_path: Path, reader: dict[str, Any] | None, *flags: str
           ) -> tuple[list[tuple[str, str]], str]:
    """``prep match`` on the sample: the calls it made (purpose, model) and its plan."""
    params, settings = _files(tmp_path, reader)
    out = tmp_path / "match"
    result = invoke("match", "--posting", SAMPLE_POSTING, "--evidence", SAMPLE_EVIDENCE,
                    *flags, "--params", params, "--prep-settings", settings, "--out-dir", out)
    assert result.exit_code == 0, result.output
    return _calls(out), (out / "plan.md").read_text(encoding="utf-8")


def test_a_reader_makes_the_model_path_the_default_of_prep_match(tmp_path: Path) -> None:
    calls, plan = _match(tmp_path, READER)
    assert calls == [("extract-requirements", "reader-model"),
                     ("match-evidence", "reader-model")]
    assert ("Requirements extracted by the model 'reader-model' (provider 'reader'); verdicts "
            "decided by the model 'reader-model' (provider 'reader').") in plan
    assert "not found in these words" not in plan


def test_the_flags_still_choose_the_lexical_rules_and_the_plan_says_what_a_gap_means(
        tmp_path: Path) -> None:
    calls, plan = _match(tmp_path, READER, "--extractor", "lexical", "--matcher", "lexical")
    assert calls == []
    assert "verdicts decided by the lexical rules" in plan
    assert 'read a GAP as "not found in these words"' in plan


def test_without_a_reader_the_default_is_the_lexical_rules_offline(tmp_path: Path) -> None:
    calls, plan = _match(tmp_path, None)
    assert calls == []
    assert "Requirements extracted by the lexical rules" in plan


def test_a_mixed_choice_names_each_side(tmp_path: Path) -> None:
    calls, plan = _match(tmp_path, READER, "--matcher", "lexical")
    assert calls == [("extract-requirements", "reader-model")]
    assert ("Requirements extracted by the model 'reader-model' (provider 'reader'); verdicts "
            "decided by the lexical rules.") in plan


def test_prep_run_reads_with_the_reader_and_writes_with_the_generator(tmp_path: Path) -> None:
    params, settings = _files(tmp_path, READER)
    out = tmp_path / "run"
    result = invoke("run", "--posting", SAMPLE_POSTING, "--evidence", SAMPLE_EVIDENCE,
                    "--answers", SAMPLE_ANSWERS, "--params", params,
                    "--prep-settings", settings, "--out-dir", out)
    assert result.exit_code == 0, result.output
    calls = _calls(out)
    assert {purpose for purpose, _ in calls} >= READING | {"strategy"}
    assert all((model == "reader-model") == (purpose in READING) for purpose, model in calls)
    assert "verdicts decided by the model 'reader-model'" in (out / "package.md").read_text()


def test_prep_eval_measures_the_reader_on_the_model_path(tmp_path: Path) -> None:
    params, settings = _files(tmp_path, READER)
    part = REPO / "tests" / "data" / "prep_eval" / "tune"
    with_reader = invoke("eval", part, "--path", "llm", "--params", params,
                         "--prep-settings", settings)
    assert with_reader.exit_code == 0, with_reader.output
    assert "rejected by a gate" not in with_reader.output
    params_only, no_reader = _files(tmp_path, None)
    without = invoke("eval", part, "--path", "llm", "--params", params_only,
                     "--prep-settings", no_reader)
    assert without.exit_code == 0, without.output
    assert "llm/tune: rejected by a gate" in without.output  # the writer cannot read


def test_the_embedded_135m_model_is_refused_as_the_reader(tmp_path: Path) -> None:
    params, settings = _files(tmp_path, {"provider": "small", "model": "anything"})
    out = tmp_path / "match"
    result = invoke("match", "--posting", SAMPLE_POSTING, "--evidence", SAMPLE_EVIDENCE,
                    "--params", params, "--prep-settings", settings, "--out-dir", out)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{settings}: reader:" in result.output and "embedded 135M" in result.output
    assert not (out / "plan.md").exists()


def test_an_unknown_provider_or_key_is_one_line_naming_the_file_and_key(
        tmp_path: Path) -> None:
    params, settings = _files(tmp_path, {"provider": "nowhere", "model": "m"})
    result = invoke("match", "--posting", SAMPLE_POSTING, "--evidence", SAMPLE_EVIDENCE,
                    "--params", params, "--prep-settings", settings,
                    "--out-dir", tmp_path / "o")
    assert result.exit_code == 1 and "reader.provider" in result.output
    assert "unknown provider 'nowhere'" in result.output
    settings.write_text("reeder: null\n", encoding="utf-8")
    result = invoke("match", "--posting", SAMPLE_POSTING, "--evidence", SAMPLE_EVIDENCE,
                    "--params", params, "--prep-settings", settings,
                    "--out-dir", tmp_path / "o")
    assert result.exit_code == 1 and "reeder" in result.output and "Traceback" not in result.output
    result = invoke("match", "--posting", SAMPLE_POSTING, "--evidence", SAMPLE_EVIDENCE,
                    "--params", params, "--prep-settings", tmp_path / "missing.yaml",
                    "--out-dir", tmp_path / "o")
    assert result.exit_code == 1 and "prep settings file not found" in result.output


def test_the_shipped_prep_settings_name_no_reader() -> None:
    """Offline by default: a fresh clone's prep never calls a model unless told to."""
    assert yaml.safe_load((REPO / "data" / "prep" / "prep.yaml").read_text())["reader"] is None


def test_the_documented_reader_plan_is_what_the_default_path_writes(tmp_path: Path) -> None:
    """docs/examples/prose_plan_reader.md: the hard-wrapped Windows-1252 prose posting of the
    part (then the holdout, now tune16), planned by the default path with the relayed reader configured (its answers
    committed). Every requirement is a clause of the posting, every FULL cites evidence, every
    gap and partial has a practice question built from the requirement's words."""
    out = tmp_path / "match"
    result = invoke("match", "--posting", FIFTEENTH / f"{PROSE}.posting.cp1252.txt",
                    "--evidence", FIFTEENTH / f"{PROSE}.evidence.yaml",
                    "--params", RELAY / "params.yaml", "--prep-settings", RELAY / "prep.yaml",
                    "--out-dir", out)
    assert result.exit_code == 0, result.output
    plan = (out / "plan.md").read_text(encoding="utf-8")
    assert plan == EXAMPLE.read_text(encoding="utf-8")
    matches = json.loads((out / "matches.json").read_text())
    assert all(m["evidence_ids"] for m in matches if m["coverage"] == "FULL")
    practice = plan.split("## Practice for the gaps", 1)[1].split("## Evidence", 1)[0]
    assert all(m["requirement_id"] in practice for m in matches if m["coverage"] != "FULL")
