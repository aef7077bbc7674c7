"""The hub through the scripted provider: caching, order, usage, plans and configuration errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from interviewsim.config.params import Params, parse_params
from interviewsim.config.settings import ModelSettings
from interviewsim.errors import ConfigError, ProviderError
from interviewsim.llm import CallEstimate, ModelHub, OutputConstraint
from interviewsim.llm.scripted import ScriptedProvider

RULES = [(r"capital of France", "Paris"), (r"^Say (\w+)", lambda r: "said")]


def make_params(tmp_path: Path, **extra: object) -> Params:
    data: dict[str, object] = {"cache": {"path": str(tmp_path / "cache" / "responses.sqlite")}}
    data.update(extra)
    return parse_params(data)


def model(provider: str = "local", **fields: object) -> ModelSettings:
    return ModelSettings(provider=provider, model="scripted-model", **fields)


def ask(client, texts: list[str], **kwargs: object):
    return [client.request([{"role": "user", "content": t}], **kwargs) for t in texts]


def test_second_run_is_served_entirely_from_cache(tmp_path: Path) -> None:
    params = make_params(tmp_path)
    texts = [f"question {i}: capital of France?" for i in range(5)]
    first = ScriptedProvider(RULES)
    with ModelHub(params.hub, provider_overrides={"local": first}) as hub:
        client = hub.client(model(), label="generator")
        results = client.complete_many(ask(client, texts))
    assert [r.text for r in results] == ["Paris"] * 5
    assert len(first.calls) == 5 and not any(r.cached for r in results)

    second = ScriptedProvider(RULES)
    with ModelHub(params.hub, provider_overrides={"local": second}) as hub:
        client = hub.client(model(), label="generator")
        again = client.complete_many(ask(client, texts))
        usage = hub.usage()["generator/scripted-model"]
    assert second.calls == []
    assert all(r.cached for r in again)
    assert [r.cache_key for r in again] == [r.cache_key for r in results]
    assert [r.text for r in again] == [r.text for r in results]
    assert (usage["calls"], usage["cache_hits"], usage["prompt_tokens"]) == (0, 5, 0)


def test_results_keep_request_order_and_identical_requests_call_once(tmp_path: Path) -> None:
    provider = ScriptedProvider(lambda request: request.messages[-1].content.upper())
    with ModelHub(make_params(tmp_path).hub, provider_overrides={"local": provider}) as hub:
        client = hub.client(model())
        texts = ["b", "a", "b", "c"]
        results = client.complete_many(ask(client, texts))
    assert [r.text for r in results] == ["B", "A", "B", "C"]
    assert len(provider.calls) == 3
    assert results[0].cache_key == results[2].cache_key


def test_sample_indices_give_distinct_entries(tmp_path: Path) -> None:
    provider = ScriptedProvider(lambda request: f"sample {request.sample_index}")
    with ModelHub(make_params(tmp_path).hub, provider_overrides={"local": provider}) as hub:
        client = hub.client(model(temperature=0.7))
        requests = [client.request([{"role": "user", "content": "q"}], sample_index=i)
                    for i in range(3)]
        results = client.complete_many(requests)
        assert len({r.cache_key for r in results}) == 3
        assert [r.text for r in results] == ["sample 0", "sample 1", "sample 2"]
        assert hub.cache.stats().entries == 3


def test_request_takes_model_settings_and_params_seed(tmp_path: Path) -> None:
    params = make_params(tmp_path, seed=99)
    with ModelHub(params.hub, provider_overrides={"local": ScriptedProvider(RULES)}) as hub:
        client = hub.client(model(temperature=0.3, max_tokens=42))
        request = client.request([{"role": "user", "content": "x"}])
        override = client.request([{"role": "user", "content": "x"}], temperature=0.0,
                                  max_tokens=7)
    assert (request.temperature, request.max_tokens, request.seed) == (0.3, 42, 99)
    assert (override.temperature, override.max_tokens) == (0.0, 7)
    assert client.supports_json_schema and client.supports_grammar


def test_plan_counts_calls_and_hits_without_calling(tmp_path: Path) -> None:
    provider = ScriptedProvider(RULES)
    with ModelHub(make_params(tmp_path).hub, provider_overrides={"local": provider}) as hub:
        client = hub.client(model())
        client.complete_many(ask(client, ["capital of France?"]))
        requests = ask(client, ["capital of France?", "Say hi", "Say hi", "Say yes " * 10])
        plan = client.estimate(requests)
    assert len(provider.calls) == 1
    # 2 distinct uncached prompts; "Say hi" is 6 chars -> 2 tokens + 4 overhead.
    assert plan == CallEstimate(calls=2, requests=4, cache_hits=1, est_prompt_tokens=6 + (20 + 4),
                                est_completion_tokens=2 * 256)


def test_usage_counts_tokens_and_prices_them(tmp_path: Path) -> None:
    params = make_params(tmp_path, prices={"scripted-model": {"prompt_per_million": 1e6,
                                                              "completion_per_million": 2e6}})
    with ModelHub(params.hub, provider_overrides={"local": ScriptedProvider(RULES)}) as hub:
        client = hub.client(model(), label="judge")
        client.complete_many(ask(client, ["capital of France"]))  # 17 chars: 5 + 4 tokens
        usage = hub.usage()
    row = usage["judge/scripted-model"]
    assert (row["calls"], row["prompt_tokens"], row["completion_tokens"]) == (1, 9, 2)
    assert row["est_cost_usd"] == pytest.approx(9 * 1 + 2 * 2)
    assert row["wall_s"] > 0 and row["provider"] == "local"


def test_cache_counts_hits_and_misses_per_model(tmp_path: Path) -> None:
    with ModelHub(make_params(tmp_path).hub, provider_overrides={"local": ScriptedProvider(RULES)}
                  ) as hub:
        client = hub.client(model())
        client.complete_many(ask(client, ["capital of France", "Say a"]))
        client.complete_many(ask(client, ["capital of France", "Say b"]))
        stats = hub.cache.stats()
    assert stats.entries == 3 and stats.size_bytes > 0
    assert stats.per_model == {"local/scripted-model": {"hits": 1, "misses": 3}}


def test_a_failed_call_stops_the_batch_and_keeps_what_succeeded(tmp_path: Path) -> None:
    def flaky(request):
        if "bad" in request.messages[-1].content:
            raise ProviderError("endpoint down")
        return "ok"

    params = make_params(tmp_path)
    with ModelHub(params.hub, provider_overrides={"local": ScriptedProvider(flaky)}) as hub:
        client = hub.client(model())
        with pytest.raises(ProviderError, match="endpoint down"):
            client.complete_many(ask(client, ["good 1", "good 2", "bad", "good 3"]))
    healed = ScriptedProvider(lambda request: "ok")
    with ModelHub(params.hub, provider_overrides={"local": healed}) as hub:
        client = hub.client(model())
        results = client.complete_many(ask(client, ["good 1", "good 2", "bad", "good 3"]))
    # The two calls before the failure were stored; the failure was not; nothing after it ran.
    assert [r.cached for r in results] == [True, True, False, False]
    assert [c.messages[-1].content for c in healed.calls] == ["bad", "good 3"]


def test_scripted_rules_prefer_the_last_user_message(tmp_path: Path) -> None:
    provider = ScriptedProvider([(r"judge", "JUDGE"), (r"answer", "ANSWER")])
    with ModelHub(make_params(tmp_path).hub, provider_overrides={"local": provider}) as hub:
        client = hub.client(model())
        messages = [{"role": "system", "content": "You judge."},
                    {"role": "user", "content": "Please answer."}]
        only_system = [{"role": "system", "content": "You judge."},
                       {"role": "user", "content": "Go."}]
        results = client.complete_many([client.request(messages), client.request(only_system)])
        assert [r.text for r in results] == ["ANSWER", "JUDGE"]
        with pytest.raises(ProviderError, match="no rule matches"):
            client.complete_many(ask(client, ["nothing matches this"]))


def test_scripted_provider_loads_from_params(tmp_path: Path) -> None:
    params = make_params(tmp_path, providers={"local": {"kind": "scripted",
                                                        "script": "tests.test_llm_hub:RULES"}})
    with ModelHub(params.hub) as hub:
        client = hub.client(model())
        assert client.complete(ask(client, ["Say hello"])[0]).text == "said"


def test_constraint_enters_the_key(tmp_path: Path) -> None:
    schema = OutputConstraint(kind="json_schema", json_schema={"type": "object"})
    with ModelHub(make_params(tmp_path).hub, provider_overrides={"local": ScriptedProvider(RULES)}
                  ) as hub:
        client = hub.client(model())
        plain, constrained = ask(client, ["Say x"]) + ask(client, ["Say x"], constraint=schema)
        assert client.key(plain) != client.key(constrained)


def test_unknown_provider_is_a_config_error(tmp_path: Path) -> None:
    with ModelHub(make_params(tmp_path).hub) as hub, pytest.raises(ConfigError, match="'nope'"):
        hub.client(model(provider="nope"))


def test_missing_api_key_fails_before_any_call(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INTERVIEWSIM_TEST_KEY", raising=False)
    params = make_params(tmp_path, providers={"local": {"kind": "llama_cpp"}, "api": {
        "kind": "openai", "base_url": "http://127.0.0.1:9/v1",
        "api_key_env": "INTERVIEWSIM_TEST_KEY"}})
    with ModelHub(params.hub) as hub, pytest.raises(ProviderError, match="INTERVIEWSIM_TEST_KEY"):
        hub.client(model(provider="api"))


def test_missing_gguf_fails_before_any_call(tmp_path: Path) -> None:
    params = make_params(tmp_path, providers={"local": {
        "kind": "llama_cpp", "model_path": str(tmp_path / "absent.gguf")}})
    with ModelHub(params.hub) as hub, pytest.raises(ProviderError, match="absent.gguf"):
        hub.client(model())
    assert not (tmp_path / "cache").exists()


KILLED_CHILD = """
import os, signal, sys
from interviewsim.llm import ModelHub
from interviewsim.llm.scripted import ScriptedProvider
from interviewsim.config.settings import ModelSettings
from interviewsim.config.params import parse_params

params = parse_params({"cache": {"path": sys.argv[1]}})
hub = ModelHub(params.hub, provider_overrides={"local": ScriptedProvider(lambda r: "kept")})
client = hub.client(ModelSettings(provider="local", model="m"))
client.complete_many([client.request([{"role": "user", "content": f"q{i}"}]) for i in range(3)])
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_results_survive_kill_9_right_after_the_batch_returns(tmp_path: Path) -> None:
    path = make_params(tmp_path).cache.path
    child = subprocess.run([sys.executable, "-c", KILLED_CHILD, str(path)], timeout=120,
                           cwd=Path(__file__).resolve().parents[1])
    assert child.returncode == -9
    provider = ScriptedProvider(lambda request: "recomputed")
    with ModelHub(make_params(tmp_path).hub, provider_overrides={"local": provider}) as hub:
        client = hub.client(ModelSettings(provider="local", model="m"))
        results = client.complete_many(ask(client, ["q0", "q1", "q2"]))
        assert client.complete_many([]) == []
    assert [r.text for r in results] == ["kept"] * 3 and provider.calls == []
