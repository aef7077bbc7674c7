"""Whether long loops show a progress bar (one switch for the stages and the model seam)."""

from __future__ import annotations

import os
import sys


def progress_enabled() -> bool:
    """A bar on an interactive terminal; ``INTERVIEWSIM_PROGRESS=0`` hides it, ``=1`` forces
    it."""
    flag = os.environ.get("INTERVIEWSIM_PROGRESS")
    if flag is not None:
        return flag not in ("0", "false", "no")
    return sys.stderr.isatty()
