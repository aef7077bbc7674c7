"""The chronological, interview-level hold-out split (``shared/spec/INPUT_SCHEMA.md``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from interviewsim.data.schema import Interview, PreparedInput


class SplitError(ValueError):
    """The document cannot be split so that each side keeps an interview."""


@dataclass(frozen=True)
class Split:
    """Training (earlier) and held-out (latest) interviews, each sorted by sequence."""

    train: tuple[Interview, ...]
    test: tuple[Interview, ...]


def held_out_count(n_interviews: int, test_fraction: float) -> int:
    """``ceil(test_fraction * N)`` computed exactly (0.2 * 15 is 3, not 3.0000000000000004)."""
    return math.ceil(Fraction(str(test_fraction)) * n_interviews)


def split_interviews(doc: PreparedInput, test_fraction: float = 0.2) -> Split:
    """Hold out the latest ``ceil(test_fraction * N)`` interviews; array order is irrelevant."""
    ordered = sorted(doc.interviews, key=lambda interview: interview.sequence)
    n = len(ordered)
    n_test = held_out_count(n, test_fraction)
    if n < 2:
        raise SplitError(
            f"has {n} interview; the hold-out split needs at least 2 (one to train on, "
            "one to hold out)"
        )
    if n_test < 1 or n_test > n - 1:
        raise SplitError(
            f"test_fraction {test_fraction} holds out {n_test} of {n} interviews; each side "
            "must keep at least one"
        )
    return Split(train=tuple(ordered[: n - n_test]), test=tuple(ordered[n - n_test :]))
