"""Typed experiment parameters: the contents of ``params.yaml``.

Every knob that changes a result lives here, with a docstring. Unknown keys are rejected at
every level, and cross-references (a model naming a provider) are checked, so a typo fails
before any model call. The library receives these objects; it never reads params.yaml itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from interviewsim.config.settings import (
    EmbedderSettings,
    HubSettings,
    LlamaCppProviderSettings,
    ModelSettings,
    NamedModelSettings,
    PriceSettings,
    ProviderSettings,
)
from interviewsim.errors import ConfigError, Problem, validation_problems

Strategy = Literal[
    "no-context",
    "short-profile",
    "long-profile",
    "chronological",
    "random",
    "retrieval",
    "hybrid",
]
ALL_STRATEGIES: tuple[str, ...] = Strategy.__args__  # type: ignore[attr-defined]

Control = Literal["oracle", "impostor", "retest"]
"""Control conditions scored beside the strategies, never generated (docs/EXPERIMENTS.md)."""
ALL_CONTROLS: tuple[str, ...] = Control.__args__  # type: ignore[attr-defined]
Count = Annotated[int, Field(ge=0)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class DataParams(_Section):
    personalities: str = "data/personalities"
    """Folder holding one ``<personality_id>/prepared_input.json`` per personality."""
    test_fraction: float = Field(0.2, gt=0.0, lt=1.0)
    """Share of each personality's latest interviews held out (rounded up, at least one)."""
    max_heldout_pairs: int | None = Field(None, gt=0)
    """Evaluate at most this many held-out pairs per personality (the earliest in time); the
    rest stay held out but unused. ``null`` evaluates all of them (as params.paper.yaml does)."""


class ContextParams(_Section):
    chronological_pairs: Count = 8
    """Latest training pairs for ``chronological`` (the paper's: params.paper.yaml)."""
    random_pairs: Count = 8
    """Seeded random training pairs for ``random``."""
    retrieval_pairs: Count = 8
    """Top-ranked training pairs for ``retrieval``."""
    hybrid_retrieved: Count = 4
    """Retrieved pairs in ``hybrid``."""
    hybrid_recent: Count = 4
    """Latest pairs appended in ``hybrid`` after de-duplication."""
    retrieval_text: Literal["question", "question+response"] = "question+response"
    """What is embedded for a training pair when ranking it against a new question."""
    max_context_tokens: int = Field(1500, gt=0)
    """Budget for the selected context; lowest-priority pairs are dropped and counted."""


class GenerateParams(_Section):
    max_attempts: int = Field(3, gt=0)
    """Attempts for a blank answer (each with a new sample index) before it is recorded invalid."""


class JudgeParams(_Section):
    ps_runs: int = Field(3, gt=0)
    """Independent Personality Similarity runs per trait and collection (PROMPTS.md: 3)."""
    ps_temperature: float = Field(0.7, ge=0.0)
    """Temperature of the PS runs, so the runs are independent samples."""
    max_attempts: int = Field(3, gt=0)
    """Attempts for an output that breaks its contract before it is recorded invalid."""
    fact_summary_min_tokens: int = Field(200, gt=0)
    """Token limit of a fact summary at least this, whatever the judge's ``max_tokens``: every
    FC judgment reads it, so it needs more room than one judgment's explanation (one call per
    personality and judge)."""

    @model_validator(mode="after")
    def _runs_can_differ(self) -> JudgeParams:
        if self.ps_runs > 1 and self.ps_temperature == 0:
            raise ValueError(f"ps_temperature: 0 makes the {self.ps_runs} PS runs one greedy "
                             "answer repeated (a vote of one); set ps_temperature > 0, or "
                             "ps_runs: 1")
        return self


class McqParams(_Section):
    option_count: Literal[3, 4] = 4
    """Options per multiple-choice item: 3 (correct, opposite, near miss) or 4 (+ misconception)."""
    shuffle_seed: int = 7
    """Seed of the per-item option shuffle."""
    grounding_threshold: float = Field(0.30, ge=0.0, le=1.0)
    """Minimum IDF-weighted coverage of an atomic answer's terms by its source response."""
    max_attempts: int = Field(3, gt=0)
    """Attempts for an invalid atomic item or MCQ before the item is dropped and counted."""
    rotations: int = Field(1, ge=1)
    """Option orders each interview's MCQs are answered in (1 to option_count): the seeded
    shuffle, then the options cyclically rotated 1..rotations-1 labels down, each its own
    prompt. An item counts as correct in the ``*_robust`` metrics only when answered correctly
    in every order (its robust reward is its worst), which a letter preference cannot fake;
    the plain metrics read the first order only, so 1 is exactly the unrotated experiment."""

    @model_validator(mode="after")
    def _rotations_fit(self) -> McqParams:
        if self.rotations > self.option_count:
            raise ValueError(f"rotations: {self.rotations} is more than option_count "
                             f"{self.option_count}; a rotation beyond it repeats an order")
        return self


class EquivalenceMargins(_Section):
    """How small an oracle − impostor difference must be shown to be (TOST,
    :mod:`interviewsim.analysis.inference`) before a judge is called *equivalent*: unable to
    tell the person from an impostor. One margin per metric, in the metric's own units; a
    metric not listed is never called equivalent, only inconclusive."""

    content_similarity: float = Field(0.5, gt=0)
    """CS points on the 1–5 scale (half a point)."""
    entailment_ratio: float = Field(0.1, gt=0)
    contradiction_ratio: float = Field(0.1, gt=0)
    personality_alignment: float = Field(0.1, gt=0)
    mcq_accuracy: float = Field(0.1, gt=0)
    mcq_reward: float = Field(0.2, gt=0)
    """Reward spans −1..1, twice the accuracy's range."""
    mcq_accuracy_robust: float = Field(0.1, gt=0)
    mcq_reward_robust: float = Field(0.2, gt=0)


class AggregateParams(_Section):
    permutations: int = Field(10_000, gt=0)
    """Sign-flip permutations per paired test."""
    bootstrap: int = Field(2_000, gt=0)
    """Bootstrap resamples for the 95% confidence intervals."""
    equivalence_margins: EquivalenceMargins = EquivalenceMargins()
    """Per-metric margins of the judges' equivalence test (docs/STATISTICS.md)."""


class InterviewParams(_Section):
    strategies: list[Strategy] = ["hybrid"]
    """Strategies whose twins are interviewed whole by the agent (docs/AGENT.md), one interview
    per personality each. Only those also in ``strategies`` run (so narrowing ``strategies``
    narrows the interviews); [] skips them (the stage then writes empty results and aggregate
    reports no interview metrics)."""
    plan: str = "personality"
    """Interview plan (data/agent/plans/<plan>.yaml); the personality plan asks the held-out
    questions."""


class MlflowParams(_Section):
    tracking_uri: str = "sqlite:///mlflow.db"
    """MLflow tracking store."""
    experiment: str = "interviewsim"
    """MLflow experiment name."""
    max_traced_items: int = Field(500, ge=0)
    """Judged items logged as MLflow traces per run (a seeded sample when there are more;
    0 logs none): what a person can label in the UI (docs/EXPERIMENTS.md "Checking the judges
    against people")."""


class CacheParams(_Section):
    path: str = "data/cache/responses.sqlite"
    """SQLite response cache (outside every DVC out, so reruns never lose it)."""
    embeddings_dir: str = "data/cache/embeddings"
    """Embedding vectors cached by backend, model and text hash."""


def _default_providers() -> dict[str, ProviderSettings]:
    return {"local": LlamaCppProviderSettings(kind="llama_cpp")}


def _default_model() -> ModelSettings:
    return ModelSettings(provider="local", model="smollm2-135m-instruct", max_tokens=120)


def _default_judges() -> list[NamedModelSettings]:
    return [NamedModelSettings(name="local", provider="local", model="smollm2-135m-instruct",
                               max_tokens=120)]


class ModelsParams(_Section):
    generator: ModelSettings = Field(default_factory=_default_model)
    """The model that answers as the personality."""
    judges: Annotated[list[NamedModelSettings], Field(min_length=1)] = Field(
        default_factory=_default_judges
    )
    """Judge models for CS, FC and PS (and the fact summary); each is reported separately."""
    mcq_builder: ModelSettings = Field(default_factory=_default_model)
    """The model that writes atomic items and multiple-choice questions."""
    mcq_answerers: Annotated[list[NamedModelSettings], Field(min_length=1)] = Field(
        default_factory=_default_judges
    )
    """Models that answer the MCQs under each strategy's context."""


class FidelityParams(_Section):
    """How close is the simulation to the person? (docs/STATISTICS.md "How close to the
    person?"): the thresholds of the model-free ``fidelity`` stage."""

    near_duplicate_similarity: float = Field(0.8, gt=0.0, le=1.0)
    """A held-out question whose most similar training question (the ``retest`` control's
    source, by the configured embedder) is at least this similar counts as a near-duplicate:
    the person was asked nearly the same thing before, so the retest is an easy ceiling."""
    verbatim_window: int = Field(13, ge=4)
    """Tokens in a verbatim window: an answer sharing a run this long with its person's
    held-out answers is flagged as memorization under ``no-context`` (which saw none of
    them), and the share of its windows found in its own context is its copy share."""
    low_variance_ratio: float = Field(0.5, gt=0.0, lt=1.0)
    """A strategy whose variance of answer length, filler or hedge rate is below this share
    of the real answers' is flagged as markedly less varied than the person."""


class Params(_Section):
    seed: int = 20261130
    """Base seed: random context samples, model sampling seeds."""
    data: DataParams = DataParams()
    strategies: Annotated[list[Strategy], Field(min_length=1)] = list(ALL_STRATEGIES)
    """Context strategies to run (the seven of PROMPTS.md, or a subset)."""
    controls: list[Control] = list(ALL_CONTROLS)
    """Control conditions judged and answered like the strategies but never generated:
    ``oracle`` (the person's own held-out answer), ``impostor`` (another personality's real
    answer to the most similar question) and ``retest`` (the person's own real answer to
    their most similar *training* question: the person answering again). Oracle − impostor
    tells whether a judge can tell the person from anyone else; retest and impostor are the
    ends normalized fidelity is measured between; ``[]`` turns them off."""
    context: ContextParams = ContextParams()
    generate: GenerateParams = GenerateParams()
    judge: JudgeParams = JudgeParams()
    mcq: McqParams = McqParams()
    aggregate: AggregateParams = AggregateParams()
    fidelity: FidelityParams = FidelityParams()
    interview: InterviewParams = InterviewParams()
    mlflow: MlflowParams = MlflowParams()
    cache: CacheParams = CacheParams()
    embedder: EmbedderSettings = EmbedderSettings()
    providers: dict[str, ProviderSettings] = Field(default_factory=_default_providers)
    """Named model endpoints; models refer to them by name."""
    models: ModelsParams = ModelsParams()
    prices: dict[str, PriceSettings] = {}
    """Optional price table by model name, to turn token counts into an estimated cost."""

    @property
    def hub(self) -> HubSettings:
        """The settings of the model layer (:class:`interviewsim.llm.ModelHub`)."""
        return HubSettings(providers=self.providers, cache_path=self.cache.path,
                           prices=self.prices, seed=self.seed)

    @model_validator(mode="after")
    def _references_resolve(self) -> Params:
        problems: list[str] = []
        refs: list[tuple[str, str]] = [
            ("models.generator.provider", self.models.generator.provider),
            ("models.mcq_builder.provider", self.models.mcq_builder.provider),
        ]
        for group in ("judges", "mcq_answerers"):
            names: set[str] = set()
            for i, entry in enumerate(getattr(self.models, group)):
                refs.append((f"models.{group}[{i}].provider", entry.provider))
                if entry.name in names:
                    problems.append(f"models.{group}[{i}].name: duplicate name {entry.name!r}")
                names.add(entry.name)
        if self.embedder.backend == "openai":
            refs.append(("embedder.provider", self.embedder.provider or ""))
        for path, name in refs:
            if name not in self.providers:
                known = ", ".join(sorted(self.providers)) or "none"
                problems.append(f"{path}: unknown provider {name!r} (defined: {known})")
        if len(set(self.strategies)) != len(self.strategies):
            problems.append("strategies: a strategy is listed twice")
        if len(set(self.controls)) != len(self.controls):
            problems.append("controls: a control is listed twice")
        if len(set(self.interview.strategies)) != len(self.interview.strategies):
            problems.append("interview.strategies: a strategy is listed twice")
        if problems:
            raise ValueError("\n".join(problems))
        return self


def _explain(item: dict[str, Any], path: str, message: str) -> str:
    if item["type"] == "extra_forbidden":
        return "unknown key; check the spelling against params.yaml's documented keys"
    if item["type"] == "literal_error" and path.startswith("strategies"):
        return f"unknown strategy {item['input']!r}; {message}"
    return message


def parse_params(data: object, file: str = "params.yaml") -> Params:
    """Validate a parsed params mapping; raise :class:`ConfigError` listing every problem."""
    if data is None:
        data = {}
    try:
        return Params.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(validation_problems(exc, file, explain=_explain)) from None


def read_yaml(path: str | Path) -> object:
    """A params-style YAML file, parsed; an unreadable or invalid file is a ConfigError that
    names it."""
    path = Path(path)
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError([Problem(str(path), "", f"cannot read: {exc.strerror}")]) from None
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(str(path), "", f"invalid YAML: {exc}")]) from None


def load_params(path: str | Path = "params.yaml") -> Params:
    """Read and validate params.yaml."""
    return parse_params(read_yaml(path), str(path))
