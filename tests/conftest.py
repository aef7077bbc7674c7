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
