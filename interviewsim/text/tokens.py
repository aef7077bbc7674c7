"""A model-free token estimate, used for context budgets and dry-run plans.

Four characters per token is the usual English average for BPE tokenizers; it is only used
where an exact count is not needed (budgets are conservative, plans are estimates).
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN)) if text else 0
