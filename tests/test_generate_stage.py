"""select-context + generate through the real CLI and the scripted model, and the leakage guard."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from interviewsim.config.params import ALL_STRATEGIES
from interviewsim.data.jsonio import read_jsonl
from interviewsim.errors import LeakageError
from tests import scripted_models
from tests.factories import make_doc
from tests.stage_runner import invoke, make_workspace

REPO = Path(__file__).resolve().parents[1]


def secret_doc(pid: str) -> dict:
    """Held-out responses (the last interview) made of text that appears nowhere else."""
    doc = make_doc(pid, interviews=5, pairs=3)
    for j, pair in enumerate(doc["interviews"][-1]["qa_pairs"]):
        pair["response"] = (f"HELDOUT-SECRET-{pid}-{j} the violet lighthouse keeper "
                            f"counted {j + 1000} herons beside the quarry at dawn")
    return doc


@pytest.fixture
def workspace(tmp_path):
    scripted_models.SEEN.clear()
    root = make_workspace(tmp_path, [secret_doc("P1"), secret_doc("P2")],
                          "tests.scripted_models:echo_answer")
    for stage in ("prepare", "select-context", "generate"):
        result = invoke(root, stage)
        assert result.exit_code == 0, result.output
    return root


def test_every_strategy_answers_every_heldout_question(workspace):
    answers = list(read_jsonl(workspace / "data/artifacts/generated/answers.jsonl"))
    assert len(answers) == 2 * 3 * len(ALL_STRATEGIES)
    keys = {(a["personality_id"], a["strategy"], a["qa_id"]) for a in answers}
    assert len(keys) == len(answers)
    assert all(a["valid"] and a["response"].startswith("Well, about") for a in answers)
    assert all(a["calls"][0]["cache_key"] for a in answers)


def test_no_generation_prompt_contains_any_40_character_span_of_a_heldout_response(workspace):
    heldout = [r["response"] for r in
               read_jsonl(workspace / "data/artifacts/prepared/heldout_pairs.jsonl")]
    prompts = ["\n".join(m.content for m in r.messages) for r in scripted_models.SEEN]
    assert len(prompts) == 2 * 3 * len(ALL_STRATEGIES)
    for response in heldout:
        spans = {response[i : i + 40] for i in range(len(response) - 39)}
        for prompt in prompts:
            assert not any(span in prompt for span in spans)
    assert any("HELDOUT-SECRET" in r for r in heldout)  # the marker really is in the data


def test_second_run_is_served_from_cache_and_byte_identical(workspace):
    answers = workspace / "data/artifacts/generated/answers.jsonl"
    first = answers.read_bytes()
    scripted_models.SEEN.clear()
    assert invoke(workspace, "generate").exit_code == 0
    assert scripted_models.SEEN == []
    assert answers.read_bytes() == first
    run_log = json.loads((workspace / "data/artifacts/generated/run_log.json").read_text())
    usage = next(iter(run_log["usage"].values()))
    assert usage["cache_hits"] == 42 and usage["calls"] == 0


def test_generation_prompts_of_one_strategy_share_everything_before_the_question(workspace):
    chronological = [r.messages[-1].content for r in scripted_models.SEEN
                     if "Earlier interview excerpts" in r.messages[-1].content]
    prefixes = {p.rsplit("New question: ", 1)[0] for p in chronological}
    # two personalities x (chronological, random) share a prefix; retrieval/hybrid vary
    assert len(chronological) >= 12
    assert len(prefixes) < len(chronological)


def test_blank_answers_are_reasked_then_recorded_invalid(tmp_path):
    root = make_workspace(tmp_path, [make_doc("P1")], "tests.scripted_models:always_blank",
                          strategies=["no-context"])
    for stage in ("prepare", "select-context", "generate"):
        assert invoke(root, stage).exit_code == 0
    answers = list(read_jsonl(root / "data/artifacts/generated/answers.jsonl"))
    assert len(answers) == 3
    for answer in answers:
        assert answer["valid"] is False and answer["response"] is None
        assert answer["invalid_reason"] == "blank answer after 3 attempt(s)"
        assert [c["sample_index"] for c in answer["calls"]] == [0, 1, 2]


def test_a_blank_first_sample_is_replaced_by_the_next(tmp_path):
    root = make_workspace(tmp_path, [make_doc("P1")], "tests.scripted_models:blank_then_answer",
                          strategies=["short-profile"])
    for stage in ("prepare", "select-context", "generate"):
        assert invoke(root, stage).exit_code == 0
    answers = list(read_jsonl(root / "data/artifacts/generated/answers.jsonl"))
    assert all(a["valid"] and a["response"] == "Second time lucky." for a in answers)


def test_a_heldout_id_in_a_context_stops_generate_with_exit_3(workspace):
    contexts = workspace / "data/artifacts/context/contexts.jsonl"
    records = list(read_jsonl(contexts))
    heldout_id = records[0]["qa_id"]
    target = next(r for r in records if r["strategy"] == "chronological")
    target["pair_ids"].append(heldout_id)
    target["scores"].append(None)
    contexts.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(LeakageError, match="held-out"):
        invoke(workspace, "generate")
    result = subprocess.run([sys.executable, "-m", "stages", "generate"], cwd=workspace,
                            capture_output=True, text=True,
                            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 3, result.stderr
    assert "held-out" in result.stderr


def test_heldout_text_inside_a_training_profile_is_caught_in_the_prompt(tmp_path):
    doc = secret_doc("P1")
    doc["personality"]["profile"] = "x"
    root = make_workspace(tmp_path, [doc], "tests.scripted_models:echo_answer",
                          strategies=["short-profile"])
    for stage in ("prepare", "select-context"):
        assert invoke(root, stage).exit_code == 0
    contexts = root / "data/artifacts/context/contexts.jsonl"
    records = list(read_jsonl(contexts))
    leaked = doc["interviews"][-1]["qa_pairs"][0]["response"]
    records[0]["profile"] = f"Profile mentions: {leaked}"
    contexts.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(LeakageError, match="held-out response text"):
        invoke(root, "generate")


def _guard_person(shared: str):
    from interviewsim.data.corpus import Pair, PersonalityData

    def pair(seq: int, pos: int, response: str) -> Pair:
        return Pair(personality_id="P", interview_id=f"I{seq}", sequence=seq, position=pos,
                    qa_id=f"Q{seq}-{pos}", question=f"Question {seq}.{pos}?", response=response)

    secret = ("the violet lighthouse keeper counted one thousand herons beside the flooded "
              "quarry at dawn, then wrote their names in a ledger nobody else has seen")
    person = PersonalityData(
        personality_id="P", profile="A keeper.", long_profile="A keeper of lights.",
        train=(pair(0, 0, f"Training text. {shared} More training text."),),
        heldout=(pair(1, 0, f"{secret} {shared}"),))
    return person, secret


def test_the_guard_catches_a_60_character_leak_at_every_offset_and_allows_shared_text():
    from interviewsim.generation.leakage import LeakageGuard
    from interviewsim.llm.types import Message

    shared = "as everyone in the harbour town already knows from the radio"
    person, secret = _guard_person(shared)
    filler = "Background that is not held out. " * 4
    for offset in range(len(secret) - 60 + 1):
        for pad in range(25):
            leaked = f"{filler[:pad]}{secret[offset : offset + 60]}{filler}"
            with pytest.raises(LeakageError, match="Q1-0"):
                LeakageGuard(person).check_prompt([Message(role="user", content=leaked)], "t")
    # Text the held-out response shares with the training partition is not a leak.
    guard = LeakageGuard(person)
    for pad in range(25):
        guard.check_prompt([Message(role="user", content=f"{filler[:pad]}{shared} {filler}")],
                           "shared")
