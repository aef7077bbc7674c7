"""Round 6 of issue #33: a name said as a word, someone else's act in the present or past,
an exam sat and failed, a short requirement named only in part, a duty bundled as participles.

Each rule is general; the sentences here are written for these tests, not taken from the
labelled set."""

from __future__ import annotations

from interviewsim.prep.extraction import split_bundle
from interviewsim.prep.matching import match_lexical
from interviewsim.prep.models import EvidenceItem, PrepSettings, Requirement
from interviewsim.prep.polarity import affirmative


def _verdict(requirement: str, *evidence: str) -> tuple[str, str]:
    req = Requirement(id="REQ-001", text=requirement, normalized=requirement.lower(),
                      source_quote=requirement)
    items = [EvidenceItem(id=f"EV-{i + 1:03d}", kind="file", title=f"item {i + 1}", text=t)
             for i, t in enumerate(evidence)]
    [verdict] = match_lexical([req], items, PrepSettings())
    return verdict.coverage, verdict.explanation


def test_a_name_the_posting_capitalises_is_not_attested_by_the_same_word_in_lower_case() -> None:
    for requirement, word_sense, name_sense in (
        ("Daily use of Notion for team documentation",
         "I make a notion of the week's priorities on a whiteboard every Monday.",
         "I keep our team's runbooks and meeting notes in Notion every day."),
        ("Bookkeeping in Xero or a similar package",
         "Our logo was a xero-style doodle, and I kept the books on paper.",
         "I reconcile the shop's accounts in Xero each week."),
        ("Comfortable scheduling crews in Harvest",
         "Each harvest I scheduled the picking crews by hand on a spreadsheet.",
         "I schedule the crews in Harvest and track their hours there."),
    ):
        assert _verdict(requirement, word_sense)[0] != "FULL", word_sense
        assert _verdict(requirement, name_sense)[0] == "FULL", name_sense


def test_evidence_written_all_in_lower_case_still_attests_a_name() -> None:
    # a transcript without capitals: case says nothing there
    assert _verdict("Daily use of Notion for team documentation",
                    "i keep our team documentation in notion and use it daily")[0] == "FULL"


def test_another_persons_act_in_the_present_or_past_attests_nothing_for_the_candidate() -> None:
    for evidence in ("At the quarterly reviews my line manager presents the budget forecast.",
                     "Our finance director negotiated the supplier contracts with the vendors."):
        coverage, why = _verdict("Negotiate supplier contracts and present the budget forecast",
                                 evidence)
        assert coverage != "FULL", evidence
    # the candidate's own headline and first-person acts still count
    assert _verdict("Negotiate supplier contracts with vendors",
                    "Negotiated supplier contracts with four vendors for the group.")[0] == "FULL"
    assert _verdict("Negotiate supplier contracts with vendors",
                    "I negotiated the supplier contracts with our vendors myself.")[0] == "FULL"


def test_an_exam_sat_and_failed_in_the_same_sentence_is_set_aside_whole() -> None:
    kept, aside = affirmative("I sat the Level 4 diploma papers in May but did not pass the "
                              "taxation unit; the resit is in autumn.")
    assert not any("sat the Level 4" in k for k in kept)
    assert [a.construction for a in aside][:2] == ["carried back by a failed attempt",
                                                   "a failed attempt"]
    assert _verdict("Level 4 diploma in accounting",
                    "I sat the Level 4 diploma papers in May but did not pass the taxation "
                    "unit.")[0] == "GAP"
    kept, _ = affirmative("I took the exam in March and passed it first time.")
    assert kept == ["I took the exam in March and passed it first time"]


def test_being_registered_with_a_body_is_a_state_not_a_plan() -> None:
    assert _verdict("Registered with the Nursing and Midwifery Council",
                    "I have been registered with the Nursing and Midwifery Council since "
                    "2019.")[0] == "FULL"
    assert _verdict("Registered with the Nursing and Midwifery Council",
                    "I have registered for the council's return-to-practice course.")[0] != "FULL"


def test_a_short_requirement_needs_each_of_its_words_for_full() -> None:
    coverage, why = _verdict("Pallet loading and towing",
                             "I did most of the pallet loading on the night shift.")
    assert coverage == "PARTIAL" and "no cited clause says" in why
    assert _verdict("Loading and towing",
                    "I did the loading and the towing of trailers on nights.")[0] == "FULL"


def test_a_duty_bundled_as_participles_is_split_into_its_asks() -> None:
    parts = split_bundle("You will run the evening shift, briefing the Team on arrivals and "
                         "checking the tills at close.")
    assert parts == ["You will run the evening shift", "briefing the Team on arrivals",
                     "checking the tills at close."]
    # a list of nouns or an "including" stays whole
    assert split_bundle("Experience planning and delivering the training, including the "
                        "assessments") == ["Experience planning and delivering the training, "
                                           "including the assessments"]
