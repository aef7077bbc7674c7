"""Read the prepared artifacts back, one personality at a time.

``prepare`` writes every artifact sorted by personality id, so the streams can be merged with
bounded memory: a stage holds one personality's pairs, never the whole corpus.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from interviewsim.data.jsonio import read_jsonl
from interviewsim.data.prepare import (
    HELDOUT_PAIRS,
    PERSONALITIES,
    TRAIN_PAIRS,
    discover_inputs,
    pair_records,
    validate_document,
)


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


def next_group(groups: Iterator[tuple[str, list[dict]]], personality_id: str,
               skip_earlier: bool = False) -> tuple[str | None, list[dict]]:
    """The next ``(id, records)`` of a :func:`grouped_by_personality` stream, ``(None, [])``
    at its end; with ``skip_earlier``, groups of ids before ``personality_id`` (another
    copy's personalities) are passed over. The caller checks that the id is its own."""
    pid, records = next(groups, (None, []))
    while skip_earlier and pid is not None and pid < personality_id:
        pid, records = next(groups, (None, []))
    return pid, records


_ID_KEY = '"personality_id": "'


def _line_groups(path: Path) -> Iterator[tuple[str, list[str]]]:
    """A JSON Lines artifact's lines grouped by personality id, not decoded. The id is the
    string after the line's ``"personality_id": "`` — text that only the key itself can
    produce, since a quote inside a JSON string is always escaped (the records are flat); a
    line where it is not found as a plain string is decoded."""
    def key(line: str) -> str:
        start = line.find(_ID_KEY) + len(_ID_KEY)
        end = line.find('"', start)
        value = line[start:end]
        if start < len(_ID_KEY) or end < 0 or "\\" in value:
            return json.loads(line)["personality_id"]
        return value

    with path.open(encoding="utf-8") as handle:
        for pid, lines in itertools.groupby(handle, key=key):
            yield pid, list(lines)


def _decoded(path: Path, pid: str, lines: list[str]) -> list[dict]:
    records = [json.loads(line) for line in lines]
    if any(r["personality_id"] != pid for r in records):
        raise ValueError(f"{path}: records of {pid!r} are not contiguous; rerun `interviewsim "
                         "prepare`")
    return records


def iter_personalities(prepared_dir: str | Path, keep: Callable[[int], bool] | None = None
                       ) -> Iterator[PersonalityData]:
    """Every personality in id order, merging the three sorted artifact streams; with
    ``keep``, only those at the positions it accepts (the others' pairs are not decoded)."""
    root = Path(prepared_dir)
    train = _line_groups(root / TRAIN_PAIRS)
    heldout = _line_groups(root / HELDOUT_PAIRS)
    for position, record in enumerate(read_jsonl(root / PERSONALITIES)):
        pid = record["personality_id"]
        train_id, train_lines = next(train)
        heldout_id, heldout_lines = next(heldout)
        if not pid == train_id == heldout_id:
            raise ValueError(
                f"{root}: artifacts out of step at {pid!r}; rerun `interviewsim prepare`"
            )
        if keep is not None and not keep(position):
            continue
        yield PersonalityData(
            personality_id=pid,
            profile=record["profile"],
            long_profile=record["long_profile"],
            train=tuple(Pair.of(r) for r in _decoded(root / TRAIN_PAIRS, pid, train_lines)),
            heldout=tuple(Pair.of(r)
                          for r in _decoded(root / HELDOUT_PAIRS, pid, heldout_lines)),
        )


def load_personality(prepared_dir: str | Path, personality_id: str) -> PersonalityData:
    """One personality by id (scans the artifacts; use iter_personalities for all of them)."""
    for data in iter_personalities(prepared_dir):
        if data.personality_id == personality_id:
            return data
    raise KeyError(f"personality {personality_id!r} is not in {prepared_dir}")


def iter_inputs(input_dir: str | Path, test_fraction: float,
                max_heldout_pairs: int | None) -> Iterator[PersonalityData]:
    """Personalities as ``prepare`` would write them, one at a time, without writing anything."""
    for path in discover_inputs(input_dir):
        doc, split = validate_document(path, test_fraction)
        train = tuple(Pair.of(r) for r in pair_records(doc, split.train))
        heldout = []
        for record in pair_records(doc, split.test):
            if max_heldout_pairs is not None and len(heldout) >= max_heldout_pairs:
                break
            heldout.append(Pair.of(record))
        yield PersonalityData(doc.personality_id, doc.personality.profile,
                              doc.personality.long_profile, train, tuple(heldout))
