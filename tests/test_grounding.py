from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from interviewsim.text.coverage import DocumentFrequencies, coverage, terms


def test_terms_drop_stopwords_and_single_characters_and_split_compounds():
    assert terms("I planned a follow-up in Oslo, 2 x") == {
        "planned", "follow-up", "follow", "oslo"}


def test_full_and_partial_and_no_coverage():
    df = DocumentFrequencies.of(["the kiln in Oslo", "my dog Biscuit", "glaze recipes"])
    assert coverage("Biscuit the dog", "I walk my dog Biscuit daily", df).score == 1.0
    assert coverage("nothing matches here", "I walk my dog", df).score == 0.0
    partial = coverage("Oslo kiln glaze", "a kiln in Oslo", df)
    assert 0 < partial.score < 1 and partial.matched == ("kiln", "oslo")


def test_rare_terms_weigh_more_than_common_ones():
    df = DocumentFrequencies.of(["kiln one", "kiln two", "kiln three", "porcelain"])
    rare = coverage("kiln porcelain", "porcelain", df).score
    common = coverage("kiln porcelain", "kiln", df).score
    assert rare > common


@given(st.text(max_size=60), st.text(max_size=60))
def test_coverage_is_a_share(claim, evidence):
    score = coverage(claim, evidence, DocumentFrequencies.of([claim, evidence])).score
    assert 0.0 <= score <= 1.0 + 1e-9
