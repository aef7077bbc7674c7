"""A small linear text classifier: hashed word and character n-grams, one-vs-rest logistic
regression, pure numpy.

Why this and not a library: it needs nothing beyond numpy (already a dependency), so a result
never depends on which extras are installed; training is full-batch and seeded by nothing (no
sampling), so the same items give the same weights; and the weights are a few hundred
kilobytes written byte-for-byte reproducibly (:func:`save_model`), small enough to commit and
to list as a DVC dependency. Features are stable across processes (CRC32, never ``hash()``).
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BUCKETS = 1 << 20
"""Hash space; only the buckets seen in training are stored."""
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[?!]")


def _tokens(text: str) -> list[str]:
    plain = text.replace("\u2019", "'").replace("\u2018", "'").lower()
    return _WORD.findall(plain)


def features(text: str, prefix: str = "") -> list[str]:
    """Word 1-3-grams (with sentence-edge markers) and character 3-5-grams inside words."""
    words = _tokens(text)
    padded = ["<s>", *words, "</s>"]
    grams = [f"w{n}:" + " ".join(padded[i:i + n]) for n in (1, 2, 3)
             for i in range(len(padded) - n + 1)]
    for word in set(words):
        edged = f" {word} "
        grams += [f"c:{edged[i:i + n]}" for n in (3, 4, 5) for i in range(len(edged) - n + 1)]
    return [prefix + g for g in grams]


def hashed(grams: Sequence[str]) -> np.ndarray:
    """Sorted distinct bucket ids of a feature list."""
    return np.unique(np.fromiter((zlib.crc32(g.encode()) % BUCKETS for g in grams),
                                 dtype=np.int64, count=len(grams)))


@dataclass(frozen=True)
class LinearModel:
    """One-vs-rest weights over the buckets seen in training."""

    labels: tuple[str, ...]
    buckets: np.ndarray
    """Sorted bucket ids (int64) that carry weights."""
    weights: np.ndarray
    """``(len(buckets), len(labels))``."""
    bias: np.ndarray
    thresholds: np.ndarray
    """Per label: the probability at or above which the label is predicted."""

    def scores(self, ids: np.ndarray) -> dict[str, float]:
        """Probability of each label for one item's bucket ids (unseen buckets weigh 0)."""
        known = np.intersect1d(self.buckets, ids, assume_unique=True, return_indices=True)[1]
        scale = 1.0 / np.sqrt(max(len(ids), 1))
        logits = self.bias + self.weights[known].astype(np.float64).sum(axis=0) * scale
        probs = 1.0 / (1.0 + np.exp(-logits))
        return {label: float(p) for label, p in zip(self.labels, probs, strict=True)}

    def predict(self, ids: np.ndarray) -> set[str]:
        scores = self.scores(ids)
        return {label for label, t in zip(self.labels, self.thresholds, strict=True)
                if scores[label] >= t}


def _design(rows: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """CSR pieces over the compact column space: columns, row of each entry, values, buckets."""
    buckets = np.unique(np.concatenate(rows)) if rows else np.zeros(0, np.int64)
    cols = np.concatenate([np.searchsorted(buckets, r) for r in rows])
    row_of = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    values = np.repeat([1.0 / np.sqrt(max(len(r), 1)) for r in rows], [len(r) for r in rows])
    return cols, row_of, values, buckets


def train(rows: Sequence[np.ndarray], gold: np.ndarray, labels: Sequence[str],
          l2: float = 1e-4, steps: int = 400) -> LinearModel:
    """Fit one-vs-rest logistic regression by full-batch Adam (deterministic: no sampling).

    ``gold`` is ``(len(rows), len(labels))`` of 0/1; positives are up-weighted to balance
    each label, so a rare class is learnt at all; thresholds start at 0.5."""
    cols, row_of, values, buckets = _design(rows)
    n, k = gold.shape
    pos = gold.sum(axis=0)
    weight = np.where(gold > 0, (n - pos) / np.maximum(pos, 1), 1.0)
    weight = weight / weight.mean(axis=0)
    w = np.zeros((len(buckets), k))
    b = np.zeros(k)
    m, v = np.zeros((len(buckets) + 1, k)), np.zeros((len(buckets) + 1, k))
    # Sums over runs of sorted indices (reduceat) instead of np.add.at: the same products in a
    # fixed order, an order of magnitude faster. Every row has features and every column
    # occurs, so no run is empty.
    row_starts = np.searchsorted(row_of, np.arange(n))
    scale = values[row_starts][:, None]
    by_col = np.argsort(cols, kind="stable")
    rows_by_col = row_of[by_col]
    col_starts = np.searchsorted(cols[by_col], np.arange(len(buckets)))
    for step in range(1, steps + 1):
        logits = np.add.reduceat(w[cols], row_starts, axis=0) * scale
        err = (1.0 / (1.0 + np.exp(-(logits + b))) - gold) * weight / n
        grad_w = np.add.reduceat((err * scale)[rows_by_col], col_starts, axis=0)
        grad = np.vstack([grad_w + l2 * w, err.sum(axis=0)])
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad ** 2
        rate = 0.05 if step <= steps // 2 else 0.01
        update = rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
        w -= update[:-1]
        b -= update[-1]
    return LinearModel(labels=tuple(labels), buckets=buckets, weights=w.astype(np.float32),
                       bias=b, thresholds=np.full(k, 0.5))


def save_model(model: LinearModel, path: Path) -> None:
    """Write the model as an ``.npz`` whose bytes depend only on its contents."""
    arrays = {"labels": np.array(model.labels), "buckets": model.buckets.astype(np.int64),
              "weights": model.weights.astype(np.float16), "bias": model.bias,
              "thresholds": model.thresholds}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, buffer.getvalue())


def load_model(path: Path) -> LinearModel:
    with np.load(path, allow_pickle=False) as data:
        return LinearModel(labels=tuple(str(x) for x in data["labels"]),
                           buckets=data["buckets"], weights=data["weights"].astype(np.float32),
                           bias=data["bias"], thresholds=data["thresholds"])
