"""Prep's own settings, read from ``data/prep/prep.yaml`` (not params.yaml, not the CLI).

One setting so far: the **reader**, a capable model that reads what the rules cannot, the
posting's requirements, whether the evidence shows each one, and whether a clarification
answer evidences its requirement. When it is set, the model path is the default of ``prep
match`` and ``prep run`` (``--extractor``/``--matcher lexical`` still choose the rules), and
``prep eval --path llm`` measures it; strategy and practice questions stay with
``params.models.generator``. When it is null, the lexical rules decide, offline. The embedded
SmolLM2-135M is refused (``interviewsim.llm.capability``); any other model is judged by
``prep eval``, not by its name (docs/PREP.md, "The reader").
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from interviewsim.config.params import Params
from interviewsim.config.settings import (
    ModelSettings,
    load_settings_file,
    repository_data_dir,
)
from interviewsim.errors import ConfigError, Problem
from interviewsim.llm.capability import capable

SETTINGS_PATH = repository_data_dir("prep") / "prep.yaml"


class PrepConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    reader: ModelSettings | None = None
    """A capable model that extracts requirements, matches them to evidence and assesses
    clarification answers; the default path when set. null: the lexical rules, offline.
    Never the embedded 135M model. Measure it first: ``interviewsim prep eval
    tests/data/prep_eval/holdout --path llm``."""

    def check(self, params: Params, file: str) -> None:
        """The reader's provider exists in ``params`` and the reader is not the 135M model."""
        reader = self.reader
        if reader is None:
            return
        provider = params.providers.get(reader.provider)
        if provider is None:
            raise ConfigError([Problem(file, "reader.provider", (
                f"unknown provider {reader.provider!r}; params.yaml names "
                f"{', '.join(sorted(params.providers))}"))])
        if not capable(reader.model, getattr(provider, "model_path", None)):
            raise ConfigError([Problem(file, "reader", (
                f"{reader.model!r} on provider {reader.provider!r} is the embedded 135M model, "
                "which cannot be the reader: every extraction it wrote was rejected by the "
                "gate (docs/PREP.md); name a larger model's provider, or null for the "
                "lexical rules"))])

    def provenance(self, extractor: str, matcher: str, generator: ModelSettings) -> str:
        """Who extracted the requirements and who decided the verdicts, in a sentence for the
        plan and the package; on the lexical matcher, what its GAP means."""
        model = self.reader or generator
        by_model = f"the model {model.model!r} (provider {model.provider!r})"
        extracted = by_model if extractor == "llm" else "the lexical rules"
        decided = by_model if matcher == "llm" else "the lexical rules"
        text = f"Requirements extracted by {extracted}; verdicts decided by {decided}."
        if matcher == "lexical":
            text += (" The lexical rules read words, not meaning: a strength the evidence "
                     "states in other words is usually shown as a GAP, so read a GAP as "
                     "\"not found in these words\". A reader model in the prep settings "
                     "(data/prep/prep.yaml, `reader:`) reads meaning; docs/PREP.md \"The "
                     "reader\" has both paths' measured error rates.")
        return text


def load_prep_config(path: str | Path | None = None) -> PrepConfig:
    """Read and validate the prep settings: ``None`` reads :data:`SETTINGS_PATH` (defaults
    when it is absent); a path given explicitly must exist."""
    return load_settings_file(path, PrepConfig, "prep settings", SETTINGS_PATH)
