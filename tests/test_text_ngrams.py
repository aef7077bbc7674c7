"""The n-gram classifier behind the agent's language rules: stable features, deterministic
training, byte-identical weight files, and the committed weights loadable as they are."""

from __future__ import annotations

import numpy as np

from interviewsim.agent.language_model import REPLY_LABELS, TURN_LABELS, WEIGHTS, model
from interviewsim.text.ngrams import features, hashed, load_model, save_model, train

TEXTS = ["you nailed it", "spot on, well done", "great answer", "tell me about the outage",
         "how did you roll it back?", "walk me through the design"]
GOLD = np.array([[1.0], [1.0], [1.0], [0.0], [0.0], [0.0]])


def test_features_are_the_same_in_every_process():
    assert features("Spot on!")[:3] == ["w1:<s>", "w1:spot", "w1:on"]
    assert hashed(features("Spot on!")).tolist() == sorted(set(hashed(features("Spot on!"))))
    assert int(hashed(["w1:spot"])[0]) == 188571  # CRC32, not the per-process hash()


def test_training_twice_writes_the_same_bytes_and_separates_the_classes(tmp_path):
    rows = [hashed(features(t)) for t in TEXTS]
    first, second = (train(rows, GOLD, ["praise"]) for _ in range(2))
    save_model(first, tmp_path / "a.npz")
    save_model(second, tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    loaded = load_model(tmp_path / "a.npz")
    assert loaded.predict(hashed(features("you nailed that"))) == {"praise"}
    assert loaded.predict(hashed(features("tell me about the rollback"))) == set()


def test_unseen_features_weigh_nothing():
    rows = [hashed(features(t)) for t in TEXTS]
    fitted = train(rows, GOLD, ["praise"])
    bias_only = 1.0 / (1.0 + np.exp(-fitted.bias[0]))
    assert fitted.scores(np.array([7], dtype=np.int64))["praise"] == bias_only


def test_the_committed_weights_cover_every_label_with_a_threshold():
    assert {p.name for p in WEIGHTS.iterdir()} == {"turns.npz", "replies.npz"}
    for name, labels in (("turns", TURN_LABELS), ("replies", REPLY_LABELS)):
        committed = model(name)
        assert committed.labels == labels
        assert committed.weights.shape == (len(committed.buckets), len(labels))
        assert all(0.3 <= t <= 1.01 for t in committed.thresholds)
