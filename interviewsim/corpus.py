"""Read the prepared artifacts back, one personality at a time.

``prepare`` writes every artifact sorted by personality id, so the streams can be merged with
bounded memory: a stage holds one personality's pairs, never the whole corpus.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from interviewsim.jsonio import read_jsonl
from interviewsim.prepare import HELDOUT_PAIRS, PERSONALITIES, TRAIN_PAIRS


@dataclass(frozen=True)
class Pair:
    """One question-and-response pair with its place in time."""

    personality_id: str
    interview_id: str
    sequence: int
    position: int
    qa_id: str
    question: str
    response: str
    tags: tuple[str, ...] = ()

    @classmethod
    def of(cls, record: dict) -> Pair:
        return cls(**{**record, "tags": tuple(record.get("tags", ()))})


@dataclass(frozen=True)
class PersonalityData:
    """A personality's profiles and its two partitions, each in time order."""

    personality_id: str
    profile: str
    long_profile: str
    train: tuple[Pair, ...]
    heldout: tuple[Pair, ...]

    def train_by_id(self) -> dict[str, Pair]:
        return {pair.qa_id: pair for pair in self.train}

    def heldout_interviews(self) -> list[tuple[str, list[Pair]]]:
        """Held-out pairs grouped by interview, in time order."""
        return [(iid, list(group)) for iid, group in
                itertools.groupby(self.heldout, key=lambda p: p.interview_id)]


def grouped_by_personality(path: str | Path) -> Iterator[tuple[str, list[dict]]]:
    """Records of a JSONL artifact sorted by personality id, one personality at a time."""
    for pid, group in itertools.groupby(read_jsonl(path), key=lambda r: r["personality_id"]):
        yield pid, list(group)


def iter_personalities(prepared_dir: str | Path) -> Iterator[PersonalityData]:
    """Every personality in id order, merging the three sorted artifact streams."""
    root = Path(prepared_dir)
    train = grouped_by_personality(root / TRAIN_PAIRS)
    heldout = grouped_by_personality(root / HELDOUT_PAIRS)
    for record in read_jsonl(root / PERSONALITIES):
        pid = record["personality_id"]
        train_id, train_records = next(train)
        heldout_id, heldout_records = next(heldout)
        if not pid == train_id == heldout_id:
            raise ValueError(
                f"{root}: artifacts out of step at {pid!r}; rerun `interviewsim prepare`"
            )
        yield PersonalityData(
            personality_id=pid,
            profile=record["profile"],
            long_profile=record["long_profile"],
            train=tuple(Pair.of(r) for r in train_records),
            heldout=tuple(Pair.of(r) for r in heldout_records),
        )


def load_personality(prepared_dir: str | Path, personality_id: str) -> PersonalityData:
    """One personality by id (scans the artifacts; use iter_personalities for all of them)."""
    for data in iter_personalities(prepared_dir):
        if data.personality_id == personality_id:
            return data
    raise KeyError(f"personality {personality_id!r} is not in {prepared_dir}")
