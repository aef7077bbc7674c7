"""The cache key recipe, the SQLite store (including two writing processes), and `cache stats`."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from click.testing import CliRunner

from interviewsim.config.settings import OpenAIProviderSettings
from interviewsim.llm.cache import ResponseCache, cache_key
from interviewsim.llm.kvstore import SqliteStore
from interviewsim.llm.openai_provider import OpenAIProvider
from interviewsim.llm.types import ChatRequest, ChatResult, Message, OutputConstraint, Usage
from stages.commands.cache import cache

IDENTITY = {"kind": "openai", "base_url": "https://api.example/v1", "model": "m"}
BASE = ChatRequest(messages=(Message(role="user", content="hi"),))


@pytest.mark.parametrize(("identity", "request_"), [
    ({**IDENTITY, "kind": "vllm"}, BASE),
    ({**IDENTITY, "base_url": "http://localhost:8000/v1"}, BASE),
    ({**IDENTITY, "model": "m2"}, BASE),
    (IDENTITY, BASE.model_copy(update={"messages": (Message(role="user", content="hi!"),)})),
    (IDENTITY, BASE.model_copy(update={"messages": (Message(role="system", content="hi"),)})),
    (IDENTITY, BASE.model_copy(update={"constraint": OutputConstraint(kind="grammar",
                                                                      grammar="root ::= \"a\"")})),
    (IDENTITY, BASE.model_copy(update={"temperature": 0.7})),
    (IDENTITY, BASE.model_copy(update={"seed": 1})),
    (IDENTITY, BASE.model_copy(update={"max_tokens": 10})),
    (IDENTITY, BASE.model_copy(update={"sample_index": 1})),
], ids=["kind", "base_url", "model", "content", "role", "constraint", "temperature", "seed",
        "max_tokens", "sample_index"])
def test_key_changes_with_each_determining_field(identity: dict, request_: ChatRequest) -> None:
    assert cache_key(identity, request_) != cache_key(IDENTITY, BASE)


def test_key_ignores_key_timeouts_concurrency_and_retries(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    def key(**settings: object) -> str:
        fields = {"kind": "openai", "base_url": "https://api.example/v1", **settings}
        provider = OpenAIProvider(OpenAIProviderSettings(**fields), "api")
        return cache_key(provider.identity("m"), BASE)

    monkeypatch.setenv("OPENAI_API_KEY", "sk-one")
    plain = key()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-two")
    assert plain == key(timeout_s=5, max_concurrency=1, max_attempts=2, backoff_max_s=1,
                        api_key_env="OTHER_KEY", structured_output="none")
    assert plain == cache_key(IDENTITY, BASE)
    assert plain == cache_key(IDENTITY, BASE.model_copy(update={"temperature": 0}))


def test_store_keeps_the_first_writer_and_returns_it(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "deep" / "kv.sqlite")
    assert not (tmp_path / "deep").exists()  # nothing on disk until first use
    assert store.put_many({"a": "1", "b": b"\x00bytes"}) == {}
    assert store.put_many({"a": "other", "c": "3"}) == {"a": "1"}
    assert store.get_many(["a", "b", "c", "missing"]) == {"a": "1", "b": b"\x00bytes", "c": "3"}
    assert store.contains_many(["a", "x"]) == {"a"}
    store.add_counts({("m", "hits"): 2})
    store.add_counts({("m", "hits"): 3, ("m", "misses"): 1})
    assert store.counts() == {"m": {"hits": 5, "misses": 1}} and len(store) == 3


def test_results_round_trip_without_the_per_call_flags(tmp_path: Path) -> None:
    responses = ResponseCache(tmp_path / "c.sqlite")
    result = ChatResult(text="not json {", finish_reason="length", latency_s=1.5, model="m",
                        usage=Usage(prompt_tokens=3, completion_tokens=4))
    responses.store_results({"k": result})
    loaded = responses.lookup(["k"])["k"]
    assert loaded == result.model_copy(update={"cached": True, "cache_key": "k"})


def _write(path: str, worker: int, count: int) -> None:
    store = SqliteStore(path)
    for start in range(0, count, 10):
        # Half the keys are shared with the other worker, half are its own.
        store.put_many({f"{'shared' if i % 2 else worker}-{i}": f"{worker}"
                        for i in range(start, start + 10)})
        store.add_counts({("m", "writes"): 1})
    store.close()


def test_two_processes_write_concurrently(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write, args=(path, w, 200)) for w in (0, 1)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    store = SqliteStore(path)
    assert len(store) == 100 + 100 + 100  # each worker's 100 own keys + 100 shared ones
    assert store.counts() == {"m": {"writes": 40}}
    shared = store.get_many([f"shared-{i}" for i in range(1, 200, 2)])
    assert set(shared.values()) <= {"0", "1"} and len(shared) == 100



def _open_together(path: str, barrier, errors) -> None:
    barrier.wait()  # every process reaches the first connection at the same moment
    try:
        SqliteStore(path).put_many({"shared": "v"})
    except Exception as error:  # noqa: BLE001 - reported to the parent, which asserts on it
        errors.put(repr(error))


def test_processes_opening_a_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    """Switching a new file to WAL raced: SQLite answers "database is locked" at once, without
    waiting out the busy timeout (27 of 100 trials of 8 processes failed before the retry; the CI
    run of 2d07993 lost test_paid_calls to it)."""
    context = multiprocessing.get_context("fork")
    for trial in range(15):
        path = str(tmp_path / f"new-{trial}.sqlite")
        barrier, errors = context.Barrier(8), context.Queue()
        workers = [context.Process(target=_open_together, args=(path, barrier, errors))
                   for _ in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        assert [w.exitcode for w in workers] == [0] * 8
        assert errors.empty(), errors.get()
        assert SqliteStore(path).get_many(["shared"]) == {"shared": "v"}

def test_cache_stats_command_prints_entries_size_and_models(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "responses.sqlite"
    responses = ResponseCache(path)
    responses.store_results({"k1": ChatResult(text="a"), "k2": ChatResult(text="b")})
    responses.record("local/smollm2", hits=5, misses=2)
    responses.close()
    params = tmp_path / "params.yaml"
    params.write_text(f"cache:\n  path: {path}\n", encoding="utf-8")
    outcome = CliRunner().invoke(cache, ["stats", "--params", str(params)])
    assert outcome.exit_code == 0, outcome.output
    assert "entries: 2" in outcome.output
    assert "local/smollm2" in outcome.output and "71.4%" in outcome.output


def test_cache_stats_on_a_missing_cache_says_so(tmp_path: Path) -> None:
    params = tmp_path / "params.yaml"
    params.write_text(f"cache:\n  path: {tmp_path / 'none.sqlite'}\n", encoding="utf-8")
    outcome = CliRunner().invoke(cache, ["stats", "--params", str(params)])
    assert outcome.exit_code == 0 and "no response cache" in outcome.output
    assert not (tmp_path / "none.sqlite").exists()


def test_merge_adds_missing_entries_and_keeps_existing(tmp_path: Path) -> None:
    ours = ResponseCache(tmp_path / "ours.sqlite")
    theirs = ResponseCache(tmp_path / "theirs.sqlite")
    ours.store_results({"shared": ChatResult(text="ours"), "mine": ChatResult(text="m")})
    theirs.store_results({"shared": ChatResult(text="theirs"), "new": ChatResult(text="n")})
    theirs.close()
    params = tmp_path / "params.yaml"
    params.write_text(f"cache:\n  path: {tmp_path / 'ours.sqlite'}\n", encoding="utf-8")
    ours.close()
    runner = CliRunner()
    for expected in ("added 1 responses", "added 0 responses"):
        outcome = runner.invoke(cache, ["merge", str(tmp_path / "theirs.sqlite"),
                                        "--params", str(params)])
        assert outcome.exit_code == 0 and expected in outcome.output, outcome.output
    merged = ResponseCache(tmp_path / "ours.sqlite").lookup(["shared", "mine", "new"])
    assert {k: r.text for k, r in merged.items()} == {"shared": "ours", "mine": "m", "new": "n"}
