"""Decoding constraints for the judge contracts: GBNF grammars first, JSON schemas second.

Constraints only raise the hit rate; the parsers in :mod:`interviewsim.judges.parsers` decide.
Where the provider takes a grammar (embedded llama.cpp, a llama.cpp server) the grammar is
preferred because it can do what a portable JSON schema cannot: fix the field order (decision
first, explanation after) and bound each text so the whole object closes within the judge's
``max_tokens`` — an unbounded explanation from a small model runs into the token limit and
leaves unterminated JSON. The schemas use only keywords every structured-output backend accepts
(``enum`` for the score: llama.cpp ignores integer bounds; strict OpenAI rejects string lengths).
"""

from __future__ import annotations

from collections.abc import Sequence

from interviewsim.judges.parsers import CS_SCORES, FC_LABELS, LEVELS
from interviewsim.llm.types import OutputConstraint

CHARS_PER_TOKEN = 3
"""Text budget per token: below English's ~4, so bounded text fits even when it tokenises badly."""
STRUCTURE_TOKENS = 24
"""Tokens reserved for the fixed part of an output (braces, keys, tags)."""
_JSON_CHAR = r'jchar ::= [^"\\\x00-\x1F]'
"""A JSON string character that needs no escape (quotes and backslashes are simply excluded)."""


EXPLANATION_SHARE = 0.5
"""An explanation is kept for inspection, not scored: half the budget (two or three sentences)
keeps it useful while halving the tokens a judgment costs."""


def text_budget(max_tokens: int, share: float = 1.0) -> int:
    """Characters of free text that ``share`` of a ``max_tokens`` output can safely hold."""
    return max(16, int((max_tokens - STRUCTURE_TOKENS) * CHARS_PER_TOKEN * share))


def _literal(text: str) -> str:
    """``text`` as a GBNF string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _choice(values: Sequence[object], quoted: bool) -> str:
    return " | ".join(_literal(f'"{v}"' if quoted else str(v)) for v in values)


def _json_text(chars: int) -> str:
    """A JSON string of 1..chars characters whose first one is not blank."""
    return rf'"\"" [^"\\\x00-\x1F ] jchar{{0,{chars - 1}}} "\""'


def json_object_grammar(fields: Sequence[tuple[str, str]]) -> str:
    """GBNF for ``{"k1": v1, "k2": v2}`` with the keys in this order; values are rule bodies."""
    parts = [f"""{_literal(('{' if i == 0 else ', ') + f'"{name}": ')} v{i}"""
             for i, (name, _) in enumerate(fields)]
    rules = [f"v{i} ::= {body}" for i, (_, body) in enumerate(fields)]
    return "\n".join([f"root ::= {' '.join(parts)} {_literal('}')}", *rules, _JSON_CHAR]) + "\n"


def _object_schema(properties: dict[str, dict]) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


CS_SCHEMA = OutputConstraint(
    kind="json_schema", name="content_similarity",
    json_schema=_object_schema({"score": {"type": "integer", "enum": list(CS_SCORES)},
                                "explanation": {"type": "string"}}),
)
FC_SCHEMA = OutputConstraint(
    kind="json_schema", name="factual_consistency",
    json_schema=_object_schema({"label": {"type": "string", "enum": list(FC_LABELS)},
                                "explanation": {"type": "string"}}),
)
FACT_SUMMARY_SCHEMA = OutputConstraint(
    kind="json_schema", name="fact_summary",
    json_schema=_object_schema({"summary": {"type": "string"},
                                "explanation": {"type": "string"}}),
)


def content_similarity_constraints(max_tokens: int) -> tuple[OutputConstraint, ...]:
    grammar = json_object_grammar([("score", _choice(CS_SCORES, quoted=False)),
                                   ("explanation", _json_text(text_budget(max_tokens,
                                                                          EXPLANATION_SHARE)))])
    return OutputConstraint(kind="grammar", name="content_similarity", grammar=grammar), CS_SCHEMA


def factual_consistency_constraints(max_tokens: int) -> tuple[OutputConstraint, ...]:
    grammar = json_object_grammar([("label", _choice(FC_LABELS, quoted=True)),
                                   ("explanation", _json_text(text_budget(max_tokens,
                                                                          EXPLANATION_SHARE)))])
    return (OutputConstraint(kind="grammar", name="factual_consistency", grammar=grammar),
            FC_SCHEMA)


def fact_summary_constraints(max_tokens: int) -> tuple[OutputConstraint, ...]:
    """Most of the budget goes to the summary: it is what the FC judge reads."""
    grammar = json_object_grammar([
        ("summary", _json_text(text_budget(max_tokens, 0.75))),
        ("explanation", _json_text(text_budget(max_tokens, 0.25))),
    ])
    return OutputConstraint(kind="grammar", name="fact_summary", grammar=grammar), \
        FACT_SUMMARY_SCHEMA


def trait_rating_constraints(max_tokens: int) -> tuple[OutputConstraint, ...]:
    """The exact PS tags; a bounded justification so the closing tag fits in max_tokens."""
    chars = text_budget(max_tokens, EXPLANATION_SHARE)
    grammar = (
        'root ::= "<rate>" level "</rate> <justification>" text "</justification>"\n'
        f"level ::= {_choice(LEVELS, quoted=False)}\n"
        f"text ::= [^<\\n \\t] [^<\\n]{{0,{chars - 1}}}\n"
    )
    return (OutputConstraint(kind="grammar", name="trait_rating", grammar=grammar),)
