"""A llama.cpp runtime that crashes must stop a stage with exit 2 and a message that says why
and how to rebuild it, never a segfault in the user's face; a good one is checked once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from interviewsim.errors import ProviderError
from interviewsim.llm import runtime_probe
from interviewsim.llm.runtime_probe import ensure_runtime_works, run_probe
from tests.factories import make_doc, write_doc
from tests.stage_runner import invoke

REPO = Path(__file__).resolve().parents[1]
CRASH = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"


def fake_runtime(root: Path, body: str) -> Path:
    """A folder holding a ``llama_cpp`` package whose import runs ``body``."""
    package = root / "fake_runtime" / "llama_cpp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(body, encoding="utf-8")
    return package.parent


def test_a_child_killed_by_sigsegv_is_reported_by_signal_name(tmp_path: Path) -> None:
    result = run_probe(tmp_path / "model.gguf", 1, code=CRASH)
    assert not result.ok
    assert result.failure == "killed by SIGSEGV"


def test_a_child_that_hangs_is_reported_as_a_timeout(tmp_path: Path) -> None:
    result = run_probe(tmp_path / "model.gguf", 1, timeout_s=1,
                       code="import time\ntime.sleep(30)\n")
    assert not result.ok
    assert result.failure == "no answer within 1 s"


def test_crash_message_names_cpu_features_build_flags_and_the_rebuild_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(fake_runtime(tmp_path, CRASH)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(tmp_path / "fake_runtime"), os.environ.get("PYTHONPATH", "")]))
    memo = tmp_path / "cache" / "runtime-probe.json"
    with pytest.raises(ProviderError) as caught:
        ensure_runtime_works("local", tmp_path / "m.gguf", "abc", 1, memo)
    message = str(caught.value)
    assert caught.value.exit_code == 2
    assert "killed by SIGSEGV" in message
    assert "features:" in message and "build flags:" in message
    assert f"tools/install-llama-runtime.sh {sys.executable}" in message
    assert not memo.exists(), "a failed probe must not be memoised"


def test_a_passing_probe_is_memoised_per_runtime_build_and_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(fake_runtime(tmp_path, "")))
    calls: list[Path] = []

    def passing(model: Path, n_threads: int) -> runtime_probe.ProbeResult:
        calls.append(model)
        return runtime_probe.ProbeResult(True, "", "CPU : AVX2 = 1", "")

    monkeypatch.setattr(runtime_probe, "run_probe", passing)
    memo = tmp_path / "runtime-probe.json"
    ensure_runtime_works("local", tmp_path / "m.gguf", "model-a", 1, memo)
    runtime_probe._VERIFIED.clear()  # a new process: only the file remembers
    ensure_runtime_works("local", tmp_path / "m.gguf", "model-a", 1, memo)
    assert len(calls) == 1
    ensure_runtime_works("local", tmp_path / "m.gguf", "model-b", 1, memo)
    assert len(calls) == 2, "another model file is probed again"
    assert all(entry["ok"] for entry in json.loads(memo.read_text()).values())


def models(provider: str) -> dict:
    """Every model role on one provider."""
    one = {"provider": provider, "model": "m", "max_tokens": 16}
    return {"generator": one, "judges": [{"name": "j", **one}], "mcq_builder": one,
            "mcq_answerers": [{"name": "a", **one}]}


def test_a_stage_on_a_crashing_runtime_exits_2_with_the_message(tmp_path: Path) -> None:
    for pid in ("P1", "P2"):
        write_doc(tmp_path / "data" / "personalities", make_doc(pid))
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF not really a model")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({
        "providers": {"local": {"kind": "llama_cpp", "model_path": str(model)}},
        "models": models("local"),
    }))
    assert invoke(tmp_path, "prepare").exit_code == 0
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(fake_runtime(tmp_path, CRASH)), str(REPO)])}
    done = subprocess.run([sys.executable, "-m", "stages", "fact-summary"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "killed by SIGSEGV" in done.stderr
    assert "tools/install-llama-runtime.sh" in done.stderr
    assert "Traceback" not in done.stderr


def test_doctor_reports_runtime_providers_and_cache_and_fails_on_a_missing_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCTOR_TEST_KEY", "")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({
        "providers": {
            "script": {"kind": "scripted", "script": "tests.scripted_models:echo_answer"},
            "remote": {"kind": "openai", "base_url": "http://127.0.0.1:9/v1",
                       "api_key_env": "DOCTOR_TEST_KEY"},
        },
        "models": models("script"),
    }))
    result = invoke(tmp_path, "doctor")
    assert result.exit_code == 0, result.output
    for expected in ("cpu ", "runtime ", "build flags:", "script", "remote",
                     "not asked ($DOCTOR_TEST_KEY is not set)", "encoder     all-MiniLM-L6-v2",
                     "(SHA-256 ok)", "cache ", "doctor: all checks passed"):
        assert expected in result.output
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({
        "providers": {"local": {"kind": "llama_cpp", "model_path": str(tmp_path / "no.gguf")}},
        "models": models("local"),
    }))
    result = invoke(tmp_path, "doctor")
    assert result.exit_code == 2
    assert "GGUF model file not found" in result.output


def test_doctor_fails_when_the_sentence_encoder_is_missing_and_says_how_to_install_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from interviewsim.text import encoder

    (tmp_path / "params.yaml").write_text(yaml.safe_dump({
        "providers": {"script": {"kind": "scripted",
                                 "script": "tests.scripted_models:echo_answer"}},
        "models": models("script")}))
    monkeypatch.setenv(encoder.ENV_DIR, str(tmp_path / "nowhere"))
    encoder.base_files.cache_clear()
    try:
        result = invoke(tmp_path, "doctor")
    finally:
        encoder.base_files.cache_clear()
    assert result.exit_code == 2
    assert "encoder     missing or not the expected files" in result.output
    assert "tools/install-encoder.sh" in result.output


def test_the_cpu_variant_is_named_from_the_build_flags() -> None:
    from interviewsim.llm.runtime_probe import cpu_variant

    portable = ("-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AVX2=ON -DGGML_FMA=ON "
                "-DGGML_F16C=ON -DGGML_AVX=ON -DGGML_OPENMP=OFF")
    assert cpu_variant(portable).startswith("avx2")
    assert cpu_variant(portable.replace("AVX512=OFF", "AVX512=ON")).startswith("avx512")
    assert cpu_variant("unknown", "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 0 |") == \
        "custom build (SSE3, AVX)"
