"""What personality alignment means by chance, and a judge that answers one level whatever.

Alignment is 1 − Σ|level difference| / 10 over five traits on Low 1 / Neutral 2 / High 3. Two
profiles drawn at random (each level equally likely) differ by 0 with probability 3/9, by 1
with 4/9 and by 2 with 2/9, so their expected alignment is 1 − (8/9)/2 = 0.556: the chance
level a judge's alignment must be read against. A judge that votes one level (say Neutral) on
nearly every trait scores 1.0 against a reference voted the same way without reading anything;
its votes are flagged when one level holds more than :data:`CONSTANT_SHARE` of them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

from interviewsim.analysis.agreement import PS_LEVELS

CONSTANT_SHARE = 0.9
"""A judge whose most common level exceeds this share of its valid votes is flagged."""


def chance_alignment(levels: int = len(PS_LEVELS)) -> float:
    """Expected alignment of two independent uniform profiles on ``levels`` ordered levels."""
    distance = sum(abs(a - b) for a in range(levels) for b in range(levels)) / levels ** 2
    return 1.0 - distance / (levels - 1)


def level_shares(votes: Iterable[dict]) -> dict[str, dict[str, float]]:
    """Per judge, the share of its valid PS votes at each level (all sides and conditions)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for vote in votes:
        if vote.get("valid") and vote.get("level") is not None:
            counts[vote["judge"]][vote["level"]] += 1
    return {judge: {level: c[level] / sum(c.values()) for level in PS_LEVELS}
            for judge, c in sorted(counts.items())}


def render_ps(shares: Mapping[str, Mapping[str, float]]) -> str:
    """The report's PS paragraph: the chance level and each judge's level habit."""
    lines = [f"Personality alignment of two random profiles is {chance_alignment():.3f} "
             "(each level equally likely); read alignments against it, not against 0."]
    for judge, found in shares.items():
        level, share = max(found.items(), key=lambda kv: kv[1])
        mix = ", ".join(f"{k} {v:.2f}" for k, v in found.items())
        if share > CONSTANT_SHARE:
            lines.append(f"- ⚠️ {judge} votes {level} on {share:.0%} of traits ({mix}): a "
                         "constant judge, whose alignment says how often the reference is "
                         f"{level} too, not whether it read the answers.")
        else:
            lines.append(f"- {judge}: levels {mix}.")
    return "\n".join(lines)
