"""Round 7 of issue #33: acronyms spelt out in their plural, compound and "in/out" forms; "training for" and "without" in their plain senses; an open alternative and the
posting's framing words carry no coverage; a second relative clause or "and have ..." is its
own ask; a common-word name that begins a longer name is another name; a hyphenated word is
one word of a short requirement.

Each rule is general; the sentences here are written for these tests, not taken from the
labelled set."""

from __future__ import annotations

import pytest

from interviewsim.prep.assertion import marker
from interviewsim.prep.attestation import content_stems
from interviewsim.prep.distinctive import attested_terms, has_name, stem
from interviewsim.prep.extraction import split_bundle
from interviewsim.prep.polarity import affirmative
from tests.test_prep_senses import _verdict


@pytest.mark.parametrize(("acronym", "spelt_out"), [
    ("slas", "I agreed service level agreements with each of our hauliers."),
    ("mrp-driven", "I plan the line from material requirements planning runs each week."),
    ("fifo", "Cold-room stock is rotated first in, first out on every delivery."),
    ("cms", "I edit pages in our content management system."),
])
def test_an_acronym_is_attested_by_the_words_that_spell_it(acronym: str, spelt_out: str
                                                           ) -> None:
    assert has_name(acronym, attested_terms(spelt_out))


def test_words_that_spell_nothing_like_the_acronym_do_not_attest_it() -> None:
    assert not has_name("cms", attested_terms("I repaired pumps and conveyor belts."))
    # a known name's acronym only by words in lower case, never by a title's chance run
    assert not has_name("sql", attested_terms("I was made Senior Quality Lead in 2021."))
    assert not has_name("slas", attested_terms("I met suppliers every Friday."))


def test_training_for_others_is_a_duty_and_training_for_an_exam_is_a_plan() -> None:
    kept, _ = affirmative("I ran the manual-handling training for new warehouse staff.")
    assert kept
    kept, aside = affirmative("I'm training for the forklift instructor assessment.")
    assert not kept and aside[0].reason == "wish"


def test_without_in_a_plain_sense_is_no_negation_but_without_the_thing_is() -> None:
    assert marker("My registration was renewed without conditions last year.") is None
    assert marker("I completed every shift without a single incident.") is None
    assert marker("I drove the route without a licence for the trailer.") is not None


def test_an_open_alternative_and_the_postings_framing_ask_for_nothing() -> None:
    stems = content_stems("We need someone who holds a degree in geology or a closely "
                          "related subject")
    assert {stem("geology"), stem("degree")} <= set(stems)
    for word in ("need", "someone", "closely", "related", "subject"):
        assert stem(word) not in stems, stems


def test_a_second_relative_clause_or_a_second_having_is_its_own_requirement() -> None:
    assert len(split_bundle("You will hold a current HGV licence and have a clean record of "
                            "at least three years")) == 2
    assert len(split_bundle("We want someone who knows cold-chain storage and who enjoys "
                            "leading a small night team")) == 2
    # a plain list of nouns stays whole
    assert len(split_bundle("Experience of picking and packing")) == 1


def test_a_common_word_name_that_begins_a_longer_name_is_another_name() -> None:
    requirement = "Experience with the Beacon rota system"
    assert _verdict(requirement, "Each summer I help at the Beacon Hill street fair.")[0] != "FULL"
    assert _verdict(requirement, "I build the weekly rota in Beacon for all three sites.")[0] \
        == "FULL"


def test_a_hyphenated_word_counts_once_in_a_short_requirement() -> None:
    coverage, why = _verdict(
        "Twin-engine time of 50 hours or more",
        "As of my last logbook audit I have 410 hours total time, most of it in trainers.",
        "I have no twin-engine time yet.", "I teach engine failure drills to every student.",
        "My time-building flights were cross-country.")
    assert coverage == "PARTIAL", why
    assert "twin-engin" in why
