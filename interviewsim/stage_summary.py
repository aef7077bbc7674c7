"""The run log every model stage writes beside its artifacts: counts, usage, timing.

Kept apart from the artifacts on purpose: it holds wall times and cache hits, which differ
between a fresh run and a replay, while the artifacts themselves must be byte-identical.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interviewsim.jsonio import write_json_atomic


def write_summary(path: str | Path, counts: dict[str, Any], usage: dict[str, Any]) -> None:
    write_json_atomic(path, {"counts": counts, "usage": usage})
