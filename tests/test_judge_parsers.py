"""The judge output contracts of PROMPTS.md: every valid form parses, every listed invalid form
(extra field, duplicate key, non-string, blank, recased or synonym label, fourth label, float or
boolean score, malformed tags, blank justification, text around tags) raises ParseError."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from interviewsim.errors import ParseError
from interviewsim.judges.parsers import (
    FC_LABELS,
    LEVELS,
    parse_content_similarity,
    parse_fact_summary,
    parse_factual_consistency,
    parse_trait_rating,
)

FAST = settings(max_examples=40, deadline=None)
"""Small and deadline-free: the suite shares two cores with other work."""

text = st.text(min_size=1).filter(lambda s: s.strip())
blank = st.text(alphabet=" \t\n\r", max_size=5)
non_string = st.one_of(
    st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(), st.integers(), max_size=1),
)
extra_key = st.text(min_size=1).filter(lambda k: k not in {"score", "label", "summary",
                                                           "explanation"})

PARSERS = {
    "cs": (parse_content_similarity, ("score", 3)),
    "fc": (parse_factual_consistency, ("label", "Neutral")),
    "summary": (parse_fact_summary, ("summary", "She keeps bees.")),
}


def dumps(obj: dict) -> str:
    return json.dumps(obj)


def fence(body: str) -> str:
    return f"```json\n{body}\n```"


@FAST
@given(score=st.sampled_from([1, 2, 3, 4, 5]), why=text, fenced=st.booleans(),
       score_first=st.booleans())
def test_cs_accepts_integer_scores_1_to_5_in_any_field_order_fenced_or_not(
        score, why, fenced, score_first):
    obj = {"score": score, "explanation": why} if score_first else \
        {"explanation": why, "score": score}
    body = dumps(obj)
    parsed = parse_content_similarity(fence(body) if fenced else body)
    assert parsed.score == score and parsed.explanation == why


@FAST
@given(score=st.floats(allow_nan=False, allow_infinity=False))
def test_cs_rejects_every_float_score_including_whole_numbers(score):
    with pytest.raises(ParseError, match="integer"):
        parse_content_similarity(dumps({"score": score, "explanation": "close"}))


def test_cs_rejects_4_point_0_written_literally_and_booleans():
    with pytest.raises(ParseError, match="integer"):
        parse_content_similarity('{"score": 4.0, "explanation": "x"}')
    for literal in ("true", "false"):
        with pytest.raises(ParseError, match="integer"):
            parse_content_similarity(f'{{"score": {literal}, "explanation": "x"}}')


@FAST
@given(score=st.integers().filter(lambda s: not 1 <= s <= 5))
def test_cs_rejects_integers_outside_1_to_5(score):
    with pytest.raises(ParseError, match="1 to 5"):
        parse_content_similarity(dumps({"score": score, "explanation": "x"}))


@FAST
@given(score=st.one_of(st.sampled_from(["4", "four", "4/5"]), st.none(), st.lists(st.integers())))
def test_cs_rejects_non_numeric_scores(score):
    with pytest.raises(ParseError):
        parse_content_similarity(dumps({"score": score, "explanation": "x"}))


@pytest.mark.parametrize("kind", PARSERS)
@FAST
@given(key=extra_key, value=st.one_of(text, st.integers()))
def test_json_contracts_reject_any_extra_field(kind, key, value):
    parse, (field, good) = PARSERS[kind]
    with pytest.raises(ParseError, match="unexpected field"):
        parse(dumps({field: good, "explanation": "fine", key: value}))


@pytest.mark.parametrize("kind", PARSERS)
@FAST
@given(first=text, second=text)
def test_json_contracts_reject_a_duplicate_key_even_with_equal_values(kind, first, second):
    parse, (field, good) = PARSERS[kind]
    body = (f'{{"{field}": {json.dumps(good)}, "explanation": {json.dumps(first)}, '
            f'"explanation": {json.dumps(second)}}}')
    with pytest.raises(ParseError, match="duplicate key"):
        parse(body)


@pytest.mark.parametrize("kind", PARSERS)
@FAST
@given(value=non_string)
def test_json_contracts_reject_a_non_string_explanation(kind, value):
    parse, (field, good) = PARSERS[kind]
    with pytest.raises(ParseError, match="must be a string"):
        parse(dumps({field: good, "explanation": value}))


@pytest.mark.parametrize("kind", PARSERS)
@FAST
@given(value=blank)
def test_json_contracts_reject_a_blank_explanation(kind, value):
    parse, (field, good) = PARSERS[kind]
    with pytest.raises(ParseError, match="blank"):
        parse(dumps({field: good, "explanation": value}))


@pytest.mark.parametrize("kind", PARSERS)
def test_json_contracts_reject_missing_fields_non_objects_and_prose(kind):
    parse, (field, good) = PARSERS[kind]
    for bad in (dumps({field: good}), dumps([{field: good, "explanation": "x"}]), "",
                f"Sure! {dumps({field: good, 'explanation': 'x'})}", "not json at all"):
        with pytest.raises(ParseError):
            parse(bad)


@FAST
@given(summary=text, why=text)
def test_fact_summary_accepts_two_non_blank_strings(summary, why):
    parsed = parse_fact_summary(dumps({"summary": summary, "explanation": why}))
    assert (parsed.summary, parsed.explanation) == (summary, why)


@FAST
@given(summary=st.one_of(blank, non_string))
def test_fact_summary_rejects_a_blank_or_non_string_summary(summary):
    with pytest.raises(ParseError, match="summary"):
        parse_fact_summary(dumps({"summary": summary, "explanation": "because"}))


@FAST
@given(label=st.sampled_from(FC_LABELS), why=text)
def test_fc_accepts_exactly_the_three_labels(label, why):
    assert parse_factual_consistency(dumps({"label": label, "explanation": why})).label == label


@FAST
@given(label=st.sampled_from(FC_LABELS).flatmap(
    lambda lb: st.lists(st.booleans(), min_size=len(lb), max_size=len(lb)).map(
        lambda upper: "".join(c.upper() if u else c.lower() for c, u in zip(lb, upper,
                                                                            strict=True)))))
def test_fc_rejects_every_recasing_of_a_label(label):
    assume(label not in FC_LABELS)
    with pytest.raises(ParseError, match="case-sensitive"):
        parse_factual_consistency(dumps({"label": label, "explanation": "x"}))


@pytest.mark.parametrize("label", ["Entailed", "Supported", "Consistent", "Contradicts",
                                   "Contradictory", "Inconsistent", "Unknown", "Irrelevant",
                                   "Not enough info", " Neutral", "Neutral.", "ENTAILMENT"])
def test_fc_rejects_synonyms_padding_and_shouting(label):
    with pytest.raises(ParseError, match="not one of"):
        parse_factual_consistency(dumps({"label": label, "explanation": "x"}))


@FAST
@given(label=st.text().filter(lambda s: s not in FC_LABELS))
def test_fc_rejects_any_fourth_label(label):
    with pytest.raises(ParseError, match="not one of"):
        parse_factual_consistency(dumps({"label": label, "explanation": "x"}))


@FAST
@given(label=non_string)
def test_fc_rejects_a_non_string_label(label):
    with pytest.raises(ParseError, match="label must be a string"):
        parse_factual_consistency(dumps({"label": label, "explanation": "x"}))


justification = text.filter(lambda s: "<" not in s and ">" not in s)
gap = st.sampled_from([" ", "", "\n", "  \n"])


@FAST
@given(level=st.sampled_from(LEVELS), why=justification, sep=gap, outer=gap)
def test_ps_accepts_the_two_tags_with_whitespace_around_or_between(level, why, sep, outer):
    out = f"{outer}<rate>{level}</rate>{sep}<justification>{why}</justification>{outer}"
    parsed = parse_trait_rating(out)
    assert parsed.level == level and parsed.justification == why


@FAST
@given(level=st.text(max_size=12).filter(lambda s: s not in LEVELS and "<" not in s))
def test_ps_rejects_any_other_rate_value_including_recased_and_padded(level):
    with pytest.raises(ParseError):
        parse_trait_rating(f"<rate>{level}</rate> <justification>clear</justification>")


@pytest.mark.parametrize("level", ["high", "HIGH", " High", "High ", "Moderate", "Medium",
                                   "Very High", "Neutral."])
def test_ps_rejects_recased_padded_and_synonym_levels(level):
    with pytest.raises(ParseError, match="not one of"):
        parse_trait_rating(f"<rate>{level}</rate> <justification>clear</justification>")


@FAST
@given(why=blank)
def test_ps_rejects_a_blank_justification(why):
    with pytest.raises(ParseError, match="blank"):
        parse_trait_rating(f"<rate>High</rate> <justification>{why}</justification>")


@FAST
@given(level=st.sampled_from(LEVELS), prefix=st.text(), suffix=st.text())
def test_ps_rejects_any_text_before_or_after_the_tags(level, prefix, suffix):
    assume(prefix.strip() or suffix.strip())
    with pytest.raises(ParseError):
        parse_trait_rating(f"{prefix}<rate>{level}</rate> <justification>ok</justification>"
                           f"{suffix}")


@pytest.mark.parametrize("output", [
    "<rate>High</rate>",
    "<justification>why</justification>",
    "<rate>High</rate> <justification>why",
    "<rate>High <justification>why</justification>",
    "<justification>why</justification> <rate>High</rate>",
    "<Rate>High</Rate> <Justification>why</Justification>",
    "<rating>High</rating> <justification>why</justification>",
    "<rate>High</rate> because <justification>why</justification>",
    "<rate>High</rate> <justification>a</justification> <justification>b</justification>",
    "<rate>High</rate> <justification>a <rate>Low</rate></justification>",
    "<rate><rate>High</rate></rate> <justification>why</justification>",
    "```\n<rate>High</rate> <justification>why</justification>\n```",
    "High: why",
    "",
])
def test_ps_rejects_malformed_missing_swapped_repeated_or_fenced_tags(output):
    with pytest.raises(ParseError):
        parse_trait_rating(output)


def test_conformance_cs_and_fc_judgments_satisfy_the_parsers(conformance_dir):
    for path in sorted((conformance_dir / "personalities").glob("*/metrics.json")):
        metrics = json.loads(path.read_text(encoding="utf-8"))
        for item in metrics["content_similarity"]:
            out = dumps({"score": item["score"], "explanation": item["explanation"]})
            assert parse_content_similarity(out).score == item["score"]
        for item in metrics["factual_consistency"]:
            out = dumps({"label": item["label"], "explanation": item["explanation"]})
            assert parse_factual_consistency(out).label == item["label"]
