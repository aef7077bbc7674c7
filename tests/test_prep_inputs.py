"""Inputs as users have them: every bad one ends with exit 1, one clear line, nothing stale."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from interviewsim.prep.sources import decode_text
from stages.cli import cli
from tests.test_prep_support import REPO, SAMPLE_EVIDENCE, SAMPLE_POSTING

POSTING_TEXT = SAMPLE_POSTING.read_text(encoding="utf-8")
EVIDENCE_TEXT = SAMPLE_EVIDENCE.read_text(encoding="utf-8")


def _match(tmp_path: Path, posting: Path, evidence: Path = SAMPLE_EVIDENCE,
           *extra: str) -> Any:
    out = tmp_path / "out"
    return CliRunner().invoke(cli, ["prep", "match", "--posting", str(posting), "--evidence",
                                    str(evidence), "--out-dir", str(out), "--params",
                                    str(REPO / "params.yaml"), *extra])


def _stale(tmp_path: Path) -> Path:
    """An output folder holding an earlier run's package and plan."""
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    for name in ("plan.md", "package.md", "matches.json", "error_report.md"):
        (out / name).write_text("from an earlier run", encoding="utf-8")
    (out / "notes-of-mine.txt").write_text("not prep's", encoding="utf-8")
    return out


def _docx(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    return path


BINARIES = {
    "posting.pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj",
    "posting.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "posting.jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF",
}


@pytest.mark.parametrize("name", [*BINARIES, "posting.docx"])
@pytest.mark.parametrize("role", ["posting", "evidence"])
def test_a_binary_document_is_refused_in_one_line_naming_the_fix(tmp_path: Path, name: str,
                                                                  role: str) -> None:
    path = tmp_path / name
    if name.endswith(".docx"):
        _docx(path)
    else:
        path.write_bytes(BINARIES[name])
    out = _stale(tmp_path)
    result = (_match(tmp_path, path) if role == "posting"
              else _match(tmp_path, SAMPLE_POSTING, path))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "convert it to text first" in lines[0] and name in lines[0]
    assert sorted(p.name for p in out.iterdir()) == ["notes-of-mine.txt"]


@pytest.mark.parametrize("encoding", ["cp1252", "utf-16", "utf-8-sig", "utf-16-le"])
def test_a_posting_and_evidence_in_a_common_encoding_are_decoded(tmp_path: Path,
                                                                   encoding: str) -> None:
    posting = tmp_path / "posting.txt"
    posting.write_bytes(POSTING_TEXT.replace("\n", "\r\n").encode(encoding))
    evidence = tmp_path / "evidence.yaml"
    evidence.write_bytes(EVIDENCE_TEXT.encode(encoding))
    result = _match(tmp_path, posting, evidence)
    assert result.exit_code == 0, result.output
    reference = _match(tmp_path / "ref", SAMPLE_POSTING)
    assert result.output.split(" -> ")[0] == reference.output.split(" -> ")[0]
    matches = json.loads((tmp_path / "out" / "matches.json").read_text(encoding="utf-8"))
    assert matches and "£250,000" in (tmp_path / "out" / "requirements.json").read_text(
        encoding="utf-8")


def test_windows_1252_punctuation_reads_as_the_author_meant() -> None:
    text, encoding = decode_text("Salary \u20ac62,000 \u2022 it\u2019s 5\u00b0C".encode("cp1252"))
    assert encoding == "cp1252" and text == "Salary \u20ac62,000 \u2022 it\u2019s 5\u00b0C"


def test_bytes_in_no_text_encoding_are_refused_naming_what_was_tried() -> None:
    with pytest.raises(ValueError, match="tried utf-8, cp1252"):
        decode_text(b"requirements \x81\x8d\x00\x01 binary")


@pytest.mark.parametrize(("content", "expected"), [
    ("- just a list\n- of strings\n", "found a list without the 'evidence:' key"),
    ("items:\n  - id: EV-001\n", "found keys items"),
    ("evidence:\n  - id: 1\n    title: t\n    summary: s\n", "evidence[0].id"),
    ("evidence: [unclosed\n", "not valid YAML/JSON"),
])
def test_a_wrong_evidence_format_is_named_in_the_users_terms_with_an_example(
        tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "evidence.yaml"
    path.write_text(content, encoding="utf-8")
    out = _stale(tmp_path)
    result = _match(tmp_path, SAMPLE_POSTING, path)
    assert result.exit_code == 1
    [line] = result.output.strip().splitlines()
    assert expected in line and "evidence: [{id: EV-001, title:" in line
    assert "_EvidenceFile" not in line and "Traceback" not in result.output
    assert not (out / "plan.md").exists()


def _bullets(count: int) -> str:
    return "# Big posting\n\n## Requirements\n" + "".join(
        f"- Experience with widget model {n} in production\n" for n in range(count))


def test_a_posting_with_more_than_999_requirements_runs_without_a_cap(tmp_path: Path) -> None:
    posting = tmp_path / "posting.md"
    posting.write_text(_bullets(1_005), encoding="utf-8")
    result = _match(tmp_path, posting)
    assert result.exit_code == 0, result.output
    assert "1005 requirements" in result.output
    ids = [r["id"] for r in json.loads((tmp_path / "out" / "requirements.json").read_text())]
    assert ids[998:1001] == ["REQ-999", "REQ-1000", "REQ-1001"]


def test_a_45_bullet_posting_is_fine_and_a_cap_is_only_what_the_flag_sets(
        tmp_path: Path) -> None:
    posting = tmp_path / "posting.md"
    posting.write_text(_bullets(45), encoding="utf-8")
    assert _match(tmp_path, posting).exit_code == 0
    capped = _match(tmp_path, posting, SAMPLE_EVIDENCE, "--max-requirements", "40")
    assert capped.exit_code == 1 and "raise --max-requirements" in capped.output


def test_a_crash_leaves_nothing_of_the_previous_run(tmp_path: Path) -> None:
    """A valid run, then one whose evidence cannot be read: the folder is empty of both."""
    assert _match(tmp_path, SAMPLE_POSTING).exit_code == 0
    assert (tmp_path / "out" / "plan.md").exists()
    broken = tmp_path / "evidence.yaml"
    broken.write_bytes(b"%PDF-1.4")
    assert _match(tmp_path, SAMPLE_POSTING, broken).exit_code == 1
    assert list((tmp_path / "out").iterdir()) == []


def test_an_empty_posting_is_refused_in_one_line(tmp_path: Path) -> None:
    posting = tmp_path / "posting.txt"
    posting.write_text("  \n", encoding="utf-8")
    result = _match(tmp_path, posting)
    assert result.exit_code == 1 and result.output.strip().endswith("the file is empty")
