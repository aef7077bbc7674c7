"""A person labels judged items in the MLflow UI, and the report says how well the judge agrees
(issue [human-labels]): `labels sample`, two human feedbacks added through the trace view's
form in headless Chromium (this test never calls log_feedback), `labels pull`, `dvc repro
aggregate`, and the agreement line shows n = 2.

A copy of the repository runs the whole DAG under `dvc repro` with the offline model
(params.offline.yaml merged into params.yaml), so it takes about a minute. Skipped where
Debian's Chromium is not installed (`apt-get install chromium`; .ci/run installs it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.stage_runner import copy_tracked
from tests.test_mlflow_ui import CHROMIUM, CHROMIUM_FLAGS, free_port, wait_until_up

BIN = Path(sys.executable).parent
SCREENSHOTS = os.environ.get("INTERVIEWSIM_SCREENSHOTS")
"""Where to save the docs' screenshots (docs/img/), when set."""

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="needs Debian's chromium at /usr/bin/chromium "
                              "(apt-get install chromium)"),
    pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy is deprecated"),
]


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "INTERVIEWSIM_PROGRESS": "0"}
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A git + DVC copy of the repository on the offline model, reproduced once."""
    from interviewsim.config.paper import load_overrides, merge
    from interviewsim.config.params import read_yaml

    root = copy_tracked(tmp_path_factory.mktemp("labels-ui") / "repo")
    params = merge(read_yaml(root / "params.yaml"), load_overrides(root / "params.offline.yaml"))
    params["aggregate"].update(permutations=200, bootstrap=200)
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    for command in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "-c", "user.email=ci@example.invalid", "-c", "user.name=ci",
                     "commit", "-qm", "copy"], ["dvc", "repro", "-q"]):
        run(command, root)
    return root


@pytest.fixture
def ui(project, tmp_path):
    port = free_port()
    log = tmp_path / "ui.log"
    env = os.environ | {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "mlflow", "ui", "--backend-store-uri",
             f"sqlite:///{project / 'mlflow.db'}", "--host", "127.0.0.1", "--port", str(port),
             "--workers", "1"],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=project)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/health", server, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


def _shot(page, name: str, tidy: bool = False) -> None:
    """A screenshot for the docs (``tidy``: MLflow's tip and assistant panels closed first,
    on a page without a trace open)."""
    if not SCREENSHOTS:
        return
    for selector in () if not tidy else ("[data-component-id='mlflow.detect_issues.guidance.got_it']",
                     "button[aria-label='Close guidance']", "button[aria-label='Close']"):
        found = page.locator(selector)
        if found.count() and found.first.is_visible():
            found.first.click(force=True)
            page.wait_for_timeout(300)
    page.screenshot(path=str(Path(SCREENSHOTS) / name))


def add_feedback_in_the_ui(page, url: str, value: int, rationale: str, shot: str | None) -> None:
    """Open the trace, its assessments pane, '+' beside the judge's feedback (same name),
    choose Number, type the value, Create. The drawer is a modal the page marks aria-hidden,
    so elements are found by MLflow's component ids rather than by role."""
    page.goto(url)
    page.locator("button[aria-label^='Assess trace']").click(timeout=60_000)
    plus = ("button[data-component-id='shared.model-trace-explorer.add-feedback']"
            ":not(:has-text('Add feedback'))")
    page.locator(plus).first.click()
    page.locator("[data-component-id='shared.model-trace-explorer."
                 "assessment-data-type-select']").click()
    page.locator("[role=option]:has-text('Number')").click()
    page.locator("[data-component-id='shared.model-trace-explorer."
                 "assessment-value-number-input']").fill(str(value))
    page.locator("[data-component-id='shared.model-trace-explorer."
                 "assessment-rationale-input']").fill(rationale)
    if shot:
        _shot(page, shot)
    page.locator("button[data-component-id='shared.model-trace-explorer."
                 "assessment-create-button']:has-text('Create')").click()
    page.locator("[data-component-id='shared.model-trace-explorer.assessment-value-number-input"
                 "']").wait_for(state="detached", timeout=30_000)
    page.wait_for_timeout(500)


def test_two_labels_added_in_the_ui_reach_the_report(project, ui):
    from playwright.sync_api import sync_playwright

    sampled = run(["interviewsim", "labels", "sample", "--n", "12", "--rater", "tester"],
                  project).stdout
    links = [line.split()[-1] for line in sampled.splitlines()
             if "|content_similarity|" in line and "selectedEvaluationId=" in line]
    assert len(links) >= 2, sampled
    urls = [link.replace("http://127.0.0.1:5000", ui) for link in links[:2]]
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.set_default_timeout(30_000)
        add_feedback_in_the_ui(page, urls[0], 4, "same facts, other words", "labels_form.png")
        add_feedback_in_the_ui(page, urls[1], 2, "a different story", None)
        _shot(page, "labels_trace.png")
        page.goto(urls[0].split("?", 1)[0])  # the experiment's traces list
        page.wait_for_timeout(4000)
        _shot(page, "labels_traces.png", tidy=True)
        browser.close()
    run(["interviewsim", "labels", "pull", "--rater", "tester"], project)
    labels = [json.loads(line) for line in
              (project / "data/labels/tester.jsonl").read_text().splitlines()]
    assert sorted(label["value"] for label in labels) == [2, 4]
    assert {label["metric"] for label in labels} == {"content_similarity"}
    assert "aggregate" in run(["dvc", "status"], project).stdout  # the labels are a dependency
    run(["dvc", "repro", "aggregate"], project)
    report = (project / "reports/report.md").read_text()
    section = report.split("### Judges against people", 1)[1].split("\n### ", 1)[0]
    assert "2 human labels by 1 rater(s) (tester" in section
    assert "offline on content_similarity: alpha" in section and "n = 2 over" in section
    metrics = json.loads((project / "reports/metrics.json").read_text())
    assert metrics["validity.human_agreement.content_similarity.offline.n"] == 2
