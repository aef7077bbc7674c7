"""``interviewsim plan``: call counts per stage and model, cache hits, cost; no model call."""

from __future__ import annotations

import json

import pytest

from interviewsim.config.paper import paper_params
from interviewsim.config.params import ALL_STRATEGIES, parse_params
from interviewsim.data.corpus import iter_inputs
from interviewsim.judges.personality import TRAITS
from stages.commands.planning import build_plan
from tests import scripted_models
from tests.factories import make_doc
from tests.stage_runner import invoke, make_workspace
from tests.test_dvc_deps import REPO

PAPER = REPO / "params.paper.yaml"
PRICES = {"scripted-model": {"prompt_per_million": 2.0, "completion_per_million": 8.0}}


@pytest.fixture
def workspace(tmp_path):
    scripted_models.SEEN.clear()
    docs = [make_doc("P1", interviews=5, pairs=3), make_doc("P2", interviews=5, pairs=3)]
    return make_workspace(tmp_path, docs, "tests.scripted_models:echo_answer", prices=PRICES)


def run_plan(root, *args):
    """The command's output, its lines summed per stage, and its JSON."""
    result = invoke(root, "plan", "--json", "plan.json", *args)
    assert result.exit_code == 0, result.output
    data = json.loads((root / "plan.json").read_text())
    stages: dict[str, dict] = {}
    for line in data["stages"]:
        total = stages.setdefault(line["stage"], dict.fromkeys(
            ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "cost_usd"), 0))
        for key in total:
            total[key] += line[key] or 0
    return result.output, stages, data


def test_plan_counts_every_stage_by_the_stage_formulas_and_calls_no_model(workspace):
    output, stages, data = run_plan(workspace)
    people, heldout, strategies = 2, 3, len(ALL_STRATEGIES)  # 1 held-out interview of 3 pairs
    assert data["personalities"] == people and data["heldout_pairs"] == people * heldout
    assert stages["generate"]["calls"] == people * heldout * strategies
    assert stages["fact-summary"]["calls"] == people
    answers = people * heldout * strategies
    ps = people * len(TRAITS) * (1 + strategies) * 3
    assert stages["judge"]["calls"] == 2 * answers + ps
    assert stages["mcq-build"]["calls"] == 2 * people * heldout
    assert stages["mcq-answer"]["calls"] == people * strategies * 1
    # completion tokens are the max_tokens of the calls to make: identical requests (here the
    # retrieval and hybrid stand-ins, both the latest pairs of a small corpus) are one call
    budgets = {(line["stage"], line["role"]): (line["calls"], line["completion_tokens"])
               for line in data["stages"]}
    assert budgets[("judge", "judge/j1")] == (2 * answers + ps, (2 * answers + ps) * 64)
    assert budgets[("mcq-build", "mcq_builder")] == (people * heldout, people * heldout * 64)
    calls, completion = budgets[("generate", "generator")]
    assert completion % 64 == 0 and people * heldout * 64 <= completion <= calls * 64
    # the interview stage (interview.strategies: [hybrid]): three roles, sized from the plan
    # (tests/test_cli_contract.py checks them against a run)
    assert {line["role"] for line in data["stages"] if line["stage"] == "interview"} == {
        "interviewer", "twin", "evaluator"}
    # a fact summary gets judge.fact_summary_min_tokens (200) even from a 64-token judge
    assert stages["fact-summary"]["completion_tokens"] == people * 200
    assert all(line["prompt_tokens"] > 0 for line in data["stages"])
    assert scripted_models.SEEN == []
    assert "| **total** |" in output


def test_cost_comes_from_the_price_table(workspace):
    _, stages, data = run_plan(workspace)
    line = stages["generate"]
    assert line["cost_usd"] == pytest.approx(
        (line["prompt_tokens"] * 2.0 + line["completion_tokens"] * 8.0) / 1e6)
    assert data["totals"]["cost_usd"] == pytest.approx(sum(s["cost_usd"] for s in data["stages"]))


def test_generate_cache_hits_are_the_answers_already_generated(workspace):
    for stage in ("prepare", "select-context", "generate"):
        assert invoke(workspace, stage).exit_code == 0
    _, stages, _ = run_plan(workspace)
    exact = [s for s in ALL_STRATEGIES if s not in ("retrieval", "hybrid")]
    # every exact prompt is cached; retrieval/hybrid stand-ins are never counted as hits, even
    # where one happens to equal a cached prompt (both are the latest pairs of this corpus)
    assert stages["generate"]["cache_hits"] == 2 * 3 * len(exact)
    assert stages["judge"]["cache_hits"] == 0


def test_paper_flag_applies_the_paper_configuration(workspace):
    params = parse_params({"strategies": ["no-context"], "data": {"max_heldout_pairs": 1}})
    paper = paper_params(params, PAPER)
    assert paper.strategies == list(ALL_STRATEGIES)
    assert paper.data.max_heldout_pairs is None
    assert (paper.context.chronological_pairs, paper.context.hybrid_retrieved) == (100, 50)
    _, small, _ = run_plan(workspace)
    _, big, _ = run_plan(workspace, "--paper", "--paper-file", str(PAPER))
    assert big["generate"]["calls"] == small["generate"]["calls"]  # all held-out already
    assert big["generate"]["prompt_tokens"] > small["generate"]["prompt_tokens"]


def test_max_heldout_pairs_limits_the_planned_questions(workspace):
    params = parse_params({"data": {"max_heldout_pairs": 1}, "strategies": ["no-context"]})
    people = iter_inputs(workspace / "data/personalities", 0.2, 1)
    plan = build_plan(params, people)
    assert plan.heldout_pairs == 2
    assert plan.lines[("generate", "generator", "smollm2-135m-instruct")].calls == 2
