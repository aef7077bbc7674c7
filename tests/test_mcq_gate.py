"""The MCQ grounding gate verifies the atomic item (question and answer) against its source
response: yes/no and number answers are no longer dropped for having no content words, and
an item checked against another interview's response is still rejected."""

from __future__ import annotations

import pytest

from interviewsim.mcq.gate import answer_kind, grounding_gate
from interviewsim.text.coverage import DocumentFrequencies
from interviewsim.text.numbers import numbers_in

RESPONSE = ("We fired the old anagama kiln for fourteen hours that weekend, and I still think "
            "the ash glaze on the second shelf was the best we ever pulled out of it.")
OTHER = ("The ferry office closed in the spring. The council sold the building and the "
         "ticket counter went to a museum in Dunmere.")
DF = DocumentFrequencies.of([RESPONSE, OTHER, "Nothing else happened that year."])


@pytest.mark.parametrize("answer, kind", [
    ("Yes", "yes_no"), ("No.", "yes_no"), (" yes! ", "yes_no"),
    ("14", "number"), ("fourteen", "number"), ("Fourteen hours", "number"),
    ("The ash glaze on the second shelf", "text"), ("No kiln was fired", "text"),
])
def test_answer_kinds(answer, kind):
    assert answer_kind(answer) == kind


@pytest.mark.parametrize("question, answer", [
    ("Did you fire the anagama kiln that weekend?", "Yes"),
    ("Did you fire the anagama kiln that weekend?", "No"),
    ("How many hours did you fire the anagama kiln?", "14"),
    ("How many hours did you fire the anagama kiln?", "fourteen hours"),
    ("Which glaze was the best you pulled out?", "The ash glaze on the second shelf"),
])
def test_items_attested_by_their_response_are_kept(question, answer):
    assert grounding_gate(question, answer, RESPONSE, DF, 0.30).kept


@pytest.mark.parametrize("question, answer", [
    ("Did you fire the anagama kiln that weekend?", "Yes"),
    ("How many hours did you fire the anagama kiln?", "14"),
    ("Which glaze was the best you pulled out?", "The ash glaze on the second shelf"),
])
def test_the_same_items_against_another_response_are_rejected(question, answer):
    result = grounding_gate(question, answer, OTHER, DF, 0.30)
    assert not result.kept and result.reason(0.30)


def test_a_number_the_response_does_not_state_is_rejected_with_the_number_named():
    result = grounding_gate("How many hours did you fire the anagama kiln?", "12", RESPONSE, DF,
                            0.30)
    assert not result.kept and result.missing_numbers == (12.0,)
    assert "12 not stated in the response" in (result.reason(0.30) or "")


def test_the_threshold_decides_a_text_answer():
    answer = "The ash glaze on the second shelf"
    assert grounding_gate("Which glaze?", answer, RESPONSE, DF, 1.0).kept
    assert not grounding_gate("Which glaze?", "Porcelain teapots in cobalt", RESPONSE, DF,
                              0.01).kept
    assert grounding_gate("Which glaze?", "Porcelain teapots in cobalt", RESPONSE, DF, 0.0).kept


@pytest.mark.parametrize("text, values", [
    ("3", {3.0}), ("we built three kilns", {3.0}), ("1,200 people over 3.5 years", {1200.0, 3.5}),
    ("twenty-five", {25.0}), ("two hundred and ten", {210.0}), ("I went twice", {2.0}),
    ("in 2010", {2010.0}), ("no numbers here", set()),
])
def test_numbers_in_digits_and_words(text, values):
    assert numbers_in(text) == values
