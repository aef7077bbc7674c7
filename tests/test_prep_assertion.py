"""Round 3 of issue #33: FULL only from a clause that asserts the candidate did or holds it."""

from __future__ import annotations

import pytest

from interviewsim.prep.assertion import coordinated, qualification
from interviewsim.prep.distinctive import distinctive_groups
from interviewsim.prep.matching import match_lexical
from interviewsim.prep.models import EvidenceItem, PrepSettings, Requirement
from interviewsim.prep.quantities import unmet_bar


def _verdict(requirement: str, *texts: str) -> tuple[str, str]:
    items = [EvidenceItem(id=f"EV-{i + 1:03d}", kind="file", title=f"item {i + 1}", text=t)
             for i, t in enumerate(texts)]
    req = Requirement(id="REQ-001", text=requirement, normalized=requirement.lower(),
                      source_quote=requirement)
    [verdict] = match_lexical([req], items, PrepSettings())
    return verdict.coverage, verdict.explanation


@pytest.mark.parametrize("clause", [
    "I could probably configure Ansible playbooks",
    "I assisted with Ansible playbooks on the platform",
    "Ansible playbooks are something I am familiar with",
    "I got an overview of Ansible playbooks during induction",
    "I write Ansible playbooks for my home lab in my spare time",
    "My manager promised to put me on an Ansible course",
    "The Ansible playbooks were the ops lead's responsibility",
])
def test_a_hedged_observed_promised_private_or_second_hand_clause_is_at_most_partial(
        clause: str) -> None:
    assert qualification(clause) is not None
    assert _verdict("Experience writing Ansible playbooks", clause)[0] in ("PARTIAL", "GAP")


@pytest.mark.parametrize("clause", [
    "I write Ansible playbooks for the billing fleet",
    "Wrote the Ansible playbooks that provision 40 hosts",
    "Four years writing Ansible playbooks at a hosting firm",
])
def test_first_person_or_headline_past_and_present_work_still_makes_full(clause: str) -> None:
    assert qualification(clause) is None
    assert _verdict("Experience writing Ansible playbooks", clause)[0] == "FULL"


def test_a_clause_with_its_own_subject_is_judged_apart_from_the_candidates() -> None:
    assert coordinated("I run the morning stand-up, and our unit went a year without a fall") \
        == ["I run the morning stand-up", "our unit went a year without a fall"]
    assert _verdict("Run the morning stand-up",
                    "I run the morning stand-up, and our unit went a year without a fall"
                    )[0] == "FULL"


def test_words_said_only_across_clauses_of_an_item_do_not_make_full() -> None:
    coverage, _ = _verdict("Grout tiling and drywall repairs",
                           "I did some tiling at my flat. Grout work and drywall at a repairs "
                           "charity shop were done by the manager.")
    assert coverage != "FULL"


def test_of_two_spells_of_time_in_one_item_the_shorter_is_the_one_that_counts() -> None:
    coverage, why = _verdict("5+ years as a shift supervisor",
                             "Two years as shift supervisor after seven years as a deputy "
                             "shift supervisor.")
    assert coverage == "PARTIAL" and "states 2" in why
    assert _verdict("3+ years as a data engineer",
                    "I have worked as a data engineer for four years, after two years as an "
                    "analyst.")[0] == "FULL"


def test_a_thousands_count_and_a_sum_of_money_are_bars() -> None:
    assert unmet_bar("Run a range of 1,500+ lines", ["I run a range of about 400 lines"])
    assert unmet_bar("Projects of $2m or more", ["My largest project was worth $750k"])
    assert unmet_bar("Projects of $2m or more", ["My largest project was worth $3.1m"]) is None


def test_names_listed_with_and_in_brackets_are_all_required() -> None:
    assert len(distinctive_groups("Process leave payments (FMLA, PTO and STD)")) == 3
    assert len(distinctive_groups("Cloud experience (AWS, GCP or Azure)")) == 1
