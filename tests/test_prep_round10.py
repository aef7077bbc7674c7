"""Round 10 of issue #33, from the tenth blind part's errors once it became a tuning part: "I'd
be starting from scratch on it" and "a name I know from job adverts rather than from using it"
attest nothing outright; an irregular past verb after another agent is that agent's act, and
a noun phrase coordinated after someone else's act shares it; a language is a distinctive term
even in a title-case bullet; " and liaise …", " and an … qualification" start a new
requirement; "We also need someone who can …" asks for something, and so does "We're looking
for at least four years of …".

Each rule is general; the sentences here are written for these tests, not taken from the
labelled set."""

from __future__ import annotations

import pytest

from interviewsim.prep.assertion import qualification, someone_else
from interviewsim.prep.distinctive import distinctive_groups
from interviewsim.prep.extraction import split_bundle
from interviewsim.prep.sections import sentence_kind
from tests.test_prep_senses import _verdict


@pytest.mark.parametrize("clause", [
    "Payroll year-end is one I'd be starting from scratch on",
    "Tableau is a name I know from job adverts rather than from actually using it",
    "I know it only from a webinar",
])
def test_a_clause_that_disowns_the_skill_asserts_nothing(clause: str) -> None:
    assert qualification(clause) is not None


def test_a_clause_that_owns_the_skill_still_asserts() -> None:
    assert qualification("I've run payroll year-end for three firms since 2019") is None


def test_an_irregular_past_after_another_agent_is_someone_else_s() -> None:
    assert someone_else("On the depot job the electrical crew put in the whole charging rig")
    assert not someone_else("I put in the whole charging rig on the depot job")


def test_a_noun_phrase_after_someone_else_s_act_shares_it() -> None:
    coverage, _ = _verdict("Commissioning and servicing chillers",
                           "Our senior engineer did the commissioning and the annual "
                           "servicing on the new chillers; I only carried the tools.")
    assert coverage != "FULL"


def test_a_language_is_distinctive_in_a_title_case_bullet() -> None:
    groups = [g.terms for g in distinctive_groups("Spoken Polish or Portuguese")]
    assert groups == [("polish", "portuguese")]
    assert _verdict("Spoken Polish or Portuguese",
                    "Portuguese is my first language and I use it with guests every day.")[0] \
        == "FULL"
    # "polish" the verb is no language
    assert _verdict("Fluent Polish",
                    "I polish the brass fittings in the lobby every morning.")[0] == "GAP"


@pytest.mark.parametrize(("sentence", "parts"), [
    ("You will prepare the weekly cash report for the owners and liaise with our auditors "
     "every spring.", 2),
    ("You need two years in a dental practice and a Level 3 qualification in dental "
     "nursing.", 2),
    ("You will design and build the data pipelines for our analysts.", 1),
])
def test_more_bundle_cuts(sentence: str, parts: int) -> None:
    assert len(split_bundle(sentence)) == parts


@pytest.mark.parametrize("sentence", [
    "We also need someone who can keep the stock count accurate every week.",
    "We're looking for at least four years of commercial kitchen experience.",
])
def test_asks_that_open_with_we(sentence: str) -> None:
    assert sentence_kind(sentence) == "requirements"
