"""The exception types the library raises (the CLI maps each to an exit code and a message),
and the one conversion of a pydantic validation error into problems that name file and path."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one input: where it is and what is expected instead."""

    file: str
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        return f"{where}: {self.message}"


class InterviewSimError(Exception):
    """Base class: every error the CLI reports without a traceback."""

    exit_code = 1


class InputError(InterviewSimError):
    """Input data failed validation; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class ConfigError(InterviewSimError):
    """params.yaml (or another configuration) is invalid; messages name the key path."""

    exit_code = 1

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class ParseError(InterviewSimError):
    """A model output broke its output contract. The message says exactly how."""


class ProviderError(InterviewSimError):
    """A model provider failed for good (retry budget spent, missing model, missing key)."""

    exit_code = 2


class LeakageError(InterviewSimError):
    """Held-out text reached a generation prompt: the experiment would be invalid."""

    exit_code = 3


class StaleInput(InterviewSimError):
    """An input was written by an earlier run of its producer under other params or inputs
    (another personality, other strategies, a missing judge): rerunning the producer fixes it.
    The message names the file, what is wrong and the stage to rerun."""

    def __init__(self, path: object, producer: str, detail: str = ""):
        self.path = str(path)
        self.producer = producer
        self.detail = detail
        what = f": {detail}" if detail else ""
        super().__init__(f"{self.path} is out of date{what}; rerun {producer}")


def json_path(parts: Iterable[str | int]) -> str:
    """Render a location such as ('interviews', 2, 'qa_id') as ``interviews[2].qa_id``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _located(error: ValidationError) -> Iterable[tuple[dict[str, Any], str, str]]:
    """Each error with its JSON path (validator wrappers left out of it) and message."""
    for item in error.errors(include_url=False):
        loc = [part for part in item["loc"]
               if not str(part).startswith(("function-", "tagged"))]
        yield item, json_path(loc), item["msg"].removeprefix("Value error, ")


def validation_problems(error: ValidationError, file: str, *, prefix: str = "",
                        explain: Callable[[dict[str, Any], str, str], str] | None = None
                        ) -> list[Problem]:
    """Every error of ``error`` as a :class:`Problem` of ``file``.

    ``prefix`` (``line 3``) goes before each path; ``explain(item, path, message)`` may reword
    a message (say what to do, not only what is wrong). A model validator reports several
    problems at once as ``where: what`` lines at the root; each becomes a problem of its own.
    """

    def where(path: str) -> str:
        return f"{prefix}: {path}" if prefix and path else prefix or path

    problems: list[Problem] = []
    for item, path, message in _located(error):
        if explain is not None:
            message = explain(item, path, message)
        if not path and ": " in message:
            for line in message.splitlines():
                inner, _, what = line.partition(": ")
                problems.append(Problem(file, where(inner), what))
            continue
        problems.extend(Problem(file, where(path), line) for line in message.splitlines())
    return problems


def validation_text(error: ValidationError, limit: int | None = None) -> str:
    """The errors on one line (``path: message; ...``), for a model that must fix its output;
    at most ``limit`` of them, with a count of the rest."""
    found = [f"{path or '(root)'}: {message}" for _, path, message in _located(error)]
    shown = found if limit is None else found[:limit]
    more = f" (+{len(found) - len(shown)} more)" if len(found) > len(shown) else ""
    return "; ".join(shown) + more
