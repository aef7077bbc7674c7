"""``interviewsim cache``: inspect the model-response cache shared by every model stage."""

from __future__ import annotations

from pathlib import Path

import click

from interviewsim.llm.cache import ResponseCache
from stages.common import params_option, read_params


def _size(n_bytes: int) -> str:
    size = float(n_bytes)
    for unit in ("B", "KiB", "MiB"):
        if size < 1024:
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


@click.group()
def cache() -> None:
    """Inspect the response cache (params: cache.path)."""


@cache.command("stats")
@params_option
def stats(params_path: Path) -> None:
    """Print the entries, size on disk, and cache hits and misses per provider/model."""
    path = Path(read_params(params_path).cache.path)
    if not path.exists():
        click.echo(f"no response cache at {path} yet (it is created by the first model call)")
        return
    responses = ResponseCache(path)
    try:
        summary = responses.stats()
    finally:
        responses.close()
    click.echo(f"cache: {path}")
    click.echo(f"entries: {summary.entries}")
    click.echo(f"size: {_size(summary.size_bytes)}")
    if not summary.per_model:
        return
    width = max(len("provider/model"), *(len(name) for name in summary.per_model))
    click.echo(f"{'provider/model':<{width}}  {'hits':>8}  {'misses':>8}  {'hit rate':>8}")
    for name, counts in summary.per_model.items():
        hits, misses = counts.get("hits", 0), counts.get("misses", 0)
        rate = f"{100 * hits / (hits + misses):.1f}%" if hits + misses else "-"
        click.echo(f"{name:<{width}}  {hits:>8}  {misses:>8}  {rate:>8}")
