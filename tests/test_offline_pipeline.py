"""The offline responder (interviewsim/experiment/offline_responder.py, params.offline.yaml) runs
the whole pipeline: every stage of dvc.yaml, in its order and with its command line, through
the console entry point, with the repository's params.yaml and params.offline.yaml on top (what
README "Models" runs with `dvc exp run`). Every prompt gets an answer in its contract, so
nothing is invalid, and no other model answers."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from interviewsim.config.params import load_params
from interviewsim.data.jsonio import read_jsonl
from interviewsim.experiment.offline_responder import respond, respond_to_body
from interviewsim.llm.types import ChatRequest, Message
from stages.commands.planning import MCQ_STEP
from tests.reliability_kit import DVC_STAGES
from tests.stage_runner import REPO, invoke, offline_workspace, run_pipeline

METRICS = ("content_similarity", "contradiction_ratio", "personality_alignment", "mcq_accuracy",
           "mcq_reward")


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory):
    root = offline_workspace(tmp_path_factory.mktemp("offline") / "ws")
    return root, run_pipeline(root, "--no-mlflow")


def test_every_stage_of_dvc_yaml_runs_offline(offline_run):
    _, outcomes = offline_run
    failed = {name: outcome.output[-2000:] for name, outcome in outcomes.items() if outcome.code}
    assert not failed
    assert list(outcomes) == list(DVC_STAGES)


def test_every_answer_meets_its_contract_and_every_metric_is_reported(offline_run):
    root, _ = offline_run
    params = load_params(root / "params.yaml")
    metrics = json.loads((root / "reports/metrics.json").read_text())
    invalid = {key: value for key, value in metrics.items() if key.startswith("invalid.")}
    assert invalid and not any(invalid.values()), invalid
    for strategy in params.strategies:
        for metric in METRICS:
            assert f"{strategy}.offline.{metric}" in metrics, (strategy, metric)
    for strategy in params.interview.strategies:
        assert f"{strategy}.agent.fidelity_gap" in metrics
    answers = list(read_jsonl(root / "data/artifacts/generated/answers.jsonl"))
    assert answers and all(a["valid"] for a in answers)
    # the values vary with the prompt (so strategies differ), not all the same
    assert len({a["response"] for a in answers}) > 1


def test_only_the_offline_responder_answered(offline_run):
    root, _ = offline_run
    providers = {entry["provider"]
                 for path in (root / "data/artifacts").glob("*/summary.json")
                 for entry in json.loads(path.read_text()).get("usage", {}).values()}
    assert providers == {"offline"}


def test_plan_counts_the_offline_run(offline_run):
    """Exact stages plan what ran; the interview's plan is an upper bound on its calls."""
    root, _ = offline_run
    assert invoke(root, "plan", "--no-cache", "--json", "plan.json").exit_code == 0
    lines = json.loads((root / "plan.json").read_text())["stages"]
    planned = {(line["stage"], line["role"]): line["calls"] for line in lines}
    usage = {stage: json.loads((root / f"data/artifacts/{folder}/summary.json").read_text())
             ["usage"] for stage, folder in (("generate", "generated"), ("interview", "interview"))}
    assert planned[("generate", "generator")] == usage["generate"]["generator/offline"]["requests"]
    ran = {label: usage["interview"][f"{label}/offline"]["requests"]
           for label in ("interviewer", "generator", "evaluator")}
    assert 0 < ran["interviewer"] <= planned[("interview", "interviewer")]
    assert 0 < ran["generator"] <= planned[("interview", "twin")]
    assert 0 < ran["evaluator"] <= planned[("interview", "evaluator")]


def test_the_answers_are_deterministic_and_the_same_over_http():
    request = ChatRequest(messages=(Message(role="system", content="anything"),
                                    Message(role="user", content="What is the kiln?")))
    body = {"messages": [{"role": m.role, "content": m.content} for m in request.messages]}
    assert respond(request) == respond(request) == respond_to_body(body)
    assert respond(request) == "echo: What is the kiln?"


def test_the_override_file_is_valid_and_names_every_role():
    result = invoke(REPO, "params", "paper-args", "params.offline.yaml")
    assert result.exit_code == 0, result.output
    for role in ("generator", "judges", "mcq_builder", "mcq_answerers"):
        assert f"++models.{role}" in result.output


def test_the_plan_counts_what_each_stage_dry_run_counts(offline_run):
    """``interviewsim plan`` counts through the model stages' own declarations: on a run in
    which every output is valid and every MCQ item kept (the plan's stand-ins have that
    shape), each model stage's planned calls equal the requests its ``--dry-run`` counts."""
    root, _ = offline_run
    items = list(read_jsonl(root / "data/artifacts/mcq_items/mcqs.jsonl"))
    pairs = list(read_jsonl(root / "data/artifacts/prepared/heldout_pairs.jsonl"))
    assert len(items) == len(pairs)  # the premise: the gate kept every item
    assert invoke(root, "plan", "--no-cache", "--json", "plan.json").exit_code == 0
    planned: Counter[str] = Counter()
    for line in json.loads((root / "plan.json").read_text())["stages"]:
        if line["role"] != MCQ_STEP:
            planned[line["stage"]] += line["calls"]
    dry_runs = {}
    for stage in ("generate", "fact-summary", "judge", "mcq-build", "mcq-answer"):
        outcome = invoke(root, stage, "--dry-run")
        assert outcome.exit_code == 0, outcome.output
        dry_runs[stage] = int(re.search(r"\(dry run\): (\d+) requests", outcome.output)[1])
    assert dry_runs == {stage: planned[stage] for stage in dry_runs}
    assert all(dry_runs.values())
