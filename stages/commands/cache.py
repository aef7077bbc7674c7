"""``interviewsim cache``: inspect, export and combine the model-response cache.

The responses behind the committed results ship as a JSON Lines export tracked by DVC
(``data/sample-cache/responses.jsonl``, in the repository's own DVC remote; README
"Reproducing the committed results"); ``make run`` pulls it and merges it into
``data/cache/responses.sqlite``. A team shares a cache the same way, or with
``dvc add data/cache/responses.sqlite`` once no run has it open.
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
    """Add every response in OTHER that this cache lacks: another machine's cache file, or a
    JSON Lines export (`interviewsim cache export`, e.g. the shipped sample cache)."""
    path = Path(read_params(params_path).cache.path)
    responses = ResponseCache(path)
    try:
        if other.suffix == ".jsonl":
            added = responses.merge_jsonl(other)
        else:
            added = responses.store.merge_from(other)
        total = len(responses.store)
    except (sqlite3.DatabaseError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError([Problem(str(other), "", f"not a response cache: {exc}")]) from None
    finally:
        responses.close()
    click.echo(f"added {added} responses from {other}; {path} now holds {total}")


@cache.command("export")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--keys", "keys_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Export only the keys listed in this file, one per line (duplicates are "
                   "fine): e.g. the trace INTERVIEWSIM_CACHE_TRACE wrote during a run.")
@params_option
def export(out: Path, keys_file: Path | None, params_path: Path) -> None:
    """Write the cache's responses to OUT as sorted JSON Lines (what `make lock` ships).

    Exit 1 when a listed key is not in the cache.
    """
    path = Path(read_params(params_path).cache.path)
    keys = None
    if keys_file is not None:
        keys = {line.strip() for line in keys_file.read_text(encoding="utf-8").splitlines()
                if line.strip()}
    responses = ResponseCache(path)
    try:
        written = responses.export_jsonl(out, keys)
    except KeyError as exc:
        raise ConfigError([Problem(str(keys_file), "", str(exc.args[0]))]) from None
    finally:
        responses.close()
    click.echo(f"exported {written} responses from {path} to {out}")
