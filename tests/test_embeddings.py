"""Embedders: shape, normalisation, determinism, per-text disk caching, and each backend."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from interviewsim.config.params import parse_params
from interviewsim.config.settings import EmbedderSettings
from interviewsim.context.embeddings import (
    TFIDF_DIMS,
    HashedTfEmbedder,
    _decode,
    _encode,
    build_embedder,
    hashed_features,
)
from interviewsim.errors import ConfigError
from interviewsim.llm import ModelHub
from tests.mock_openai import MockOpenAI, fake_embedding

TEXTS = ["I grew up by the sea.", "The sea was where I grew up!", "Taxes are due in April.", ""]


def test_tfidf_vectors_are_unit_float32_rows(tmp_path: Path) -> None:
    embedder = build_embedder(EmbedderSettings(), cache_dir=tmp_path)
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (4, TFIDF_DIMS) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, rtol=1e-6)
    assert not vectors[3].any()  # no word tokens: the zero vector
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2]


def test_tfidf_is_hashed_tf_of_words_and_bigrams() -> None:
    assert hashed_features("The Sea, the sea") == ["the", "sea", "the", "sea", "the sea",
                                                   "sea the", "the sea"]
    row = HashedTfEmbedder(EmbedderSettings(), "unused").compute(["a a b"])[0]
    # a:2, b:1, "a a":1, "a b":1 -> 1 + log(2) and three ones (barring a hash collision)
    np.testing.assert_allclose(sorted(row[row > 0]), [1.0, 1.0, 1.0, 1 + np.log(2)], rtol=1e-6)


def test_vectors_are_cached_per_text_across_instances(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    first = build_embedder(EmbedderSettings(batch_size=2), cache_dir=tmp_path)
    expected = first.embed(TEXTS)
    first.close()
    computed: list[list[str]] = []
    original = HashedTfEmbedder.compute

    def counting(self, texts):
        computed.append(texts)
        return original(self, texts)

    monkeypatch.setattr(HashedTfEmbedder, "compute", counting)
    second = build_embedder(EmbedderSettings(batch_size=2), cache_dir=tmp_path)
    again = second.embed([*TEXTS, "A new text."])
    np.testing.assert_array_equal(again[:4], expected)
    assert computed == [["A new text."]]
    assert len(list(tmp_path.glob("tfidf--*.sqlite"))) == 1


def test_sparse_and_dense_encodings_round_trip() -> None:
    sparse = np.zeros(TFIDF_DIMS, dtype=np.float32)
    sparse[[3, 4000]] = [0.6, 0.8]
    dense = np.linspace(-1, 1, 384, dtype=np.float32)
    for vector in (sparse, dense):
        np.testing.assert_array_equal(_decode(_encode(vector)), vector)
    assert len(_encode(sparse)) < 40


def test_openai_embedder_uses_the_endpoint_and_caches(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INTERVIEWSIM_TEST_KEY", "sk-test")
    with MockOpenAI() as server:
        params = parse_params({
            "cache": {"path": str(tmp_path / "responses.sqlite")},
            "providers": {"local": {"kind": "llama_cpp"}, "api": {
                "kind": "openai", "base_url": server.base_url,
                "api_key_env": "INTERVIEWSIM_TEST_KEY"}},
            "embedder": {"backend": "openai", "model": "text-embedding-3-small",
                         "provider": "api", "batch_size": 2},
        })
        with ModelHub(params.hub) as hub:
            embedder = build_embedder(params.embedder, cache_dir=tmp_path, hub=hub)
            vectors = embedder.embed(TEXTS[:3])
            assert server.count("/v1/embeddings") == 2  # batches of 2
            again = embedder.embed(TEXTS[:3])
            assert server.count("/v1/embeddings") == 2
    raw = np.array(fake_embedding(TEXTS[1]), dtype=np.float32)
    np.testing.assert_allclose(vectors[1], raw / np.linalg.norm(raw), rtol=1e-6)
    np.testing.assert_array_equal(again, vectors)


def test_openai_embedder_needs_a_hub(tmp_path: Path) -> None:
    settings = EmbedderSettings(backend="openai", model="m", provider="api")
    with pytest.raises(ConfigError, match="model hub"):
        build_embedder(settings, cache_dir=tmp_path)


def test_minilm_embeds_offline(tmp_path: Path) -> None:
    embedder = build_embedder(EmbedderSettings(backend="minilm", model="all-MiniLM-L6-v2"),
                              cache_dir=tmp_path)
    vectors = embedder.embed(TEXTS[:3])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2]
