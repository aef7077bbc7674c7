"""What makes the committed results reproducible from a fresh clone: the shipped response
cache (exact, secret-free), the key trace and export behind `make lock`, the replay-only mode
of the reproduction check, and a `prepare` that depends on whatever folder params names."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from interviewsim.config.params import parse_params
from interviewsim.config.settings import ModelSettings
from interviewsim.errors import ProviderError
from interviewsim.llm import ModelHub
from interviewsim.llm.cache import TRACE_ENV, ResponseCache
from interviewsim.llm.client import REPLAY_ONLY_ENV
from interviewsim.llm.scripted import ScriptedProvider
from tests.factories import make_doc, write_doc

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "data/sample-cache/responses.jsonl"
MODEL = ModelSettings(provider="local", model="scripted-model")


def ask(hub: ModelHub, texts: list[str]) -> list[str]:
    client = hub.client(MODEL, label="generator")
    requests = [client.request([{"role": "user", "content": t}]) for t in texts]
    return [r.text for r in client.complete_many(requests)]


def test_a_trace_lists_every_key_read_or_stored_and_export_ships_exactly_those(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    params = parse_params({"cache": {"path": str(tmp_path / "responses.sqlite")}})
    with ModelHub(params.hub, provider_overrides={"local": ScriptedProvider([(r".", "ok")])}) as hub:
        ask(hub, ["unused answer"])  # in the cache, but not needed by the traced run
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv(TRACE_ENV, str(trace))
    with ModelHub(params.hub, provider_overrides={"local": ScriptedProvider([(r".", "ok")])}) as hub:
        ask(hub, ["a", "b"])  # two fresh calls
        ask(hub, ["a"])  # one hit
    keys = set(trace.read_text().split())
    assert len(keys) == 2
    cache = ResponseCache(params.cache.path)
    out = tmp_path / "shipped.jsonl"
    assert cache.export_jsonl(out, keys) == 2
    first = out.read_bytes()
    assert cache.export_jsonl(out, keys) == 2 and out.read_bytes() == first, "not byte-stable"
    cache.close()
    fresh = ResponseCache(tmp_path / "fresh.sqlite")
    assert fresh.merge_jsonl(out) == 2 and fresh.merge_jsonl(out) == 0
    assert sorted(fresh.store.keys()) == sorted(keys)
    fresh.close()


def test_replay_only_answers_from_the_cache_and_refuses_any_model_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    params = parse_params({"cache": {"path": str(tmp_path / "responses.sqlite")}})
    with ModelHub(params.hub, provider_overrides={"local": ScriptedProvider([(r".", "ok")])}) as hub:
        ask(hub, ["cached"])
    monkeypatch.setenv(REPLAY_ONLY_ENV, "1")
    provider = ScriptedProvider([(r".", "ok")])
    with ModelHub(params.hub, provider_overrides={"local": provider}) as hub:
        assert ask(hub, ["cached"]) == ["ok"]
        with pytest.raises(ProviderError, match="make lock"):
            ask(hub, ["not cached"])
    assert provider.calls == []


def test_the_shipped_sample_cache_is_small_and_holds_no_secret() -> None:
    assert SAMPLE.with_name(SAMPLE.name + ".dvc").is_file(), "the sample cache is not DVC-tracked"
    if not SAMPLE.exists():
        subprocess.run([Path(sys.executable).parent / "dvc", "pull", "-q",
                        str(SAMPLE) + ".dvc"], cwd=REPO, check=True)
    text = SAMPLE.read_text(encoding="utf-8")
    assert SAMPLE.stat().st_size < 10 * 2**20
    records = [json.loads(line) for line in text.splitlines()]
    assert records == sorted(records, key=lambda r: r["key"]) and records
    assert {key for r in records for key in r["value"]} <= {
        "text", "finish_reason", "usage", "latency_s", "model"}
    for pattern in (r"sk-[A-Za-z0-9_-]{16,}", r"(?i)bearer\s+\S{16,}", r"(?i)api[_-]?key",
                    r"https?://(?!127\.0\.0\.1|localhost)[\w.-]+", r"(?i)authorization"):
        assert not re.search(pattern, text), f"the shipped cache matches {pattern}"
    for name, value in os.environ.items():
        if re.search(r"(?i)key|token|secret|password", name) and len(value) >= 12:
            assert value not in text, f"the shipped cache holds the value of ${name}"


def test_prepare_depends_on_the_folder_params_names(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("dvc.yaml", ".dvcignore", "params.yaml"):
        shutil.copy2(REPO / name, root / name)
    for folder in ("stages", "interviewsim"):  # prepare's code deps
        shutil.copytree(REPO / folder, root / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    params = yaml.safe_load((root / "params.yaml").read_text())
    params["data"]["personalities"] = "inputs/people"
    (root / "params.yaml").write_text(yaml.safe_dump(params))
    for pid in ("P1", "P2"):
        write_doc(root / "inputs/people", make_doc(pid))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}

    def dvc(*args: str) -> str:
        done = subprocess.run(["dvc", *args], cwd=root, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    for command in (["git", "init", "-q"], ["dvc", "init", "-q"]):
        subprocess.run(command, cwd=root, env=env, check=True)
    dvc("repro", "-q", "--single-item", "validate-params")  # every stage depends on it
    dvc("repro", "-q", "--single-item", "prepare")
    lock = yaml.safe_load((root / "dvc.lock").read_text())
    assert "inputs/people" in [d["path"] for d in lock["stages"]["prepare"]["deps"]]
    assert json.loads(dvc("status", "--json", "prepare")) == {}
    doc = make_doc("P1")
    doc["personality"]["profile"] = "P1 is a fictional glassblower."
    write_doc(root / "inputs/people", doc)
    status = json.loads(dvc("status", "--json", "prepare"))
    assert status["prepare"] == [{"changed deps": {"inputs/people": "modified"}}]
