"""Whether long loops show a progress bar (one switch for the stages and the model seam)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def progress_enabled() -> bool:
    """A bar on an interactive terminal; ``INTERVIEWSIM_PROGRESS=0`` hides it, ``=1`` forces
    it."""
    flag = os.environ.get("INTERVIEWSIM_PROGRESS")
    if flag is not None:
        return flag not in ("0", "false", "no")
    return sys.stderr.isatty()


def group_label(ids: Sequence[str], shown: int = 3) -> str:
    """``"P1, P2, P3 +4"``: a group of personalities as a progress bar names it."""
    more = f" +{len(ids) - shown}" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more
