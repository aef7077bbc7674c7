"""Strict JSON reading and atomic writing of JSON and JSON Lines artifacts.

Strict reading rejects duplicate keys (plain ``json.loads`` keeps the last one silently) and
unpaired surrogate escapes (valid JSON, not text), and reports bad bytes or syntax with the file
name and position. Writing goes to a temporary file in
the target directory, is fsynced and renamed, so an artifact is either complete or absent; the
temporary file a killed writer leaves behind is removed by the next write of that artifact.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from interviewsim.errors import InputError, Problem, json_path


class _PairsDict(dict):
    """A dict that remembers which keys appeared more than once in its JSON object."""

    duplicates: tuple[str, ...] = ()


class _PairsHook:
    """``object_pairs_hook`` that notes duplicate keys; paths are only computed if any exist."""

    def __init__(self) -> None:
        self.seen_duplicate = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict:
        result = dict(pairs)
        if len(result) == len(pairs):
            return result
        self.seen_duplicate = True
        marked = _PairsDict(result)
        counts: dict[str, int] = {}
        for key, _ in pairs:
            counts[key] = counts.get(key, 0) + 1
        marked.duplicates = tuple(k for k, c in counts.items() if c > 1)
        return marked


def _duplicate_key_problems(value: Any, file: str, loc: tuple = ()) -> list[Problem]:
    problems: list[Problem] = []
    if isinstance(value, dict):
        for key in getattr(value, "duplicates", ()):
            problems.append(
                Problem(file, json_path((*loc, key)), f"duplicate key {key!r} in one object")
            )
        for key, child in value.items():
            problems.extend(_duplicate_key_problems(child, file, (*loc, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            problems.extend(_duplicate_key_problems(child, file, (*loc, index)))
    return problems


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _surrogate_problems(value: Any, file: str, loc: tuple = ()) -> list[Problem]:
    """Strings holding a lone surrogate: valid JSON (an unpaired ``\\ud800`` escape) but not
    text, so no UTF-8 artifact could ever hold them."""
    problems: list[Problem] = []
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            problems.append(Problem(file, json_path(loc), "invalid Unicode: unpaired surrogate "
                                    f"\\u{ord(value[exc.start]):04x} at character {exc.start}"))
    elif isinstance(value, dict):
        for key, child in value.items():
            bad_key = _surrogate_problems(key, file, loc)
            problems.extend(bad_key or _surrogate_problems(child, file, (*loc, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            problems.extend(_surrogate_problems(child, file, (*loc, index)))
    return problems


def parse_json_strict(text: str, file: str = "<text>") -> Any:
    """Parse JSON text, rejecting syntax errors, duplicate keys and unpaired surrogate escapes
    with their location."""
    if not text.strip():
        raise InputError([Problem(file, "", "file is empty; expected a JSON document")])
    hook = _PairsHook()
    try:
        value = json.loads(text, object_pairs_hook=hook)
    except json.JSONDecodeError as exc:
        raise InputError(
            [Problem(file, "", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")]
        ) from None
    if hook.seen_duplicate:
        raise InputError(_duplicate_key_problems(value, file))
    if _SURROGATE_ESCAPE.search(text):  # the walk only when an escape could be unpaired
        problems = _surrogate_problems(value, file)
        if problems:
            raise InputError(problems)
    return value


def load_json_strict(path: str | Path) -> Any:
    """Read a UTF-8 JSON file strictly (see :func:`parse_json_strict`)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError([Problem(str(path), "", f"cannot read file: {exc.strerror}")]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            [Problem(str(path), "", f"not UTF-8: invalid byte at offset {exc.start}; "
                     "re-save the file as UTF-8")]
        ) from None
    return parse_json_strict(text.removeprefix("\ufeff"), str(path))


def canonical_json(value: Any) -> str:
    """Deterministic JSON text (sorted keys, no spaces) used for hashing and stable artifacts."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def _atomic_open(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp",
                               dir=path.parent)
    return os.fdopen(fd, "w", encoding="utf-8", newline="\n"), Path(tmp)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _sweep_dead_writers(path: Path) -> None:
    """Delete temporary files of ``path`` whose writer died before renaming them (SIGKILL,
    OOM kill, power loss): they hold a partial artifact that nothing will ever complete.
    A live writer's file (its pid is in the name) is left alone."""
    prefix = f".{path.name}."
    for stale in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid = stale.name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            stale.unlink(missing_ok=True)


def _commit(handle, tmp: Path, path: Path) -> None:
    handle.flush()
    os.fsync(handle.fileno())
    handle.close()
    os.replace(tmp, path)
    _sweep_dead_writers(path)


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write text so that readers see either the old file or the complete new one."""
    path = Path(path)
    handle, tmp = _atomic_open(path)
    try:
        handle.write(text)
        _commit(handle, tmp, path)
    except BaseException:
        handle.close()
        tmp.unlink(missing_ok=True)
        raise


def write_json_atomic(path: str | Path, value: Any) -> None:
    write_text_atomic(path, json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n")


def write_jsonl_atomic(path: str | Path, records: Iterable[dict]) -> int:
    """Stream records to a JSON Lines file atomically; returns the number written."""
    return write_lines_atomic(
        path, (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
               for record in records))


def write_lines_atomic(path: str | Path, lines: Iterable[str]) -> int:
    """Stream lines (each ending in a newline) to a file atomically; returns how many."""
    path = Path(path)
    handle, tmp = _atomic_open(path)
    count = 0
    try:
        for line in lines:
            handle.write(line)
            count += 1
        _commit(handle, tmp, path)
    except BaseException:
        handle.close()
        tmp.unlink(missing_ok=True)
        raise
    return count


def read_jsonl(path: str | Path) -> Iterator[dict]:
    """Yield the records of a JSON Lines artifact, naming file and line on a bad record."""
    path = Path(path)
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(
                    [Problem(str(path), f"line {number}", f"invalid JSON record: {exc.msg}")]
                ) from None
