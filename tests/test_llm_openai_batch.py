"""The OpenAI Batch API provider mode against the mock's /v1/files and /v1/batches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interviewsim.config.params import Params, parse_params
from interviewsim.config.settings import ModelSettings
from interviewsim.errors import ProviderError
from interviewsim.llm import ModelHub
from tests.mock_openai import MockOpenAI

CHAT = "/v1/chat/completions"
KEY_ENV = "INTERVIEWSIM_TEST_KEY"
MODEL = ModelSettings(provider="api", model="gpt-test")


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-batch-test-123")


def make_params(tmp_path: Path, server: MockOpenAI, **provider: object) -> Params:
    settings = {"kind": "openai", "base_url": server.base_url, "api_key_env": KEY_ENV,
                "backoff_initial_s": 0.001, "timeout_s": 2.0, "batch": True,
                "batch_poll_initial_s": 0.01, "batch_poll_max_s": 0.04, **provider}
    return parse_params({"cache": {"path": str(tmp_path / "cache" / "responses.sqlite")},
                         "providers": {"local": {"kind": "llama_cpp"}, "api": settings}})


def ask(client, *texts: str):
    return [client.request([{"role": "user", "content": t}]) for t in texts]


def test_batch_answers_go_into_the_cache_without_chat_calls(tmp_path: Path,
                                                            server: MockOpenAI) -> None:
    server.batch_api.polls_to_complete = 3
    params = make_params(tmp_path, server)
    with ModelHub(params.hub) as hub:
        client = hub.client(MODEL)
        results = client.complete_many(ask(client, "one", "two", "three", "two"))
    assert [r.text for r in results] == ["echo: one", "echo: two", "echo: three", "echo: two"]
    assert server.count(CHAT) == 0
    assert server.count("/v1/files") == 1 and server.count("/v1/batches") == 1
    assert server.batch_api.polls["batch_1"] == 3
    upload = server.batch_api.files["file-1"].decode().splitlines()
    assert len(upload) == 3  # de-duplicated
    line = json.loads(upload[0])
    assert line["url"] == CHAT and line["body"]["model"] == "gpt-test"
    with ModelHub(params.hub) as hub:  # a rerun is answered by the cache: nothing is sent
        client = hub.client(MODEL)
        again = client.complete_many(ask(client, "one", "two", "three"))
        assert all(r.cached for r in again)
        assert hub.usage()["model/gpt-test"]["cache_hits"] == 3
    assert server.count() == 1 + 1 + 3 + 1  # upload, create, three polls, one download


def test_an_interrupted_wait_resumes_the_same_batch(tmp_path: Path, server: MockOpenAI) -> None:
    server.batch_api.polls_to_complete = 10**6
    with ModelHub(make_params(tmp_path, server, batch_max_wait_s=0.1).hub) as hub:
        client = hub.client(MODEL)
        with pytest.raises(ProviderError, match="rerun the stage to resume"):
            client.complete_many(ask(client, "alpha", "beta"))
    records = list((tmp_path / "cache" / "batches").glob("*.json"))
    assert len(records) == 1 and json.loads(records[0].read_text())["batch_id"] == "batch_1"
    server.batch_api.polls_to_complete = 1
    with ModelHub(make_params(tmp_path, server).hub) as hub:
        client = hub.client(MODEL)
        results = client.complete_many(ask(client, "alpha", "beta"))
    assert [r.text for r in results] == ["echo: alpha", "echo: beta"]
    assert server.batch_api.created == 1  # resumed, not submitted twice
    assert server.count(CHAT) == 0


def test_a_failed_batch_is_submitted_again_on_the_next_run(tmp_path: Path,
                                                           server: MockOpenAI) -> None:
    server.batch_api.fail = True
    with ModelHub(make_params(tmp_path, server).hub) as hub:
        client = hub.client(MODEL)
        with pytest.raises(ProviderError, match="failed"):
            client.complete_many(ask(client, "gamma"))
    assert not list((tmp_path / "cache" / "batches").glob("*.json"))
    server.batch_api.fail = False
    with ModelHub(make_params(tmp_path, server).hub) as hub:
        client = hub.client(MODEL)
        [result] = client.complete_many(ask(client, "gamma"))
    assert result.text == "echo: gamma" and server.batch_api.created == 2


def test_error_lines_fall_back_to_ordinary_chat_calls(tmp_path: Path,
                                                      server: MockOpenAI) -> None:
    with ModelHub(make_params(tmp_path, server).hub) as hub:
        client = hub.client(MODEL)
        requests = ask(client, "ok", "broken")
        server.batch_api.error_ids = {client.key(requests[1])}
        results = client.complete_many(requests)
    assert [r.text for r in results] == ["echo: ok", "echo: broken"]
    assert server.count(CHAT) == 1
