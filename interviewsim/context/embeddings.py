"""Text embeddings for retrieval, selected by ``embedder.backend``, cached on disk per text.

Backends:

- ``tfidf``: numpy only, no model. Despite the name it is *hashed term frequency without corpus
  IDF*: lowercase word tokens plus adjacent-word bigrams are hashed (CRC-32) into 4,096 buckets,
  counts become ``1 + log(count)`` (sublinear tf), and the row is L2-normalised. It is stateless,
  so a text's vector never depends on the rest of the corpus and can be cached per text.
- ``minilm``: all-MiniLM-L6-v2 (384 dims, the first 256 tokens of a text), run in numpy by
  :mod:`interviewsim.text.encoder` from the two files ``make setup`` installs
  (`tools/install-encoder.sh`); the same encoder the agent's language layer adapts.
- ``openai``: ``/v1/embeddings`` of the provider named by ``embedder.provider``.

Every vector is float32 and L2-normalised (a text with no word tokens gets the zero vector), so
a dot product is the cosine similarity. Vectors are cached in one SQLite file per (backend,
model) under ``cache.embeddings_dir``, keyed by the SHA-256 of the text, so a corpus is
embedded once; new texts are computed in batches of ``embedder.batch_size`` and each batch is
committed as it finishes.
"""

from __future__ import annotations

import re
import zlib
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from interviewsim.config.settings import EmbedderSettings
from interviewsim.data.jsonio import sha256_hex
from interviewsim.errors import ConfigError, Problem
from interviewsim.llm.kvstore import SqliteStore
from interviewsim.text.encoder import RETRIEVAL_TOKENS, Encoder, base_files

if TYPE_CHECKING:
    from interviewsim.config.params import Params
    from interviewsim.llm.hub import ModelHub

TFIDF_DIMS = 4096
_WORD = re.compile(r"\w+")


def _encode(vector: np.ndarray) -> bytes:
    """Sparse vectors (hashed tf) as indices + values, dense ones as raw float32."""
    nonzero = np.flatnonzero(vector).astype(np.uint32)
    if nonzero.size * 8 < vector.size * 4:
        header = np.array([vector.size], dtype=np.uint32).tobytes()
        return b"S" + header + nonzero.tobytes() + vector[nonzero].astype(np.float32).tobytes()
    return b"D" + vector.astype(np.float32).tobytes()


def _decode(blob: bytes) -> np.ndarray:
    if blob[:1] == b"D":
        return np.frombuffer(blob, dtype=np.float32, offset=1)
    size = int(np.frombuffer(blob, dtype=np.uint32, count=1, offset=1)[0])
    count = (len(blob) - 5) // 8
    vector = np.zeros(size, dtype=np.float32)
    indices = np.frombuffer(blob, dtype=np.uint32, count=count, offset=5)
    vector[indices] = np.frombuffer(blob, dtype=np.float32, count=count, offset=5 + 4 * count)
    return vector


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm; all-zero rows stay zero."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


class Embedder(ABC):
    """Embeds texts through a per-text disk cache; subclasses compute the vectors."""

    backend: str

    def __init__(self, settings: EmbedderSettings, cache_dir: str | Path):
        self.settings = settings
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.cache_name())
        self.store = SqliteStore(Path(cache_dir) / f"{slug}.sqlite")

    def cache_name(self) -> str:
        """What the vectors depend on besides the text: one cache file per value."""
        return f"{self.backend}--{self.settings.model}"

    @abstractmethod
    def compute(self, texts: list[str]) -> np.ndarray:
        """Raw vectors for one batch, shape (len(texts), dims); normalised by the caller."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-norm float32 vectors, one row per text, in order."""
        keys = [sha256_hex(text) for text in texts]
        vectors = {key: _decode(blob) for key, blob in self.store.get_many(keys).items()}
        missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in vectors}
        pending = list(missing.items())
        size = self.settings.batch_size
        for start in range(0, len(pending), size):
            batch = pending[start : start + size]
            fresh = normalise_rows(self.compute([text for _, text in batch]))
            rows = {key: row for (key, _), row in zip(batch, fresh, strict=True)}
            self.store.put_many({key: _encode(row) for key, row in rows.items()})
            vectors.update(rows)
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([vectors[key] for key in keys]).astype(np.float32, copy=False)

    def close(self) -> None:
        self.store.close()


def hashed_features(text: str) -> list[str]:
    """Lowercase word tokens and adjacent-word bigrams."""
    words = _WORD.findall(text.lower())
    return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]


class HashedTfEmbedder(Embedder):
    """The ``tfidf`` backend: hashed sublinear term frequency, 4,096 dims, no corpus statistics."""

    backend = "tfidf"

    def compute(self, texts: list[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), TFIDF_DIMS), dtype=np.float32)
        for row, text in enumerate(texts):
            counts = Counter(zlib.crc32(f.encode("utf-8")) % TFIDF_DIMS
                             for f in hashed_features(text))
            if counts:
                columns = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
                tf = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
                matrix[row, columns] = 1.0 + np.log(tf)
        return matrix


class MiniLmEmbedder(Embedder):
    """The ``minilm`` backend: all-MiniLM-L6-v2 on CPU, offline, mean-pooled."""

    backend = "minilm"

    def __init__(self, settings: EmbedderSettings, cache_dir: str | Path):
        super().__init__(settings, cache_dir)
        self._model = Encoder(*base_files())

    def compute(self, texts: list[str]) -> np.ndarray:
        return self._model.embed([(text, None) for text in texts], batch=len(texts),
                                 max_tokens=RETRIEVAL_TOKENS)


class OpenAIEmbedder(Embedder):
    """The ``openai`` backend: an endpoint's ``/v1/embeddings``, through the model hub."""

    backend = "openai"

    def __init__(self, settings: EmbedderSettings, cache_dir: str | Path, hub: ModelHub):
        self.hub = hub
        hub.provider(settings.provider or "").check()
        super().__init__(settings, cache_dir)

    def cache_name(self) -> str:
        """The endpoint is part of the model's identity, as in the response cache."""
        provider = self.hub.provider(self.settings.provider or "")
        base_url = provider.identity(self.settings.model).get("base_url", "")
        return f"{self.backend}--{base_url}--{self.settings.model}"

    def compute(self, texts: list[str]) -> np.ndarray:
        vectors = self.hub.embed(self.settings.provider or "", self.settings.model, texts)
        return np.asarray(vectors, dtype=np.float32)


def build_embedder(settings: EmbedderSettings, cache_dir: str | Path,
                   hub: ModelHub | None = None) -> Embedder:
    """The embedder ``settings`` select; ``hub`` is required only for the ``openai`` backend."""
    if settings.backend == "tfidf":
        return HashedTfEmbedder(settings, cache_dir)
    if settings.backend == "minilm":
        return MiniLmEmbedder(settings, cache_dir)
    if hub is None:
        raise ConfigError([Problem("params.yaml", "embedder.backend",
                                   "the openai embedder needs a model hub")])
    return OpenAIEmbedder(settings, cache_dir, hub)


def open_embedder(params: Params) -> Embedder:
    """The embedder of ``params.embedder``; the model hub is only built for the openai backend."""
    hub = None
    if params.embedder.backend == "openai":
        from interviewsim.llm import ModelHub

        hub = ModelHub(params.hub)
    return build_embedder(params.embedder, cache_dir=params.cache.embeddings_dir, hub=hub)
