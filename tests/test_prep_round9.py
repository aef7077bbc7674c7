"""Round 9 of issue #33: a marker word that is the requirement's own wording ("Basic Safety
Training", "Personal Licence") qualifies nothing; a lapse said anywhere in a sentence holds for
the whole sentence; "Level 4 … or higher" is met by a higher level; two capitalised words spell
a two-letter acronym ("Ordnance Survey" is OS); a name with an inner capital is its own name
before another capitalised word; "able to", "comfortable using" and "at least N years" after a
comma start a new requirement; a name another item denies in lower case contradicts only names
the posting writes in lower case; and the evaluation's denial-or-wish rate reads the writer's
reason, not every "not".

Each rule is general; the sentences here are written for these tests, not taken from the
labelled set."""

from __future__ import annotations

import pytest

from interviewsim.prep.distinctive import attested_terms, distinctive_groups, has_name
from interviewsim.prep.evaluation import names_denial_or_wish
from interviewsim.prep.extraction import split_bundle
from tests.test_prep_senses import _verdict


def test_a_marker_that_is_the_requirement_s_own_wording_qualifies_nothing() -> None:
    requirement = "A current Basic Life Support certificate"
    assert _verdict(requirement, "My Basic Life Support certificate is in date; I "
                                 "renewed it at the county hospital in March.")[0] == "FULL"
    # the same marker used as one still qualifies
    assert _verdict("Life support certificate",
                    "I only know the basic life support theory from a leaflet.")[0] != "FULL"


def test_a_lapse_anywhere_in_the_sentence_holds_for_all_of_it() -> None:
    coverage, why = _verdict("Membership of the Chartered Institute of Plumbing and Heating Engineering",
                    "I joined the Chartered Institute of Plumbing and Heating Engineering as "
                    "an apprentice, but I let the membership lapse last year.")
    assert coverage != "FULL" and "lapse" in why


def test_a_higher_level_meets_level_n_or_higher() -> None:
    [_, level] = [g for g in distinctive_groups(
        "The ILM Level 3 Award in Leadership, or higher") if g.terms in (("ilm",), ("level 3+",))]
    assert level.terms == ("level 3+",)
    assert has_name("level 3+", attested_terms("I hold the Level 5 Diploma from 2021."))
    assert not has_name("level 3+", attested_terms("I hold the Level 2 Award from 2021."))
    # without "or higher" the level is the level asked
    assert ("level 3",) in [g.terms for g in distinctive_groups("NVQ Level 3 in plumbing")]


def test_two_capitalised_words_spell_a_two_letter_acronym() -> None:
    assert has_name("os", attested_terms("We license the Ordnance Survey base maps."))
    assert not has_name("os", attested_terms("our open source maps are updated weekly."))


def test_an_inner_capital_keeps_a_name_before_another_capitalised_word() -> None:
    assert _verdict("Experience with OS MasterMap data",
                    "I load the Ordnance Survey MasterMap Highways Network every month and "
                    "join it to our asset register.")[0] == "FULL"


@pytest.mark.parametrize(("sentence", "parts"), [
    ("You should be fluent in Welsh, able to drive a manual van, and comfortable using "
     "a handheld scanner.", 3),
    ("You will hold a Level 2 food hygiene certificate, and at least two years of kitchen "
     "experience.", 2),
])
def test_a_new_requirement_after_a_comma(sentence: str, parts: int) -> None:
    assert len(split_bundle(sentence)) == parts


def test_a_lower_case_denial_does_not_contradict_a_capitalised_name() -> None:
    # "Supply" is a name here only by its capital; another item's "supply chain" denial is not
    # about it
    verdict = _verdict("Diploma in Procurement and Supply",
                       "I completed the Diploma in Procurement and Supply in 2019.",
                       "The supply chain forecasting was never my job; planning did it.")
    assert verdict[0] == "FULL"


@pytest.mark.parametrize(("why", "polar"), [
    ("A plain denial of any SQL experience.", True),
    ("Signing up for a course next spring is a wish, not training completed.", True),
    ("Candidate states they do not speak Welsh.", True),
    ("The certificate lapsed in 2022, so it is not current.", False),
    ("Generic-word trap: 'excel' is used as a verb, not the Excel product.", False),
    ("Generic-word trap: reading paperwork and planning a week share the words 'plan' and "
     "'read' but say nothing about schematics.", False),
])
def test_the_denial_or_wish_rate_reads_the_writer_s_reason(why: str, polar: bool) -> None:
    assert names_denial_or_wish(why) is polar
