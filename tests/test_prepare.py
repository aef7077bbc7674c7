"""The prepare stage writes all artifacts only when every input is valid."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from interviewsim.data.jsonio import read_jsonl
from interviewsim.data.prepare import OUTPUT_NAMES, prepare_corpus
from interviewsim.errors import InputError
from tests.factories import make_doc, mutated, write_doc

REPO = Path(__file__).resolve().parents[1]


def test_valid_corpus_produces_sorted_deterministic_artifacts(tmp_path):
    inputs = tmp_path / "in"
    for pid in ("P2", "P1"):
        write_doc(inputs, make_doc(pid, interviews=5, pairs=2))
    summary = prepare_corpus(inputs, tmp_path / "out", 0.2)
    assert (summary.personalities, summary.train_pairs, summary.heldout_pairs) == (2, 16, 4)
    held = list(read_jsonl(tmp_path / "out" / "heldout_pairs.jsonl"))
    assert [r["qa_id"] for r in held] == ["P1-Q4-0", "P1-Q4-1", "P2-Q4-0", "P2-Q4-1"]
    assert held[1]["position"] == 1 and held[1]["sequence"] == 40
    first = {n: (tmp_path / "out" / n).read_bytes() for n in OUTPUT_NAMES}
    prepare_corpus(inputs, tmp_path / "out", 0.2)
    assert first == {n: (tmp_path / "out" / n).read_bytes() for n in OUTPUT_NAMES}


def test_one_invalid_file_means_nothing_written_and_every_problem_listed(tmp_path):
    inputs, out = tmp_path / "in", tmp_path / "out"
    write_doc(inputs, make_doc("P1"))
    write_doc(inputs, mutated(make_doc("P2"), lambda d: d.update(schema_version="1.1")))
    write_doc(inputs, make_doc("P3", interviews=1))
    with pytest.raises(InputError) as info:
        prepare_corpus(inputs, out, 0.2)
    files = {Path(p.file).parent.name for p in info.value.problems}
    assert files == {"P2", "P3"}
    assert list(out.iterdir()) == []


def test_previous_outputs_survive_a_failed_run(tmp_path):
    inputs, out = tmp_path / "in", tmp_path / "out"
    write_doc(inputs, make_doc("P1"))
    prepare_corpus(inputs, out, 0.2)
    before = (out / "train_pairs.jsonl").read_bytes()
    write_doc(inputs, b"{not json", folder="P2")
    with pytest.raises(InputError):
        prepare_corpus(inputs, out, 0.2)
    assert (out / "train_pairs.jsonl").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_NAMES)


def test_personality_id_must_match_its_folder(tmp_path):
    write_doc(tmp_path / "in", make_doc("P1"), folder="someone-else")
    with pytest.raises(InputError, match="does not match its folder"):
        prepare_corpus(tmp_path / "in", tmp_path / "out", 0.2)


def test_prepare_cli_exits_1_and_names_file_and_path(tmp_path):
    inputs = tmp_path / "in"
    write_doc(inputs, mutated(make_doc("P1"), lambda d: d["interviews"][0].update(sequence=True)))
    params = tmp_path / "params.yaml"
    params.write_text(f"data: {{personalities: {json.dumps(str(inputs))}}}\n")
    result = subprocess.run(
        [sys.executable, "-m", "stages", "prepare", "--params", str(params),
         "--out-dir", str(tmp_path / "out")],
        capture_output=True, text=True, cwd=REPO,
    )
    assert result.returncode == 1
    assert "P1/prepared_input.json: interviews[0].sequence" in result.stderr
    assert not (tmp_path / "out" / "train_pairs.jsonl").exists()


def test_heldout_cap_keeps_the_earliest_heldout_pairs_and_never_trains_on_the_rest(tmp_path):
    inputs = tmp_path / "in"
    write_doc(inputs, make_doc("P1", interviews=6, pairs=3))  # 2 held-out interviews, 6 pairs
    summary = prepare_corpus(inputs, tmp_path / "out", 0.2, max_heldout_pairs=4)
    held = [r["qa_id"] for r in read_jsonl(tmp_path / "out" / "heldout_pairs.jsonl")]
    assert held == ["P1-Q4-0", "P1-Q4-1", "P1-Q4-2", "P1-Q5-0"]
    train = {r["qa_id"] for r in read_jsonl(tmp_path / "out" / "train_pairs.jsonl")}
    assert not train & {"P1-Q5-1", "P1-Q5-2"} and summary.train_pairs == 12
    split = next(read_jsonl(tmp_path / "out" / "splits.jsonl"))
    assert split["evaluated_qa_ids"] == held and len(split["test_qa_ids"]) == 6
