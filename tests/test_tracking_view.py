"""What the MLflow UI shows of an aggregate execution: names, headline metrics, run names,
scorers, the evaluation table and the dataset (interviewsim.analysis.tracking_view)."""

from __future__ import annotations

import subprocess

from interviewsim.analysis.headline import HEADLINE_METRICS
from interviewsim.analysis.inference import control_test
from interviewsim.analysis.metrics import aggregate_rows
from interviewsim.analysis.stats import attainable
from interviewsim.analysis.tracking import committed_params
from interviewsim.analysis.tracking_view import (
    child_name,
    describe,
    evaluation_table,
    folder_dataset,
    headline_metric_names,
    params_diff,
    parent_metrics,
    run_name,
    scorers,
)
from interviewsim.analysis.trust import ColumnPower, TrustReport
from interviewsim.analysis.validity import Discrimination
from interviewsim.config.params import parse_params
from interviewsim.data.records import PersonalityMetric

STRATEGIES = ["no-context", "retrieval"]
FLAT = {"usage.requests": 12, "usage.est_cost_usd": 0.123456, "retrieval.local.mcq_accuracy": 0.2}


def cells(judges=("local",)):
    return aggregate_rows([
        PersonalityMetric(personality_id=p, strategy=s, judge=j, metric=m, value=v, n=3)
        for p, v in (("P1", 0.1), ("P2", 0.2), ("P3", 0.4))
        for s in STRATEGIES for j in judges
        for m in (*HEADLINE_METRICS, "entailment_ratio")])


def trust(judge="local"):
    return TrustReport(
        discrimination=[Discrimination(judge, "content_similarity", control_test(
            [[3.0], [3.5], [2.5]], [[2.5], [3.0], [2.75]], +1, 0.5, 1000, 1), None, 3.0,
            2.75)],
        power=[ColumnPower("content_similarity", judge, 3, 1,
                           attainable(3, 1, 1000, 0.05))],
        position_bias={"answerers": {"local": {"top_letter_share": 0.857142,
                                               "position_baseline_accuracy": 0.5}}})


def test_the_parent_holds_the_headline_per_metric_and_strategy_validity_and_usage():
    metrics = parent_metrics(cells(), trust(), FLAT)
    headline = {k: v for k, v in metrics.items() if not k.startswith(("validity/", "usage/"))}
    assert sorted(headline) == sorted(f"{m}/{s}" for m in HEADLINE_METRICS for s in STRATEGIES)
    assert headline["mcq_accuracy/retrieval"] == 0.2333  # (0.1 + 0.2 + 0.4) / 3, 4 decimals
    assert metrics["validity/content_similarity/discriminates"] == 0
    assert metrics["validity/content_similarity/verdict"] == 0  # 3 personalities: inconclusive
    assert metrics["validity/content_similarity/oracle_minus_impostor"] == 0.25
    assert metrics["validity/content_similarity/attainable"] == 0
    assert metrics["validity/mcq_position_bias/local/top_letter_share"] == 0.8571
    assert (metrics["usage/requests"], metrics["usage/est_cost_usd"]) == (12, 0.1235)
    assert not any("entailment" in k for k in metrics)  # the children hold every other metric


def test_several_judges_of_a_metric_are_told_apart_in_the_names():
    metrics = parent_metrics(cells(("gpt-4o", "claude")), trust("claude"), FLAT)
    assert "content_similarity/retrieval/claude" in metrics
    assert "validity/content_similarity/claude/discriminates" in metrics
    names = headline_metric_names(cells(("gpt-4o", "claude")), ["retrieval", "no-context"])
    assert names[:4] == ["content_similarity/retrieval/claude",
                         "content_similarity/retrieval/gpt-4o",
                         "content_similarity/no-context/claude",
                         "content_similarity/no-context/gpt-4o"]


def test_the_view_lists_the_headline_metric_by_metric_strategies_in_params_order():
    names = headline_metric_names(cells(), ["retrieval", "no-context"])
    assert names[:3] == ["content_similarity/retrieval", "content_similarity/no-context",
                         "contradiction_ratio/retrieval"]
    assert len(names) == 10


def test_a_run_is_named_by_the_params_that_differ_from_the_committed_ones():
    committed = {"context.retrieval_pairs": "6", "mcq.max_attempts": "5",
                 "judge.max_attempts": "3", "mlflow.tracking_uri": "sqlite:///a.db"}
    current = committed | {"context.retrieval_pairs": "4", "mcq.max_attempts": "2",
                           "mlflow.tracking_uri": "sqlite:////abs/a.db"}
    diff = params_diff(current, committed)
    assert diff == {"retrieval_pairs": "4", "mcq.max_attempts": "2"}  # mlflow.*: no result
    assert run_name(None, diff, "abc1234") == "retrieval_pairs=4, mcq.max_attempts=2"
    many = {f"k{i}": str(i) for i in range(5)} | {"strategies": '["no-context", ' * 4}
    assert run_name(None, many, "x").endswith(" +3 more")
    assert run_name("paper", many, "x") == "paper"
    assert run_name("gusty-fern", {}, "x") == "defaults"


def test_committed_params_come_from_git_at_the_baseline_commit(tmp_path):
    params = tmp_path / "params.yaml"
    params.write_text("context: {retrieval_pairs: 6}\n")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "params.yaml"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "p"], cwd=tmp_path, check=True)
    params.write_text("context: {retrieval_pairs: 4}\n")
    committed = committed_params(params, environ={})
    assert committed is not None and committed["context.retrieval_pairs"] == "6"
    assert committed_params(params, environ={"DVC_EXP_BASELINE_REV": "nope"}) is None
    assert committed_params(tmp_path / "absent" / "params.yaml", environ={}) is None


def test_scorers_are_named_by_role_and_mapped_to_model_and_provider():
    params = parse_params({})  # one judge and one answerer, both named like their provider
    known = scorers(params)
    assert child_name("retrieval", "local", known) == "retrieval · judge & MCQ answerer local"
    assert child_name("retrieval", "style", known) == "retrieval · style"
    assert known["local"].models[0].startswith("judge: ")
    assert "on provider local (llama_cpp)" in known["local"].models[0]


def test_the_description_has_the_headline_table_validity_and_scorers():
    text = describe("retr-4", {"retrieval_pairs": "4"}, None, scorers(parse_params({})),
                    cells(), STRATEGIES, trust())
    assert text.startswith("**retr-4**: params differ from the committed ones: "
                           "`retrieval_pairs=4`")
    assert "| strategy | cs_similarity | fc_contradiction | ps_alignment |" in text
    assert "| retrieval | 0.2333 |" in text
    assert "- ❔ local on content_similarity: **inconclusive**" in text
    assert "- `local`: judge: " in text


def test_the_evaluation_table_puts_both_answers_beside_each_judges_reasons():
    judgments = [
        {"personality_id": "P1", "strategy": "retrieval", "qa_id": "q1", "judge": "local",
         "metric": "content_similarity", "valid": True,
         "parsed": {"score": 4, "explanation": "same facts"}},
        {"personality_id": "P1", "strategy": "retrieval", "qa_id": "q1", "judge": "local",
         "metric": "factual_consistency", "valid": False, "parsed": None,
         "error": "no label"},
        {"personality_id": "P1", "control": "oracle", "qa_id": "q1", "judge": "local",
         "metric": "content_similarity", "valid": True,
         "parsed": {"score": 5, "explanation": "identical"}},
    ]
    answers = [{"personality_id": "P1", "strategy": "retrieval", "qa_id": "q1",
                "question": "Q?", "response": "twin says"},
               {"personality_id": "P1", "control": "oracle", "qa_id": "q1",
                "question": "Q?", "response": "real says"}]
    heldout = [{"personality_id": "P1", "qa_id": "q1", "question": "Q?",
                "response": "real says"}]
    table = evaluation_table(judgments, answers, heldout, ["oracle", "retrieval"])
    assert table["strategy"] == ["oracle", "retrieval"]
    assert table["simulated_answer"] == ["real says", "twin says"]
    assert table["real_answer"] == ["real says", "real says"]
    assert table["cs_score"] == [5, 4] and table["cs_justification"][1] == "same facts"
    assert table["fc_label"] == [None, None]
    assert table["fc_justification"][1] == "invalid: no label"


def test_the_dataset_digest_follows_the_contents_of_the_folder(tmp_path):
    assert folder_dataset(tmp_path / "absent") is None
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "prepared_input.json").write_text("{}")
    first = folder_dataset(tmp_path)
    assert first is not None and first.profile == {"personalities": 1, "files": 1, "bytes": 2}
    (tmp_path / "a" / "prepared_input.json").write_text("{ }")
    assert folder_dataset(tmp_path).digest != first.digest


def test_every_parent_metric_name_is_one_mlflow_accepts():
    from mlflow.utils.validation import _validate_metric_name

    for name in parent_metrics(cells(("gpt-4o", "a b")), trust(), FLAT):
        _validate_metric_name(name)
