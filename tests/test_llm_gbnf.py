"""JSON Schema → GBNF: bounded strings stay flat repetitions, the grammar compiles in llama.cpp,
and strings reject raw control characters (strict JSON does)."""

from __future__ import annotations

import re

import pytest

from interviewsim.llm.gbnf import gbnf_from_schema


def _schema(**props: object) -> dict[str, object]:
    return {"type": "object", "properties": props, "required": list(props),
            "additionalProperties": False}


def test_bounded_strings_become_one_flat_repetition_not_nested_options() -> None:
    grammar = gbnf_from_schema(_schema(note={"type": "string", "minLength": 1,
                                             "maxLength": 400}))
    rule = next(line for line in grammar.splitlines() if line.startswith("note ::="))
    assert rule == 'note ::= "\\"" json-char{1,400} "\\"" space'
    assert grammar.count("(") < 10  # 400 nested optional groups would be 400 parentheses


def test_unbounded_strings_use_the_strict_json_character_rule() -> None:
    grammar = gbnf_from_schema(_schema(text={"type": "string"}))
    assert 'text ::= "\\"" json-char* "\\"" space' in grammar
    char = next(line for line in grammar.splitlines() if line.startswith("json-char ::="))
    assert r"\x00-\x1F" in char  # no raw newline or tab inside a JSON string


def test_tuples_enums_and_unions_keep_the_library_conversion() -> None:
    item = _schema(id={"enum": ["REQ-001"]})
    grammar = gbnf_from_schema(_schema(risks={"type": "array", "prefixItems": [item]},
                                       any={"type": "array", "items": {"anyOf": [item, item]},
                                            "minItems": 1, "maxItems": 2}))
    assert re.search(r'^risks ::= "\[" space risks-tuple-0 "\]" space$', grammar, re.M)
    assert '"\\"REQ-001\\""' in grammar and "any-item ::= any-item-0 | any-item-1" in grammar


@pytest.mark.model
def test_the_grammar_compiles_in_llama_cpp() -> None:
    from llama_cpp import LlamaGrammar

    grammar = gbnf_from_schema(_schema(note={"type": "string", "maxLength": 300},
                                       ids={"type": "array", "items": {"enum": ["a", "b"]},
                                            "maxItems": 2}))
    assert LlamaGrammar.from_string(grammar, verbose=False) is not None
