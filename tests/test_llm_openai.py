"""The OpenAI-compatible provider against the local mock server: retries, faults, dialects."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from interviewsim.config.params import Params, parse_params
from interviewsim.config.settings import ModelSettings
from interviewsim.errors import ProviderError
from interviewsim.llm import ModelHub, OutputConstraint
from tests.mock_openai import Fault, MockOpenAI

CHAT = "/v1/chat/completions"
KEY_ENV = "INTERVIEWSIM_TEST_KEY"
SECRET = "sk-never-logged-123"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SECRET)


def make_params(tmp_path: Path, server: MockOpenAI, **provider: object) -> Params:
    settings = {"kind": "openai", "base_url": server.base_url, "api_key_env": KEY_ENV,
                "backoff_initial_s": 0.001, "timeout_s": 0.5, **provider}
    return parse_params({"cache": {"path": str(tmp_path / "responses.sqlite")},
                         "providers": {"local": {"kind": "llama_cpp"}, "api": settings}})


MODEL = ModelSettings(provider="api", model="gpt-test")
TRANSPORTS = ["openai-sdk", "http1"]
"""The default transport (the openai SDK on httpx) and the opt-in built-in HTTP/1.1 client: the
fault tests run on both, since the provider classifies their replies the same way."""


def ask(client, *texts: str, **kwargs: object):
    return [client.request([{"role": "user", "content": t}], **kwargs) for t in texts]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_fault_kind_is_retried_to_a_correct_answer(tmp_path: Path, server: MockOpenAI,
                                                         transport: str) -> None:
    server.enqueue(Fault.rate_limit(retry_after=0.3), Fault.http(500), Fault.timeout(2.0),
                   Fault.drop(), Fault.malformed(), Fault.empty_choices(), Fault.http(502),
                   Fault.http(503))
    params = make_params(tmp_path, server, max_attempts=9, transport=transport)
    with ModelHub(params.hub) as hub:
        client = hub.client(MODEL)
        start = time.perf_counter()
        [result] = client.complete_many(ask(client, "hello"))
        elapsed = time.perf_counter() - start
    assert result.text == "echo: hello" and result.finish_reason == "stop"
    assert server.count(CHAT) == 9 and server.pending_faults() == 0
    assert elapsed >= 0.3 + 0.5  # the Retry-After wait and the client timeout were honoured


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_exhaustion_names_endpoint_fault_and_attempts(tmp_path: Path, server: MockOpenAI,
                                                      transport: str) -> None:
    server.enqueue(*[Fault.http(503)] * 3)
    params = make_params(tmp_path, server, max_attempts=3, transport=transport)
    with ModelHub(params.hub) as hub:
        client = hub.client(MODEL)
        with pytest.raises(ProviderError) as error:
            client.complete_many(ask(client, "hello"))
    message = str(error.value)
    assert server.base_url in message and "HTTP 503" in message and "3 attempts" in message
    assert server.count(CHAT) == 3


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_client_errors_are_not_retried(tmp_path: Path, server: MockOpenAI,
                                       transport: str) -> None:
    server.enqueue(Fault.http(400))
    with ModelHub(make_params(tmp_path, server, transport=transport).hub) as hub:
        client = hub.client(MODEL)
        with pytest.raises(ProviderError, match="HTTP 400"):
            client.complete_many(ask(client, "hello"))
    assert server.count(CHAT) == 1


def test_retry_after_is_capped_by_backoff_max(tmp_path: Path, server: MockOpenAI) -> None:
    server.enqueue(Fault.rate_limit(retry_after=30))
    with ModelHub(make_params(tmp_path, server, backoff_max_s=0.05).hub) as hub:
        client = hub.client(MODEL)
        start = time.perf_counter()
        client.complete_many(ask(client, "hello"))
    assert time.perf_counter() - start < 5


def test_a_dead_request_keeps_the_others_cached(tmp_path: Path, server: MockOpenAI) -> None:
    server.enqueue(*[Fault.http(500, match="doomed")] * 2)
    params = make_params(tmp_path, server, max_attempts=2, max_concurrency=2)
    texts = ["one", "two", "doomed", "three"]
    with ModelHub(params.hub) as hub:
        client = hub.client(MODEL)
        with pytest.raises(ProviderError, match="2 attempts"):
            client.complete_many(ask(client, *texts))
        before = server.count(CHAT)
        results = client.complete_many(ask(client, *texts))
    # At most one call was still in flight when the failure stopped new ones; it was kept.
    assert [r.text for r in results] == [f"echo: {t}" for t in texts]
    assert results[0].cached and results[1].cached and not results[2].cached
    assert server.count(CHAT) - before == sum(not r.cached for r in results)


def test_concurrency_is_bounded_by_max_concurrency(tmp_path: Path) -> None:
    with MockOpenAI(latency_s=0.05) as server:
        with ModelHub(make_params(tmp_path, server, max_concurrency=4).hub) as hub:
            client = hub.client(MODEL)
            results = client.complete_many(ask(client, *(f"q{i}" for i in range(16))))
        assert server.max_in_flight == 4
    assert [r.text for r in results] == [f"echo: q{i}" for i in range(16)]


def test_length_finish_is_an_answer_not_a_fault(tmp_path: Path, server: MockOpenAI) -> None:
    server.enqueue(Fault.length())
    with ModelHub(make_params(tmp_path, server).hub) as hub:
        client = hub.client(MODEL)
        [result] = client.complete_many(ask(client, "a long answer please"))
    assert result.finish_reason == "length" and server.count(CHAT) == 1
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0


SCHEMA = {"type": "object", "properties": {"score": {"enum": [1, 2, 3]}}, "required": ["score"]}


@pytest.mark.parametrize(("mode", "expected"), [
    ("json_schema", {"type": "json_schema",
                     "json_schema": {"name": "score", "strict": True, "schema": SCHEMA}}),
    ("json_object", {"type": "json_object", "schema": SCHEMA}),
    ("none", None),
])
def test_json_schema_is_sent_in_the_configured_dialect(tmp_path: Path, server: MockOpenAI,
                                                       mode: str, expected: object) -> None:
    constraint = OutputConstraint(kind="json_schema", name="score", json_schema=SCHEMA)
    with ModelHub(make_params(tmp_path, server, structured_output=mode).hub) as hub:
        client = hub.client(MODEL)
        client.complete_many(ask(client, "rate", constraint=constraint))
        assert client.supports_json_schema == (mode != "none")
    assert server.bodies[-1].get("response_format") == expected


@pytest.mark.parametrize("grammar", [True, False])
def test_grammar_is_sent_only_to_endpoints_that_accept_it(tmp_path: Path, server: MockOpenAI,
                                                          grammar: bool) -> None:
    constraint = OutputConstraint(kind="grammar", grammar='root ::= "A" | "B"')
    with ModelHub(make_params(tmp_path, server, grammar=grammar).hub) as hub:
        client = hub.client(MODEL)
        client.complete_many(ask(client, "pick", constraint=constraint))
        assert client.supports_grammar == grammar
    body = server.bodies[-1]
    assert body.get("grammar") == (constraint.grammar if grammar else None)
    assert (body["seed"], body["max_tokens"], body["temperature"]) == (20261130, 256, 0.0)


def test_sample_indices_get_distinct_seeds(tmp_path: Path, server: MockOpenAI) -> None:
    with ModelHub(make_params(tmp_path, server).hub) as hub:
        client = hub.client(MODEL)
        requests = [client.request([{"role": "user", "content": "q"}], sample_index=i)
                    for i in range(3)]
        client.complete_many(requests)
    assert len({body["seed"] for body in server.bodies}) == 3


def test_key_is_neither_in_cache_keys_nor_in_logs(tmp_path: Path, server: MockOpenAI,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    server.enqueue(Fault.http(500))
    with caplog.at_level(logging.DEBUG), ModelHub(make_params(tmp_path, server).hub) as hub:
        client = hub.client(MODEL)
        client.complete_many(ask(client, "hello"))
        identity = client.provider.identity(MODEL.model)
    assert SECRET not in repr(identity) and SECRET not in caplog.text
    assert not any(SECRET.encode() in f.read_bytes() for f in tmp_path.iterdir())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_closed_port_is_a_connection_failure(tmp_path: Path, server: MockOpenAI,
                                               transport: str) -> None:
    params = make_params(tmp_path, server, max_attempts=2, transport=transport,
                         base_url="http://127.0.0.1:9/v1")
    with ModelHub(params.hub) as hub:
        client = hub.client(MODEL)
        with pytest.raises(ProviderError, match="connection failed: .*(refused|failed)"):
            client.complete_many(ask(client, "hello"))


def test_both_transports_send_the_same_bodies_and_read_the_same_answers(
        tmp_path: Path, server: MockOpenAI) -> None:
    constraint = OutputConstraint(kind="json_schema", name="score", json_schema=SCHEMA)
    seen = {}
    for transport in TRANSPORTS:
        server.bodies.clear()
        params = make_params(tmp_path / transport, server, transport=transport)
        with ModelHub(params.hub) as hub:
            client = hub.client(MODEL)
            results = client.complete_many([*ask(client, "plain", "ünïcode ✓"),
                                            *ask(client, "rate", constraint=constraint)])
            vectors = hub.embed("api", MODEL.model, ["a text", "another"])
            keys = [client.key(r) for r in ask(client, "plain")]
        seen[transport] = (sorted(map(repr, server.bodies)), [r.text for r in results],
                           [r.usage for r in results], vectors, keys)
    assert seen["openai-sdk"] == seen["http1"]
