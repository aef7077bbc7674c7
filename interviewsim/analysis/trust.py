"""The report's first section, "Can these numbers be trusted?", and its metrics.

Four checks, each with the number that tells the reader whether a column means anything:
each judge's discrimination between the person's own answer and an impostor's
(:mod:`interviewsim.analysis.validity`), the MCQ answerers' position bias (how much of their
accuracy a constant letter would get), agreement between judges and between answerers
(:mod:`interviewsim.analysis.agreement`), and the smallest p-value the paired test can reach
with the personalities present (:func:`interviewsim.analysis.stats.attainable`).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interviewsim.analysis.agreement import (
    AgreementResult,
    answerer_agreement,
    answerer_alpha,
    judge_agreement,
)
from interviewsim.analysis.calibration import MIN_COVERAGE, worst_bootstrap_coverage
from interviewsim.analysis.control_items import ItemValues, item_files, read_control_items
from interviewsim.analysis.inference import VERDICT_CODES
from interviewsim.analysis.labels import HumanAgreement
from interviewsim.analysis.ps_checks import CONSTANT_SHARE, level_shares, render_ps
from interviewsim.analysis.stats import Attainable, PairedTest, attainable
from interviewsim.analysis.validity import (
    MARKS,
    Discrimination,
    discrimination,
    read_control_rows,
)
from interviewsim.config.params import Params
from interviewsim.data.jsonio import load_json_strict, read_jsonl


@dataclass(frozen=True)
class ColumnPower:
    """What the paired tests of one (metric, judge) column can show at best."""

    metric: str
    judge: str
    personalities: int
    comparisons: int
    reach: Attainable


def column_power(tests: Sequence[PairedTest], permutations: int, alpha: float = 0.05
                 ) -> list[ColumnPower]:
    """Per column: the most personalities any of its tests pairs, and the Holm family size
    (the pairs of strategies actually tested: those with a p-value)."""
    columns: dict[tuple[str, str], list[PairedTest]] = defaultdict(list)
    for test in tests:
        if test.p_value is not None:
            columns[(test.metric, test.judge)].append(test)
    return [ColumnPower(metric, judge, max(t.n_pairs for t in found), len(found),
                        attainable(max(t.n_pairs for t in found), len(found), permutations,
                                   alpha))
            for (metric, judge), found in sorted(columns.items())]


@dataclass
class TrustReport:
    """Everything the section shows; absent parts say why they are absent."""

    discrimination: list[Discrimination] = field(default_factory=list)
    controls_note: str | None = None
    """Why there is no discrimination (controls off, or not scored)."""
    position_bias: Mapping[str, Any] | None = None
    """mcq-answer's position_bias.json."""
    judge_agreement: Mapping[str, AgreementResult] = field(default_factory=dict)
    judges: int = 1
    answerer_agreement: float | None = None
    answerer_alpha: AgreementResult | None = None
    """Chance-corrected (nominal alpha) agreement between MCQ answerers."""
    answerers: int = 1
    power: list[ColumnPower] = field(default_factory=list)
    ps_levels: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """Per judge, the share of its PS votes at each level (:mod:`.ps_checks`)."""
    items: ItemValues = field(default_factory=dict)
    """The control items the verdicts rest on (normalized fidelity reuses them)."""
    human: HumanAgreement | None = None
    """Each judge against people's labels (:mod:`.labels`); None where not computed."""

    def flat(self, digits: int = 6) -> dict[str, float | int]:
        """``validity.*`` keys for metrics.json (and so for `dvc metrics` and MLflow)."""
        out: dict[str, float | int] = {}
        for found in self.discrimination:
            for name, value in found.flat().items():
                out[f"validity.discrimination.{found.judge}.{found.metric}.{name}"] = value
        for answerer, bias in sorted((self.position_bias or {}).get("answerers", {}).items()):
            for name in ("top_letter_share", "position_baseline_accuracy", "position_p",
                         "accuracy", "robust_accuracy"):
                if bias.get(name) is not None:
                    out[f"validity.position_bias.{answerer}.{name}"] = round(bias[name], digits)
        for metric, result in sorted(self.judge_agreement.items()):
            if result.alpha is not None:
                out[f"validity.agreement.{metric}.alpha"] = round(result.alpha, digits)
            if result.ci is not None:
                out[f"validity.agreement.{metric}.ci_low"] = round(result.ci[0], digits)
                out[f"validity.agreement.{metric}.ci_high"] = round(result.ci[1], digits)
        if self.answerer_agreement is not None:
            out["validity.agreement.mcq_answerers.identical"] = round(self.answerer_agreement,
                                                                      digits)
        if self.answerer_alpha is not None and self.answerer_alpha.alpha is not None:
            out["validity.agreement.mcq_answerers.alpha"] = round(self.answerer_alpha.alpha,
                                                                  digits)
        for judge, found in sorted(self.ps_levels.items()):
            out[f"validity.ps_levels.{judge}.top_share"] = round(max(found.values()), digits)
            out[f"validity.ps_levels.{judge}.constant"] = int(max(found.values())
                                                              > CONSTANT_SHARE)
        for column in self.power:
            key = f"validity.attainable.{column.judge}.{column.metric}"
            out[f"{key}.min_p_holm"] = round(column.reach.min_p_holm, digits)
            out[f"{key}.significance_possible"] = int(column.reach.significant_possible)
        if self.human is not None:
            out.update(self.human.flat())
        return out

    def render(self) -> str:
        """The markdown section (it opens report.md)."""
        parts = ["## Can these numbers be trusted?",
                 "Checks of the judges and of the design, before any result. A column whose "
                 "judge cannot tell the person from an impostor, or that no test could find "
                 "significant at this size, is description, not evidence."]
        parts += ["### Do the judges tell the person from an impostor?", self._discrimination()]
        if self.ps_levels:
            parts += ["### Personality alignment: chance and constant judges",
                      render_ps(self.ps_levels)]
        parts += ["### MCQ position bias", self._position_bias()]
        parts += ["### Agreement", self._agreement()]
        if self.human is not None:
            parts += ["### Judges against people", self.human.render()]
        parts += ["### Attainable significance", self._power()]
        return "\n\n".join(parts)

    def _discrimination(self) -> str:
        if not self.discrimination:
            return self.controls_note or "No control was scored."
        codes = ", ".join(f"{v.value} {c}" for v, c in VERDICT_CODES.items())
        lines = ["Each judge scores two controls like a strategy's answers: **oracle**, the "
                 "person's own held-out answer, and **impostor**, another personality's real "
                 "answer to the most similar question. Their item-level differences (signed so "
                 "that positive is right: oracle − impostor, for contradictions impostor − "
                 "oracle) are tested by a cluster sign-flip test over personalities, exact "
                 "where enumerable: **discriminates** / **inverted** when the one-sided p is "
                 "at most 0.025, **no variation** when every value of both controls is the "
                 "same, **equivalent** when an equivalence test (TOST, `aggregate."
                 "equivalence_margins`) shows the difference inside the margin, "
                 "**inconclusive** otherwise. Intervals are 95% t-intervals over personalities, "
                 "printed only where their simulated coverage at this design is at least 93% "
                 f"(docs/STATISTICS.md). Codes in `validity_verdict`: {codes}.", ""]
        lines += [f"- {MARKS[found.test.verdict]} {found.verdict()}"
                  for found in self.discrimination]
        return "\n".join(lines)

    def _position_bias(self) -> str:
        bias = self.position_bias
        if not bias or not bias.get("answerers"):
            return "No MCQ answers."
        robust = "–" if bias.get("robust_chance") is None else f"{bias['robust_chance']:.4f}"
        lines = [f"Chance is {bias['chance']:.3f} ({bias['option_count']} options); for the "
                 f"rotation-robust accuracy (right in every one of {bias['rotations']} "
                 f"rotations, `mcq.rotations`) it is {robust}. The position baseline is "
                 "the expected accuracy of a knowledge-free answerer with this answerer's "
                 "letter habit (Σ letter share × answer-key share); *p* is a permutation test "
                 "of the accuracy against it (answers shuffled across items).", "",
                 "| answerer | letters chosen | top letter share | position baseline | "
                 f"accuracy | p | rotation-robust (chance {robust}) |",
                 "|---|---|---:|---:|---:|---:|---:|"]
        for name, found in sorted(bias["answerers"].items()):
            letters = ", ".join(f"{k} {v}" for k, v in sorted(found["letters"].items()))
            lines.append(f"| {name} | {letters} | {_num(found.get('top_letter_share'))} | "
                         f"{_num(found.get('position_baseline_accuracy'))} | "
                         f"{_num(found.get('accuracy'))} | {_num(found.get('position_p'))} | "
                         f"{_num(found.get('robust_accuracy'))} |")
        flagged = [name for name, found in sorted(bias["answerers"].items())
                   if found.get("position_p") is not None and found["position_p"] > 0.05]
        if flagged:
            lines += ["", f"⚠️ {', '.join(flagged)}: accuracy not shown to beat the letter "
                      "habit alone (permutation p > 0.05); MCQ differences between strategies "
                      "are not evidence."]
        return "\n".join(lines)

    def _agreement(self) -> str:
        lines = []
        if self.judges < 2:
            lines.append("One judge: agreement between judges is not measurable (configure "
                         "two or more in `models.judges`).")
        else:
            lines.append("Krippendorff's alpha between judges (1 = perfect, 0 = chance), 95% "
                         "bootstrap interval over personalities (whole personalities "
                         "resampled: their items are not independent), printed where the same "
                         "bootstrap of a mean covers at least 93% in simulation at this "
                         "design (docs/STATISTICS.md):")
            for metric, result in sorted(self.judge_agreement.items()):
                lines.append(f"- {metric} ({result.level}): {_num(result.alpha)}"
                             f"{_alpha_ci(result)} over {result.units} items of "
                             f"{result.groups} personalities")
        if self.answerers < 2:
            lines.append("One MCQ answerer: agreement between answerers is not measurable.")
        else:
            found = self.answerer_alpha
            ci = "" if found is None else _alpha_ci(found)
            lines.append(f"MCQ answerers choose the same option on "
                         f"{_num(self.answerer_agreement)} of the items all of them answered "
                         "(raw, not corrected for chance); Krippendorff's alpha (nominal, "
                         f"chance-corrected) {_num(found.alpha if found else None)}{ci}.")
        return "\n".join(lines)

    def _power(self) -> str:
        if not self.power:
            return "No paired tests."
        impossible = [c for c in self.power if not c.reach.significant_possible]
        lines = [f"The smallest Holm-adjusted p-value each column's tests can reach with the "
                 f"personalities present ({len(impossible)} of {len(self.power)} columns cannot "
                 "reach 0.05):", "",
                 "| metric | judge | personalities | tests | smallest p (Holm) | "
                 "personalities needed |", "|---|---|---:|---:|---:|---:|"]
        for column in self.power:
            needed = column.reach.personalities_needed
            lines.append(f"| {column.metric} | {column.judge} | {column.personalities} | "
                         f"{column.comparisons} | {column.reach.min_p_holm:.4f} | "
                         f"{needed if needed is not None else 'none suffice'} |")
        if impossible:
            lines += ["", "⚠️ Where the smallest p is above 0.05, no difference between "
                      "strategies can be significant at this size, however large: add "
                      "personalities (the last column), or read the column as description."]
        return "\n".join(lines)


AGREEMENT_KIND: dict[str, str] = {"content_similarity": "likert",
                                  "content_similarity_interval": "likert",
                                  "factual_consistency": "binary", "ps_trait_votes": "levels",
                                  "mcq_answers": "binary"}
"""The pinned model each agreement metric's bootstrap check is simulated under."""


def _alpha_ci(result: AgreementResult) -> str:
    """' [low, high]' where the bootstrap covers at this design, else why not."""
    if result.ci is None:
        return ""
    items = max(1, round(result.units / max(result.groups, 1)))
    coverage = worst_bootstrap_coverage(AGREEMENT_KIND.get(result.metric, "binary"),
                                        result.groups, items)
    if coverage < MIN_COVERAGE:
        return f" (interval: too few to interpret, {result.groups} personalities)"
    return f" [{result.ci[0]:.3f}, {result.ci[1]:.3f}]"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def build_trust_report(params: Params, tests: list[PairedTest], control_paths: Iterable[Path],
                       judged_dir: Path, mcq_dir: Path) -> TrustReport:
    """The checks that open the report, from the stages' control, answer and vote files
    (those absent are said to be absent)."""
    rows = read_control_rows(control_paths)
    note = None if rows else ("Controls are off (`controls: []`)." if not params.controls
                              else "No control metrics found; run the controls, judge and "
                                   "mcq-answer stages.")
    judged_files = [judged_dir / "judgments.jsonl", judged_dir / "ps_votes.jsonl"]
    agreement: dict[str, AgreementResult] = {}
    if len(params.models.judges) > 1 and all(p.is_file() for p in judged_files):
        agreement = judge_agreement(read_jsonl(judged_files[0]), read_jsonl(judged_files[1]),
                                    params.aggregate.bootstrap, params.seed)
    answers = mcq_dir / "answers.jsonl"
    bias = mcq_dir / "position_bias.json"
    items = read_control_items(rows, judged_dir, mcq_dir)
    several = len(params.models.mcq_answerers) > 1 and answers.is_file()
    margins = params.aggregate.equivalence_margins.model_dump()
    return TrustReport(
        discrimination=discrimination(items, margins, params.aggregate.permutations,
                                      params.seed),
        controls_note=note,
        position_bias=load_json_strict(bias) if bias.is_file() else None,
        judge_agreement=agreement, judges=len(params.models.judges),
        answerer_agreement=(answerer_agreement(read_jsonl(answers)) if several else None),
        answerer_alpha=(answerer_alpha(read_jsonl(answers), params.aggregate.bootstrap,
                                       params.seed) if several else None),
        answerers=len(params.models.mcq_answerers),
        power=column_power(tests, params.aggregate.permutations), items=items,
        ps_levels=level_shares(itertools.chain.from_iterable(
            read_jsonl(p) for p in (judged_dir / "ps_votes.jsonl",
                                    judged_dir / "control_ps_votes.jsonl") if p.is_file())))


def trust_inputs(control_paths: Iterable[Path], judged_dir: Path, mcq_dir: Path) -> list[Path]:
    """The files :func:`build_trust_report` reads that exist (for the run's identity)."""
    candidates = [*control_paths, judged_dir / "judgments.jsonl", judged_dir / "ps_votes.jsonl",
                  mcq_dir / "answers.jsonl", mcq_dir / "position_bias.json"]
    return sorted({*[p for p in candidates if p.is_file()], *item_files(judged_dir, mcq_dir)})
