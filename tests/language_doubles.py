"""Stand-ins for the language layer's fine-tuned encoder: classifiers whose head gives every text
the same chosen probabilities (a zero weight matrix and a chosen bias), so a test says exactly
what the model "found" and does not depend on the committed weights. The fixtures ``base_encoder``
and ``use`` (install a classifier for one test) are in tests/conftest.py."""

from __future__ import annotations

import math

import numpy as np

from interviewsim.agent.language_model import OUTPUTS, EncoderClassifier
from interviewsim.text.encoder import HIDDEN, AdaptedEncoder, Encoder


def fixed(encoder: Encoder, probs: dict[str, float] | None = None,
          gates: dict[str, float] | None = None) -> EncoderClassifier:
    """A classifier that gives every text ``probs`` (0.01 for outputs not named), every
    threshold 0.5, and ``gates`` (0, the rules stand alone, for outputs not named)."""
    bias = np.array([math.log(p / (1 - p))
                     for p in ((probs or {}).get(o, 0.01) for o in OUTPUTS)])
    return EncoderClassifier(AdaptedEncoder(encoder, np.zeros((len(OUTPUTS), HIDDEN)), bias),
                             np.full(len(OUTPUTS), 0.5),
                             [(gates or {}).get(o, 0.0) for o in OUTPUTS])
