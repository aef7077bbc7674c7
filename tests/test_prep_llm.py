"""The model-backed paths through the real seam: the model proposes, the schema and gates decide."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from interviewsim.errors import ConfigError, ParseError
from interviewsim.llm import gbnf
from interviewsim.prep.extraction import ExtractionOut, extract_llm
from interviewsim.prep.gates import extraction_gate, match_gate
from interviewsim.prep.generation import questions_shape, strategy_shape
from interviewsim.prep.matching import match_llm
from interviewsim.prep.modelcall import constraint_for, json_schema_of, parse_model, read_payload
from interviewsim.prep.models import (
    EvidenceItem,
    PracticeQuestionSet,
    PrepSettings,
    Requirement,
    Strategy,
)
from interviewsim.prep.pipeline import PrepState, run_match
from tests.test_prep_support import fixture_client, posting, sample_evidence, scripted_client

SETTINGS = PrepSettings()
POSTING = "We need:\n- Python for data pipelines\n- Kiln repair experience"


def proposed(*items: tuple[str, str, str]) -> str:
    return json.dumps({"requirements": [
        {"id": rid, "text": text, "source_quote": quote, "importance": 4, "category": "technical"}
        for rid, text, quote in items]})


def test_llm_extraction_keeps_grounded_requirements(tmp_path: Path) -> None:
    answer = proposed(("REQ-001", "Python for data pipelines", "python for DATA pipelines"),
                      ("REQ-002", "Kiln repair", "Kiln repair experience"))
    with scripted_client(tmp_path, [(".*", answer)]) as client:
        requirements, call = extract_llm(POSTING, client, SETTINGS)
    assert call.parse_error is None and requirements is not None
    assert [r.importance for r in requirements] == [4, 4]
    assert requirements[0].normalized == "python for data pipelines"
    assert extraction_gate(requirements, POSTING, SETTINGS) == []


def test_llm_extraction_quoting_text_not_in_the_posting_fails_the_gate(tmp_path: Path) -> None:
    answer = proposed(("REQ-001", "Python", "Python for data pipelines"),
                      ("REQ-002", "Rust", "Rust for embedded systems"))
    with scripted_client(tmp_path, [(".*", answer)]) as client:
        requirements, _ = extract_llm(POSTING, client, SETTINGS)
    assert requirements is not None
    quote, text = extraction_gate(requirements, POSTING, SETTINGS)
    assert "REQ-002 source_quote 'Rust for embedded systems' does not appear" in quote
    assert "REQ-002 text 'Rust' is not grounded in the posting" in text


def test_llm_extraction_inventing_text_beside_a_real_quote_fails_the_gate(
        tmp_path: Path) -> None:
    """The quote is real, the text is not: matching reads the text, so the gate checks it."""
    posting = POSTING + "\n- Welsh language skills"
    answer = proposed(("REQ-001", "Ten years of Kubernetes and Rust", "Welsh language skills"),
                      ("REQ-002", "Python data pipelines", "Python for data pipelines"))
    with scripted_client(tmp_path, [(".*", answer)]) as client:
        requirements, _ = extract_llm(posting, client, SETTINGS)
    assert requirements is not None
    [problem] = extraction_gate(requirements, posting, SETTINGS)
    assert problem.startswith("extraction: REQ-001 text 'Ten years of Kubernetes and Rust' is "
                              "not grounded in the posting: coverage 0.00 < 0.30")
    assert "kubernetes" in problem


@pytest.mark.parametrize("answer, error", [
    ("Sure! Here are the requirements.", "not valid JSON"),
    ('{"requirements": [], "extra": 1}', "unexpected field"),
    ('{"requirements": [{"id": "R1", "text": "x", "source_quote": "x", "importance": 4, '
     '"category": "technical"}]}', "schema violation"),
    ('{"requirements": [{"id": "REQ-001", "text": "x", "source_quote": "x", "importance": 9, '
     '"category": "technical"}]}', "importance"),
])
def test_malformed_extraction_is_rejected_whole(tmp_path: Path, answer: str, error: str) -> None:
    with scripted_client(tmp_path, [(".*", answer)]) as client:
        requirements, call = extract_llm(POSTING, client, SETTINGS)
    assert requirements is None and error in (call.parse_error or "")


def test_over_full_extraction_is_rejected_not_truncated(tmp_path: Path) -> None:
    answer = proposed(*[(f"REQ-{i:03d}", f"Kiln {i}", "Kiln repair") for i in range(1, 4)])
    with scripted_client(tmp_path, [(".*", answer)]) as client:
        requirements, call = extract_llm(POSTING, client, PrepSettings(max_requirements=2))
    assert requirements is None
    assert call.parse_error == "lists 3 requirements; at most 2 allowed"


def test_extraction_call_is_audited_with_its_raw_output(tmp_path: Path) -> None:
    with scripted_client(tmp_path, [(".*", "nope")]) as client:
        _, call = extract_llm(POSTING, client, SETTINGS)
    assert call.purpose == "extract-requirements"
    assert call.call.raw == "nope" and call.call.cache_key


REQS = [Requirement(id="REQ-001", text="Python for data pipelines",
                    normalized="python for data pipelines", source_quote="Python for data")]
EVIDENCE = [EvidenceItem(id="EV-001", kind="file", title="t", text="Built pipelines in Python")]


def verdicts(**change: Any) -> str:
    item = {"requirement_id": "REQ-001", "coverage": "PARTIAL", "evidence_ids": ["EV-001"],
            "explanation": "pipelines, not data", "confidence": 0.6, "missing": "data scale"}
    return json.dumps({"assessments": [{**item, **change}]})


def test_llm_matcher_may_say_partial_naming_the_missing_dimension(tmp_path: Path) -> None:
    with scripted_client(tmp_path, [(".*", verdicts())]) as client:
        found, _ = match_llm(REQS, EVIDENCE, client, SETTINGS)
    assert found is not None and found[0].coverage == "PARTIAL"
    assert found[0].missing == "data scale"
    assert match_gate(REQS, found, EVIDENCE) == []


def test_llm_matcher_citing_an_id_it_was_not_given_fails_the_gate(tmp_path: Path) -> None:
    with scripted_client(tmp_path, [(".*", verdicts(evidence_ids=["EV-999"]))]) as client:
        found, _ = match_llm(REQS, EVIDENCE, client, SETTINGS)
    assert found is not None
    assert match_gate(REQS, found, EVIDENCE) == [
        "matching: REQ-001 cites unknown evidence EV-999"]


def test_llm_matcher_sees_only_requirements_and_evidence(tmp_path: Path) -> None:
    seen: list[Any] = []

    def model(request: Any) -> str:
        seen.append(read_payload(request))
        return verdicts()

    with scripted_client(tmp_path, model) as client:
        match_llm(REQS, EVIDENCE, client, SETTINGS)
    task, payload = seen[0]
    assert task == "match-evidence" and set(payload) == {"requirements", "evidence"}


def test_schema_sent_to_the_model_is_inlined_and_requires_every_field() -> None:
    schema = json_schema_of(Strategy)
    assert "$defs" not in json.dumps(schema) and "$ref" not in json.dumps(schema)
    story = schema["properties"]["stories"]["items"]
    assert story["required"] == ["requirement_id", "title", "outline", "evidence_ids"]
    assert story["additionalProperties"] is False


def test_decoding_schema_leaves_regexes_to_the_parser_and_offers_only_real_ids() -> None:
    schema = json_schema_of(Strategy, {"requirement_id": ["REQ-001", "REQ-002"],
                                       "evidence_ids": []})
    text = json.dumps(schema)
    assert "pattern" not in text and "maxLength" not in text
    story = schema["properties"]["stories"]["items"]["properties"]
    assert story["requirement_id"] == {"enum": ["REQ-001", "REQ-002"]}
    assert story["evidence_ids"]["maxItems"] == 0


def test_decoding_schema_bounds_named_lists_to_what_the_call_needs() -> None:
    schema = json_schema_of(Strategy, counts={"risks": (0, 3)})
    assert (schema["properties"]["risks"]["minItems"],
            schema["properties"]["risks"]["maxItems"]) == (0, 3)
    assert "maxItems" not in json_schema_of(Strategy)["properties"]["risks"]


FOCUS = [
    {"requirement_id": "REQ-003", "coverage": "GAP", "evidence": []},
    {"requirement_id": "REQ-001", "coverage": "PARTIAL", "evidence": [{"id": "EV-2"}]},
    {"requirement_id": "REQ-002", "coverage": "FULL",
     "evidence": [{"id": "EV-1"}, {"id": "EV-3"}]},
]


def _pin(item: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    props = item["properties"]
    return props["requirement_id"]["enum"], props["evidence_ids"]


def test_local_strategy_shape_pins_priorities_and_risks_to_the_ranked_areas() -> None:
    schema = strategy_shape(FOCUS)(json_schema_of(Strategy, lengths=True))
    props = schema["properties"]
    priorities = props["priorities"]["prefixItems"]
    assert [_pin(p)[0] for p in priorities] == [["REQ-003"], ["REQ-001"], ["REQ-002"]]
    assert _pin(priorities[0])[1]["maxItems"] == 0  # a gap cites nothing
    assert _pin(priorities[2])[1]["items"] == {"enum": ["EV-1", "EV-3"]}
    risks = props["risks"]["prefixItems"]  # every uncovered area, exactly once, in rank order
    assert [r["properties"]["requirement_id"]["enum"] for r in risks] == [["REQ-003"],
                                                                         ["REQ-001"]]
    stories = props["stories"]["items"]["anyOf"]  # only covered areas have stories
    assert [_pin(s)[0] for s in stories] == [["REQ-001"], ["REQ-002"]]
    assert props["positioning"]["maxLength"] == 400  # lengths kept for the local grammar


def test_local_question_shape_lets_each_question_cite_only_its_own_area() -> None:
    schema = questions_shape(FOCUS)(json_schema_of(PracticeQuestionSet, lengths=True))
    variants = schema["properties"]["questions"]["items"]["anyOf"]
    assert [(_pin(v)[0], _pin(v)[1]["maxItems"]) for v in variants] == [
        (["REQ-003"], 0), (["REQ-001"], 1), (["REQ-002"], 2)]
    assert [_pin(v)[1]["items"].get("enum") for v in variants[1:]] == [["EV-2"],
                                                                       ["EV-1", "EV-3"]]
    assert variants[0]["properties"]["question"]["maxLength"] == 240


class _Client:
    def __init__(self, grammar: bool, json_schema: bool) -> None:
        self.supports_grammar, self.supports_json_schema = grammar, json_schema


def test_constraint_is_the_tightest_the_client_takes() -> None:
    shape = strategy_shape(FOCUS)
    local = constraint_for(_Client(True, True), "strategy", Strategy, shape=shape)  # type: ignore[arg-type]
    assert local is not None and local.kind == "grammar"
    assert 'json-char{1,400}' in (local.grammar or "") and "tuple" in (local.grammar or "")
    hosted = constraint_for(_Client(False, True), "strategy", Strategy, shape=shape)  # type: ignore[arg-type]
    assert hosted is not None and hosted.kind == "json_schema"
    assert "maxLength" not in json.dumps(hosted.json_schema)
    assert "prefixItems" not in json.dumps(hosted.json_schema)
    assert constraint_for(_Client(False, False), "strategy", Strategy) is None  # type: ignore[arg-type]


def test_without_llama_cpp_a_client_that_takes_json_schemas_gets_one_instead_of_a_grammar(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture model of the offline demo says it takes grammars, but building one needs
    llama-cpp-python; without it the call falls back to the schema, or (grammar-only
    client) stops with a message saying what to install."""
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    gbnf._converter_class.cache_clear()
    fallback = constraint_for(_Client(True, True), "strategy", Strategy)  # type: ignore[arg-type]
    assert fallback is not None and fallback.kind == "json_schema"
    with pytest.raises(ConfigError, match="needs llama-cpp-python, which is not installed"):
        constraint_for(_Client(True, False), "strategy", Strategy)  # type: ignore[arg-type]


def test_parse_model_accepts_one_fenced_object_and_nothing_else() -> None:
    body = proposed(("REQ-001", "Kiln repair", "Kiln repair"))
    assert parse_model(f"```json\n{body}\n```", ExtractionOut).requirements[0].id == "REQ-001"
    with pytest.raises(ParseError, match="not valid JSON"):
        parse_model(body + body, ExtractionOut)


def test_match_graph_with_both_model_paths_plans_the_sample_posting(tmp_path: Path) -> None:
    state = PrepState(posting=posting(), base_evidence=sample_evidence(), extractor="llm",
                      matcher="llm")
    with fixture_client(tmp_path) as client:
        outcome = run_match(state, client)
    assert outcome.trajectory == [["extract", "extraction_gate", "match", "match_gate", "assess",
                                   "plan"]]
    assert outcome.valid and {v.coverage for v in state.matches} >= {"FULL", "GAP"}
    assert [c.purpose for c in state.calls] == ["extract-requirements", "match-evidence"]
