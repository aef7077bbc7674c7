"""Judge prompt layout (shared prefixes, data delimited) and constraints the backends accept."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interviewsim.errors import ParseError
from interviewsim.judge_parsers import parse_trait_rating
from interviewsim.judge_prompts import (
    CS_CONSTRAINT,
    FACT_SUMMARY_CONSTRAINT,
    FC_CONSTRAINT,
    PS_CONSTRAINT,
    content_similarity_messages,
    fact_summary_messages,
    factual_consistency_messages,
    personality_messages,
)
from interviewsim.personality import TRAITS

FAST = settings(max_examples=40, deadline=None)
"""Small and deadline-free: the suite shares two cores with other work."""


def prompt(messages) -> str:
    return "\n".join(m.content for m in messages)


def common_prefix(texts: list[str]) -> str:
    first = texts[0]
    end = next((i for i in range(len(first)) if any(t[i:i + 1] != first[i] for t in texts)),
               len(first))
    return first[:end]


def test_the_five_trait_prompts_of_a_collection_share_everything_up_to_the_trait():
    responses = ["I love trying new glazes.", "Deadlines keep me honest."]
    prompts = [prompt(personality_messages(responses, trait)) for trait in TRAITS]
    shared = common_prefix(prompts)
    assert all(r in shared for r in responses)
    assert shared.endswith("Trait: ")
    assert all(p.index(responses[-1]) < p.index(f"Trait: {t}") for p, t in zip(prompts, TRAITS,
                                                                                 strict=True))


def test_cs_prompts_for_one_reference_share_the_reference_prefix():
    a = prompt(content_similarity_messages("The kiln ran 9 hours.", "Nine hours, I think."))
    b = prompt(content_similarity_messages("The kiln ran 9 hours.", "We never fired it."))
    assert "The kiln ran 9 hours." in common_prefix([a, b])
    assert a.index("<reference>") < a.index("<candidate>")


def test_fc_prompts_put_the_summary_before_the_answer():
    text = prompt(factual_consistency_messages("Keeps bees.", "I keep bees."))
    assert text.index("<fact_summary>") < text.index("Keeps bees.") < text.index("<answer>")


@FAST
@given(st.text())
def test_inserted_text_cannot_close_its_own_data_block(text):
    user = content_similarity_messages(text, "x")[1].content
    body = user.split("<reference>\n", 1)[1]
    assert body.count("</reference>") == 1


def test_fact_summary_prompt_lists_interviews_oldest_first_and_no_ids():
    text = prompt(fact_summary_messages([["first answer"], ["later answer", "last answer"]]))
    assert text.index("Interview 1:") < text.index("first answer") < text.index("Interview 2:")
    assert text.index("later answer") < text.index("last answer")
    with pytest.raises(ValueError):
        fact_summary_messages([])


def test_ps_prompt_needs_responses():
    with pytest.raises(ValueError):
        personality_messages([], "openness")


def test_json_schemas_are_closed_and_use_enums_for_score_and_label():
    for constraint, fields in ((CS_CONSTRAINT, ["score", "explanation"]),
                               (FC_CONSTRAINT, ["label", "explanation"]),
                               (FACT_SUMMARY_CONSTRAINT, ["summary", "explanation"])):
        schema = constraint.json_schema
        assert schema["required"] == fields and schema["additionalProperties"] is False
    assert CS_CONSTRAINT.json_schema["properties"]["score"]["enum"] == [1, 2, 3, 4, 5]
    assert FC_CONSTRAINT.json_schema["properties"]["label"]["enum"] == \
        ["Entailment", "Neutral", "Contradiction"]
    assert "minimum" not in json.dumps(CS_CONSTRAINT.json_schema)


def test_llama_cpp_compiles_every_constraint():
    llama_cpp = pytest.importorskip("llama_cpp")
    llama_cpp.LlamaGrammar.from_string(PS_CONSTRAINT.grammar, verbose=False)
    for constraint in (CS_CONSTRAINT, FC_CONSTRAINT, FACT_SUMMARY_CONSTRAINT):
        llama_cpp.LlamaGrammar.from_json_schema(json.dumps(constraint.json_schema),
                                                verbose=False)


@FAST
@given(level=st.sampled_from(["Low", "Neutral", "High"]),
       why=st.text(alphabet=st.characters(exclude_characters="<\n"), min_size=1, max_size=239))
def test_whatever_the_ps_grammar_allows_with_a_non_blank_start_the_parser_accepts(level, why):
    if why[0] in " \t":
        return  # the grammar forbids a blank first character
    try:
        assert parse_trait_rating(f"<rate>{level}</rate> <justification>{why}</justification>")
    except ParseError as exc:  # only a justification that is all whitespace after all
        assert not why.strip(), exc
