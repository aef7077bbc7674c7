"""Round 8 of issue #33: a name written with a hyphenated tail ("IOSH-certified") is that name;
a known acronym is spelt out by words in lower case; "on" and "at" inside an acronym's words;
a word before a one-word name is not part of it; a body named after a place writes the place;
a stated level short of the whole ("conversational") is limited; a credential asked for needs
an item that holds one; a wish coordinated after a deed is the second clause's; more verbs and
"together with" / "as well as" cut a bundle, and so does a participle after an adverb; what an
employer gives is a benefit and what is asked of the candidate a requirement, whatever their
words; a role-shaped noun is someone else.

Each rule is general; the sentences here are written for these tests, not taken from the
labelled set."""

from __future__ import annotations

import pytest

from interviewsim.prep.assertion import someone_else
from interviewsim.prep.distinctive import attested_terms, distinctive_groups, has_name
from interviewsim.prep.extraction import split_bundle
from interviewsim.prep.polarity import affirmative
from interviewsim.prep.sections import sentence_kind
from tests.test_prep_senses import _verdict


@pytest.mark.parametrize(("requirement", "evidence"), [
    ("NEBOSH certificate in occupational safety",
     "I'm NEBOSH-certified and run the safety walk on my site every Monday."),
    ("Available to work Friday to Monday evenings",
     "I already work a Friday-to-Monday evening pattern at the depot and like it."),
])
def test_a_name_with_a_hyphenated_tail_is_that_name(requirement: str, evidence: str) -> None:
    assert _verdict(requirement, evidence)[0] == "FULL"


def test_a_known_acronym_is_spelt_out_only_by_words_in_lower_case() -> None:
    assert has_name("crm", attested_terms("I log every call in our customer relationship "
                                          "management tool."))
    assert not has_name("crm", attested_terms("I was Customer Relations Manager for two years."))
    # "on" counts inside the words: the Council on Social Work Education is CSWE
    assert has_name("cswe", attested_terms("My degree is accredited by the Council on Social "
                                           "Work Education."))


def test_a_word_before_a_one_word_name_is_not_part_of_it() -> None:
    [group] = distinctive_groups("Current Texas pharmacy technician registration")
    assert group.terms == ("texas",)
    [group] = distinctive_groups("Advanced Trauma Life Support certificate")
    assert group.terms == ("advanced trauma life support",)


def test_a_body_named_after_a_place_writes_the_place() -> None:
    assert _verdict("Texas pharmacy technician registration",
                    "I'm registered with the Texas State Board of Pharmacy as a technician.")[0] \
        == "FULL"
    # a product's longer name is still another name
    assert _verdict("Experience with Beacon scheduling",
                    "I organised the Beacon Hill fun run for our clinic.")[0] == "GAP"


def test_a_stated_level_short_of_the_whole_is_not_full() -> None:
    assert _verdict("Fluent Portuguese for client calls",
                    "My Portuguese is conversational; I get by on holiday.")[0] == "PARTIAL"


def test_a_credential_asked_for_needs_an_item_that_holds_one() -> None:
    assert _verdict("Postgraduate certificate in MRI",
                    "I scan MRI knees and spines on my own most weekdays.")[0] == "PARTIAL"
    assert _verdict("Postgraduate certificate in MRI",
                    "I hold a postgraduate certificate in MRI from 2021.")[0] == "FULL"


def test_a_wish_coordinated_after_a_deed_is_the_second_clauses() -> None:
    kept, aside = affirmative("I ran the night shift for three years and would love to do it "
                              "again.")
    assert kept == ["I ran the night shift for three years"]
    assert [a.reason for a in aside] == ["wish"]


@pytest.mark.parametrize(("sentence", "parts"), [
    ("You will test new firmware on the bench, document each fault, and coach the junior "
     "technicians.", 3),
    ("Experience with payroll software is essential, together with a good grasp of "
     "pension rules.", 2),
    ("You will run the warehouse night shift, working closely with the transport planners.", 2),
])
def test_a_bundle_is_cut_at_each_new_ask(sentence: str, parts: int) -> None:
    assert len(split_bundle(sentence)) == parts


@pytest.mark.parametrize(("sentence", "kind"), [
    ("You must be comfortable submitting VAT returns on time.", "requirements"),
    ("You should be confident calculating holiday pay and sick pay.", "requirements"),
    ("It would be a bonus if you have used a pension portal.", "nice"),
    ("Our wellbeing scheme also gives everyone two paid volunteering days.", "benefits"),
    ("We offer 30 days' leave and a pension.", "benefits"),
    ("Graduate of an accredited dental therapy program.", "other"),
])
def test_a_sentence_is_what_it_gives_or_asks_whatever_its_words(sentence: str,
                                                               kind: str) -> None:
    assert sentence_kind(sentence) == kind


def test_a_role_shaped_noun_is_someone_else() -> None:
    assert someone_else("the senior instructor signed off every logbook")
    assert someone_else("a periodontist placed the implants")
    assert not someone_else("I signed off every logbook myself")


def test_a_name_inside_an_open_alternative_is_not_asked_for() -> None:
    groups = distinctive_groups("Experience with Sage or a comparable UK payroll package")
    assert [g.terms for g in groups] == [("sage",)] and groups[0].open
