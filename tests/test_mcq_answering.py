"""Grouped answering prompts: interview groups, the union-of-retrievals context, leakage."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from interviewsim.config.params import ContextParams
from interviewsim.context.strategies import RetrievalIndex
from interviewsim.data.corpus import Pair, PersonalityData
from interviewsim.errors import LeakageError
from interviewsim.generation.leakage import LeakageGuard
from interviewsim.mcq.answering import group_prompt, interview_groups
from interviewsim.mcq.models import McqItem, McqOption
from interviewsim.mcq.prompts import answer_grammar

TOPICS = ("alpha", "beta", "gamma", "delta", "omega")
HELD_RESPONSE = "We fired the alpha kiln for nineteen hours and the glaze crawled at every edge."


def embed(texts) -> np.ndarray:
    """Counts of the topic words, normalised: a query retrieves the pair about its topic."""
    rows = np.array([[t.lower().count(w) for w in TOPICS] + [0.01] for t in texts], dtype=float)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def pair(interview: int, position: int, topic: str, held: bool = False) -> Pair:
    return Pair(personality_id="P", interview_id=f"I{interview}", sequence=interview,
                position=position, qa_id=f"Q{interview}-{position}",
                question=f"What about {topic}?",
                response=HELD_RESPONSE if held else f"Training answer on {topic} no. {position}.")


PERSON = PersonalityData(
    personality_id="P", profile="A potter.", long_profile="A potter who likes kilns.",
    train=tuple(pair(0, i, t) for i, t in enumerate(TOPICS)),
    heldout=(pair(1, 0, "alpha", held=True), pair(1, 1, "gamma"), pair(1, 2, "alpha"),
             pair(2, 0, "delta")),
)


def mcq(qa_id: str, interview_id: str, question: str, correct_text: str = "Nineteen hours"):
    texts = [correct_text, "It never ran", "Eighteen hours", "All week"]
    roles = ["correct", "opposite_negation", "near_miss", "plausible_misconception"]
    options = tuple(McqOption(label=lab, role=r, text=t)
                    for lab, r, t in zip("ABCD", roles, texts, strict=True))
    return McqItem(item_id=f"P/{qa_id}", personality_id="P", qa_id=qa_id,
                   interview_id=interview_id, option_count=4, question=question,
                   options=options, correct_label="A")


ITEMS = [  # deliberately not in time order, one held-out pair without an item
    mcq("Q2-0", "I2", "How long on delta?"),
    mcq("Q1-2", "I1", "Which alpha glaze again?"),
    mcq("Q1-0", "I1", "How long was the alpha firing?", correct_text=HELD_RESPONSE),
    mcq("Q1-1", "I1", "What about gamma?"),
]
PARAMS = ContextParams(retrieval_pairs=1, hybrid_retrieved=1, hybrid_recent=2,
                       chronological_pairs=2, random_pairs=2)


def test_items_are_grouped_by_source_interview_in_time_order():
    groups = interview_groups(PERSON, ITEMS)
    assert [(iid, [i.qa_id for i in items]) for iid, items in groups] == [
        ("I1", ["Q1-0", "Q1-1", "Q1-2"]), ("I2", ["Q2-0"])]


def test_items_from_another_split_are_an_error_not_left_out():
    stale = mcq("Q0-1", "I0", "A training pair now?")
    with pytest.raises(ValueError, match=r"1 item\(s\) are not held-out pairs of P .*P/Q0-1"):
        interview_groups(PERSON, [*ITEMS, stale])


def _prompt(strategy: str, person: PersonalityData = PERSON, guard=None):
    iid, items = interview_groups(PERSON, ITEMS)[0]
    index = RetrievalIndex.build(person.train, embed, "question")
    return group_prompt(strategy, person, iid, items, PARAMS, 1, index,
                        guard or LeakageGuard(person))


def test_retrieval_context_is_the_ordered_deduplicated_union_of_each_question():
    group = _prompt("retrieval")
    # Q1 alpha -> Q0-0, Q2 gamma -> Q0-2, Q3 alpha again -> already there
    assert group.selection.pair_ids == ("Q0-0", "Q0-2")
    context = group.prompt.context
    assert context.index("Training answer on alpha") < context.index("Training answer on gamma")


def test_hybrid_appends_recent_pairs_after_the_union_without_profile():
    group = _prompt("hybrid")
    assert group.selection.pair_ids == ("Q0-0", "Q0-2", "Q0-3", "Q0-4")
    assert group.selection.profile is None and "Profile:" not in group.prompt.context


def test_every_item_is_presented_as_contiguous_numbered_questions():
    text = _prompt("no-context").prompt.messages()[-1].content
    assert "<context>" not in text
    numbers = [line.split(":")[0] for line in text.splitlines() if line[:2] in ("Q1", "Q2", "Q3")]
    assert numbers == ["Q1", "Q2", "Q3"] and "Answer with exactly 3 line(s)" in text
    assert text.index("alpha firing") < text.index("gamma") < text.index("alpha glaze")


def test_options_may_quote_held_out_responses_but_the_context_may_not():
    group = _prompt("retrieval")
    assert HELD_RESPONSE in group.prompt.messages()[-1].content  # the correct option's text
    with pytest.raises(LeakageError):  # which is why only the context is guarded
        LeakageGuard(PERSON).check_prompt(group.prompt.messages(), "whole prompt")


def test_a_held_out_pair_selected_into_the_context_stops_the_stage():
    tampered = dataclasses.replace(PERSON, train=(*PERSON.train, PERSON.heldout[0]))
    with pytest.raises(LeakageError, match="held-out qa_id"):
        _prompt("hybrid", tampered, guard=LeakageGuard(PERSON))


def test_held_out_text_in_a_context_pair_stops_the_stage():
    leaked = dataclasses.replace(PERSON.train[0], response=HELD_RESPONSE)
    tampered = dataclasses.replace(PERSON, train=(leaked, *PERSON.train[1:]))
    with pytest.raises(LeakageError, match="held-out response text"):
        _prompt("retrieval", tampered, guard=LeakageGuard(PERSON))


def test_answer_grammar_allows_exactly_each_items_labels():
    grammar = answer_grammar([("A", "B", "C"), ("A", "B", "C", "D")])
    assert grammar.splitlines() == [
        'root ::= "Q1: " l3ABC "\\n" "Q2: " l4ABCD',
        'l3ABC ::= "A" | "B" | "C"',
        'l4ABCD ::= "A" | "B" | "C" | "D"',
    ]
