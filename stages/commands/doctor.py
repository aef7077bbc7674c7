"""``interviewsim doctor``: can this machine run the experiment, and if not, why not."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import click

from interviewsim.config.params import Params
from interviewsim.config.settings import ProviderSettings
from interviewsim.errors import ConfigError, InterviewSimError
from interviewsim.llm.hub import build_provider
from interviewsim.llm.runtime_probe import (
    cpu_summary,
    cpu_variant,
    failure_message,
    run_probe,
    runtime_install,
    runtime_package_dir,
)
from interviewsim.llm.types import ChatRequest, Message
from interviewsim.text.encoder import base_files, encoder_dir
from stages.common import params_option, read_params


def _line(label: str, text: str) -> None:
    click.echo(f"{label:<12}{text}")


def _size(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB" if path.exists() else "absent"


def _check_llama(name: str, settings: ProviderSettings, cache_dir: str) -> bool:
    provider = build_provider(name, settings, cache_dir)
    try:
        path = provider.path  # type: ignore[attr-defined]
        digest = provider.identity("")["model"]
    except InterviewSimError as exc:
        _line(f"  {name}", f"FAIL: {exc}")
        return False
    _line(f"  {name}", f"llama_cpp, model {path} ({_size(path)}, sha256 {digest[:16]}…)")
    start = time.perf_counter()
    result = run_probe(path, settings.n_threads)  # type: ignore[union-attr]
    if result.ok:
        _line("", f"probe: ok, one token evaluated in a child process "
                  f"({time.perf_counter() - start:.1f} s)")
        _line("", f"llama.cpp: {result.system_info}")
        return True
    click.echo(failure_message(name, path, result))
    return False


def _check_openai(name: str, settings: ProviderSettings, model: str | None) -> bool:
    key_env = settings.api_key_env  # type: ignore[union-attr]
    base = settings.base_url  # type: ignore[union-attr]
    if not os.environ.get(key_env):
        _line(f"  {name}", f"openai, {base}: not asked (${key_env} is not set)")
        return True
    if model is None:
        _line(f"  {name}", f"openai, {base}: no model in params.yaml uses it")
        return True
    provider = build_provider(name, settings, ".")
    request = ChatRequest(messages=(Message(role="user", content="Say OK."),), max_tokens=2)
    start = time.perf_counter()
    try:
        asyncio.run(provider.complete(model, request))
    except InterviewSimError as exc:
        _line(f"  {name}", f"openai, {base}, model {model}: FAIL: {exc}")
        return False
    _line(f"  {name}", f"openai, {base}, model {model}: answered in "
                       f"{time.perf_counter() - start:.1f} s")
    return True


def _check_encoder() -> bool:
    """The sentence encoder behind the agent's language layer: its files, checked by SHA-256."""
    try:
        base_files()
    except ConfigError as exc:
        _line("encoder", "missing or not the expected files")
        click.echo(str(exc), err=True)
        return False
    _line("encoder", f"all-MiniLM-L6-v2 in {encoder_dir()} (SHA-256 ok)")
    return True


def _model_for(params: Params, provider: str) -> str | None:
    models = [params.models.generator, params.models.mcq_builder,
              *params.models.judges, *params.models.mcq_answerers]
    return next((m.model for m in models if m.provider == provider), None)


@click.command()
@params_option
def doctor(params_path: Path) -> None:
    """Check the runtime, the model files, the providers and the cache.

    Prints the CPU's features, how llama-cpp-python was built, llama.cpp's own system info,
    each provider's model and whether it answers (the embedded model: one token evaluated in
    a child process, so a crash cannot take this command down; an OpenAI-compatible endpoint:
    a two-token request, only when its key variable is set), the sentence encoder's files, and
    the response cache. Exit 0 when every check passes, 1 when params.yaml is invalid, 2 when a
    provider or the encoder fails.
    """
    _line("python", f"{sys.version.split()[0]} ({sys.executable})")
    cpu, features = cpu_summary()
    _line("cpu", f"{cpu}; {os.cpu_count()} cores; features: {' '.join(features) or 'none'}")
    version, flags = runtime_install()
    _line("runtime", f"llama-cpp-python {version}; build flags: {flags}")
    _line("", f"CPU variant: {cpu_variant(flags)}")
    package = runtime_package_dir()
    if package is not None:
        _line("", f"installed in {package}")
    try:
        params = read_params(params_path)
    except ConfigError as exc:
        _line("params", f"{params_path}: invalid (`interviewsim params check`)")
        click.echo(str(exc), err=True)
        raise SystemExit(1) from None
    _line("params", f"{params_path}: ok")
    cache_dir = os.path.dirname(params.cache.path) or "."
    click.echo("providers")
    healthy = True
    for name, settings in params.providers.items():
        if settings.kind == "llama_cpp":
            healthy &= _check_llama(name, settings, cache_dir)
        elif settings.kind == "openai":
            healthy &= _check_openai(name, settings, _model_for(params, name))
        else:
            _line(f"  {name}", f"scripted, {settings.script}")
    healthy &= _check_encoder()
    cache = Path(params.cache.path)
    _line("cache", f"{cache}: {_size(cache)}")
    if not healthy:
        click.echo("doctor: a provider failed (above)", err=True)
        raise SystemExit(2)
    click.echo("doctor: all checks passed")
