"""Does the embedded llama.cpp runtime work on this CPU? Asked once, in a child process.

llama-cpp-python compiled for another CPU (pip's default build is ``-march=native`` on whatever
machine built it) dies inside the first ``llama_decode`` with SIGSEGV or SIGILL, taking the
stage and its Python traceback with it. So before a process makes its first in-process call,
a child loads the configured model and evaluates one token. A child that dies from a signal or
hangs turns into a :class:`ProviderError` (exit 2) that names the CPU's features, the runtime's
build flags and the command that rebuilds it portably. A pass is memoised per runtime build
(its files' sizes and times) and model content hash in ``runtime-probe.json`` beside the
response cache, so the check costs about a second once per install, not per stage.

:func:`runtime_report` gathers the same facts for ``interviewsim doctor``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import platform
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from interviewsim.data.jsonio import write_json_atomic
from interviewsim.errors import ProviderError

PROBE_TIMEOUT_S = 180.0
"""Generous: loading a 100 MB model and evaluating one token takes about a second when idle."""

INSTALL_SCRIPT = "tools/install-llama-runtime.sh"
PROBE_MEMO = "runtime-probe.json"
"""File name of the memo, beside the response cache."""

PROBE_CODE = """
import json, sys
import llama_cpp
info = llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()
print(json.dumps({"system_info": info}), flush=True)
llm = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=64, n_threads=int(sys.argv[2]), verbose=False)
out = llm.create_completion("Hello", max_tokens=1, temperature=0.0)
print(json.dumps({"ok": True, "tokens": out["usage"]["total_tokens"]}), flush=True)
llm.close()
"""
"""What the child runs: print llama.cpp's system info, then load the model and decode."""

_CPU_FEATURES = (
    "sse4_2 avx avx2 fma f16c bmi2 avx_vnni avx512f avx512bw avx512vl avx512_vnni avx512_bf16 "
    "avx512_fp16 amx_tile amx_int8 amx_bf16 asimd asimddp sve sve2 i8mm"
).split()
"""The /proc/cpuinfo flags that decide which llama.cpp kernels can run."""

_VERIFIED: set[str] = set()
_VERIFIED_LOCK = threading.Lock()


@dataclass(frozen=True)
class ProbeResult:
    """How the child ended: ``ok``, or the signal / exit code / timeout and its last words."""

    ok: bool
    failure: str
    system_info: str
    output_tail: str


def cpu_summary() -> tuple[str, list[str]]:
    """The CPU's model name and the llama.cpp-relevant feature flags it reports."""
    name, flags = platform.processor() or platform.machine(), set()
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        for line in cpuinfo.splitlines():
            key, _, value = line.partition(":")
            key = key.strip().lower()
            if key == "model name":
                name = value.strip()
            elif key in ("flags", "features"):
                flags.update(value.split())
    except OSError:
        pass
    return name, [flag for flag in _CPU_FEATURES if flag in flags]


def runtime_package_dir() -> Path | None:
    """The installed ``llama_cpp`` package folder, found without importing it."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def runtime_build_id(package: Path) -> str:
    """Names one installed build: a hash of its files' paths, sizes and modification times."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            stat = path.stat()
            digest.update(f"{path.relative_to(package)}\0{stat.st_size}\0{stat.st_mtime_ns}\n"
                          .encode())
    return digest.hexdigest()[:16]


def runtime_install() -> tuple[str, str]:
    """(version, build flags) of the installed llama-cpp-python, as far as they can be known.

    tools/install-llama-runtime.sh installs from a wheelhouse that records its CMake flags;
    pip records that wheel's path in the distribution's direct_url.json.
    """
    try:
        dist = importlib.metadata.distribution("llama_cpp_python")
    except importlib.metadata.PackageNotFoundError:
        return "not installed", "none"
    url = ""
    with contextlib.suppress(ValueError):
        url = json.loads(dist.read_text("direct_url.json") or "{}").get("url", "")
    if url.startswith("file://"):
        flags_file = Path(url.removeprefix("file://")).parent / "build-flags.txt"
        if flags_file.is_file():
            for line in flags_file.read_text(encoding="utf-8").splitlines():
                if line.startswith("CMAKE_ARGS="):
                    return dist.version, line.removeprefix("CMAKE_ARGS=") or "(defaults)"
    return dist.version, (f"unknown: not installed by {INSTALL_SCRIPT} (pip's own build of "
                          "llama-cpp-python is -march=native, for the CPU that compiled it)")


def cpu_variant(flags: str, system_info: str = "") -> str:
    """Which CPU kernels the installed build runs: the variant tools/install-llama-runtime.sh
    built (``avx2``, ``avx512``), or what llama.cpp's system info reports for any other build."""
    if "-DGGML_AVX512=ON" in flags:
        return "avx512 (AVX-512 F/BW/VL/VNNI/VBMI/BF16 kernels)"
    if "-DGGML_AVX512=OFF" in flags and "-DGGML_AVX2=ON" in flags:
        return "avx2 (x86-64-v3 kernels, the portable default)"
    enabled = [part.split("=")[0].split(":")[-1].strip() for part in system_info.split("|")
               if part.strip().endswith("= 1")]
    return "custom build" + (f" ({', '.join(enabled)})" if enabled else "")


def run_probe(model: Path, n_threads: int, timeout_s: float = PROBE_TIMEOUT_S,
              code: str = PROBE_CODE) -> ProbeResult:
    """Run ``code`` (by default :data:`PROBE_CODE`) in a child Python and say how it ended."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(model), str(n_threads)],
            capture_output=True, text=True, timeout=timeout_s, errors="replace",
        )
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or "") if isinstance(exc.stdout, str) else ""
        return ProbeResult(False, f"no answer within {timeout_s:.0f} s", _system_info(out),
                           out[-2000:])
    info = _system_info(done.stdout)
    tail = (done.stdout + done.stderr)[-2000:]
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        return ProbeResult(False, f"killed by {name}", info, tail)
    if done.returncode != 0 or '"ok": true' not in done.stdout:
        return ProbeResult(False, f"exit code {done.returncode}", info, tail)
    return ProbeResult(True, "", info, tail)


def _system_info(stdout: str) -> str:
    for line in stdout.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and "system_info" in record:
            return str(record["system_info"])
    return ""


def rebuild_command(features: list[str]) -> str:
    """The command that reinstalls the runtime portably for this CPU."""
    python = sys.executable
    if platform.machine().lower() in ("x86_64", "amd64") and "avx2" not in features:
        args = ("-DGGML_NATIVE=OFF -DGGML_AVX2=OFF -DGGML_BMI2=OFF -DGGML_FMA=OFF "
                "-DGGML_F16C=OFF -DGGML_AVX512=OFF")
        return f'LLAMA_CMAKE_ARGS="{args}" {INSTALL_SCRIPT} {python}'
    return f"{INSTALL_SCRIPT} {python}"


def failure_message(provider: str, model: Path, result: ProbeResult) -> str:
    """Everything a user needs to see why the runtime failed and how to fix it."""
    cpu, features = cpu_summary()
    version, flags = runtime_install()
    return (
        f"provider {provider!r}: the embedded llama.cpp runtime failed a one-token test call in "
        f"a child process ({result.failure}) with model {model}; the stage stopped before "
        "calling it in-process.\n"
        f"  CPU: {cpu}; features: {' '.join(features) or 'none detected'}\n"
        f"  runtime: llama-cpp-python {version}; build flags: {flags}\n"
        f"  llama.cpp system info: {result.system_info or 'unavailable (it died first)'}\n"
        f"  rebuild it portably (from the repository root): {rebuild_command(features)}\n"
        "  then `interviewsim doctor` checks it again."
    )


def ensure_runtime_works(provider: str, model: Path, model_hash: str, n_threads: int,
                         memo: Path) -> None:
    """Raise ProviderError unless this runtime build has evaluated a token of this model.

    Memoised in-process and in ``memo`` (a JSON file) by runtime build and model hash.
    """
    package = runtime_package_dir()
    if package is None:
        raise ProviderError(
            f"provider {provider!r}: llama-cpp-python is not installed; install it portably "
            f"with {INSTALL_SCRIPT} {sys.executable} (or `make setup`)"
        )
    key = f"{runtime_build_id(package)}:{model_hash}"
    with _VERIFIED_LOCK:
        if key in _VERIFIED:
            return
        try:
            known = json.loads(memo.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        if not (isinstance(known, dict) and isinstance(known.get(key), dict)
                and known[key].get("ok") is True):
            result = run_probe(model, n_threads)
            if not result.ok:
                raise ProviderError(failure_message(provider, model, result))
            known = known if isinstance(known, dict) else {}
            known[key] = {"ok": True, "system_info": result.system_info}
            memo.parent.mkdir(parents=True, exist_ok=True)
            write_json_atomic(memo, known)
        _VERIFIED.add(key)

