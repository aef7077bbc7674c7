"""prepare -> mcq-build -> mcq-answer through the CLI with a scripted model (see test_mcq_build)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from interviewsim.data.jsonio import read_jsonl
from interviewsim.llm.types import ChatRequest
from stages.cli import cli
from tests.factories import make_doc, write_doc
from tests.test_mcq_build import respond

REQUESTS: list[ChatRequest] = []


def recording(request: ChatRequest) -> str:
    REQUESTS.append(request)
    return respond(request)


PARAMS = {
    "data": {"personalities": "in", "test_fraction": 0.2},
    "controls": [],  # the MCQ controls have their own tests (test_mcq_validity)
    "context": {"chronological_pairs": 3, "random_pairs": 3, "retrieval_pairs": 2,
                "hybrid_retrieved": 2, "hybrid_recent": 2},
    "cache": {"path": "cache/responses.sqlite", "embeddings_dir": "cache/embeddings"},
    "providers": {"local": {"kind": "scripted", "script": "tests.test_mcq_pipeline:recording"}},
    "models": {
        "mcq_builder": {"provider": "local", "model": "scripted"},
        "mcq_answerers": [{"name": "first", "provider": "local", "model": "scripted"},
                          {"name": "second", "provider": "local", "model": "scripted-2"}],
    },
}


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--params", "params.yaml"])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.output


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("INTERVIEWSIM_PROGRESS", "0")
    for pid in ("P2", "P1"):
        write_doc(tmp_path / "in", make_doc(pid, interviews=10, pairs=5))
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(PARAMS), encoding="utf-8")
    REQUESTS.clear()
    invoke("prepare")
    return tmp_path


def test_build_then_answer_scores_every_item_by_role(workdir):
    items_dir = workdir / "data/artifacts/mcq_items"
    answers_dir = workdir / "data/artifacts/mcq_answers"
    assert "8 items built from 20 held-out pairs; dropped 4 by the grounding gate, 8 invalid" in (
        invoke("mcq-build"))
    atomic = list(read_jsonl(items_dir / "atomic_items.jsonl"))
    assert len(atomic) == 20 and [r["personality_id"] for r in atomic] == ["P1"] * 10 + ["P2"] * 10
    summary = json.loads((items_dir / "summary.json").read_text())["counts"]
    assert summary["by_personality"]["P2"] == {
        "pairs": 10, "built": 4, "dropped_by_gate": 2, "dropped_invalid": 4,
        "dropped_invalid_atomic": 2, "dropped_invalid_mcq": 2,
        "dropped_by_gate_kind": {"number": 0, "text": 2, "yes_no": 0}}
    mcqs = list(read_jsonl(items_dir / "mcqs.jsonl"))
    assert [m["qa_id"] for m in mcqs[:4]] == ["P1-Q8-0", "P1-Q8-2", "P1-Q9-0", "P1-Q9-2"]
    assert set(mcqs[0]) == {"item_id", "personality_id", "qa_id", "interview_id", "option_count",
                            "question", "options", "correct_label"}

    REQUESTS.clear()
    invoke("mcq-answer")
    groups = list(read_jsonl(answers_dir / "answers.jsonl"))
    assert len(groups) == 2 * 7 * 2 * 2  # personalities x strategies x answerers x interviews
    keys = [(g["personality_id"], g["strategy"], g["answerer"], g["interview_id"]) for g in groups]
    assert keys == sorted(keys)
    by_strategy = {g["strategy"]: g for g in groups if g["personality_id"] == "P1"}
    profile = by_strategy["short-profile"]
    assert profile["malformed"] and len(profile["calls"]) == 3 and profile["parse_error"]
    assert all(i["outcome"] == "malformed" for i in by_strategy["long-profile"]["items"])
    assert {i["outcome"] for i in by_strategy["no-context"]["items"]} == {"opposite_negation"}
    assert {i["outcome"] for i in by_strategy["hybrid"]["items"]} == {"correct"}

    metrics = {(m["metric"], m["judge"], m["strategy"], m["personality_id"]): m
               for m in read_jsonl(answers_dir / "personality_metrics.jsonl")}
    assert len(metrics) == 4 * 2 * 7 * 2  # plain and robust accuracy and reward
    assert metrics["mcq_reward", "second", "no-context", "P2"]["value"] == -1.0
    assert metrics["mcq_accuracy", "first", "retrieval", "P1"]["value"] == 1.0
    malformed = metrics["mcq_reward", "first", "short-profile", "P1"]
    assert (malformed["value"], malformed["n"], malformed["invalid"]) == (-0.5, 4, 4)


def test_no_answering_prompt_context_holds_held_out_text(workdir):
    invoke("mcq-build")
    REQUESTS.clear()
    invoke("mcq-answer")
    held_out = [r["response"] for r in
                read_jsonl(workdir / "data/artifacts/prepared/heldout_pairs.jsonl")]
    prompts = [r.messages[-1].content for r in REQUESTS if "Questions:" in r.messages[-1].content]
    assert len(prompts) >= 2 * 7 * 2 * 2
    contexts = [m.group(1) for p in prompts
                for m in re.finditer(r"<context>(.*?)</context>", p, re.S)]
    # every strategy but no-context has one; the malformed profile groups were asked 3 times
    assert len(contexts) == 2 * 6 * 2 * 2 + 2 * 2 * 2 * 2 * 2
    for context in contexts:
        assert not [text for text in held_out if text in context]
    grammars = {r.constraint.kind for r in REQUESTS if "Questions:" in r.messages[-1].content}
    assert grammars == {"grammar"}


def test_rerun_is_byte_identical_and_served_from_the_cache(workdir):
    invoke("mcq-build")
    invoke("mcq-answer")
    outputs = ["data/artifacts/mcq_items/atomic_items.jsonl", "data/artifacts/mcq_items/mcqs.jsonl",
               "data/artifacts/mcq_answers/answers.jsonl",
               "data/artifacts/mcq_answers/personality_metrics.jsonl",
               "data/artifacts/mcq_answers/position_bias.json"]
    first = {p: (workdir / p).read_bytes() for p in outputs}
    REQUESTS.clear()
    assert "0 first-attempt calls" in invoke("mcq-answer", "--dry-run")
    invoke("mcq-build")
    invoke("mcq-answer")
    assert REQUESTS == []
    assert first == {p: (workdir / p).read_bytes() for p in outputs}


def test_answering_items_built_from_another_split_fails_with_a_clear_message(workdir):
    invoke("mcq-build")
    params = yaml.safe_load((workdir / "params.yaml").read_text())
    params["data"]["test_fraction"] = 0.1  # a different split: fewer held-out interviews
    (workdir / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    invoke("prepare")
    result = CliRunner().invoke(cli, ["mcq-answer", "--params", "params.yaml"])
    assert result.exit_code == 1 and "mcqs.jsonl is out of date" in result.output
