"""The encoder matcher (``--matcher encoder``): how probabilities become verdicts, the match gate,
the committed weights, and the command line.

How probabilities become verdicts is tested with a reader whose probabilities are given per item,
so each test says what the encoder "read"; what the committed weights are worth is the labelled
set's business (docs/PREP.md, ``interviewsim prep eval SET --path encoder``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from interviewsim.errors import ConfigError
from interviewsim.prep import evaluation, gates
from interviewsim.prep.encoder_match import (
    MATCHER_WEIGHTS,
    OUTPUTS,
    EncoderMatcher,
    match_encoder,
    matcher,
)
from interviewsim.prep.encoder_train import part_pairs, written_pairs
from interviewsim.prep.models import EvidenceItem, PrepSettings, Requirement
from stages.cli import cli
from tests.test_prep_support import REPO, SAMPLE_EVIDENCE, SAMPLE_POSTING

PAIRS = REPO / "tests" / "data" / "prep_pairs"


class Given:
    """Stands in for the adapted encoder: (full, related) per item text."""

    def __init__(self, table: dict[str, tuple[float, float]]):
        self.table = table

    def probabilities(self, pairs):
        return np.array([self.table.get(item, (0.01, 0.01)) for _, item in pairs])


def item(number: int, text: str) -> EvidenceItem:
    return EvidenceItem(id=f"EV-{number:03d}", kind="qa_pair", title="q", text=text)


REQUIREMENT = Requirement(id="REQ-001", text="Current CSCS card", normalized="current cscs card",
                          source_quote="Current CSCS card")
ITEMS = [item(1, "I renewed my construction skills card in March."),
         item(2, "My card lapsed in 2019 and I never renewed it."),
         item(3, "I run the site induction for new starters.")]


def reader(table: dict[int, tuple[float, float]], full=0.6, related=0.5) -> EncoderMatcher:
    return EncoderMatcher(Given({ITEMS[k - 1].text: v for k, v in table.items()}),
                          full, related)  # type: ignore[arg-type]


def test_full_cites_the_items_that_show_it_best_first():
    [verdict] = match_encoder([REQUIREMENT], ITEMS, PrepSettings(max_citations=2),
                              reader({1: (0.7, 0.9), 3: (0.95, 0.97), 2: (0.1, 0.3)}))
    assert verdict.coverage == "FULL" and verdict.evidence_ids == ("EV-003", "EV-001")
    assert verdict.explanation.startswith("encoder: shows it (EV-003 0.95, EV-001 0.70; "
                                          "threshold 0.60)")
    assert verdict.confidence == 0.95


def test_partial_when_only_related_and_gap_citing_nothing():
    [partial] = match_encoder([REQUIREMENT], ITEMS, PrepSettings(),
                              reader({1: (0.4, 0.8), 2: (0.2, 0.3)}))
    assert partial.coverage == "PARTIAL" and partial.evidence_ids == ("EV-001",)
    assert partial.missing == "read as incomplete"
    [gap] = match_encoder([REQUIREMENT], ITEMS, PrepSettings(), reader({2: (0.2, 0.3)}))
    assert gap.coverage == "GAP" and gap.evidence_ids == ()
    assert gates.match_gate([REQUIREMENT], [gap], ITEMS) == []
    assert gates.match_gate([REQUIREMENT], [partial], ITEMS) == []


def test_a_full_probability_counts_as_related_too():
    [verdict] = match_encoder([REQUIREMENT], ITEMS, PrepSettings(),
                              reader({1: (0.55, 0.2)}, full=0.6, related=0.5))
    assert verdict.coverage == "PARTIAL"


def test_a_denial_or_a_wish_is_not_read_so_it_attests_nothing():
    """The polarity gate comes before the encoder: however sure the encoder would be, a clause
    that denies or wishes is not what it reads, and the explanation says what was set aside."""
    wish = item(4, "I would like to learn Yocto.")
    mixed = item(5, "I have never used Kubernetes. I deploy containers with Nomad.")
    sure = Given({wish.text: (0.99, 0.99), mixed.text: (0.99, 0.99),
                  "I deploy containers with Nomad": (0.02, 0.9)})
    yocto = Requirement(id="REQ-002", text="Yocto", normalized="yocto", source_quote="Yocto")
    [verdict] = match_encoder([yocto], [wish], PrepSettings(),
                              EncoderMatcher(sure, 0.6, 0.5))  # type: ignore[arg-type]
    assert verdict.coverage == "GAP" and verdict.evidence_ids == ()
    assert "EV-004: set aside 'I would like to learn Yocto' (wish)" in verdict.explanation
    k8s = Requirement(id="REQ-003", text="Kubernetes", normalized="kubernetes",
                      source_quote="Kubernetes")
    [verdict] = match_encoder([k8s], [mixed], PrepSettings(),
                              EncoderMatcher(sure, 0.6, 0.5))  # type: ignore[arg-type]
    assert verdict.coverage == "PARTIAL" and verdict.evidence_ids == ("EV-005",)
    assert "(denial)" in verdict.explanation


def test_the_committed_weights_load_with_two_thresholds_in_range():
    loaded = matcher()
    assert 0.2 <= loaded.full <= 0.95 and 0.2 <= loaded.related <= 0.95
    scores = loaded.scores("Current CSCS card", ITEMS)
    assert scores.shape == (3, len(OUTPUTS)) and np.all((scores >= 0) & (scores <= 1))


def test_weights_with_other_outputs_are_refused(tmp_path: Path):
    with np.load(MATCHER_WEIGHTS) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["outputs"] = np.array(["full", "partial", "gap"])
    np.savez(tmp_path / "other.npz", **arrays)
    with pytest.raises(ConfigError, match="other outputs.*prep.encoder_train"):
        EncoderMatcher.load(tmp_path / "other.npz")


def test_prep_match_with_the_encoder_matcher_plans_the_sample_posting(tmp_path: Path):
    out = tmp_path / "match"
    result = CliRunner().invoke(cli, ["prep", "match", "--posting", str(SAMPLE_POSTING),
                                      "--evidence", str(SAMPLE_EVIDENCE), "--matcher", "encoder",
                                      "--out-dir", str(out), "--params",
                                      str(REPO / "params.yaml")])
    assert result.exit_code == 0, result.output
    matches = json.loads((out / "matches.json").read_text())
    assert matches and all(m["explanation"].startswith("encoder: ") for m in matches)
    assert (out / "plan.md").exists()


def test_training_pairs_read_both_sources_with_their_targets():
    written = written_pairs(PAIRS / "pa.jsonl")
    assert len(written) == 1500
    assert {(f, r) for _, _, f, r in written} == {(1.0, 1.0), (0.0, 1.0), (0.0, 0.0)}
    cases = evaluation.load_part(REPO / "tests" / "data" / "prep_eval" / "tune")[:1]
    pairs = part_pairs(cases)
    assert pairs == part_pairs(cases)  # the drawn negatives are seeded
    cited = sum(len(label.evidence) for label in cases[0].labels)
    assert len(pairs) == cited + 2 * len(cases[0].labels)


def test_written_pairs_are_what_their_readme_says():
    rows = [json.loads(line) for name in ("pa", "pb", "pc")
            for line in (PAIRS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 4500 and len({r["id"] for r in rows}) == 4500
    assert {r["verdict"] for r in rows} == {"FULL", "PARTIAL", "GAP"}
    assert all(list(r) == ["id", "field", "requirement", "evidence", "verdict", "kind", "why"]
               for r in rows)
    assert all(r["kind"].split("_")[0] == r["verdict"].lower() for r in rows)
