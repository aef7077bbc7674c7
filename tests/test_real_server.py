"""The ``openai`` provider against an OpenAI-compatible server the project did not write.

llama-cpp-python's own server (``python -m llama_cpp.server``, FastAPI, its extra ``server``)
serves the SmolLM2 GGUF on a free loopback port; the pipeline's model stages run through
``kind: openai`` against it, JSON-schema constraints as ``response_format`` json_object with a
schema and GBNF grammars in the ``grammar`` field, as llama.cpp servers take them. Every stage
must exit 0, and every constrained judgment must parse (nothing the judges wrote is invalid).
Skipped, with the reason, where the server's extra is not installed (pip install
'llama-cpp-python[server]'; `make setup` installs it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from interviewsim.data.jsonio import read_jsonl
from interviewsim.llm.gguf import resolve_model_path
from tests.reliability_kit import (
    KEY_ENV,
    MODEL_STAGES,
    docs,
    fake_api_key,
    make_workspace,
    run_cli,
)

pytestmark = [pytest.mark.model, pytest.mark.skipif(
    importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("fastapi") is None,
    reason="llama-cpp-python's server extra is not installed (pip install "
           "'llama-cpp-python[server]')")]


@dataclass(frozen=True)
class Server:
    base_url: str


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    model = resolve_model_path("smollm2-135m-instruct", "local")
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
             "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2",
             "--chat_format", "chatml", "--verbose", "False"],
            stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield Server(base)
    finally:
        process.terminate()
        process.wait(30)


def test_model_stages_run_through_kind_openai_against_llama_cpp_server(
        server: Server, tmp_path: Path) -> None:
    root = make_workspace(
        tmp_path / "ws", server, people=docs()[:1],
        provider={"timeout_s": 300, "max_attempts": 2, "max_concurrency": 2,
                  "structured_output": "json_object", "grammar": True},
        strategies=["no-context", "retrieval"])
    with fake_api_key():
        outcomes = {stage: run_cli(root, stage) for stage in MODEL_STAGES}
    assert {s: o.code for s, o in outcomes.items()} == dict.fromkeys(MODEL_STAGES, 0), {
        s: o.output[-1500:] for s, o in outcomes.items() if o.code}
    answers = list(read_jsonl(root / "data/artifacts/generated/answers.jsonl"))
    assert answers and all(a["response"].strip() for a in answers)
    judged = root / "data/artifacts/judged"
    judgments = [row for name in ("judgments.jsonl", "ps_runs.jsonl")
                 for row in read_jsonl(judged / name)]
    assert {row["metric"] for row in judgments if "metric" in row} >= {
        "content_similarity", "factual_consistency"}
    invalid = [row for row in judgments if row.get("error") or row.get("valid") is False]
    assert not invalid, json.dumps(invalid[:2])[:1500]
    assert os.environ.get(KEY_ENV) is None
