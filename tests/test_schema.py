"""The canonical input is accepted exactly and every deviation is rejected with its location."""

from __future__ import annotations

import json

import pytest

from interviewsim.data.schema import load_prepared_input
from interviewsim.errors import InputError
from tests.factories import make_doc, mutated, write_doc


def rejection(tmp_path, doc) -> list[str]:
    path = write_doc(tmp_path, doc, folder="P1")
    with pytest.raises(InputError) as info:
        load_prepared_input(path)
    return [f"{p.path}: {p.message}" for p in info.value.problems]


def test_valid_document_loads(tmp_path):
    doc = load_prepared_input(write_doc(tmp_path, make_doc()))
    assert doc.personality_id == "P1"
    assert len(doc.interviews) == 5


@pytest.mark.parametrize(
    ("mutate", "expected_path"),
    [
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: d["personality"].update(age=3), "personality.age"),
        (lambda d: d["interviews"][1].update(date="2020"), "interviews[1].date"),
        (lambda d: d["interviews"][0]["qa_pairs"][2].update(speaker="x"),
         "interviews[0].qa_pairs[2].speaker"),
    ],
)
def test_unknown_field_at_each_level_is_rejected(tmp_path, mutate, expected_path):
    problems = rejection(tmp_path, mutated(make_doc(), mutate))
    assert any(p.startswith(f"{expected_path}: unknown field") for p in problems), problems


@pytest.mark.parametrize(
    ("text_from", "expected_path"),
    [
        (lambda s: s.replace('"schema_version": "1.0",', '"schema_version": "1.0", "schema_version": "1.0",', 1), "schema_version"),
        (lambda s: s.replace('"profile":', '"profile": "x", "profile":', 1), "personality.profile"),
        (lambda s: s.replace('"sequence": 10,', '"sequence": 10, "sequence": 11,', 1), "interviews[1].sequence"),
        (lambda s: s.replace('"qa_id": "P1-Q0-1"', '"qa_id": "P1-Q0-1", "qa_id": "P1-Q0-9"', 1), "interviews[0].qa_pairs[1].qa_id"),
    ],
)
def test_duplicate_key_at_each_level_is_rejected(tmp_path, text_from, expected_path):
    text = text_from(json.dumps(make_doc()))
    problems = rejection(tmp_path, text)
    assert any(p.startswith(f"{expected_path}: duplicate key") for p in problems), problems


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.update(personality_id="  "), "personality_id: must not be blank"),
        (lambda d: d["interviews"][2].update(interview_id=""), "interviews[2].interview_id: must not be blank"),
        (lambda d: d["interviews"][0].update(sequence=True), "interviews[0].sequence: Input should be a valid integer"),
        (lambda d: d["interviews"][0].update(sequence=-1), "interviews[0].sequence: Input should be greater than or equal to 0"),
        (lambda d: d["interviews"][0].update(sequence=1.0), "interviews[0].sequence: Input should be a valid integer"),
        (lambda d: d["interviews"][3]["qa_pairs"][0].update(qa_id="P1-Q0-1"),
         "interviews[3].qa_pairs[0].qa_id: duplicate 'P1-Q0-1' (first at interviews[0].qa_pairs[1].qa_id)"),
        (lambda d: d["interviews"][4].update(sequence=0), "interviews[4].sequence: duplicate 0 (first at interviews[0].sequence)"),
        (lambda d: d["interviews"][4].update(interview_id="P1-I0"), "interviews[4].interview_id: duplicate 'P1-I0'"),
        (lambda d: d["interviews"][1].update(qa_pairs=[]), "interviews[1].qa_pairs: List should have at least 1 item"),
        (lambda d: d.update(schema_version="1.1"), "schema_version: expected exactly \"1.0\", got '1.1'"),
        (lambda d: d["interviews"][0]["qa_pairs"][0].update(tags=["a", "a"]), "interviews[0].qa_pairs[0].tags: tags[1] duplicates 'a'"),
        (lambda d: d["interviews"][0]["qa_pairs"][0].update(tags=[" "]), "interviews[0].qa_pairs[0].tags[0]: must not be blank"),
        (lambda d: d["interviews"][0]["qa_pairs"][0].update(response="\n"), "interviews[0].qa_pairs[0].response: must not be blank"),
        (lambda d: d["interviews"][0]["qa_pairs"][0].pop("question"), "interviews[0].qa_pairs[0].question: required field is missing"),
        (lambda d: d.update(interviews=[]), "interviews: List should have at least 1 item"),
        (lambda d: d["personality"].update(profile=" "), "personality.profile: must not be blank"),
        (lambda d: d["interviews"][0]["qa_pairs"][0].update(response="Fine.\x00 Then"),
         "interviews[0].qa_pairs[0].response: contains a NUL character (U+0000) at position 5"),
        (lambda d: d["personality"].update(long_profile="a\x00"),
         "personality.long_profile: contains a NUL character"),
    ],
)
def test_invalid_values_are_rejected_with_their_path(tmp_path, mutate, expected):
    problems = rejection(tmp_path, mutated(make_doc(), mutate))
    assert any(p.startswith(expected) for p in problems), problems


def test_every_problem_is_reported_not_only_the_first(tmp_path):
    def two_faults(d):
        d["interviews"][0].update(sequence=True)
        d["interviews"][1]["qa_pairs"][0].update(response="")

    assert len(rejection(tmp_path, mutated(make_doc(), two_faults))) == 2


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"\xff\xfe{}", "not UTF-8: invalid byte at offset 0"),
        (b"{\"schema_version\": ", "invalid JSON at line 1"),
        (b"", "file is empty"),
        (b"   \n", "file is empty"),
        (b"[]", "Input should be a valid dictionary"),
    ],
)
def test_unreadable_files_get_a_precise_message(tmp_path, raw, expected):
    path = write_doc(tmp_path, raw, folder="P1")
    with pytest.raises(InputError) as info:
        load_prepared_input(path)
    message = str(info.value)
    assert str(path) in message
    assert expected in message


def test_conformance_examples_are_accepted(conformance_dir):
    paths = sorted(conformance_dir.glob("personalities/*/prepared_input.json"))
    assert len(paths) == 10
    for path in paths:
        assert load_prepared_input(path).personality_id == path.parent.name
