"""Judge prompt layout (shared prefixes, data delimited) and constraints the backends accept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interviewsim.judges.personality import TRAITS
from interviewsim.judges.prompts import (
    content_similarity_messages,
    fact_summary_messages,
    factual_consistency_messages,
    personality_messages,
)

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
