from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mock_openai import MockOpenAI

REPO = Path(__file__).resolve().parents[1]
CONFORMANCE = REPO.parent / "shared" / "conformance" / "official_synthetic"


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
