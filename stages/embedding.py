"""Builds the configured embedder for stages (one place for the hub-or-not decision)."""

from __future__ import annotations

from interviewsim.embeddings import build_embedder
from interviewsim.params import Params


def open_embedder(params: Params):
    """The embedder of ``params.embedder``; the model hub is only built for the openai backend."""
    hub = None
    if params.embedder.backend == "openai":
        from interviewsim.llm import ModelHub

        hub = ModelHub(params)
    return build_embedder(params.embedder, cache_dir=params.cache.embeddings_dir, hub=hub)
