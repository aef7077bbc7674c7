"""The agent's own settings, read from ``data/agent/agent.yaml`` (not params.yaml).

Models default to ``params.models.generator`` so that switching the experiment to another
endpoint switches the interviewer too; actions need more room than a plain answer, hence
``action_max_tokens``. Provider names are checked against ``params.providers`` at start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from interviewsim.config.params import Params
from interviewsim.config.settings import (
    ModelSettings,
    load_settings_file,
    repository_data_dir,
)
from interviewsim.errors import ConfigError, Problem
from interviewsim.llm.capability import capable

AGENT_DATA_DIR = repository_data_dir("agent")
SETTINGS_PATH = AGENT_DATA_DIR / "agent.yaml"


class AgentSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    interviewer: ModelSettings | None = None
    """Interviewer model; null: ``models.generator`` with ``action_max_tokens``."""
    evaluator: ModelSettings | None = None
    """Evaluator model; null: ``models.generator`` with ``action_max_tokens``."""
    coach: ModelSettings | None = None
    """Coach model; null: ``models.generator`` with ``action_max_tokens``."""
    followup: ModelSettings | None = None
    """Follow-up generator model; null: ``models.generator`` with ``action_max_tokens``."""
    language_fallback: ModelSettings | None = None
    """A capable model asked which guardrails a turn breaks and which signals a reply carries,
    deciding what the rules do not find (interviewsim/agent/language_fallback.py); null: the
    rules and the committed n-gram models only. Never the embedded 135M model. Measure it
    first: ``python -m interviewsim.agent.language_eval CORPUS --fallback``."""
    action_max_tokens: int = Field(200, gt=0)
    """Completion limit for persona outputs when a persona model is not set explicitly: room
    for one action, and a cap on a small model that repeats itself inside a JSON string."""
    interviewer_max_calls: int = Field(3, gt=0)
    """Model outputs per interviewer turn (tool calls and retries); then a plan question."""
    evaluator_max_calls: int = Field(3, gt=0)
    """Model outputs per assessment; an answer without an accepted score is left unscored."""
    coach_max_attempts: int = Field(2, gt=0)
    """Attempts at valid coach feedback per answer."""
    coach_mode: Literal["off", "after", "live"] = "after"
    """``live``: feedback shown after each scored answer (practice); ``after``: written to
    the artifacts only, so it cannot influence the interview; ``off``: no coach calls."""
    coach_short_answer_s: float = Field(45.0, gt=0)
    """Answers shorter than this (measured, else estimated at ``words_per_minute``) are too
    short for the coach."""
    coach_long_answer_s: float = Field(180.0, gt=0)
    """Answers longer than this are too long for the coach."""
    followup_generator: bool = True
    """Write each follow-up with its own model call (checked, then asked); false: the
    interviewer model phrases follow-ups itself."""
    followup_max_attempts: int = Field(2, gt=0)
    """Attempts at a follow-up that passes the checks before the interviewer model takes over."""
    silence_threshold_s: float = Field(15.0, gt=0)
    """A reply this slow and shorter than ``min_substantive_words`` (or empty) is silence."""
    drift_max_exchanges: int = Field(2, gt=0)
    """Consecutive exchanges off a model section's scope before the interviewer is told to
    bring the conversation back."""
    memory_max_messages: int = Field(12, ge=2)
    """Verbatim messages kept before the oldest half is compressed into a summary."""
    min_substantive_words: int = Field(4, ge=1)
    """Shorter replies (and hint or progress requests) are not scored."""
    followup_min_shared_terms: int = Field(1, ge=1)
    """Content terms a follow-up must share with the answer it probes."""
    words_per_minute: float = Field(150.0, gt=0)
    """Speaking pace of the virtual clock in simulated sessions."""
    candidate_max_attempts: int = Field(3, gt=0)
    """Attempts at a non-blank twin answer (as ``generate.max_attempts``)."""
    judge_name: str = Field("agent", pattern=r"^[A-Za-z0-9_.-]+$")
    """The ``judge`` field of the experiment's metric rows."""

    def model_for(self, persona: Literal["interviewer", "evaluator", "coach", "followup"],
                  params: Params) -> ModelSettings:
        chosen = getattr(self, persona)
        if chosen is not None:
            return chosen
        return params.models.generator.model_copy(update={"max_tokens": self.action_max_tokens})

    def check_providers(self, params: Params, file: str) -> None:
        problems = [
            Problem(file, f"{persona}.provider", f"unknown provider {model.provider!r}")
            for persona in ("interviewer", "evaluator", "coach", "followup", "language_fallback")
            if (model := getattr(self, persona)) is not None
            and model.provider not in params.providers
        ]
        fallback = self.language_fallback
        provider = params.providers.get(fallback.provider) if fallback is not None else None
        if fallback is not None and not capable(fallback.model,
                                                getattr(provider, "model_path", None)):
            problems.append(Problem(file, "language_fallback", (
                f"{fallback.model!r} is not capable of this: the embedded 135M model answers "
                "yes to almost every class (docs/AGENT.md); name a larger model's endpoint, "
                "or null")))
        if problems:
            raise ConfigError(problems)


def load_agent_settings(path: str | Path | None = None) -> AgentSettings:
    """Read and validate the agent settings: ``None`` reads the repository's
    :data:`SETTINGS_PATH` (all defaults when it is absent); a path given explicitly must exist,
    so a mistyped ``--agent-settings`` is an error naming the file."""
    return load_settings_file(path, AgentSettings, "agent settings", SETTINGS_PATH)
