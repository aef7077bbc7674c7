"""The one usage tally: what a stage's model calls cost, per ``label/model``.

Two kinds of figure live side by side. ``calls``, ``cache_hits``, the paid tokens and the wall
time describe this run (a replay pays nothing); ``requests`` and the ``answer_*`` tokens
describe every answer the stage used, paid now or earlier, so they are the same on every run
and are what ``summary.json`` keeps (the rest goes to the run log).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from interviewsim.config.settings import PriceSettings
from interviewsim.llm.types import ChatResult


def cost_usd(price: PriceSettings | None, prompt_tokens: int, completion_tokens: int
             ) -> float | None:
    """US dollars for these tokens at ``price`` (None when the model has no price)."""
    if price is None:
        return None
    return (prompt_tokens * price.prompt_per_million
            + completion_tokens * price.completion_per_million) / 1e6


@dataclass
class UsageRow:
    """One ``label/model``'s calls, hits, tokens and wall time (see the module doc)."""

    label: str
    provider: str
    model: str
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    requests: int = 0
    answer_prompt_tokens: int = 0
    answer_completion_tokens: int = 0


class UsageTally:
    """Thread-safe usage per ``label/model``; overlapping batches count shared wall time once."""

    def __init__(self) -> None:
        self._rows: dict[str, UsageRow] = {}
        self._busy_until: dict[str, float] = {}
        self._lock = threading.Lock()

    def record(self, label: str, provider: str, model: str, fresh: Sequence[ChatResult],
               hits: int, span: tuple[float, float], answers: Sequence[ChatResult] = ()) -> None:
        """Add one batch: ``fresh`` results were paid now; ``answers`` is every result the
        batch returned (one per request, from the cache or not); ``span`` its start and end
        (``perf_counter``)."""
        key = f"{label}/{model}"
        start, end = span
        with self._lock:
            row = self._rows.setdefault(key, UsageRow(label, provider, model))
            busy_until = self._busy_until.get(key, start)
            self._busy_until[key] = max(busy_until, end)
            row.wall_s += max(0.0, end - max(start, busy_until))
            row.calls += len(fresh)
            row.cache_hits += hits
            row.prompt_tokens += sum(r.usage.prompt_tokens for r in fresh)
            row.completion_tokens += sum(r.usage.completion_tokens for r in fresh)
            row.requests += len(answers)
            row.answer_prompt_tokens += sum(r.usage.prompt_tokens for r in answers)
            row.answer_completion_tokens += sum(r.usage.completion_tokens for r in answers)

    def table(self, prices: Mapping[str, PriceSettings]) -> dict[str, dict[str, Any]]:
        """Per ``label/model`` the row, with the estimated cost of the calls made
        (``est_cost_usd``) and of every answer used (``answers_est_cost_usd``)."""
        table: dict[str, dict[str, Any]] = {}
        with self._lock:
            for key, row in sorted(self._rows.items()):
                out: dict[str, Any] = asdict(row)
                price = prices.get(row.model)
                out["est_cost_usd"] = cost_usd(price, row.prompt_tokens, row.completion_tokens)
                out["answers_est_cost_usd"] = cost_usd(price, row.answer_prompt_tokens,
                                                       row.answer_completion_tokens)
                table[key] = out
        return table


def add_summaries(total: Any, value: Any, field: str = "") -> Any:
    """Two stage summaries added up (the copies of a stage run as several processes): numbers
    summed (wall times: the longest), mappings key by key, equal labels kept."""
    if isinstance(total, dict):
        return {k: add_summaries(total.get(k), value.get(k), k) if k in total and k in value
                else total.get(k, value.get(k)) for k in {**total, **value}}
    if isinstance(total, bool) or not isinstance(total, int | float):
        return total if total is not None else value
    if value is None:
        return total
    return max(total, value) if field.endswith("wall_s") else total + value
