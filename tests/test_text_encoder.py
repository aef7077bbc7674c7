"""The numpy sentence encoder: BERT's tokenizer, the safetensors reader, the forward pass against
the reference implementation's vectors, and the errors when its files are missing or wrong.

``tests/data/encoder_reference.json`` holds three sentences encoded by sentence-transformers
6.3.0 on PyTorch 2.13.0 (CPU) from the same files, L2-normalised and rounded to six decimals.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from interviewsim.errors import ConfigError
from interviewsim.text import encoder
from interviewsim.text.encoder import WordPiece, basic_words, gelu, read_safetensors

REFERENCE = Path(__file__).parent / "data" / "encoder_reference.json"


def test_basic_split_lowercases_strips_accents_and_splits_punctuation_and_cjk():
    assert basic_words("Café NAÏVE, isn't it?") == ["cafe", "naive", ",", "isn", "'", "t",
                                                    "it", "?"]
    assert basic_words("A/B\ttests\u00a0\u2014 工作") == ["a", "/", "b", "tests", "\u2014",
                                                          "工", "作"]
    assert basic_words("zero\u200bwidth\x00") == ["zerowidth"]


def test_wordpiece_takes_the_longest_known_piece_first_and_unknown_words_whole():
    vocab = WordPiece.from_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff",
                                           "##able", "aff", "##a", "want"]))
    assert vocab.ids("unaffable want") == [4, 5, 6, 9]
    assert vocab.ids("xyz") == [1]
    assert vocab.ids("a" * 101) == [1]
    ids, segments = vocab.pair("want", "unaffable")
    assert ids == [2, 9, 3, 4, 5, 6, 3] and segments == [0, 0, 0, 1, 1, 1, 1]


def test_a_pair_keeps_three_quarters_of_the_budget_for_its_first_text():
    vocab = WordPiece.from_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"]))
    ids, segments = vocab.pair("a " * 200, "a " * 200, max_tokens=16)
    assert len(ids) == 16 and segments.count(0) == 12 + 2 and segments.count(1) == 16 - 14


def test_safetensors_are_read_by_header():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    header = json.dumps({"x": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
                         "__metadata__": {"format": "pt"}}).encode()
    blob = struct.pack("<Q", len(header)) + header + data.tobytes()
    assert np.array_equal(read_safetensors(blob)["x"], data)


def test_gelu_is_the_exact_erf_form():
    x = np.linspace(-6, 6, 121)
    from math import erf, sqrt
    exact = np.array([0.5 * v * (1 + erf(v / sqrt(2))) for v in x])
    assert np.abs(gelu(x) - exact).max() < 1e-6


def test_the_forward_pass_gives_the_reference_implementation_s_vectors():
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    tensors, vocab = encoder.base_files()
    pooled = encoder.Encoder(tensors, vocab).embed([(t, None) for t in reference["texts"]])
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    assert np.abs(pooled - np.array(reference["vectors"])).max() < 5e-6


def test_batching_and_order_do_not_change_a_vector():
    tensors, vocab = encoder.base_files()
    model = encoder.Encoder(tensors, vocab)
    texts = [("Over to you.", None), ("That's all from me, thanks.", "Any questions?"),
             ("Walk me through how you would shard the ledger table.", None)]
    together = model.embed(texts, batch=3)
    apart = np.stack([model.embed([t])[0] for t in texts])
    assert np.abs(together - apart).max() < 1e-9


def test_a_missing_or_different_file_is_an_error_that_names_it_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv(encoder.ENV_DIR, str(tmp_path))
    encoder.base_files.cache_clear()
    try:
        with pytest.raises(ConfigError, match=r"model\.safetensors.*missing.*install-encoder"):
            encoder.base_files()
        (tmp_path / "model.safetensors").write_bytes(b"not the weights")
        with pytest.raises(ConfigError, match=r"not the expected one \(SHA-256\)"):
            encoder.base_files()
    finally:
        encoder.base_files.cache_clear()
