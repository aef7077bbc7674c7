"""``interviewsim cache``: inspect and combine the model-response cache every model stage shares.

Sharing it through DVC: after a run, ``dvc add data/cache/responses.sqlite`` and ``dvc push``
(the file is complete once no run has it open: the last connection folds SQLite's write-ahead
log back into it). A teammate runs ``dvc pull`` to take it as is, or pulls it to another path
and runs ``interviewsim cache merge THAT_FILE`` to add its answers to their own cache.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import click

from interviewsim.errors import ConfigError, Problem
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


@cache.command("merge")
@click.argument("other", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@params_option
def merge(other: Path, params_path: Path) -> None:
    """Add every response in OTHER (another machine's cache file) that this cache lacks."""
    path = Path(read_params(params_path).cache.path)
    responses = ResponseCache(path)
    try:
        added = responses.store.merge_from(other)
        total = len(responses.store)
    except sqlite3.DatabaseError as exc:
        raise ConfigError([Problem(str(other), "", f"not a response cache: {exc}")]) from None
    finally:
        responses.close()
    click.echo(f"added {added} responses from {other}; {path} now holds {total}")
