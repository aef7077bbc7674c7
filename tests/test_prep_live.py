"""Live evaluation suite: the prep graph end to end, counting the calls that reach the model.

The regression suite proves the loop's path; it cannot prove a model was consulted, because a
response cache replays identical requests without one. Here the provider itself is wrapped in a
counter (below the hub's cache), so each test can assert how many genuine calls every phase made:
``initial`` (the first workflow pass and the round parser), ``loop`` (one answer assessment per
answer that met the length floor) and ``final`` (the second pass, which reaches the model only
where its inputs changed).

The scripted fixture model runs in CI. The same suite runs against the embedded llama.cpp model
with ``INTERVIEWSIM_PREP_LIVE=1`` (``INTERVIEWSIM_PREP_LIVE_THREADS``, default 2, sets
llama.cpp's threads; 1 is faster on a busy machine). Timings are in docs/PREP.md.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from interviewsim.config.params import CacheParams, Params
from interviewsim.config.settings import LlamaCppProviderSettings
from interviewsim.llm import ModelHub
from interviewsim.llm.client import ModelClient
from interviewsim.llm.hub import build_provider
from interviewsim.llm.provider import Provider
from interviewsim.llm.scripted import ScriptedProvider
from interviewsim.llm.types import ChatRequest, ChatResult
from interviewsim.prep.clarify import ScriptedAnswers
from interviewsim.prep.fixture_model import fixture_responder
from interviewsim.prep.modelcall import read_payload
from interviewsim.prep.models import PrepSettings
from interviewsim.prep.pipeline import PrepState, run_prep
from tests.test_prep_support import SAMPLE_ANSWERS, posting, sample_evidence

LIVE = os.environ.get("INTERVIEWSIM_PREP_LIVE") == "1"


class CallCountingProvider(Provider):
    """Delegates to ``inner`` and counts every request that reaches it, by phase and task."""

    def __init__(self, inner: Provider, phase: Callable[[], str]):
        self.inner, self.phase = inner, phase
        self.kind = inner.kind
        self.max_concurrency = inner.max_concurrency
        self.supports_json_schema = inner.supports_json_schema
        self.supports_grammar = inner.supports_grammar
        self.counts: Counter[tuple[str, str]] = Counter()

    def check(self) -> None:
        self.inner.check()

    def validate(self, model: str, requests: list[ChatRequest]) -> None:
        self.inner.validate(model, requests)

    def identity(self, model: str) -> dict[str, str]:
        return self.inner.identity(model)

    async def complete(self, model: str, request: ChatRequest) -> ChatResult:
        self.counts[(self.phase(), read_payload(request)[0])] += 1
        return await self.inner.complete(model, request)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def by_phase(self, phase: str) -> dict[str, int]:
        return {task: n for (where, task), n in self.counts.items() if where == phase}


def phase_of(state: PrepState) -> str:
    """Which part of the run is calling: the loop is the stretch with a gap being asked."""
    if state.phase == "final":
        return "final"
    return "loop" if state.current is not None else "initial"


@contextmanager
def counted_client(cache: Path, inner: Provider, state: PrepState
                   ) -> Iterator[tuple[ModelClient, CallCountingProvider]]:
    counter = CallCountingProvider(inner, lambda: phase_of(state))
    params = Params(cache=CacheParams(path=str(cache)))
    with ModelHub(params.hub, provider_overrides={"local": counter}) as hub:
        yield hub.client(params.models.generator, label="prep"), counter


def sample_state(**options: object) -> PrepState:
    return PrepState(posting=posting(), base_evidence=sample_evidence(), **options)  # type: ignore[arg-type]


def run_counted(cache: Path, inner: Provider, state: PrepState
                ) -> tuple[PrepState, CallCountingProvider]:
    with counted_client(cache, inner, state) as (client, counter):
        run_prep(state, client, ScriptedAnswers.load(SAMPLE_ANSWERS))
    return state, counter


def fixture_model() -> Provider:
    return ScriptedProvider(fixture_responder())


def test_every_phase_makes_exactly_its_calls_on_the_sample(tmp_path: Path) -> None:
    """Lexical extraction and matching: only the package and the loop reach the model."""
    state, counter = run_counted(tmp_path / "cache.sqlite", fixture_model(), sample_state())
    assert counter.by_phase("initial") == {"strategy": 1, "practice-questions": 1}
    assert counter.by_phase("loop") == {"assess-answer": 3}  # 2 of 5 answers under 24 chars
    assert counter.by_phase("final") == {"strategy": 1, "practice-questions": 1}
    assert sum(counter.counts.values()) == len(state.calls) == 7
    assert state.package is not None and len(state.accepted) == 2


def test_a_replayed_run_reaches_the_model_zero_times_with_the_same_audit(
        tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    first, _ = run_counted(cache, fixture_model(), sample_state())
    again, counter = run_counted(cache, fixture_model(), sample_state())
    assert sum(counter.counts.values()) == 0
    assert [c.call.raw for c in again.calls] == [c.call.raw for c in first.calls]
    assert again.package == first.package


def test_model_paths_and_round_context_call_once_each_and_the_final_pass_only_on_change(
        tmp_path: Path) -> None:
    """The final pass re-sends extraction unchanged (the posting did not change), so the cache
    answers it; matching sees the admitted claims, so it is a genuine second call."""
    state, counter = run_counted(
        tmp_path / "cache.sqlite", fixture_model(),
        sample_state(extractor="llm", matcher="llm", round_text="A panel interview by video."))
    assert counter.by_phase("initial") == {
        "round-context": 1, "extract-requirements": 1, "match-evidence": 1, "strategy": 1,
        "practice-questions": 1}
    assert counter.by_phase("loop") == {"assess-answer": 3}
    assert counter.by_phase("final") == {"match-evidence": 1, "strategy": 1,
                                         "practice-questions": 1}
    assert [c.purpose for c in state.calls].count("extract-requirements") == 2
    assert state.package is not None


def test_with_no_gap_asked_the_final_pass_is_answered_from_the_cache(tmp_path: Path) -> None:
    state, counter = run_counted(tmp_path / "cache.sqlite", fixture_model(),
                                 sample_state(settings=PrepSettings(max_clarifications=0)))
    assert counter.by_phase("loop") == counter.by_phase("final") == {}
    assert state.stop_reason == "budget_exhausted" and len(state.calls) == 4


@pytest.mark.model
@pytest.mark.skipif(not LIVE, reason="live suite: set INTERVIEWSIM_PREP_LIVE=1")
def test_live_embedded_model_makes_genuine_calls_in_every_phase(tmp_path: Path) -> None:
    """SmolLM2-135M through llama.cpp. Which answers it admits is its own judgment, so the
    final pass is asserted only in relation to it: new calls exactly when what the package
    prompts see (coverage and citations) changed."""
    threads = int(os.environ.get("INTERVIEWSIM_PREP_LIVE_THREADS", "2"))
    settings = LlamaCppProviderSettings(kind="llama_cpp", model_path="smollm2-135m-instruct",
                                        n_ctx=8192, n_threads=threads)
    embedded = build_provider("local", settings, str(tmp_path))
    state, counter = run_counted(tmp_path / "cache.sqlite", embedded, sample_state())
    assert counter.by_phase("initial") == {"strategy": 1, "practice-questions": 1}
    assert counter.by_phase("loop") == {"assess-answer": 3}
    def cited(verdicts: list) -> list[tuple]:  # what the strategy and questions prompts see
        return [(v.requirement_id, v.coverage, v.evidence_ids) for v in verdicts]

    changed = cited(state.matches) != cited(state.initial_matches)
    assert counter.by_phase("final") == ({"strategy": 1, "practice-questions": 1}
                                         if changed else {})
    assert sum(counter.counts.values()) <= len(state.calls)
