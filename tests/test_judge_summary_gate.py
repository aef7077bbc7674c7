"""The fact-summary gate: links, citation markers and the personality's record ids are rejected
(as a ParseError, like any broken contract); ordinary prose, numbers and dates pass."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interviewsim.errors import ParseError
from interviewsim.judges.summary_gate import SummaryGate

FAST = settings(max_examples=40, deadline=None)
"""Small and deadline-free: the suite shares two cores with other work."""

IDS = ["ao-q01", "ao-q12", "ao-2016-community-nurse-quarterly", "I1"]
GATE = SummaryGate(IDS)

PROSE = st.text(alphabet=st.characters(categories=["L", "Zs"]), max_size=40)


@pytest.mark.parametrize("summary", [
    "She trained as a nurse in 2010, worked 12-hour shifts and rates the clinic 4.5 of 5.",
    "He once said the kiln (a wood-fired one) ran for 30 hours; e.g. at the 2019 festival.",
    "Her view changed: first sceptical [early years], later a firm supporter.",
    "She mentions I10 road trips and the WI1 group.",  # not the id I1 as a token
    "Interview answers show she values neighbours over budgets.",
])
def test_plain_prose_with_numbers_dates_and_brackets_passes(summary):
    assert GATE.check(summary) == summary


@pytest.mark.parametrize("summary, reason", [
    ("See https://example.org/profile for more.", "URL"),
    ("Profile at www.kelden-courier.net/ada.", "link"),
    ("Her clinic site is keldenhealth.org.", "link"),
    ("She supports [community care](http://x) strongly.", "URL|Markdown"),
    ("She founded the clinic in 2012 [1].", "citation"),
    ("She founded the clinic [2, 3] and later left [4-5].", "citation"),
    ("She founded the clinic.[^1]", "footnote"),
    ("She founded the clinic (source: radio interview).", "source"),
    ("She founded the clinic [Ref: 3].", "source"),
    ("She founded the clinic.\nSources: the podcast", "source"),
    ("As said in ao-q12, she values teams.", "identifier"),
    ("From ao-2016-community-nurse-quarterly: she values teams.", "identifier"),
    ("(I1) she values teams.", "identifier"),
])
def test_links_citations_and_source_ids_are_rejected_with_what_matched(summary, reason):
    with pytest.raises(ParseError, match=reason):
        GATE.check(summary)


@FAST
@given(before=PROSE, after=PROSE, qa_id=st.sampled_from(IDS))
def test_an_id_anywhere_as_a_token_is_rejected(before, after, qa_id):
    with pytest.raises(ParseError):
        GATE.check(f"{before} {qa_id} {after}")


@FAST
@given(PROSE)
def test_letters_and_spaces_alone_always_pass(summary):
    assert SummaryGate([]).check(summary) == summary


def test_conformance_summaries_pass_the_gate_of_their_own_personality(conformance_dir):
    for folder in sorted((conformance_dir / "personalities").iterdir()):
        doc = json.loads((folder / "prepared_input.json").read_text(encoding="utf-8"))
        ids = [i["interview_id"] for i in doc["interviews"]] + \
            [q["qa_id"] for i in doc["interviews"] for q in i["qa_pairs"]]
        summary = json.loads((folder / "fact_summary.json").read_text(encoding="utf-8"))
        assert SummaryGate(ids).check(summary["summary"]), folder.name
