"""Which models may be given a reading task: one concept for the agent and prep alike.

A *reading* task asks a model to decide what a text means: the agent's language fallback
(which guardrails a turn breaks) and prep's reader (which requirements a posting states,
and whether evidence shows them). The embedded SmolLM2-135M is refused for both: asked the
agent's question it answers yes to almost every class (docs/AGENT.md, issue #34), and every
extraction it wrote for a posting was rejected by prep's gate (docs/PREP.md, "LLM path, on
the embedded model"). Any other model is accepted here and judged by measurement, not by its
name: ``language_eval --fallback`` and ``prep eval --path llm``.
"""

from __future__ import annotations

INCAPABLE = ("smollm2-135m",)
"""Model names (or GGUF paths) never accepted for a reading task."""


def capable(model: str, model_path: str | None = None) -> bool:
    """False for the models a reading task must never be given (the embedded 135M)."""
    names = f"{model} {model_path or ''}".lower()
    return not any(name in names for name in INCAPABLE)
