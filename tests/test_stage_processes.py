"""generate and judge split into processes (``processes: N`` on the provider, stages/runner/copies.py):
the merged artifacts are byte-identical to a one-process run, the provider's concurrency holds
for the stage as a whole, and a copy that fails fails the stage with its exit code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from interviewsim.data.jsonio import read_jsonl
from tests.factories import make_doc
from tests.mock_openai import MockOpenAI
from tests.reliability_kit import (
    artifacts,
    contract_endpoint,
    make_workspace,
    run_chain,
    run_cli,
    run_stage,
    temp_files,
)

STAGES = ("prepare", "select-context", "fact-summary", "generate", "judge")
PEOPLE = [make_doc(f"P{i}", marker=f"p{i}") for i in range(5)]
MODEL = {"provider": "mock", "model": "mock-model", "max_tokens": 64}
MODELS = {"generator": MODEL,
          "judges": [{"name": "judge-b", **MODEL}, {"name": "judge-a", **MODEL}],
          "mcq_builder": MODEL, "mcq_answerers": [{"name": "a1", **MODEL}]}


@pytest.fixture
def server() -> Iterator[MockOpenAI]:
    with contract_endpoint() as mock:
        yield mock


def workspace(root: Path, server: MockOpenAI, processes: int) -> Path:
    return make_workspace(root, server, PEOPLE, models=MODELS, judge={"ps_runs": 2},
                          provider={"processes": processes, "max_concurrency": 6})


def usage(root: Path, folder: str) -> dict:
    """A summary's counts and its same-on-every-run usage: requests, and tokens and cost of
    the answers used (calls and cache hits differ: an identical request of two personalities
    in two processes is sent by both, and both keep the answer stored first)."""
    summary = json.loads((root / "data/artifacts" / folder / "summary.json").read_text())
    return {k: {f: v for f, v in row.items() if f == "requests" or f.startswith("answer")}
            for k, row in summary["usage"].items()} | {"counts": summary["counts"]}


def test_three_processes_write_exactly_what_one_process_writes(tmp_path, server):
    one = workspace(tmp_path / "one", server, processes=1)
    three = workspace(tmp_path / "three", server, processes=3)
    forked = workspace(tmp_path / "forked", server, processes=3)
    assert [o.code for o in run_chain(one, STAGES)] == [0] * len(STAGES)
    server.max_in_flight = 0
    # In this process (the mock's thread is running) the copies are new interpreters ...
    outcomes = run_chain(three, STAGES)
    assert [o.code for o in outcomes] == [0] * len(STAGES), outcomes[-1].output
    # ... and from a stage process of its own, forks of it.
    assert [o.code for o in run_chain(forked, STAGES[:3])] == [0, 0, 0]
    for stage in STAGES[3:]:
        outcome = run_stage(forked, stage)
        assert outcome.code == 0 and "3 processes (forked)" in outcome.stderr, outcome.output

    assert all("3 processes (new interpreters)" in o.stderr for o in outcomes[3:])
    assert artifacts(three) == artifacts(one)  # answers, judgments, PS runs/votes, metrics
    assert artifacts(forked) == artifacts(one)
    for folder in ("generated", "judged"):
        assert usage(three, folder) == usage(one, folder) == usage(forked, folder)
    assert server.max_in_flight <= 6  # max_concurrency holds for the stage, not per process
    assert temp_files(three) == []
    assert not list((three / "data/artifacts").rglob(".copies-*"))
    judges = {r["judge"] for r in read_jsonl(three / "data/artifacts/judged/ps_runs.jsonl")}
    assert judges == {"judge-a", "judge-b"}


def test_a_copy_that_fails_fails_the_stage_with_its_exit_code(tmp_path, server):
    root = workspace(tmp_path, server, processes=2)
    assert [o.code for o in run_chain(root, STAGES[:3])] == [0, 0, 0]
    contexts = root / "data/artifacts/context/contexts.jsonl"
    records = list(read_jsonl(contexts))
    heldout = next(read_jsonl(root / "data/artifacts/prepared/heldout_pairs.jsonl"))
    for record in records:  # P1 is the second personality: copy 1 of 2 takes it
        if record["personality_id"] == "P1" and record["pair_ids"]:
            record["pair_ids"][0] = heldout["qa_id"].replace("P0", "P1")
    contexts.write_text("".join(json.dumps(r) + "\n" for r in records))

    outcome = run_cli(root, "generate")
    assert outcome.code == 3  # LeakageError in copy 1, passed through by the parent
    assert not (root / "data/artifacts/generated/answers.jsonl").exists()
    assert not list((root / "data/artifacts").rglob(".copies-*"))
    assert temp_files(root) == []
