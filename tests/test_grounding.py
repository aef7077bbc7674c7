from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from interviewsim.text.coverage import STOPWORDS, DocumentFrequencies, coverage, terms


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


def test_compound_tokens_stay_whole_and_count_by_their_parts():
    found = terms("C++ or C#, A/B tests, sql/python")
    assert {"c++", "c#", "a/b", "sql/python", "sql", "python", "tests"} <= found
    assert "c" not in found and "b" not in found
    assert {"node.js", "node", "js"} <= terms("We moved to Node.js.")
    # a sentence end or a trailing slash is not a joiner
    assert terms("We shipped it. Then/") == {"shipped"}


def test_typographic_apostrophes_and_contractions():
    assert terms("O’Brien didn’t go") == terms("O'Brien didn't go") == {"o'brien", "brien", "go"}


_WORD = st.from_regex(r"[a-z]{2,8}", fullmatch=True).filter(lambda w: w not in STOPWORDS)


@given(_WORD, _WORD, st.sampled_from(["/", "-", "."]))
def test_a_compound_is_attested_by_either_spelling(left, right, joiner):
    compound = f"{left}{joiner}{right}"
    assert {compound, left, right} <= terms(f"I used {compound} daily")
    # the compound's parts, written apart, attest everything but the compound itself
    df = DocumentFrequencies.of([compound])
    apart = coverage(compound, f"{left} and {right}", df)
    assert set(apart.matched) == {left, right}


@given(st.text(max_size=80))
def test_terms_are_lowercase_and_stable(text):
    found = terms(text)
    assert all(t == t.lower() and len(t) > 1 and t not in STOPWORDS for t in found)
    assert terms(" ".join(sorted(found))) >= {t for t in found if terms(t) == {t}}
