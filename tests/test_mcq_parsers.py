"""The three MCQ output contracts: atomic items, MCQ generations and grouped answers."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interviewsim.errors import ParseError
from interviewsim.mcq.models import AtomicItem, roles_for
from interviewsim.mcq.parsers import parse_atomic, parse_grouped_answers, parse_mcq

ATOMIC = AtomicItem(question="How long did the kiln run?", answer="Fourteen hours")
line_text = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1,
                    max_size=40).filter(lambda s: s.strip() == s and s)


# --- atomic items -----------------------------------------------------------------------------

def test_atomic_item_is_read_from_exactly_two_tagged_lines():
    item = parse_atomic("Atomic Question: How long did it run?\nAtomic Answer: Fourteen hours\n")
    assert item == AtomicItem(question="How long did it run?", answer="Fourteen hours")


@pytest.mark.parametrize("text, reason", [
    ("Atomic Question: Q?", "exactly 2 lines"),
    ("Here you go:\nAtomic Question: Q?\nAtomic Answer: A", "exactly 2 lines"),
    ("Atomic Question: Q?\n\nAtomic Answer: A", "exactly 2 lines"),
    ("Atomic Answer: A\nAtomic Question: Q?", "must start with 'Atomic Question: '"),
    ("Question: Q?\nAnswer: A", "must start with 'Atomic Question: '"),
    ("Atomic Question: Q?\nAtomic Answer:   ", "blank"),
    ("", "exactly 2 lines"),
])
def test_atomic_item_with_anything_else_is_rejected(text, reason):
    with pytest.raises(ParseError, match=reason):
        parse_atomic(text)


@given(line_text, line_text)
def test_atomic_item_round_trips(question, answer):
    assert parse_atomic(f"Atomic Question: {question}\nAtomic Answer: {answer}") == AtomicItem(
        question=question, answer=answer)


@given(st.text(max_size=200))
def test_atomic_parser_raises_only_parse_errors(text):
    with contextlib.suppress(ParseError):
        parse_atomic(text)


# --- MCQ generation ---------------------------------------------------------------------------

def generation(option_count: int = 4, **overrides) -> dict:
    texts = ["Fourteen hours", "The kiln never ran", "Twelve hours", "Fourteen days"]
    value = {
        "question": ATOMIC.question,
        "options": [{"kind": role, "text": text}
                    for role, text in zip(roles_for(option_count), texts, strict=False)],
        "correct_answer": "A",
    }
    value.update(overrides)
    return value


@pytest.mark.parametrize("option_count", [3, 4])
def test_valid_generation_keeps_roles_in_contract_order(option_count):
    parsed = parse_mcq(json.dumps(generation(option_count)), ATOMIC, option_count)
    assert [o.role for o in parsed.options] == list(roles_for(option_count))
    assert parsed.options[0].text == ATOMIC.answer and parsed.question == ATOMIC.question


def test_generation_in_a_json_fence_is_accepted():
    parse_mcq(f"```json\n{json.dumps(generation())}\n```", ATOMIC, 4)


def _swap(options: list[dict]) -> list[dict]:
    return [options[0], options[2], options[1], options[3]]


@pytest.mark.parametrize("mutate, reason", [
    (lambda g: g.update(options=_swap(g["options"])), r"options\[1\]\.kind must be 'opposite_"),
    (lambda g: g.update(correct_answer="B"), 'correct_answer must be "A"'),
    (lambda g: g.update(correct_answer=0), 'correct_answer must be "A"'),
    (lambda g: g.update(question="How long did the kiln burn?"), "must equal the atomic question"),
    (lambda g: g["options"][0].update(text="14 hours"), "must equal the atomic answer"),
    (lambda g: g["options"][3].update(text="  fourteen   HOURS "), "unique"),
    (lambda g: g["options"][2].update(text="the KILN never\tran"), "unique"),
    (lambda g: g.update(rationale="because"), "unexpected field"),
    (lambda g: g["options"][1].update(id="B"), "exactly the fields kind, text"),
    (lambda g: g.pop("correct_answer"), "missing field"),
    (lambda g: g["options"].pop(), "expected 4 options, got 3"),
    (lambda g: g.update(options={"A": "x"}), "options must be a list"),
    (lambda g: g["options"][1].update(text="  "), "must not be blank"),
    (lambda g: g["options"].__setitem__(2, "Twelve hours"), "must be an object"),
])
def test_generation_breaking_the_contract_is_rejected(mutate, reason):
    value = generation()
    mutate(value)
    with pytest.raises(ParseError, match=reason):
        parse_mcq(json.dumps(value), ATOMIC, 4)


def test_three_option_generation_may_not_carry_a_misconception():
    value = generation(3)
    value["options"][1] = {"kind": "plausible_misconception", "text": "Fourteen days"}
    with pytest.raises(ParseError, match="must be 'opposite_negation'"):
        parse_mcq(json.dumps(value), ATOMIC, 3)


def test_generation_with_trailing_text_is_rejected():
    with pytest.raises(ParseError, match="not valid JSON"):
        parse_mcq(json.dumps(generation()) + "\nHope this helps!", ATOMIC, 4)


@given(st.text(max_size=300))
def test_generation_parser_raises_only_parse_errors(text):
    with contextlib.suppress(ParseError):
        parse_mcq(text, ATOMIC, 4)


# --- grouped answers --------------------------------------------------------------------------

ABCD = ("A", "B", "C", "D")


def test_grouped_answers_are_read_in_order():
    assert parse_grouped_answers("Q1: B\nQ2: D\nQ3: A\n", [ABCD] * 3) == ["B", "D", "A"]


@pytest.mark.parametrize("text, reason", [
    ("Q1: B\nQ2: D", "exactly 3 answer line"),                      # missing
    ("Q1: B\nQ1: D\nQ3: A", "line 2 answers Q1"),                    # repeated
    ("Q1: B\nQ3: A\nQ2: D", "line 2 answers Q3"),                    # out of order
    ("Answers:\nQ1: B\nQ2: D\nQ3: A", "exactly 3 answer line"),      # extra line
    ("Q1: B\nQ2: D because\nQ3: A", "label 'D because' is not available"),  # extra text
    ("Q1: B\nQ2: (D)\nQ3: A", "not available"),
    ("Q1: B\nQ2: d\nQ3: A", "not available"),
    ("Q1: B\nQ2: D\nQ3: A\nQ4: C", "exactly 3 answer line"),          # one too many
    ("Q1: B\nQ2 D\nQ3: A", "must be 'Q2: <label>'"),
    ("", "exactly 3 answer line"),
])
def test_grouped_answers_breaking_the_format_are_rejected(text, reason):
    with pytest.raises(ParseError, match=reason):
        parse_grouped_answers(text, [ABCD] * 3)


def test_a_label_the_item_does_not_have_is_rejected():
    with pytest.raises(ParseError, match=r"Q2: label 'D' is not available \(options: A, B, C\)"):
        parse_grouped_answers("Q1: D\nQ2: D", [ABCD, ("A", "B", "C")])


@given(st.lists(st.sampled_from([("A", "B", "C"), ABCD]), min_size=1, max_size=25).flatmap(
    lambda labels: st.tuples(st.just(labels),
                             st.tuples(*(st.sampled_from(ls) for ls in labels)))))
def test_grouped_answers_round_trip(case):
    labels, chosen = case
    text = "\n".join(f"Q{i}: {label}" for i, label in enumerate(chosen, start=1))
    assert parse_grouped_answers(text, labels) == list(chosen)


@given(st.text(alphabet="Q0123456789: ABCDE\n", max_size=40))
def test_grouped_parser_raises_only_parse_errors(text):
    with contextlib.suppress(ParseError):
        parse_grouped_answers(text, [ABCD] * 3)
