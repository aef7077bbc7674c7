"""How the encoder's labels combine with the rules, and its weights file.

The combination is tested with the fixed classifiers of tests/language_doubles.py, so each test
says exactly what the model "found"; the committed weights are tested for what they are (their
outputs, thresholds and gates), and their quality is the corpus's business
(tests/test_agent_language.py, docs/AGENT.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from interviewsim.agent.guardrails import GuardrailAuditor, Rule
from interviewsim.agent.invitations import invites_questions
from interviewsim.agent.language_model import (
    CODE_OWNED,
    ENCODER_WEIGHTS,
    OUTPUTS,
    EncoderClassifier,
    pair_of,
)
from interviewsim.agent.signals import Signal, detect_signals
from interviewsim.errors import ConfigError
from interviewsim.text.encoder import HIDDEN, base_files
from interviewsim.text.encoder_train import compress, save
from tests.language_doubles import fixed

TASK = "Find the k largest numbers in a stream."
INVITE = "What questions do you have for me?"


def test_at_gate_zero_the_rules_finding_stands_without_the_model(use, base_encoder):
    use(fixed(base_encoder, {}))
    audit = GuardrailAuditor(()).audit(1, "CODING", "Great answer, you nailed it.")
    assert Rule.PRAISE in {v.rule for v in audit.violations}


def test_a_rules_finding_the_model_scores_under_its_gate_is_overruled(use, base_encoder):
    use(fixed(base_encoder, {}, {"turn:praise": 0.5}))
    audit = GuardrailAuditor(()).audit(1, "CODING", "Great answer, you nailed it.")
    assert Rule.PRAISE not in {v.rule for v in audit.violations}


def test_a_leaked_rubric_id_is_the_code_s_finding_and_no_model_overrules_it(use, base_encoder):
    use(fixed(base_encoder, {}, {"turn:rubric_leak": 0.5}))
    audit = GuardrailAuditor(("system_design",)).audit(
        1, "CODING", "Let's move to system_design now.")
    assert [v.rule for v in audit.violations] == [Rule.RUBRIC_LEAK]


def test_the_model_adds_what_the_rules_miss_and_names_its_sentence(use, base_encoder):
    use(fixed(base_encoder, {"turn:hint": 0.9}))
    text = "Take your time. Funny, most of our strongest people took the graph route here."
    audit = GuardrailAuditor(()).audit(2, "CODING", text)
    hint = [v for v in audit.violations if v.rule is Rule.HINT]
    assert len(hint) == 1 and hint[0].match.startswith("(model) ")
    assert hint[0].match[len("(model) "):] in text


def test_a_turn_of_acknowledgements_only_gets_nothing_from_the_model(use, base_encoder):
    use(fixed(base_encoder, {"turn:hint": 0.9, "turn:praise": 0.9}))
    assert GuardrailAuditor(()).audit(3, "CODING", "...").violations == []


def test_the_models_closer_counts_only_after_an_invitation(use, base_encoder):
    use(fixed(base_encoder, {"reply:no_more_questions": 0.9}))
    assert Signal.NO_MORE_QUESTIONS in detect_signals("Nothing springs to mind.", INVITE)
    assert Signal.NO_MORE_QUESTIONS not in detect_signals(
        "That's all I did on the migration itself.", "What did you do on the migration?")
    assert Signal.NO_MORE_QUESTIONS not in detect_signals("Nothing springs to mind.", None)


def test_no_gate_overrules_a_rules_closer(use, base_encoder):
    use(fixed(base_encoder, {}, {"reply:no_more_questions": 0.9}))
    assert Signal.NO_MORE_QUESTIONS in detect_signals("Nope, I'm set.", INVITE)


def test_after_an_invitation_nothing_is_a_hint_request(use, base_encoder):
    use(fixed(base_encoder, {"reply:hint_request": 0.9}))
    assert Signal.HINT_REQUEST in detect_signals("Where would you begin?", TASK)
    assert Signal.HINT_REQUEST not in detect_signals("Where would you begin?", INVITE)


def test_an_invitation_comes_from_the_model_too_and_no_gate_overrules_the_rules(
        use, base_encoder):
    use(fixed(base_encoder, {"turn:invitation": 0.9}))
    assert invites_questions("Right, the last ten minutes are yours.")
    use(fixed(base_encoder, {}, {"turn:invitation": 0.5}))
    assert invites_questions(INVITE)  # the state machine runs on it: code-owned
    assert not invites_questions("Any questions about the exercise before you begin?")


def test_curly_apostrophes_read_as_straight_ones():
    assert pair_of("reply", "I\u2019m set", "Anything else?") == ("I'm set", "Anything else?")
    assert pair_of("turn", "That\u2018s it") == ("That's it", None)


def test_the_committed_weights_fit_this_base_and_these_outputs():
    classifier = EncoderClassifier.load()
    assert set(classifier.thresholds) == set(OUTPUTS)
    assert all(0.05 <= t <= 0.99 for t in classifier.thresholds.values())
    assert all(0 <= classifier.gates[o] <= classifier.thresholds[o] for o in OUTPUTS)
    assert all(classifier.gates[o] == 0 for o in CODE_OWNED)
    scores = classifier.scores([pair_of("turn", "What questions do you have for me?"),
                                pair_of("reply", "Nope, I'm set.", INVITE)])
    assert scores.shape == (2, len(OUTPUTS))
    assert np.all(scores == np.round(scores, 6)) and np.all((scores >= 0) & (scores <= 1))


def test_weights_are_saved_byte_for_byte_and_read_back_as_they_were(tmp_path):
    tensors, _ = base_files()
    rng = np.random.default_rng(0)
    tuned = {name: np.asarray(value, dtype=np.float32).copy() for name, value in tensors.items()
             if name.endswith(("layer.0.attention.self.query.weight",
                               "layer.0.output.LayerNorm.bias"))}
    for value in tuned.values():
        value += rng.normal(0, 0.01, value.shape).astype(np.float32)
    tuned["head.weight"] = rng.normal(0, 0.1, (len(OUTPUTS), HIDDEN)).astype(np.float32)
    tuned["head.bias"] = np.zeros(len(OUTPUTS), dtype=np.float32)
    stored = compress(tuned, rank=8)
    assert {k.split(":")[0] for k in stored} == {"up", "down", "delta", "head.weight",
                                                 "head.bias"}
    thresholds, gates = np.full(len(OUTPUTS), 0.4), np.zeros(len(OUTPUTS))
    arrays = {**stored, "outputs": np.array(OUTPUTS), "thresholds": thresholds,
              "gates": gates}
    save(tmp_path / "a.npz", arrays)
    save(tmp_path / "new" / "b.npz", arrays)  # a folder not there yet is made
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "new" / "b.npz").read_bytes()
    pairs = [pair_of("turn", "Over to you."), pair_of("reply", "Am I close?", TASK)]
    loaded = EncoderClassifier.load(tmp_path / "a.npz").scores(pairs)
    direct = EncoderClassifier.from_arrays(stored, thresholds, gates).scores(pairs)
    assert np.array_equal(loaded, direct)


def test_missing_or_foreign_weights_are_errors_that_say_how_to_refit(tmp_path):
    with pytest.raises(ConfigError, match="missing.*language_train"):
        EncoderClassifier.load(tmp_path / "none.npz")
    with np.load(ENCODER_WEIGHTS) as data:
        arrays = {k: data[k] for k in data.files}
    base_sha = str(arrays["base_sha256"].reshape(-1)[0])
    arrays["base_sha256"] = np.array("0" * 64)
    np.savez(tmp_path / "foreign.npz", **arrays)
    with pytest.raises(ConfigError, match="another base encoder.*language_train"):
        EncoderClassifier.load(tmp_path / "foreign.npz")
    arrays["base_sha256"] = np.array(base_sha)
    arrays["outputs"] = np.array(OUTPUTS[:-1] + ("reply:bored",))
    np.savez(tmp_path / "other.npz", **arrays)
    with pytest.raises(ConfigError, match="other outputs.*language_train"):
        EncoderClassifier.load(tmp_path / "other.npz")
