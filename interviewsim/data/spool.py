"""Records parked on disk while a stage runs, read back in order when it writes its outputs.

A stage that produces several artifacts in one pass (judge: judgments, PS runs, PS votes)
streams one through :func:`interviewsim.data.jsonio.write_jsonl_atomic` and parks the others here,
so its memory stays flat however many personalities it judges.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator


class Spool:
    """An append-only list of JSON records kept in an anonymous temporary file."""

    def __init__(self) -> None:
        # lives as long as the spool; anonymous, so the OS frees it even after a crash
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")  # noqa: SIM115
        self._count = 0

    def append(self, record: dict) -> None:
        self._file.write(json.dumps(record, ensure_ascii=False, sort_keys=True))
        self._file.write("\n")
        self._count += 1

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[dict]:
        """The records in append order (appending while iterating is not supported)."""
        self._file.flush()
        self._file.seek(0)
        for line in self._file:
            yield json.loads(line)
        self._file.seek(0, 2)

    def close(self) -> None:
        self._file.close()
