"""Shared helpers for the prep tests: the fixture model behind the real seam, sample inputs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from interviewsim.config.params import CacheParams, Params
from interviewsim.llm import ModelHub
from interviewsim.llm.client import ModelClient
from interviewsim.llm.scripted import ScriptedProvider
from interviewsim.prep.evidence import load_evidence_file
from interviewsim.prep.fixture_model import Handler, fixture_responder
from interviewsim.prep.models import EvidenceItem

REPO = Path(__file__).resolve().parents[1]
SAMPLE_POSTING = REPO / "data" / "prep" / "sample_posting.md"
SAMPLE_EVIDENCE = REPO / "data" / "prep" / "evidence.yaml"
SAMPLE_ANSWERS = REPO / "data" / "prep" / "answers.yaml"


def posting() -> str:
    return SAMPLE_POSTING.read_text(encoding="utf-8")


def sample_evidence() -> list[EvidenceItem]:
    return load_evidence_file(SAMPLE_EVIDENCE)


@contextmanager
def scripted_client(tmp_path: Path, script: object) -> Iterator[ModelClient]:
    """A prep client whose model is ``script`` (rules or a callable), with a private cache."""
    params = Params(cache=CacheParams(path=str(tmp_path / "responses.sqlite")))
    provider = ScriptedProvider(script)  # type: ignore[arg-type]
    with ModelHub(params.hub, provider_overrides={"local": provider}) as hub:
        yield hub.client(params.models.generator, label="prep")


@contextmanager
def fixture_client(tmp_path: Path, overrides: Mapping[str, Handler] | None = None
                   ) -> Iterator[ModelClient]:
    """The deterministic fixture model, with some tasks' handlers replaced."""
    with scripted_client(tmp_path, fixture_responder(overrides)) as client:
        yield client
