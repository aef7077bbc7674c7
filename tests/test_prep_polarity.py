"""The polarity gate recognises constructions, not phrases: new wordings of each shape are set
aside, and affirmative clauses that merely contain a trigger-looking word still attest."""

from __future__ import annotations

import pytest

from interviewsim.prep.phrases import compounds, says_compound
from interviewsim.prep.polarity import affirmative, construction
from interviewsim.prep.reading import read_item

SET_ASIDE = {
    "a negated experience predicate": [
        "I haven't configured Terraform modules myself.", "We never deployed Helm charts."],
    "no or without + experience noun": [
        "No hands-on exposure to Ansible.", "I came to the role without any Lean training.",
        "There was not any Jira administration in my job."],
    "not yet": ["I'm yet to lead a Scrum retrospective.", "Not a chartered accountant yet."],
    "a wish or hope": ["I'd love to get into Rust.", "I am eager to work with Snowflake.",
                       "I want to learn Kotlin."],
    "a plan or intention": ["I intend to take the PMP.", "Terraform is next on my list.",
                            "My aim is to move into SRE work."],
    "a future or scheduled step": ["I'm registered to sit the CISSP exam.",
                                   "I start the NEBOSH course in March.",
                                   "I am about to begin an AWS course."],
    "a lapsed or past credential": ["My PRINCE2 certificate expired in 2019.",
                                    "I previously held a forklift licence.",
                                    "I no longer hold an HGV licence."],
    "exposure only": ["I've read about Kubernetes operators.",
                      "I shadowed the pharmacist on TPN rounds.",
                      "I assisted while the consultant ran the audit."],
    "someone else did it": ["Our vendor handled the SOC 2 audit.",
                            "The payroll runs were done by head office."],
    "a failed attempt": ["I sat the CCNA exam last spring and missed the pass mark.",
                         "I failed the NEBOSH certificate on my first try.",
                         "I didn't pass the CPA audit paper."],
}


@pytest.mark.parametrize(("name", "text"),
                         [(n, t) for n, texts in SET_ASIDE.items() for t in texts])
def test_each_construction_sets_aside_new_wordings_of_its_shape(name: str, text: str) -> None:
    kept, dropped = affirmative(text)
    assert not kept and dropped, text
    found = construction(dropped[0].text)
    assert found is not None and found.name == name, (text, found)


@pytest.mark.parametrize("text", [
    "I built the Airflow DAGs that load our warehouse.",
    "Every Thursday I build next week's labour plan in Excel.",
    "Retries never double-charge a customer in the payment service I wrote.",
    "I hold an active RN licence."])
def test_affirmative_clauses_with_trigger_looking_words_still_attest(text: str) -> None:
    kept, _ = affirmative(text)
    assert kept, text


def test_a_relative_clause_about_someone_else_attests_nothing_but_the_rest_does() -> None:
    kept, dropped = affirmative("I logged the crash reports and passed them to the SRE team, "
                                "who did the root-cause analysis.")
    assert kept == ["I logged the crash reports and passed them to the SRE team"]
    assert dropped[0].text == "who did the root-cause analysis"
    assert dropped[0].construction == "someone else did it"


def test_a_lapse_with_a_pronoun_carries_back_to_the_credential_it_names() -> None:
    for text in ("I held a CSCS card from 2015 until 2021, but I let it lapse.",
                 "I was a registered RGN in Ireland, but it expired when I moved."):
        reading = read_item("EV-001", text)
        assert not reading.clauses, text


def test_passing_and_fixing_failures_still_attest() -> None:
    for text in ("I passed the ACCA exams in 2020.", "I fixed failed builds in our CI pipeline.",
                 "I triaged failed payments every morning."):
        kept, _ = affirmative(text)
        assert kept == [text.rstrip(".")], text


def test_a_pronoun_denial_carries_back_to_the_clause_that_named_the_term() -> None:
    reading = read_item("EV-001", "I've seen Terraform plans but have never written one.")
    assert not reading.clauses and "terraform" in reading.denied_names


def test_a_compound_said_apart_is_not_said_as_a_phrase() -> None:
    pairs = compounds("Motor control experience")
    assert pairs == (("motor", "control"),)
    assert not says_compound(pairs, "I ran quality control on electric motor housings")
    assert says_compound(pairs, "I tuned motor control loops for a drone")
    assert says_compound(compounds("Review code"), "paired code reviews every week")
