"""What every model stage writes beside its artifacts: a summary and a run log.

``summary.json`` holds the counts and the usage that are the same on every run of the same
experiment (requests and tokens of every answer used, paid now or replayed), so a replay from
the response cache rewrites it byte for byte and DVC sees no change. ``run_log.json`` holds the
whole usage of this run: calls made, cache hits, tokens paid, wall time. It differs between a
cold run and a replay, so `.dvcignore` keeps it out of every DVC out's hash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interviewsim.data.jsonio import write_json_atomic

RUN_LOG = "run_log.json"
RUN_FIELDS = frozenset({"calls", "cache_hits", "prompt_tokens", "completion_tokens", "wall_s",
                        "est_cost_usd"})
"""Usage fields that describe one run, not the experiment: they go to the run log only."""


def write_run_log(path: str | Path, counts: dict[str, Any], usage: dict[str, Any]) -> None:
    write_json_atomic(path, {"counts": counts, "usage": usage})


def write_summary(path: str | Path, counts: dict[str, Any], usage: dict[str, Any]) -> None:
    """``path`` (summary.json) with the run-independent usage, and the run log beside it."""
    stable = {label: {k: v for k, v in row.items() if k not in RUN_FIELDS}
              for label, row in usage.items()}
    write_run_log(Path(path).with_name(RUN_LOG), counts, usage)
    write_json_atomic(path, {"counts": counts, "usage": stable})
