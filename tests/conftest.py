from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mock_openai import MockOpenAI

REPO = Path(__file__).resolve().parents[1]
CONFORMANCE = REPO.parent / "shared" / "conformance" / "official_synthetic"
LANGUAGE_CORPUS = REPO / "tests" / "data" / "agent_language_corpus.jsonl"
LANGUAGE_EVAL_TEST = "test_docs_show_the_evaluation_command_output"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The test that reads the background evaluation's output runs last, so the evaluation has
    the whole suite's time to finish beside it."""
    items.sort(key=lambda item: item.name == LANGUAGE_EVAL_TEST)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the language layer's evaluation command (the encoder over the whole corpus, about
    five minutes on 2 cores) in a process of its own as soon as the test that reads its output
    is selected, so it runs beside the rest of the suite instead of after it; one BLAS thread,
    so it takes one core. ``language_eval_output`` waits for it."""
    if not any(item.name == LANGUAGE_EVAL_TEST for item in session.items):
        return
    out = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 - closed at the end
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "interviewsim.agent.language_eval", str(LANGUAGE_CORPUS)],
        cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
    session.config.stash[_LANGUAGE_EVAL] = (process, out)


_LANGUAGE_EVAL = pytest.StashKey[tuple]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    running = session.config.stash.get(_LANGUAGE_EVAL, None)
    if running is not None:
        process, out = running
        if process.poll() is None:
            process.kill()
        process.wait()
        out.close()


@pytest.fixture
def language_eval_output(request: pytest.FixtureRequest) -> tuple[int, str]:
    """(exit status, output) of ``python -m interviewsim.agent.language_eval CORPUS``, started
    at collection (:func:`pytest_collection_finish`)."""
    process, out = request.config.stash[_LANGUAGE_EVAL]
    process.wait()
    out.seek(0)
    return process.returncode, out.read()


@pytest.fixture
def conformance_dir() -> Path:
    """The official synthetic examples beside the repo; tests using it skip when absent."""
    if not (CONFORMANCE / "personalities").is_dir():
        pytest.skip(f"conformance data not present at {CONFORMANCE} (it lives in ../shared)")
    return CONFORMANCE


@pytest.fixture
def server() -> Iterator[MockOpenAI]:
    """A fresh mock OpenAI endpoint per test (echo answers). Modules that need another
    responder or a module-wide endpoint define their own ``server``, which takes precedence."""
    with MockOpenAI() as mock:
        yield mock


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                   "all_proxy")


@pytest.fixture(autouse=True)
def _no_proxy_from_the_machine(monkeypatch) -> None:
    """The default transport honours proxy variables; a machine's own proxy must not sit
    between a test and its loopback mock endpoint (tests/test_proxy.py sets its own)."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def base_encoder():
    """The base sentence encoder (read once a test session)."""
    from interviewsim.text.encoder import Encoder, base_files
    return Encoder(*base_files())


@pytest.fixture
def use(monkeypatch):
    """``use(classifier)``: the agent's language layer reads with ``classifier`` for this test
    (tests/language_doubles.py builds fixed ones)."""
    from interviewsim.agent import language_model

    def install(classifier) -> None:
        monkeypatch.setattr(language_model, "classifier", lambda: classifier)
    return install
