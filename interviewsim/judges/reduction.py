"""Reducing judgments to per-personality metrics (the contract with ``aggregate``).

Only valid judgments become numbers; every excluded one is counted in ``invalid``, and a metric
with no valid judgment has value None rather than a made-up zero. A PS vote needs every one of
its runs (the contract defines the level as the mode of exactly ``ps_runs`` results), and an
alignment needs all ten votes of its reference and generated profiles.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from interviewsim.config.conditions import Condition, is_control_record
from interviewsim.config.params import Params
from interviewsim.config.settings import NamedModelSettings
from interviewsim.data.corpus import PersonalityData
from interviewsim.data.records import ControlMetric, PersonalityMetric
from interviewsim.data.spool import Spool
from interviewsim.judges.parsers import ContentSimilarity, FactualConsistency, Level, TraitRating
from interviewsim.judges.personality import TRAITS, Vote, alignment, modal_vote
from interviewsim.judges.tasks import CS, FC, Collection, JudgeAsks, condition
from interviewsim.llm.asking import Outcome

CS_METRIC = "content_similarity"
FC_METRICS: dict[str, str] = {
    "Contradiction": "contradiction_ratio",
    "Entailment": "entailment_ratio",
    "Neutral": "neutral_ratio",
}
ALIGNMENT_METRIC = "personality_alignment"
CONFIDENCE_METRIC = "ps_vote_confidence"


@dataclass(frozen=True)
class Key:
    """Where a metric belongs."""

    personality_id: str
    strategy: str
    judge: str

    def metric(self, name: str, value: float | None, n: int, invalid: int) -> PersonalityMetric:
        return PersonalityMetric(personality_id=self.personality_id, strategy=self.strategy,
                                 judge=self.judge, metric=name, value=value, n=n,
                                 invalid=invalid)


def content_similarity(key: Key | ControlKey, outcomes: Sequence[Outcome[ContentSimilarity]]
                       ) -> PersonalityMetric | ControlMetric:
    """Mean CS score over the valid judgments."""
    scores = [o.value.score for o in outcomes if o.value is not None]
    mean = sum(scores) / len(scores) if scores else None
    return key.metric(CS_METRIC, mean, len(scores), len(outcomes) - len(scores))


def factual_consistency(key: Key | ControlKey,
                        outcomes: Sequence[Outcome[FactualConsistency]]
                        ) -> list[PersonalityMetric | ControlMetric]:
    """Share of each FC label among the valid judgments (contradiction ratio first)."""
    labels = [o.value.label for o in outcomes if o.value is not None]
    invalid = len(outcomes) - len(labels)
    return [
        key.metric(name, labels.count(label) / len(labels) if labels else None, len(labels),
                   invalid)
        for label, name in FC_METRICS.items()
    ]


@dataclass(frozen=True)
class TraitVote:
    """The vote of one trait for one collection: the runs' levels, and the result or why not."""

    levels: tuple[Level | None, ...]
    vote: Vote | None
    error: str | None

    def record(self) -> dict:
        return {
            "votes": list(self.levels),
            "level": self.vote.level if self.vote else None,
            "confidence": self.vote.confidence if self.vote else None,
            "valid": self.vote is not None,
            "error": self.error,
        }


def vote_runs(runs: Sequence[Outcome[TraitRating]]) -> TraitVote:
    """The modal level of a trait's runs; invalid if any run is invalid (or there are none)."""
    levels = tuple(o.value.level if o.value is not None else None for o in runs)
    bad = [i for i, o in enumerate(runs) if o.value is None]
    if not runs:
        return TraitVote(levels, None, "no runs")
    if bad:
        first = runs[bad[0]].error
        return TraitVote(levels, None, f"{len(bad)} of {len(runs)} run(s) invalid "
                                       f"(run {bad[0]}: {first})")
    return TraitVote(levels, modal_vote([lv for lv in levels if lv is not None]), None)


def _profile(votes: Mapping[str, TraitVote]) -> dict[str, Level] | None:
    """The five voted levels, or None if any trait has no valid vote."""
    levels = {t: votes[t].vote.level for t in TRAITS if votes[t].vote is not None}
    return levels if len(levels) == len(TRAITS) else None


def personality_similarity(key: Key | ControlKey, reference: Mapping[str, TraitVote],
                           generated: Mapping[str, TraitVote]
                           ) -> list[PersonalityMetric | ControlMetric]:
    """Alignment of the two voted profiles, and the mean confidence of the generated profile's
    five votes. The reference profile's votes are the same for every strategy, so they are not
    part of a strategy's confidence (they would be counted once per strategy); a strategy's
    alignment still needs all ten votes."""
    votes = [generated[t] for t in TRAITS]
    valid = [v.vote for v in votes if v.vote is not None]
    confidence = sum(v.confidence for v in valid) / len(valid) if valid else None
    ref, gen = _profile(reference), _profile(generated)
    value = alignment(ref, gen) if ref is not None and gen is not None else None
    whole = value is not None
    return [
        key.metric(ALIGNMENT_METRIC, value, int(whole), int(not whole)),
        key.metric(CONFIDENCE_METRIC, confidence, len(valid), len(votes) - len(valid)),
    ]


@dataclass(frozen=True)
class ControlKey:
    """Where a control's metric belongs (a :class:`ControlMetric`, never a strategy's)."""

    personality_id: str
    control: str
    judge: str

    def metric(self, name: str, value: float | None, n: int, invalid: int) -> ControlMetric:
        return ControlMetric(personality_id=self.personality_id, control=self.control,
                             judge=self.judge, metric=name, value=value, n=n, invalid=invalid)


@dataclass
class JudgeResults:
    """What the stage writes besides the judgments, and the counts for summary.json. A
    control's PS runs, votes and metrics go to their own spools and list."""

    ps_runs: Spool = field(default_factory=Spool)
    """On disk until written: PS runs carry every raw output, so memory stays flat."""
    ps_votes: Spool = field(default_factory=Spool)
    control_ps_runs: Spool = field(default_factory=Spool)
    control_ps_votes: Spool = field(default_factory=Spool)
    metrics: list[PersonalityMetric] = field(default_factory=list)
    control_metrics: list[ControlMetric] = field(default_factory=list)
    counts: dict[str, dict[str, Counter[str]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(Counter)))

    def count(self, judge: str, what: str, outcomes: Sequence[Outcome]) -> None:
        valid = sum(1 for o in outcomes if o.valid)
        reasks = sum(max(len(o.calls) - 1, 0) for o in outcomes)
        self.counts[judge][what].update(valid=valid, invalid=len(outcomes) - valid, reasks=reasks)

    def file_ps(self, runs: list[dict], votes: list[dict]) -> None:
        """One personality's PS runs and votes, each to its condition's list."""
        for run in runs:
            (self.control_ps_runs if is_control_record(run) else self.ps_runs).append(run)
        for vote in votes:
            (self.control_ps_votes if is_control_record(vote) else self.ps_votes).append(vote)


def _count_as(collection_or_answer: dict | Collection, what: str) -> str:
    """Counts of controls apart from the strategies' (``control_content_similarity``)."""
    is_control = (collection_or_answer.side == "control"
                  if isinstance(collection_or_answer, Collection)
                  else Condition.of(collection_or_answer).is_control)
    return f"control_{what}" if is_control else what


@dataclass
class PersonJudged:
    """One judge's records for one personality: CS/FC judgments (a control's keyed by
    ``control``), PS runs and PS votes."""

    judgments: list[dict] = field(default_factory=list)
    ps_runs: list[dict] = field(default_factory=list)
    ps_votes: list[dict] = field(default_factory=list)


def _cs_fc(asks: JudgeAsks, outcomes: list[list[Outcome]], order: list[int]
           ) -> tuple[list[Outcome], list[Outcome]]:
    """Each answer's CS outcome (asked in ``order``) and FC outcome (invalid, with the reason,
    when the fact summary is)."""
    cs: list[Outcome] = [Outcome() for _ in asks.answers]
    for i, outcome in zip(order, outcomes[0], strict=True):
        cs[i] = outcome
    fc = outcomes[1] if asks.fc is not None else \
        [Outcome.invalid(asks.fc_unavailable or "") for _ in asks.answers]
    return cs, fc


def _ps(person: PersonalityData, asks: JudgeAsks, judge: NamedModelSettings, params: Params,
        results: JudgeResults, outcomes: Iterator[Outcome], judged: PersonJudged
        ) -> dict[str | None, dict[str, TraitVote]]:
    """PS runs and their modal votes per collection (reference, strategies, controls) and
    trait, recorded in ``judged`` and counted in ``results``; the votes by collection."""
    votes: dict[str | None, dict[str, TraitVote]] = {}
    for collection in asks.collections:
        side = {"personality_id": person.personality_id, "judge": judge.name,
                "model": judge.model, **collection.record()}
        votes[collection.strategy] = {}
        for trait in TRAITS:
            if collection.responses:
                runs = [next(outcomes) for _ in range(params.judge.ps_runs)]
            else:
                reason = f"no valid generated answers for strategy {collection.strategy}"
                runs = [Outcome.invalid(reason) for _ in range(params.judge.ps_runs)]
            results.count(judge.name, _count_as(collection, "ps_runs"), runs)
            for run, outcome in enumerate(runs):
                judged.ps_runs.append({**side, "trait": trait, "run": run, **outcome.record()})
            vote = vote_runs(runs)
            votes[collection.strategy][trait] = vote
            results.counts[judge.name][_count_as(collection, "ps_votes")].update(
                valid=int(vote.vote is not None), invalid=int(vote.vote is None))
            judged.ps_votes.append({**side, "trait": trait, **vote.record()})
    return votes


def judge_person(person: PersonalityData, asks: JudgeAsks, judge: NamedModelSettings,
                 params: Params, results: JudgeResults, outcomes: list[list[Outcome]],
                 order: list[int]) -> PersonJudged:
    """One judge's outcomes for one personality (the CS group in ``order``, then FC and PS, as
    judge_groups asked them) as records, with the metrics and counts collected in
    ``results``."""
    pid, name = person.personality_id, judge.name
    cs, fc = _cs_fc(asks, outcomes, order)
    for what, outcomes_of in ((CS, cs), (FC, fc)):
        for kind in (what, f"control_{what}"):
            mine = [o for a, o in zip(asks.answers, outcomes_of, strict=True)
                    if _count_as(a, what) == kind]
            if mine or not kind.startswith("control_"):
                results.count(name, kind, mine)
    judged = PersonJudged()
    for metric, outcomes_of in ((CS, cs), (FC, fc)):
        for answer, outcome in zip(asks.answers, outcomes_of, strict=True):
            judged.judgments.append({
                "personality_id": pid, "judge": name, "model": judge.model, "metric": metric,
                **Condition.of(answer).where(), "qa_id": answer["qa_id"],
                "interview_id": answer["interview_id"], **outcome.record()})
    votes = _ps(person, asks, judge, params, results, iter(outcomes[2]), judged)
    conditions = [(s, Key(pid, s, name)) for s in params.strategies]
    conditions += [(c.strategy, ControlKey(pid, c.strategy, name))
                   for c in asks.collections if c.side == "control"]
    for label, key in conditions:
        mine = [i for i, a in enumerate(asks.answers) if condition(a) == label]
        rows = [content_similarity(key, [cs[i] for i in mine]),
                *factual_consistency(key, [fc[i] for i in mine]),
                *personality_similarity(key, votes[None], votes[label])]
        if isinstance(key, ControlKey):
            results.control_metrics.extend(rows)  # type: ignore[arg-type]
            continue
        results.metrics.extend(rows)  # type: ignore[arg-type]
        alignment = next(r for r in rows if r.metric == "personality_alignment")
        results.counts[name]["personality_alignment"].update(
            valid=alignment.n, invalid=alignment.invalid)
    return judged
