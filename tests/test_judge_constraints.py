"""Judge decoding constraints: grammar preferred over schema, every grammar-shaped output passes
the parser, text bounded by max_tokens; and (marked model) the embedded model under each grammar
produces outputs the strict parsers accept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interviewsim.errors import ParseError
from interviewsim.judges.constraints import (
    CS_SCHEMA,
    EXPLANATION_SHARE,
    FACT_SUMMARY_SCHEMA,
    FC_SCHEMA,
    content_similarity_constraints,
    fact_summary_constraints,
    factual_consistency_constraints,
    text_budget,
    trait_rating_constraints,
)
from interviewsim.judges.parsers import (
    parse_content_similarity,
    parse_fact_summary,
    parse_factual_consistency,
    parse_trait_rating,
)
from interviewsim.judges.prompts import (
    content_similarity_messages,
    fact_summary_messages,
    factual_consistency_messages,
    personality_messages,
)
from interviewsim.llm.asking import AskTask

FAST = settings(max_examples=40, deadline=None)
"""Small and deadline-free: the suite shares two cores with other work."""

# What the grammars' JSON text rule admits: no quote, backslash or control character.
grammar_text = st.text(
    alphabet=st.characters(exclude_characters='"\\', exclude_categories=["Cc", "Cs"]),
    min_size=1, max_size=60,
).filter(lambda s: s[0] != " ")


@dataclass
class FakeClient:
    supports_json_schema: bool
    supports_grammar: bool


@pytest.mark.parametrize("grammar, schema, expected", [
    (True, True, "grammar"), (False, True, "json_schema"), (True, False, "grammar"),
    (False, False, None),
])
def test_grammar_is_preferred_then_schema_then_prompt_only(grammar, schema, expected):
    task = AskTask(parse=parse_content_similarity,
                     constraints=content_similarity_constraints(120))
    chosen = task.usable_constraint(FakeClient(schema, grammar))
    assert (chosen.kind if chosen else None) == expected


def test_ps_has_no_schema_fallback():
    task = AskTask(parse=parse_trait_rating, constraints=trait_rating_constraints(120))
    assert task.usable_constraint(FakeClient(True, False)) is None


def test_schemas_are_closed_and_use_enums_not_bounds():
    for constraint, fields in ((CS_SCHEMA, ["score", "explanation"]),
                               (FC_SCHEMA, ["label", "explanation"]),
                               (FACT_SUMMARY_SCHEMA, ["summary", "explanation"])):
        schema = constraint.json_schema
        assert schema["required"] == fields and schema["additionalProperties"] is False
        assert not {"minimum", "maximum", "minLength", "maxLength"} & set(json.dumps(schema)
                                                                          .split('"'))
    assert CS_SCHEMA.json_schema["properties"]["score"]["enum"] == [1, 2, 3, 4, 5]
    assert FC_SCHEMA.json_schema["properties"]["label"]["enum"] == \
        ["Entailment", "Neutral", "Contradiction"]


@FAST
@given(st.integers(min_value=30, max_value=4000))
def test_text_budget_grows_with_max_tokens_and_leaves_room_for_structure(max_tokens):
    budget = text_budget(max_tokens)
    assert budget <= max(16, (max_tokens - 20) * 3)
    assert text_budget(max_tokens + 10) >= budget
    explanation = text_budget(max_tokens, EXPLANATION_SHARE)
    assert f"{{0,{explanation - 1}}}" in content_similarity_constraints(max_tokens)[0].grammar
    assert f"{{0,{explanation - 1}}}" in trait_rating_constraints(max_tokens)[0].grammar


@FAST
@given(score=st.sampled_from([1, 2, 3, 4, 5]), label=st.sampled_from(
    ["Entailment", "Neutral", "Contradiction"]), why=grammar_text, summary=grammar_text)
def test_every_output_of_the_json_grammars_shape_passes_its_parser(score, label, why, summary):
    outputs = [
        (parse_content_similarity, f'{{"score": {score}, "explanation": "{why}"}}'),
        (parse_factual_consistency, f'{{"label": "{label}", "explanation": "{why}"}}'),
        (parse_fact_summary, f'{{"summary": "{summary}", "explanation": "{why}"}}'),
    ]
    for parse, text in outputs:
        try:
            parse(text)
        except ParseError as exc:  # only text that is entirely Unicode whitespace
            assert not why.strip() or not summary.strip(), exc


@pytest.fixture(scope="module")
def embedded(tmp_path_factory) -> Iterator:
    from interviewsim.config.params import parse_params
    from interviewsim.config.settings import ModelSettings
    from interviewsim.llm import ModelHub

    cache = tmp_path_factory.mktemp("judge-llama") / "responses.sqlite"
    params = parse_params({"cache": {"path": str(cache)},
                           "providers": {"local": {"kind": "llama_cpp", "n_ctx": 2048}}})
    settings_ = ModelSettings(provider="local", model="smollm2-135m-instruct", max_tokens=60)
    with ModelHub(params.hub) as hub:
        yield hub.client(settings_, label="judge-smoke"), settings_.max_tokens


@pytest.mark.model
def test_embedded_model_under_each_grammar_gives_outputs_the_parsers_accept(embedded):
    client, max_tokens = embedded
    cases = [
        (content_similarity_messages("I fired the kiln for nine hours.", "Nine hours."),
         content_similarity_constraints, parse_content_similarity),
        (factual_consistency_messages("A potter who fires a kiln.", "I fire my kiln weekly."),
         factual_consistency_constraints, parse_factual_consistency),
        (fact_summary_messages([["I fire the kiln weekly.", "Glazes are my passion."]]),
         fact_summary_constraints, parse_fact_summary),
        (personality_messages(["I love meeting new people!", "Parties energise me."],
                              "extraversion"),
         trait_rating_constraints, parse_trait_rating),
    ]
    requests = [client.request(messages, constraint=constraints(max_tokens)[0])
                for messages, constraints, _ in cases]
    results = client.complete_many(requests, desc="")
    for (_, _, parse), result in zip(cases, results, strict=True):
        assert result.finish_reason == "stop", result.text
        parse(result.text)


@FAST
@given(level=st.sampled_from(["Low", "Neutral", "High"]),
       why=st.text(alphabet=st.characters(exclude_characters="<\n", exclude_categories=["Cs"]),
                   min_size=1, max_size=80).filter(lambda s: s[0] not in " \t"))
def test_every_output_of_the_ps_grammars_shape_passes_the_parser(level, why):
    try:
        assert parse_trait_rating(f"<rate>{level}</rate> <justification>{why}</justification>")
    except ParseError as exc:  # only a justification that is entirely other whitespace
        assert not why.strip(), exc
