from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CONFORMANCE = REPO.parent / "shared" / "conformance" / "official_synthetic"


@pytest.fixture
def conformance_dir() -> Path:
    """The official synthetic examples beside the repo; tests using it skip when absent."""
    if not (CONFORMANCE / "personalities").is_dir():
        pytest.skip(f"conformance data not present at {CONFORMANCE} (it lives in ../shared)")
    return CONFORMANCE
