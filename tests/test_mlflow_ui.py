"""The MLflow UI in a real browser: the runs list of a freshly logged experiment shows the
headline metrics as columns (headless Chromium against `mlflow ui`).

Skipped where Debian's Chromium is not installed (`apt-get install chromium`).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="needs Debian's chromium at /usr/bin/chromium "
                              "(apt-get install chromium)"),
    pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy is deprecated"),
]

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(url: str, server: subprocess.Popen, log: Path, limit_s: float = 180) -> None:
    """Poll the health endpoint until the server answers (or has died, or never does)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"mlflow ui exited ({server.returncode}):\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(1)
    pytest.fail(f"mlflow ui did not answer within {limit_s} s:\n{log.read_text()[-2000:]}")


@pytest.fixture
def logged(tmp_path, monkeypatch):
    """The aggregate stage's MLflow runs for the handcrafted inputs of test_report."""
    import mlflow

    from stages.aggregate import aggregate
    from tests.test_report import write_stage_inputs

    args = write_stage_inputs(tmp_path)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    experiment_id = mlflow.MlflowClient(uri).create_experiment(
        "interviewsim", (tmp_path / "artifacts").as_uri())
    monkeypatch.setenv("DVC_EXP_NAME", "ui-check")
    result = CliRunner().invoke(aggregate, args)
    assert result.exit_code == 0, result.output
    return uri, experiment_id


@pytest.fixture
def ui(logged, tmp_path):
    uri, experiment_id = logged
    port = free_port()
    log = tmp_path / "ui.log"
    env = os.environ | {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "mlflow", "ui", "--backend-store-uri", uri,
             "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/health", server, log)
        yield f"http://127.0.0.1:{port}", experiment_id
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the server and the uvicorn worker it started
        server.wait(timeout=60)


def rendered(url: str, profile: Path) -> str:
    """The page's DOM after its scripts ran; a wide window so the table renders the first
    metric columns (the grid only draws the columns in view)."""
    done = subprocess.run(
        [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=2400,1000",
         "--virtual-time-budget=30000", "--dump-dom", url],
        capture_output=True, text=True, timeout=180, check=True)
    return done.stdout


def test_the_runs_list_shows_the_headline_metrics_as_columns(ui, tmp_path):
    from interviewsim.analysis.tracking_view import VIEW_NAME, runs_url

    host, experiment_id = ui
    dom = rendered(runs_url(experiment_id, host), tmp_path / "profile")
    assert VIEW_NAME in dom  # the saved view is applied
    assert ">ui-check<" in dom  # the parent, named after the DVC experiment
    assert "personalities (" in dom  # the Dataset column: the data evaluated, with its digest
    for strategy in ("no-context", "retrieval"):
        assert f'col-id="metrics.`contradiction_ratio/{strategy}`"' in dom
        assert f">contradiction_ratio/{strategy}<" in dom  # the header shows the whole name
