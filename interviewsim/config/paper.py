"""The paper's configuration: one file of overrides (``params.paper.yaml``) on top of params.

Every route to the paper's setup reads that one file, so they cannot drift apart:
``interviewsim plan --paper`` merges it onto the loaded params (:func:`paper_params`), and
``interviewsim params paper-args`` prints it as ``dvc exp run -S`` arguments
(:func:`override_args`) that make DVC apply the same merge to params.yaml. The library never
opens params.yaml itself; callers pass the paper file's path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from interviewsim.config.params import Params, parse_params, read_yaml
from interviewsim.errors import ConfigError, Problem

PAPER_FILE = Path("params.paper.yaml")
"""Where the commands look for the paper's overrides by default (the repository root)."""

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_\-./]*\Z")
"""A string Hydra reads back as the same string without quotes."""
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")
"""A mapping key that can be a segment of a dotted ``-S`` key."""
_DICT_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-.]*\Z")
"""A key of a ``{key:value}`` value (dots allowed: ``gpt-4.1-mini``)."""
_RESERVED = {"null", "true", "false", "inf", "nan"}


def load_overrides(path: str | Path) -> dict[str, Any]:
    """Read an overrides file (a YAML mapping; empty means no override)."""
    data = read_yaml(path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError([Problem(str(path), "", "must be a mapping of params keys")])
    return data


def merge(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``overrides`` on top: mappings merge key by key, anything else (lists,
    scalars, null) replaces. This is what ``dvc exp run -S`` does with :func:`override_args`."""
    merged = dict(base)
    for key, value in overrides.items():
        old = merged.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            merged[key] = merge(old, value)
        else:
            merged[key] = value
    return merged


def with_overrides(params: Params, overrides: Mapping[str, Any],
                   file: str = "overrides") -> Params:
    """``params`` with ``overrides`` merged on top, validated again (problems name ``file``)."""
    return parse_params(merge(params.model_dump(mode="json"), overrides), file)


def paper_params(params: Params, paper_file: str | Path) -> Params:
    """``params`` with the paper's configuration of ``paper_file`` applied; models, prices and
    everything the file does not set are kept."""
    return with_overrides(params, load_overrides(paper_file), str(paper_file))


def hydra_value(value: Any) -> str:
    """``value`` in Hydra's override grammar (what ``dvc exp run -S key=VALUE`` parses), with no
    whitespace, so the arguments survive an unquoted ``$(...)``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        if _PLAIN.match(value) and value.lower() not in _RESERVED:
            return value
        if any(c.isspace() for c in value) or ("'" in value and '"' in value):
            raise ValueError(f"{value!r}: whitespace or both quotes cannot pass through -S")
        quote = '"' if "'" in value else "'"
        return f"{quote}{value}{quote}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        items = (f"{_key(k, _DICT_KEY)}:{hydra_value(v)}" for k, v in value.items())
        return "{" + ",".join(items) + "}"
    raise ValueError(f"{value!r}: not a YAML value")


def _key(key: object, pattern: re.Pattern[str] = _KEY) -> str:
    if not isinstance(key, str) or not pattern.match(key):
        raise ValueError(f"{key!r}: not a key -S can set")
    return key


def override_args(overrides: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``overrides`` as ``-S ++key=value`` argument pairs for ``dvc exp run``.

    One argument per leaf (a nested mapping becomes dotted keys, so sibling keys of params.yaml
    are kept); ``++`` adds a key params.yaml lacks and overrides one it has.
    """
    args: list[str] = []
    for key, value in overrides.items():
        path = f"{prefix}{_key(key)}"
        if isinstance(value, Mapping) and value and all(
                isinstance(k, str) and _KEY.match(k) for k in value):
            args += override_args(value, f"{path}.")
        else:
            args += ["-S", f"++{path}={hydra_value(value)}"]
    return args
