"""The exception types the library raises; the CLI maps each to an exit code and a message."""

from __future__ import annotations

from dataclasses import dataclass


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
