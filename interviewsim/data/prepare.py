"""Validate every personality's input, split it, and write the prepared artifacts.

All inputs are validated before any output becomes visible: records stream into temporary
files, and only when every document is valid are they renamed into place. One bad file means
exit 1, every problem listed, and the previous outputs untouched.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from interviewsim.data.schema import Interview, PreparedInput, load_prepared_input
from interviewsim.data.split import Split, SplitError, split_interviews
from interviewsim.errors import InputError, Problem

INPUT_NAME = "prepared_input.json"
PERSONALITIES = "personalities.jsonl"
TRAIN_PAIRS = "train_pairs.jsonl"
HELDOUT_PAIRS = "heldout_pairs.jsonl"
SPLITS = "splits.jsonl"
OUTPUT_NAMES = (PERSONALITIES, TRAIN_PAIRS, HELDOUT_PAIRS, SPLITS)


@dataclass
class PrepareSummary:
    personalities: int = 0
    interviews: int = 0
    train_pairs: int = 0
    heldout_pairs: int = 0
    files: list[str] = field(default_factory=list)


def discover_inputs(root: str | Path) -> list[Path]:
    """Every ``<root>/<personality_id>/prepared_input.json``, sorted by folder name."""
    root = Path(root)
    if not root.is_dir():
        raise InputError([Problem(str(root), "", "input folder does not exist; set "
                                  "data.personalities in params.yaml to your data folder")])
    found = sorted(p for p in root.glob(f"*/{INPUT_NAME}") if p.is_file())
    if not found:
        raise InputError([Problem(str(root), "", f"no */{INPUT_NAME} found; expected one "
                                  "folder per personality holding its prepared_input.json")])
    return found


def pair_records(doc: PreparedInput, interviews: tuple[Interview, ...]) -> Iterator[dict]:
    """Flatten interviews into pair records in time order (sequence, then position)."""
    for interview in interviews:
        for position, pair in enumerate(interview.qa_pairs):
            yield {
                "personality_id": doc.personality_id,
                "interview_id": interview.interview_id,
                "sequence": interview.sequence,
                "position": position,
                "qa_id": pair.qa_id,
                "question": pair.question,
                "response": pair.response,
                "tags": list(pair.tags),
            }


def split_record(doc: PreparedInput, split: Split, evaluated: list[str]) -> dict:
    return {
        "personality_id": doc.personality_id,
        "train_interview_ids": [i.interview_id for i in split.train],
        "test_interview_ids": [i.interview_id for i in split.test],
        "train_qa_ids": [p.qa_id for i in split.train for p in i.qa_pairs],
        "test_qa_ids": [p.qa_id for i in split.test for p in i.qa_pairs],
        "evaluated_qa_ids": evaluated,
    }


def validate_document(path: Path, test_fraction: float) -> tuple[PreparedInput, Split]:
    """Load one input and split it; every failure is an :class:`InputError` naming the file."""
    doc = load_prepared_input(path)
    if doc.personality_id != path.parent.name:
        raise InputError([Problem(str(path), "personality_id",
                                  f"{doc.personality_id!r} does not match its folder name "
                                  f"{path.parent.name!r}; rename one of them")])
    try:
        return doc, split_interviews(doc, test_fraction)
    except SplitError as exc:
        raise InputError([Problem(str(path), "interviews", str(exc))]) from None


def _write(handle: IO[str], record: dict) -> None:
    handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True))
    handle.write("\n")


def _write_document(temps: dict[str, tuple[IO[str], str]], doc: PreparedInput, split: Split,
                    summary: PrepareSummary, max_heldout_pairs: int | None) -> None:
    """One valid personality's lines of the four artifacts, counted in ``summary``."""
    summary.personalities += 1
    summary.interviews += len(doc.interviews)
    _write(temps[PERSONALITIES][0], {
        "personality_id": doc.personality_id,
        "profile": doc.personality.profile,
        "long_profile": doc.personality.long_profile,
    })
    for record in pair_records(doc, split.train):
        _write(temps[TRAIN_PAIRS][0], record)
        summary.train_pairs += 1
    evaluated: list[str] = []
    for record in pair_records(doc, split.test):
        if max_heldout_pairs is not None and len(evaluated) >= max_heldout_pairs:
            break
        _write(temps[HELDOUT_PAIRS][0], record)
        evaluated.append(record["qa_id"])
        summary.heldout_pairs += 1
    _write(temps[SPLITS][0], split_record(doc, split, evaluated))


def prepare_corpus(
    input_dir: str | Path,
    out_dir: str | Path,
    test_fraction: float,
    progress: Callable[[Path], None] | None = None,
    max_heldout_pairs: int | None = None,
) -> PrepareSummary:
    """Validate and split every input; write the four artifacts only if all are valid.

    ``max_heldout_pairs`` caps the held-out pairs evaluated per personality (the earliest in
    time); the rest of the held-out interviews is withheld from both sides, never trained on.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = discover_inputs(input_dir)
    temps: dict[str, tuple[IO[str], str]] = {}
    for name in OUTPUT_NAMES:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
        temps[name] = (os.fdopen(fd, "w", encoding="utf-8", newline="\n"), tmp)
    problems: list[Problem] = []
    summary = PrepareSummary()
    try:
        for path in paths:
            if progress:
                progress(path)
            try:
                doc, split = validate_document(path, test_fraction)
            except InputError as exc:
                problems.extend(exc.problems)
                continue
            if problems:
                continue  # keep validating to report everything, but stop producing output
            summary.files.append(str(path))
            _write_document(temps, doc, split, summary, max_heldout_pairs)
        if problems:
            raise InputError(problems)
        for name, (handle, tmp) in temps.items():
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
            os.replace(tmp, out / name)
        return summary
    finally:
        for handle, tmp in temps.values():
            handle.close()
            Path(tmp).unlink(missing_ok=True)
