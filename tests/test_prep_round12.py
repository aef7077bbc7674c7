"""Round 12 of issue #33, from the twelfth blind part's errors once it became a tuning part
(`tune13`): avoidance and incomprehension deny ("passed me by completely", "a black box to
me", "I tend to duck out of"); "I keep meaning to read it", "the area I'd most like to grow
into" and "on my half-term list" are wishes; "I failed maths twice" denies maths (a machine
that failed does not); "I hand it straight to the network team" is someone else's work.

Each rule is general; the sentences here are written for these tests, not taken from the
labelled set."""

from __future__ import annotations

import pytest

from interviewsim.prep.polarity import affirmative
from tests.test_prep_senses import _verdict


@pytest.mark.parametrize(("text", "reason"), [
    ("Kubernetes has passed me by completely, we were all on bare VMs.", "denial"),
    ("Payroll journals are honestly a black box to me.", "denial"),
    ("Board reporting I tend to duck out of, if I'm honest.", "denial"),
    ("The Caldicott principles are something I keep meaning to read up on.", "wish"),
    ("Tendering is the area I'd most like to grow into next.", "wish"),
    ("The NEBOSH refresher is on my spring-term list.", "wish"),
    ("I failed the theory part twice.", "denial"),
])
def test_avoidance_incomprehension_and_deferral_attest_nothing(text: str, reason: str) -> None:
    kept, dropped = affirmative(text)
    assert kept == [] and [d.reason for d in dropped] == [reason]


def test_a_machine_that_failed_is_no_failed_attempt() -> None:
    kept, _ = affirmative("When the chiller failed mid-service I moved the stock in ten "
                          "minutes.")
    assert kept


def test_a_failed_half_of_a_bundle_leaves_it_partial() -> None:
    assert _verdict("GCSE English and maths at grade C or above",
                    "I got a B in English GCSE, but I failed maths twice.")[0] == "PARTIAL"


def test_work_handed_to_others_is_theirs() -> None:
    assert _verdict("Debug DNS problems",
                    "When an outage smells like DNS I hand it straight to the network team.")[
        0] == "GAP"
    assert _verdict("Debug DNS problems",
                    "I debug DNS problems myself, mostly split-horizon zones.")[0] == "FULL"
