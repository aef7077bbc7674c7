"""Macro averages over personalities: invalids excluded, None values skipped, counts kept."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interviewsim.analysis.metrics import (
    aggregate_rows,
    flat_metrics,
    load_cells,
    metric_order,
    per_personality_csv,
    summarise_usage,
)
from interviewsim.data.records import PersonalityMetric
from interviewsim.errors import InputError


def row(pid: str, value: float | None, *, strategy: str = "retrieval", judge: str = "local",
        metric: str = "contradiction_ratio", n: int = 4, invalid: int = 0) -> PersonalityMetric:
    return PersonalityMetric(personality_id=pid, strategy=strategy, judge=judge, metric=metric,
                             value=value, n=n, invalid=invalid)


def test_macro_average_weighs_every_personality_equally_whatever_its_judgment_count():
    cells = aggregate_rows([row("P1", 0.0, n=100), row("P2", 1.0, n=2)])
    cell = cells[("retrieval", "local", "contradiction_ratio")]
    assert cell.value == 0.5
    assert cell.n == 102


def test_personalities_without_a_valid_judgment_are_skipped_but_counted():
    cells = aggregate_rows([
        row("P1", 0.25, n=4, invalid=1),
        row("P2", None, n=0, invalid=5),
        row("P3", 0.75, n=3),
    ])
    cell = cells[("retrieval", "local", "contradiction_ratio")]
    assert cell.value == 0.5
    assert cell.per_personality == {"P1": 0.25, "P3": 0.75}
    assert (cell.personalities, cell.missing, cell.n, cell.invalid) == (3, 1, 7, 6)


def test_a_cell_with_no_value_at_all_is_none_not_zero():
    cell = aggregate_rows([row("P1", None, n=0, invalid=3)])[("retrieval", "local",
                                                             "contradiction_ratio")]
    assert cell.value is None and cell.invalid == 3


def test_cells_are_kept_apart_by_strategy_judge_and_metric():
    cells = aggregate_rows([
        row("P1", 1.0), row("P1", 2.0, strategy="hybrid"), row("P1", 3.0, judge="gpt"),
        row("P1", 4.0, metric="mcq_accuracy"),
    ])
    assert {k: c.value for k, c in cells.items()} == {
        ("retrieval", "local", "contradiction_ratio"): 1.0,
        ("hybrid", "local", "contradiction_ratio"): 2.0,
        ("retrieval", "gpt", "contradiction_ratio"): 3.0,
        ("retrieval", "local", "mcq_accuracy"): 4.0,
    }


def test_the_same_personality_scored_twice_is_rejected_not_double_counted():
    with pytest.raises(InputError, match="duplicate row"):
        aggregate_rows([row("P1", 0.1), row("P1", 0.2)])


def test_every_given_metrics_file_is_read_and_bad_lines_are_named(tmp_path):
    judged, mcq, bad = tmp_path / "judged.jsonl", tmp_path / "mcq.jsonl", tmp_path / "bad.jsonl"
    judged.write_text(row("P1", 0.5).model_dump_json() + "\n")
    mcq.write_text(row("P1", 0.8, metric="mcq_accuracy").model_dump_json() + "\n")
    assert set(load_cells([judged, mcq])) == {("retrieval", "local", "contradiction_ratio"),
                                              ("retrieval", "local", "mcq_accuracy")}
    bad.write_text(json.dumps({"personality_id": "P1", "strategy": "x", "judge": "j",
                               "metric": "m", "value": "high", "n": 1}) + "\n")
    with pytest.raises(InputError, match="line 1: value"):
        load_cells([bad])


def test_unknown_metrics_follow_the_papers_columns_alphabetically():
    assert metric_order(["zeta", "mcq_accuracy", "alpha", "content_similarity"]) == [
        "content_similarity", "mcq_accuracy", "alpha", "zeta"]


def test_usage_sums_tokens_and_cost_over_stages_and_names_unpriced_models():
    usage = summarise_usage({
        "generate": {"counts": {"answers": 10, "invalid": 1},
                     "usage": {"generator/m": {"model": "m", "requests": 12,
                                               "answer_prompt_tokens": 120,
                                               "answer_completion_tokens": 60,
                                               "answers_est_cost_usd": 0.25}}},
        "judge": {"counts": {"judgments": 30},
                  "usage": {"judge/x": {"model": "x", "requests": 30,
                                        "answer_prompt_tokens": 300,
                                        "answer_completion_tokens": 10,
                                        "answers_est_cost_usd": None}}},
    })
    assert (usage.requests, usage.answer_prompt_tokens, usage.answer_completion_tokens) == (
        42, 420, 70)
    assert usage.answers_est_cost_usd == 0.25 and usage.unpriced_models == ["x"]
    assert usage.counts["generate"] == {"answers": 10, "invalid": 1}


def test_dvc_metrics_are_flat_rounded_and_leave_out_missing_values():
    cells = aggregate_rows([row("P1", 1 / 3, invalid=2), row("P1", None, strategy="hybrid",
                                                             invalid=1)])
    usage = summarise_usage({"generate": {"counts": {"answers": 2}, "usage": {}}})
    flat = flat_metrics(cells, usage)
    assert flat["retrieval.local.contradiction_ratio"] == 0.333333
    assert "hybrid.local.contradiction_ratio" not in flat
    assert flat["invalid.contradiction_ratio"] == 3
    assert flat["counts.generate.answers"] == 2
    assert "usage.est_cost_usd" not in flat


def test_per_personality_csv_holds_one_line_per_averaged_value():
    cells = aggregate_rows([row("P1", 0.5), row("P2", None), row("P1", 1.0, metric="a")])
    lines = per_personality_csv(cells).splitlines()
    assert lines == ["metric,judge,strategy,personality_id,value",
                     "a,local,retrieval,P1,1.0",
                     "contradiction_ratio,local,retrieval,P1,0.5"]


@given(st.lists(st.one_of(st.none(), st.floats(0, 1)), min_size=1, max_size=20))
def test_the_macro_average_lies_between_the_smallest_and_largest_value(values):
    cells = aggregate_rows([row(f"P{i}", v) for i, v in enumerate(values)])
    cell = cells[("retrieval", "local", "contradiction_ratio")]
    present = [v for v in values if v is not None]
    if not present:
        assert cell.value is None
    else:
        assert min(present) - 1e-12 <= cell.value <= max(present) + 1e-12
        assert len(cell.per_personality) == len(present)


def test_nested_stage_counts_become_dotted_numbers_without_per_personality_breakdowns():
    usage = summarise_usage({
        "judged": {"counts": {"local": {"cs": {"valid": 9, "invalid": 1}}}, "usage": {}},
        "mcq_items": {"counts": {"built": 5, "ok": True, "by_personality": {"P1": {"built": 5}}}},
        "context": {"contexts": 14, "pairs_dropped_for_budget": {"hybrid": 2}},
    })
    assert usage.counts == {"context": {"contexts": 14, "pairs_dropped_for_budget.hybrid": 2},
                            "judged": {"local.cs.invalid": 1, "local.cs.valid": 9},
                            "mcq_items": {"built": 5}}
