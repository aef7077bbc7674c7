"""The report's second section, "How close to the person?", and its metrics (the measures
themselves are in :mod:`interviewsim.analysis.closeness_measures`).

Raw judge scores say nothing about how far a simulation is from the person. This section
places each strategy on scales with two real ends and adds the checks that need no judge:

- **normalized fidelity** (``norm_to_retest``): (strategy − impostor) / (retest − impostor)
  per judge and metric, the share of the distance from a stranger (another person's real
  answer) to the person's own past self (their real answer to their most similar earlier
  question) that the simulation closes; ``norm_to_oracle`` the same with the person's own
  held-out answer as the far end. A ratio of means over personalities with Fieller's
  interval, printed only where its simulated coverage at this design is at least 93%
  (:func:`interviewsim.analysis.calibration.ratio_printable`); **not normalizable** unless
  the judge tells the far end from the impostor (a *discriminates* verdict).
- **individuation and attribution** (the ``fidelity`` stage, the configured embedder only).
- **memorization and copying**: verbatim runs shared with the held-out answers and with the
  answer's own context.
- **length bias**: per judge, the slope of CS on log(simulated ÷ real length).
- **dispersion**: middle-level Big Five votes, and the spread of length, filler and hedge
  rates against the person's.
- **heterogeneity**: the personalities where each strategy does best and worst.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interviewsim.analysis.closeness_measures import (
    DIGITS,
    MIDDLE_LEVEL,
    SPREAD_MEASURES,
    ConditionFidelity,
    LengthBias,
    Normalized,
    condition_fidelity,
    extremes,
    interval_text,
    length_bias,
    middle_shares,
    normalize,
    spread_ratios,
)
from interviewsim.analysis.control_items import ItemValues
from interviewsim.analysis.controls import IMPOSTOR, ORACLE, RETEST
from interviewsim.analysis.metrics import CellKey, MetricCell
from interviewsim.analysis.validity import (
    DISCRIMINATING,
    MARKS,
    Discrimination,
    judge_discrimination,
)
from interviewsim.config.conditions import Condition
from interviewsim.config.params import Params
from interviewsim.data.jsonio import read_jsonl

CEILING = "real answers"
"""The row of the real held-out answers against the training answers (the ceiling)."""


def _fmt(value: float | None, digits: int = 3, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


# -- the section -------------------------------------------------------------------------------

@dataclass
class ClosenessReport:
    normalized: list[Normalized] = field(default_factory=list)
    retest_gates: list[Discrimination] = field(default_factory=list)
    retest_pairs: Mapping[str, Any] = field(default_factory=dict)
    """The controls stage's retest similarity summary."""
    conditions: list[ConditionFidelity] = field(default_factory=list)
    embedder: str = ""
    window: int = 13
    memorized_no_context: list[str] = field(default_factory=list)
    length: list[LengthBias] = field(default_factory=list)
    middle: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    spread: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)
    low_variance_ratio: float = 0.5
    extremes: list[tuple] = field(default_factory=list)
    note: str | None = None
    judge_free: bool = True
    """False when the fidelity stage was left out (its measures are not shown)."""

    def flat(self) -> dict[str, float | int]:
        """``closeness.*`` keys for metrics.json (and `dvc metrics`)."""
        out: dict[str, float | int] = {}
        for n in self.normalized:
            key = f"closeness.norm_to_{n.reference}.{n.judge}.{n.metric}.{n.strategy}"
            if n.ratio.value is not None:
                out[f"{key}.value"] = round(n.ratio.value, DIGITS)
            out[f"{key}.normalizable"] = int(n.normalizable)
            if n.interval is not None:
                out[f"{key}.ci_low"] = round(n.interval[0], DIGITS)
                out[f"{key}.ci_high"] = round(n.interval[1], DIGITS)
        for gate in self.retest_gates:
            out[f"closeness.retest_vs_impostor.{gate.judge}.{gate.metric}.verdict"] = (
                gate.test.code)
        scorer = f"embedder-{self.embedder}"
        for c in self.conditions:
            name = c.label.replace(" ", "_")
            for measure, value in (("individuation", c.individuation),
                                   ("attribution", c.attribution), ("chance", c.chance),
                                   ("longest_run", c.longest_run),
                                   ("window_share", c.window_share),
                                   ("context_copy_share", c.copy_share)):
                if value is not None:
                    out[f"closeness.{measure}.{scorer}.{name}"] = round(value, DIGITS)
            if c.kind == "strategy":
                out[f"closeness.memorized.{scorer}.{name}"] = c.memorized
        for bias in self.length:
            key = f"closeness.length_slope.{bias.judge}.content_similarity"
            if bias.slope is not None:
                out[key] = round(bias.slope, DIGITS)
            if bias.interval is not None:
                out[f"{key}.ci_low"] = round(bias.interval[0], DIGITS)
                out[f"{key}.ci_high"] = round(bias.interval[1], DIGITS)
            for strategy, (_, adjusted) in bias.adjusted.items():
                out[f"closeness.length_adjusted.{bias.judge}.content_similarity.{strategy}"] = (
                    round(adjusted, DIGITS))
        for judge, shares in self.middle.items():
            for key, share in shares.items():
                out[f"closeness.ps_middle_share.{judge}.{key}"] = share
        for strategy, ratios in self.spread.items():
            for measure, ratio in ratios.items():
                if ratio is not None:
                    out[f"closeness.spread_ratio.style.{measure}.{strategy}"] = ratio
        return out

    def render(self) -> str:
        parts = ["## How close to the person?",
                 "Raw scores place a strategy nowhere; here it is placed between two real "
                 "answers: another personality's (the **impostor**, 0) and the person's own "
                 "(1): their real answer to their most similar earlier question (**retest**, "
                 "the person answering again) or to this very question (**oracle**). Then "
                 "the checks that need no judge (docs/STATISTICS.md \"How close to the "
                 "person?\")."]
        if self.note:
            return "\n\n".join([*parts, self.note])
        parts += ["### Normalized fidelity", self._normalized()]
        if not self.judge_free:
            parts += ["### Individuation, attribution, memorization, length and spread",
                      "Left out: this pipeline has no `fidelity` stage (`aggregate "
                      "--no-fidelity`)."]
        else:
            parts += ["### Individuation and attribution (no judge)", self._individuation()]
            parts += ["### Memorization and copying", self._memorization()]
            parts += ["### Length bias", self._length()]
        parts += ["### Dispersion", self._dispersion()]
        parts += ["### Heterogeneity", self._heterogeneity()]
        return "\n\n".join(parts)

    def _normalized(self) -> str:
        if not self.normalized:
            return ("No strategy and control scored by the same judge (normalizing needs the "
                    "impostor and the retest or oracle controls).")
        lines = ["(strategy − impostor) ÷ (retest − impostor) per judge and metric, over "
                 "personalities: the share of the distance from a stranger to the person's own "
                 "past self that the simulation closes (1 = as close as the person's earlier "
                 "answers, above 1 = closer). Fieller's 95% interval, printed where its "
                 "simulated coverage at this design is at least 93%; **not normalizable** "
                 "(raw ratio in brackets, not to be read) unless the judge tells the retest "
                 "from the impostor (a *discriminates* verdict); – where the two ends score "
                 "the same (no scale at all).", ""]
        if not any(n.reference == RETEST for n in self.normalized):
            lines += ["No retest control (params.yaml `controls` lacks `retest`): nothing to "
                      "normalize against but the oracle, below."]
        else:
            lines += self._ratio_table(RETEST)
            lines += ["", "Does each judge tell the retest from the impostor (the scale's two "
                      "ends)?"]
        for gate in self.retest_gates:
            t = gate.test
            diff = "–" if t.difference is None else f"{t.difference:+.3f}"
            lines.append(f"- {MARKS[t.verdict]} {gate.judge} on {gate.metric}: "
                         f"**{t.verdict.value}**; retest − impostor {diff} over "
                         f"{t.personalities} personalities, one-sided p "
                         f"{t.p_discriminates:.4f}" + ("" if t.reachable else
                                                       f" (no p below {t.smallest_p:.4f} is "
                                                       "possible at this size)"))
        pairs = self.retest_pairs
        if pairs:
            lines += ["", f"Retest pairs: mean question similarity "
                      f"{_fmt(pairs.get('retest_mean_question_similarity'))} (median "
                      f"{_fmt(pairs.get('retest_median_question_similarity'))}; each pair's in "
                      "data/artifacts/controls/answers.jsonl); "
                      f"{pairs.get('retest_near_duplicates', 0)} of "
                      f"{pairs.get('answers', {}).get(RETEST, 0)} held-out questions "
                      f"({_fmt(pairs.get('retest_near_duplicate_share'))}) have a near-duplicate "
                      f"earlier question (similarity ≥ "
                      f"{pairs.get('retest_near_duplicate_threshold')}, "
                      "`fidelity.near_duplicate_similarity`)."]
        lines += ["", "The same against the oracle (the person's own held-out answer as 1; "
                  "normalizable where the judge's oracle − impostor verdict is discriminates):",
                  ""]
        lines += self._ratio_table(ORACLE)
        return "\n".join(lines)

    def _ratio_table(self, reference: str) -> list[str]:
        mine = [n for n in self.normalized if n.reference == reference]
        columns = list(dict.fromkeys((n.metric, n.judge) for n in mine))
        strategies = list(dict.fromkeys(n.strategy for n in mine))
        found = {(n.strategy, n.metric, n.judge): n for n in mine}
        lines = ["| strategy | " + " | ".join(f"{m} ({j})" for m, j in columns) + " |",
                 "|---|" + "---:|" * len(columns)]
        for s in strategies:
            lines.append(f"| {s} | " + " | ".join(
                found[(s, m, j)].cell() if (s, m, j) in found else "–" for m, j in columns)
                + " |")
        return lines

    def _individuation(self) -> str:
        lines = [f"Embeddings of the configured embedder (`{self.embedder}`). *Individuation*: "
                 "similarity to the person's own real answer minus the mean similarity to the "
                 "other personalities' real answers to their most similar held-out question "
                 "(0 = no more this person than anyone). *Attribution*: the share of answers "
                 "whose nearest real answer among all personalities' is the person's own (a "
                 "tie among k earns 1/k). Macro means over personalities with a 95% "
                 "t-interval where it covers at this design. The *real answers* row is the "
                 "ceiling: the person's held-out answers against the training answers.", "",
                 "| condition | answers | individuation | attribution | chance |",
                 "|---|---:|---:|---:|---:|"]
        for c in self.conditions:
            lines.append(f"| {c.label} | {c.answers} | {_fmt(c.individuation, signed=True)}"
                         f"{interval_text(c.individuation_ci)} | {_fmt(c.attribution)}"
                         f"{interval_text(c.attribution_ci)} | {_fmt(c.chance)} |")
        return "\n".join(lines)

    def _memorization(self) -> str:
        lines = [f"Verbatim overlap in word tokens (`fidelity.verbatim_window` = {self.window}). "
                 "*Longest run*: the mean longest run shared with the person's held-out "
                 f"answers; *memorized*: answers sharing a run of ≥ {self.window} tokens with "
                 f"them; *window share*: the share of an answer's {self.window}-token windows "
                 "found in them; *copied from context*: the share found in the answer's own "
                 "context (profile and selected training pairs): copying is not simulating.",
                 "", "| strategy | answers | longest run | memorized | window share | "
                 "copied from context |", "|---|---:|---:|---:|---:|---:|"]
        for c in self.conditions:
            if c.kind == "strategy":
                lines.append(f"| {c.label} | {c.answers} | {_fmt(c.longest_run, 1)} | "
                             f"{c.memorized} | {_fmt(c.window_share)} | {_fmt(c.copy_share)} |")
        if self.memorized_no_context:
            lines += ["", f"⚠️ Likely pretraining memorization: {len(self.memorized_no_context)} "
                      "no-context answer(s) reproduce a run of the person's held-out answers "
                      "the model was never shown: " + ", ".join(self.memorized_no_context[:10])
                      + ("…" if len(self.memorized_no_context) > 10 else "") + "."]
        else:
            lines += ["", "No no-context answer shares a run of "
                      f"{self.window} tokens with the held-out answers (no sign of "
                      "memorization)."]
        return "\n".join(lines)

    def _length(self) -> str:
        if not self.length:
            return "No content-similarity judgment to relate to length."
        lines = ["Per judge, the slope of CS on log(simulated words + 1 ÷ real words + 1): the "
                 "least-squares slope within each personality and strategy (so a strategy that "
                 "is both short and far from the person is not counted as taste for length), "
                 "averaged over personalities, with a 95% t-interval where it covers at this "
                 "design. A positive slope means the judge scores an answer higher when it is "
                 "longer than the person's, whoever wrote it; *adjusted* is "
                 "each strategy's CS at the person's own length (raw − slope × its mean log "
                 "ratio).", ""]
        for bias in self.length:
            ci = (" (interval: too few to interpret)" if bias.interval is None
                  else f", 95% CI{interval_text(bias.interval)}")
            lines.append(f"- {bias.judge}: slope {_fmt(bias.slope, signed=True)}{ci}, "
                         f"{bias.judgments} judgments of {bias.personalities} personalities")
        lines += ["", "| strategy | " + " | ".join(f"CS ({b.judge}) | adjusted" for b in
                                                   self.length) + " |",
                  "|---|" + "---:|---:|" * len(self.length)]
        strategies = list(dict.fromkeys(s for b in self.length for s in b.adjusted))
        for s in strategies:
            cells = []
            for b in self.length:
                raw, adjusted = b.adjusted.get(s, (None, None))
                cells += [_fmt(raw), _fmt(adjusted)]
            lines.append(f"| {s} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def _dispersion(self) -> str:
        lines = [f"*Middle votes*: the share of Big Five votes at {MIDDLE_LEVEL} (a simulation "
                 "that hedges every trait to the middle looks aligned with a middling person "
                 "by default; named apart from FC's neutral_ratio). *Spread*: the variance of "
                 "each strategy's answer length, filler and hedge rates ÷ that of the real "
                 "answers to the same questions; ⚠️ below "
                 f"{self.low_variance_ratio} (`fidelity.low_variance_ratio`): markedly less "
                 "varied than the person.", ""]
        judges = list(self.middle)
        strategies = list(dict.fromkeys([*self.spread, *(k for m in self.middle.values()
                                                           for k in m if k != "reference")]))
        head = [f"middle votes ({j})" for j in judges] + [f"spread {m}" for m in SPREAD_MEASURES]
        lines += ["| strategy | " + " | ".join(head) + " |", "|---|" + "---:|" * len(head)]
        for s in ["reference", *strategies]:
            cells = [_fmt(self.middle[j].get(s)) for j in judges]
            for m in SPREAD_MEASURES:
                ratio = None if s == "reference" else self.spread.get(s, {}).get(m)
                flag = " ⚠️" if ratio is not None and ratio < self.low_variance_ratio else ""
                cells.append("1" if s == "reference" else _fmt(ratio) + flag)
            label = "real answers (reference)" if s == "reference" else s
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def _heterogeneity(self) -> str:
        if not self.extremes:
            return "Fewer than two personalities with a value: no spread to show."
        lines = ["Per headline metric, the personality where each strategy does best and "
                 "worst (one plot per metric: reports/plots/personalities_<metric>.png; a "
                 "strategy whose personalities all score the same is left out).", "",
                 "| metric | judge | strategy | best | worst |", "|---|---|---|---|---|"]
        for metric, judge, strategy, best, worst in self.extremes:
            lines.append(f"| {metric} | {judge} | {strategy} | {best[0]} ({best[1]:.3f}) | "
                         f"{worst[0]} ({worst[1]:.3f}) |")
        return "\n".join(lines)


def fidelity_rows(fidelity_dir: Path | None) -> tuple[list[dict], list[dict]]:
    """The fidelity stage's answer and ceiling records (FileNotFoundError when it did not
    run: the command line names the stage to run; none when left out, ``None``)."""
    if fidelity_dir is None:
        return [], []
    return (list(read_jsonl(fidelity_dir / "answers.jsonl")),
            list(read_jsonl(fidelity_dir / "ceiling.jsonl")))


def _conditions(params: Params, rows: Sequence[dict], ceiling: Sequence[dict]
                ) -> list[ConditionFidelity]:
    window = params.fidelity.verbatim_window
    grouped: dict[Condition, list[dict]] = defaultdict(list)
    for r in rows:
        grouped[Condition.of(r)].append(r)
    order = [Condition.strategy(s) for s in params.strategies] + [
        Condition.control(c) for c in params.controls]
    found = [condition_fidelity(c.name, c.kind, grouped[c], window) for c in order
             if grouped.get(c)]
    if ceiling:
        found.append(condition_fidelity(CEILING, "ceiling", ceiling, window))
    return found


def build_closeness(params: Params, cells: Mapping[CellKey, MetricCell], items: ItemValues,
                    oracle_gates: Sequence[Discrimination], fidelity_dir: Path | None,
                    judged_dir: Path, retest_pairs: Mapping[str, Any],
                    headline: Sequence[str]) -> ClosenessReport:
    """The section from the metric cells, the control items, the trust section's oracle −
    impostor verdicts and the fidelity stage's records (``headline``: the metrics whose
    best and worst personalities are named)."""
    margins = params.aggregate.equivalence_margins.model_dump()
    by_oracle = {(g.judge, g.metric): g for g in oracle_gates}
    report = ClosenessReport(embedder=params.embedder.model, window=params.fidelity.verbatim_window,
                             low_variance_ratio=params.fidelity.low_variance_ratio,
                             retest_pairs=retest_pairs)
    for (judge, metric), by_control in sorted(items.items()):
        if metric not in DISCRIMINATING:
            continue
        gate = None
        if RETEST in by_control and IMPOSTOR in by_control:
            gate = judge_discrimination(judge, metric, by_control, margins,
                                        params.aggregate.permutations, params.seed, RETEST)
            report.retest_gates.append(gate)
        for reference, reference_gate in ((RETEST, gate), (ORACLE, by_oracle.get((judge,
                                                                                  metric)))):
            for strategy in params.strategies:
                found = normalize(cells, by_control, judge, metric, strategy, reference,
                                  reference_gate)
                if found is not None:
                    report.normalized.append(found)
    rows, ceiling = fidelity_rows(fidelity_dir)
    report.judge_free = fidelity_dir is not None
    report.conditions = _conditions(params, rows, ceiling)
    window = params.fidelity.verbatim_window
    report.memorized_no_context = sorted(
        f"{r['personality_id']}/{r['qa_id']}" for r in rows
        if r.get("strategy") == "no-context" and r.get("longest_run", 0) >= window)
    judgments = judged_dir / "judgments.jsonl"
    if judgments.is_file() and rows:
        lengths = {(r["personality_id"], r["strategy"], r["qa_id"]): r["words"]
                   for r in rows if "strategy" in r}
        real = {(r["personality_id"], r["qa_id"]): r["words"] for r in ceiling}
        report.length = length_bias(read_jsonl(judgments), lengths, real)
    votes = judged_dir / "ps_votes.jsonl"
    if votes.is_file():
        report.middle = middle_shares(read_jsonl(votes))
    report.spread = spread_ratios(rows, {(r["personality_id"], r["qa_id"]): r for r in ceiling})
    report.extremes = extremes(cells, headline)
    return report
