"""How one judge's work on one personality is planned before anything is called: the CS asks
(grouped by question, so one reference's prompts run back to back), the FC asks against the
judge's own fact summary, and the PS asks per collection × trait × run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from interviewsim.config.conditions import Condition
from interviewsim.config.params import Params
from interviewsim.config.settings import NamedModelSettings
from interviewsim.data.corpus import PersonalityData
from interviewsim.judges.constraints import (
    content_similarity_constraints,
    factual_consistency_constraints,
    trait_rating_constraints,
)
from interviewsim.judges.parsers import (
    parse_content_similarity,
    parse_factual_consistency,
    parse_trait_rating,
)
from interviewsim.judges.personality import TRAITS
from interviewsim.judges.prompts import (
    content_similarity_messages,
    factual_consistency_messages,
    personality_messages,
)
from interviewsim.llm.asking import Ask, AskTask, Outcome

CS = "content_similarity"
FC = "factual_consistency"
JUDGE_GROUPS = ("cs", "fc", "ps")
"""The (task, asks) groups of one personality, in the order :func:`judge_groups` gives them
and :func:`per_person` takes their outcomes back."""


@dataclass(frozen=True)
class JudgeTasks:
    """The three judgment kinds as one judge model is asked for them."""

    cs: AskTask
    fc: AskTask
    ps: AskTask

    @classmethod
    def of(cls, judge: NamedModelSettings, params: Params) -> JudgeTasks:
        """Constraints bounded by the judge's max_tokens; PS runs are samples, not replays,
        so they use judge.ps_temperature rather than the model's temperature."""
        budget = judge.max_tokens
        return cls(
            cs=AskTask(parse=parse_content_similarity,
                         constraints=content_similarity_constraints(budget)),
            fc=AskTask(parse=parse_factual_consistency,
                         constraints=factual_consistency_constraints(budget)),
            ps=AskTask(parse=parse_trait_rating, constraints=trait_rating_constraints(budget),
                         temperature=params.judge.ps_temperature),
        )


@dataclass(frozen=True)
class Collection:
    """One evaluation side for PS: the held-out responses (``reference``), one strategy's valid
    answers (``generated``), or one control's answers (``control``)."""

    side: str
    strategy: str | None
    """The strategy or control name; None for the reference."""
    responses: tuple[str, ...]

    def record(self) -> dict[str, str | None]:
        """The side and condition fields of a PS record: a control's name is never under
        ``strategy``."""
        if self.side == "control":
            return {"side": self.side, "control": self.strategy}
        return {"side": self.side, "strategy": self.strategy}


def condition(answer: dict) -> str:
    """The strategy or control an answer (or a judgment of it) belongs to."""
    return Condition.of(answer).name


def control_answer(record: dict) -> dict:
    """A controls/answers.jsonl record as the judge plans it: always valid, keyed by
    ``control`` (never ``strategy``)."""
    return {"personality_id": record["personality_id"], "control": record["control"],
            "qa_id": record["qa_id"], "interview_id": record["interview_id"],
            "response": record["response"], "valid": True}


@dataclass
class JudgeAsks:
    """Every ask for one personality and one judge, built before anything is called."""

    answers: list[dict]
    cs: list[Ask]
    fc: list[Ask] | None
    fc_unavailable: str | None
    collections: list[Collection]
    ps: list[Ask]


def person_asks(person: PersonalityData, answers: list[dict], summary: dict,
                params: Params, controls: Sequence[dict] = ()) -> JudgeAsks:
    """CS asks in answer order (the strategies' valid answers, then ``controls``' answers),
    FC asks (unless the summary is invalid), PS asks per collection × trait × run; PS run ``r``
    starts at sample index ``r`` and re-asks step by ps_runs. A control's PS runs start past
    every index the reference's runs can use: the oracle's texts are the reference's, and its
    profile must be sampled again, not replayed from the reference's answers."""
    refs = {p.qa_id: p.response for p in person.heldout}
    valid = [a for a in answers if a["valid"]] + [control_answer(c) for c in controls]
    cs = [Ask(content_similarity_messages(refs[a["qa_id"]], a["response"])) for a in valid]
    fc, unavailable = None, None
    if summary["valid"]:
        text = summary["parsed"]["summary"]
        fc = [Ask(factual_consistency_messages(text, a["response"])) for a in valid]
    else:
        unavailable = f"fact summary invalid: {summary['error']}"
    collections = [Collection("reference", None, tuple(p.response for p in person.heldout))]
    for strategy in params.strategies:
        texts = tuple(a["response"] for a in valid
                      if Condition.of(a) == Condition.strategy(strategy))
        collections.append(Collection("generated", strategy, texts))
    for name in params.controls if controls else ():
        texts = tuple(a["response"] for a in valid if Condition.of(a) == Condition.control(name))
        collections.append(Collection("control", name, texts))
    runs = params.judge.ps_runs
    offset = runs * params.judge.max_attempts  # past every reference run and re-ask
    ps = [Ask(personality_messages(c.responses, trait),
              first_index=run + (offset if c.side == "control" else 0), stride=runs)
          for c in collections if c.responses for trait in TRAITS for run in range(runs)]
    return JudgeAsks(valid, cs, fc, unavailable, collections, ps)


def _prefix_order(answers: list[dict], person: PersonalityData, conditions: Sequence[str]
                  ) -> list[int]:
    """Answer indices grouped by question, so one reference's CS prompts run back to back."""
    position = {p.qa_id: i for i, p in enumerate(person.heldout)}
    rank = {s: i for i, s in enumerate(conditions)}
    return sorted(range(len(answers)),
                  key=lambda i: (position[answers[i]["qa_id"]], rank[condition(answers[i])]))


def judge_groups(person: PersonalityData, asks: JudgeAsks, tasks: JudgeTasks, params: Params
                 ) -> tuple[list[tuple[AskTask, list[Ask]]], list[int]]:
    """The (task, asks) groups of one personality for :func:`run_together` — CS in prefix
    order, FC, PS — and the CS order, to put CS outcomes back in answer order."""
    order = _prefix_order(asks.answers, person, [*params.strategies, *params.controls])
    groups = [(tasks.cs, [asks.cs[i] for i in order]), (tasks.fc, asks.fc or []),
              (tasks.ps, asks.ps)]
    return groups, order


def ps_asks_per_person(conditions: int, ps_runs: int) -> int:
    """PS asks of one personality and one judge: every trait of the references and of each
    strategy's (and control's) answers, ``ps_runs`` times (what a batch is sized by)."""
    return len(TRAITS) * (conditions + 1) * ps_runs


def per_person(outcomes: Sequence[list[Outcome]], people: int) -> list[list[list[Outcome]]]:
    """The outcomes of ``people`` personalities' :func:`judge_groups`, run together, back as
    one list of groups per personality."""
    size = len(JUDGE_GROUPS)
    if len(outcomes) != size * people:
        raise ValueError(f"{len(outcomes)} outcome groups for {people} personalities "
                         f"of {size} groups each")
    return [list(outcomes[size * k:size * (k + 1)]) for k in range(people)]
