"""Run stage commands in-process, on a temp working directory, through the real CLI group."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import yaml
from click.testing import CliRunner, Result

from stages.cli import cli
from tests.factories import write_doc


@contextmanager
def chdir(path: Path):
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def scripted_params(root: Path, script: str, **overrides) -> Path:
    """A params.yaml in ``root`` whose every model is the scripted ``script``."""
    model = {"provider": "script", "model": "scripted-model", "max_tokens": 64}
    data = {
        "data": {"personalities": "data/personalities"},
        "providers": {"script": {"kind": "scripted", "script": script}},
        "models": {
            "generator": model,
            "judges": [{"name": "j1", **model}],
            "mcq_builder": model,
            "mcq_answerers": [{"name": "a1", **model}],
        },
        "context": {"chronological_pairs": 3, "random_pairs": 3, "retrieval_pairs": 3,
                    "hybrid_retrieved": 2, "hybrid_recent": 2},
        "controls": [],  # on where a test runs the controls stage (tests/test_validity.py)
    }
    for key, value in overrides.items():
        data[key] = value
    path = root / "params.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def make_workspace(root: Path, docs: list[dict], script: str, **overrides) -> Path:
    for doc in docs:
        write_doc(root / "data" / "personalities", doc)
    scripted_params(root, script, **overrides)
    return root


def invoke(root: Path, *args: str) -> Result:
    with chdir(root):
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)
