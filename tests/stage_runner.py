"""Run stage commands in-process, on a temp working directory, through the real CLI group."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import yaml
from click.testing import CliRunner, Result

from stages.cli import cli
from tests.factories import write_doc

REPO = Path(__file__).resolve().parents[1]


@contextmanager
def chdir(path: Path):
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def copy_tracked(root: Path) -> Path:
    """The repository's git-tracked files (as they are in the working tree), copied to
    ``root``: a project to run `dvc repro` in."""
    import subprocess

    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                             check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    return root


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
    """Personalities, the interview agent's settings and plans (data/agent, as in the
    repository) and a params.yaml whose every model is ``script``."""
    for doc in docs:
        write_doc(root / "data" / "personalities", doc)
    shutil.copytree(REPO / "data" / "agent", root / "data" / "agent", dirs_exist_ok=True)
    scripted_params(root, script, **overrides)
    return root


def invoke(root: Path, *args: str) -> Result:
    with chdir(root):
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def offline_workspace(root: Path, docs: list[dict] | None = None) -> Path:
    """A project with the repository's params.yaml and params.offline.yaml on top (what
    ``dvc exp run $(interviewsim params paper-args params.offline.yaml)`` runs): every model is
    the offline responder; the caches and MLflow stay inside ``root``."""
    from interviewsim.config.paper import load_overrides, merge
    from interviewsim.config.params import read_yaml
    from tests.factories import make_doc

    for doc in docs or [make_doc("P1", marker="p1"), make_doc("P2", marker="p2")]:
        write_doc(root / "data" / "personalities", doc)
    shutil.copytree(REPO / "data" / "agent", root / "data" / "agent", dirs_exist_ok=True)
    params = merge(read_yaml(REPO / "params.yaml"), load_overrides(REPO / "params.offline.yaml"))
    params["cache"] = {"path": str(root / "data/cache/responses.sqlite"),
                       "embeddings_dir": str(root / "data/cache/embeddings")}
    params["mlflow"] = {**params["mlflow"], "tracking_uri": f"sqlite:///{root / 'mlflow.db'}"}
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def run_pipeline(root: Path, *extra_aggregate: str) -> dict:
    """Every dvc.yaml stage in its order, with its command line, through the console entry
    point (so exit codes are the command line's); stops at the first that fails. Returns
    {stage: outcome}."""
    from tests.reliability_kit import AGGREGATE, ALL_STAGES, DVC_STAGES, run_cli

    outcomes = {}
    for name, args in zip(DVC_STAGES, [*([c] for c in ALL_STAGES), [*AGGREGATE, *extra_aggregate]],
                          strict=True):
        outcomes[name] = run_cli(root, *args)
        if outcomes[name].code != 0:
            break
    return outcomes
