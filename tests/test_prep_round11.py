"""Round 11 of issue #33, from the eleventh blind part's errors once it became a tuning part
(`tune12`): a negated existence or identity ("there isn't a single Fanuc in the building", "it
isn't BadgerNet") denies its object; "Wire EDM, no hands-on time with it" carries the denial
back to the term; a clause after "but" is read without the "but" ("but not the full General
Certificate" is a denial); a cited item that denies another word of the requirement attests
only the rest; a car sold is no access to a car; "in the last 12 months" carries no weight;
"both X and Y" needs both; ", and experience of …" starts a new requirement; "We are looking
for someone who has written …" asks for experience.

Each rule is general; the sentences here are written for these tests, not taken from the
labelled set."""

from __future__ import annotations

import pytest

from interviewsim.prep.caps import both_parts
from interviewsim.prep.extraction import split_bundle
from interviewsim.prep.polarity import affirmative
from tests.test_prep_senses import _verdict


@pytest.mark.parametrize(("text", "denied"), [
    ("I can edit programs at the control, but there isn't a single Heidenhain on our floor.",
     "Heidenhain"),
    ("We chart on a home-grown system, and it isn't Cerner.", "Cerner"),
    ("Not a single Tableau licence in the whole council, so I used Excel.", "Tableau"),
])
def test_a_negated_existence_or_identity_denies_its_object(text: str, denied: str) -> None:
    kept, dropped = affirmative(text)
    assert not any(denied in clause for clause in kept)
    assert any(denied in d.text and d.reason == "denial" for d in dropped)


def test_what_is_affirmed_beside_a_negated_identity_stays_affirmed() -> None:
    kept, _ = affirmative("I can edit programs at the control, but there isn't a single "
                          "Heidenhain on our floor.")
    assert kept == ["I can edit programs at the control"]


def test_no_experience_with_it_carries_the_denial_back_to_the_named_term() -> None:
    kept, dropped = affirmative("Laser welding, no real experience with it, sadly; we "
                                "bought welded frames in.")
    assert "Laser welding" not in kept
    assert any(d.text == "Laser welding" for d in dropped)
    assert _verdict("Laser welding of stainless frames",
                    "Laser welding, no real experience with it, sadly; we bought welded "
                    "frames in.")[0] != "FULL"


def test_a_clause_after_but_is_read_without_the_but() -> None:
    _, dropped = affirmative("I hold the IOSH Managing Safely card, but not the full "
                             "Diploma.")
    assert [d.text for d in dropped] == ["not the full Diploma"]


def test_a_cited_item_that_denies_part_of_the_requirement_attests_only_the_rest() -> None:
    coverage, _ = _verdict("IOSH Managing Safely Diploma",
                           "I hold the IOSH Managing Safely card from 2022, but not the full "
                           "Diploma.")
    assert coverage == "PARTIAL"
    assert _verdict("IOSH Managing Safely Diploma",
                    "I hold the IOSH Managing Safely Diploma from 2022.")[0] == "FULL"


def test_a_vehicle_given_up_is_not_had() -> None:
    coverage, _ = _verdict("Driving licence and your own car",
                           "I have held a driving licence for ten years, but I gave up my car "
                           "when I moved to the city.")
    assert coverage != "FULL"


def test_how_recently_carries_no_weight() -> None:
    from interviewsim.prep.attestation import content_stems
    stems = content_stems("Passed a medicines calculation assessment in the last 12 months")
    assert not {"last", "month", "months"} & set(stems)
    assert {"medicin", "calcul", "assessment"} <= set(stems)


def test_both_needs_both() -> None:
    assert both_parts("Able to service both gas boilers and heat pumps") == (
        "gas boilers", "heat pumps")
    assert both_parts("You communicate well in English, both written and spoken") is None
    assert _verdict("Able to service both gas boilers and heat pumps",
                    "I have serviced gas boilers for six years.")[0] == "PARTIAL"
    assert _verdict("Able to service both gas boilers and heat pumps",
                    "I have serviced gas boilers and heat pumps for six years.")[0] == "FULL"


def test_and_experience_of_after_a_comma_is_a_second_requirement() -> None:
    assert split_bundle("A working knowledge of Welsh, and experience of training new "
                        "volunteers would help.") == [
        "A working knowledge of Welsh", "experience of training new volunteers would help."]
    # no comma: one thing asked in two words
    assert len(split_bundle("Good knowledge and experience of SAP payroll.")) == 1


def test_someone_who_has_done_it_is_asked_for_and_a_role_introduction_is_not() -> None:
    from interviewsim.prep.extraction import extract_lexical
    posting = ("Claims handler, Tarnby\n\nWe are looking for someone who has handled motor "
               "claims end to end and who can explain a settlement to an upset customer.\n\n"
               "We're looking for a claims handler to join our friendly Tarnby team.\n")
    texts = [r.text for r in extract_lexical(posting)]
    assert any("handled motor claims end to end" in t for t in texts)
    assert not any("join our friendly" in t for t in texts)
