"""What an answer is scored under: a strategy (a context the generator answers from) or a
control (an answer that is never generated: the person's own held-out answer, or another
person's). One small type for both, so no stage tells them apart by testing a record's keys.

On disk a record keeps its ``strategy`` or ``control`` key (artifacts do not move); in memory
it is a :class:`Condition`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["strategy", "control"]

INDEXED_STRATEGIES = frozenset({"retrieval", "hybrid"})
"""The strategies that retrieve by embedding similarity, and so need an index of the
training pairs."""


def needs_index(strategies: Iterable[str]) -> bool:
    """Whether any of ``strategies`` retrieves (and so needs the embedder and an index)."""
    return not INDEXED_STRATEGIES.isdisjoint(strategies)


@dataclass(frozen=True, order=True)
class Condition:
    """A strategy or a control, by name."""

    kind: Kind
    name: str

    @classmethod
    def strategy(cls, name: str) -> Condition:
        return cls("strategy", name)

    @classmethod
    def control(cls, name: str) -> Condition:
        return cls("control", name)

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Condition:
        """The condition a record (an answer, a judgment, a PS run or vote) belongs to: the
        one of its ``strategy`` / ``control`` keys it has (a record with neither, or both, is
        a bug upstream)."""
        kinds = [kind for kind in ("strategy", "control") if kind in record]
        if len(kinds) != 1:
            raise ValueError(f"a record names exactly one of strategy/control, not {kinds}: "
                             f"{dict(record)!r:.200}")
        return cls(kinds[0], record[kinds[0]])  # type: ignore[arg-type]

    @property
    def is_control(self) -> bool:
        return self.kind == "control"

    def where(self) -> dict[str, str]:
        """The key a record of this condition carries on disk."""
        return {self.kind: self.name}


def is_control_record(record: Mapping[str, Any]) -> bool:
    """Whether a record belongs to a control (its condition says so)."""
    return Condition.of(record).is_control
