"""A misspelt key anywhere in params.yaml stops `dvc repro` before any stage runs (the
validate-params stage, which every stage depends on), and a stage failing under DVC says how
to get back the outputs DVC deleted before running it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.pipeline


def _copy(root: Path) -> Path:
    tracked = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], cwd=REPO, capture_output=True,
                             check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        if (REPO / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def _env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "INTERVIEWSIM_PROGRESS": "0"}


@pytest.mark.skipif(shutil.which("dvc", path=str(BIN)) is None, reason="dvc not installed")
def test_a_typo_in_params_stops_dvc_repro_before_any_stage(tmp_path: Path) -> None:
    root = _copy(tmp_path / "repo")
    params = root / "params.yaml"
    params.write_text(params.read_text() + "\nstrategy: [hybrid]   # meant strategies\n")
    result = subprocess.run(["dvc", "repro"], cwd=root, env=_env(), capture_output=True,
                            text=True)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Running stage 'validate-params'" in output
    assert "strategy: unknown key" in output
    assert "Running stage 'prepare'" not in output
    assert not (root / "data/artifacts/prepared").exists()


def test_a_stage_failing_under_dvc_says_how_to_restore_its_outputs(tmp_path: Path) -> None:
    (tmp_path / "params.yaml").write_text("data: {personalities: nowhere}\n")
    env = {**_env(), "DVC_STAGE": "prepare"}
    result = subprocess.run([sys.executable, "-m", "stages", "prepare"], cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    assert "`dvc checkout prepare` restores them" in result.stderr
    plain = subprocess.run([sys.executable, "-m", "stages", "prepare"], cwd=tmp_path,
                           env={k: v for k, v in env.items() if k != "DVC_STAGE"},
                           capture_output=True, text=True)
    assert "dvc checkout" not in plain.stderr
