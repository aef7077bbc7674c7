"""One stage as several processes, each over a shard of the personalities.

A stage whose models sit behind an HTTP provider with ``processes: N`` (params.yaml) starts N
copies of itself, ``--shard K/N`` each: copy K takes the personalities at positions K, K+N, ...
(in id order) and sends ``max_concurrency / N`` requests at a time, so the provider's limit
holds for the stage as a whole. Each copy writes its artifacts into a folder of its own;
when all have exited 0 the parent merges them in personality order into the stage's out-dir
(byte-identical to a one-process run: the same records in the same order) and adds up their
summaries. One Python process drives one core (its event loop and prompt building share the
interpreter lock); the copies are how a stage uses the others. They are forks of the stage
process, taken before it starts any thread, so they begin with everything imported; in a
process that already runs threads (a test with an in-process mock endpoint) they are new
interpreters instead.

A copy that fails stops the rest; the stage exits with that copy's exit code and writes
nothing. Finished model calls are in the shared response cache, so a rerun repeats none.
"""

from __future__ import annotations

import functools
import heapq
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import click

from interviewsim.config.settings import ModelSettings, OpenAIProviderSettings, ProviderSettings
from interviewsim.data.jsonio import load_json_strict, write_lines_atomic
from interviewsim.data.stage_summary import RUN_LOG, write_summary
from interviewsim.llm.usage import add_summaries


class WithProviders(Protocol):
    """Settings that name their providers (the experiment's params): all a stage's copies
    need to know to divide the providers' concurrency among themselves."""

    @property
    def providers(self) -> dict[str, ProviderSettings]: ...

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False
                   ) -> Any: ...


P = TypeVar("P", bound=WithProviders)


@dataclass(frozen=True)
class Shard:
    """Copy ``index`` of ``count``."""

    index: int
    count: int

    def takes(self, position: int) -> bool:
        return position % self.count == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


class _ShardType(click.ParamType):
    name = "K/N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> Shard:
        if isinstance(value, Shard):
            return value
        index, _, count = str(value).partition("/")
        if index.isdigit() and count.isdigit() and int(index) < int(count):
            return Shard(int(index), int(count))
        self.fail(f"{value!r} is not K/N with 0 <= K < N", param, ctx)


shard_option = click.option(
    "--shard", type=_ShardType(), default=None, hidden=True,
    help="Internal: run copy K of N over every N-th personality (set by the stage itself).")


def stage_processes(params: WithProviders, models: Iterable[ModelSettings]) -> int:
    """How many copies a stage runs: the largest ``processes`` among its models' providers
    (1 for the embedded and scripted providers, which have no such setting)."""
    counts = [getattr(params.providers[m.provider], "processes", 1) for m in models]
    return max(counts, default=1)


def shard_params(params: P, shard: Shard) -> P:
    """params as one copy sees them: every HTTP provider's concurrency divided among the
    copies (at least 1 each), and one process."""
    providers = {
        name: settings.model_copy(update={
            "max_concurrency": max(1, settings.max_concurrency // shard.count), "processes": 1})
        if isinstance(settings, OpenAIProviderSettings) else settings
        for name, settings in params.providers.items()
    }
    return params.model_copy(update={"providers": providers})


def _argv(ctx: click.Context, skip: set[str]) -> list[str]:
    """The command line that reproduces ``ctx``'s options, minus those named in ``skip``."""
    argv: list[str] = []
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name in skip:
            continue
        value = ctx.params.get(param.name)
        flag = max(param.opts, key=len)
        if param.is_flag:
            argv += [flag] if value else []
        elif param.multiple:
            for item in value or ():
                argv += [flag, str(item)]
        elif value is not None:
            argv += [flag, str(value)]
    return argv


OrderKey = Callable[[dict], Any]
"""The order of a JSON Lines record (the copies' files are merged by it)."""


def by_personality(record: dict) -> str:
    return record["personality_id"]


def _keyed_lines(path: Path, key: OrderKey) -> Iterator[tuple[Any, str]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            yield key(json.loads(line)), line


def _merged(paths: list[Path], key: OrderKey) -> Iterator[str]:
    """The shards' lines in ``key`` order (each shard file is already in that order), as
    written: merging does not re-encode a record."""
    last = None
    for current, line in heapq.merge(*(_keyed_lines(p, key) for p in paths),
                                     key=lambda pair: pair[0]):
        if last is not None and current < last:
            raise RuntimeError(f"{paths[0].name}: a shard is not in order at {current!r}")
        last = current
        yield line


class _Forked:
    """A copy forked from this process, with the part of Popen's interface run_copies uses."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


ENTRY_POINT = "interviewsim.entry_point"
"""Key of ``click.Context.meta`` under which the command line's group leaves its console entry
point (a function that reads ``sys.argv`` and exits); a forked copy runs it."""


def _fork(entry: Callable[[], None], argv: list[str], quiet: bool) -> _Forked:
    """Run ``interviewsim ARGV`` through ``entry`` in a forked copy of this process: it starts
    with every module already imported (half a second per copy). Only called with no other
    thread running."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return _Forked(pid)
    code = 1
    try:
        if quiet:
            os.environ["INTERVIEWSIM_PROGRESS"] = "0"
        sys.argv = ["interviewsim", *argv]
        entry()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - report, then leave with 1
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _spawn(argv: list[str], quiet: bool) -> subprocess.Popen:
    """Run ``interviewsim ARGV`` as a new interpreter (when this process has threads, which a
    fork would not carry over)."""
    env = dict(os.environ)
    if quiet:
        env["INTERVIEWSIM_PROGRESS"] = "0"
    return subprocess.Popen([sys.executable, "-m", "stages", *argv], env=env)


def run_copies(ctx: click.Context, count: int, out_dir: Path, files: dict[str, OrderKey]) -> None:
    """Run ``ctx``'s command as ``count`` copies and merge their ``files`` (JSON Lines, each
    with its order key) and summary.json into ``out_dir``. Exits with a failed copy's code."""
    work = out_dir / f".copies-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    argv = [str(ctx.info_name), *_argv(ctx, {"shard", "out_dir"})]
    entry = ctx.find_root().meta.get(ENTRY_POINT)
    forkable = entry is not None and threading.active_count() == 1 and hasattr(os, "fork")
    start = functools.partial(_fork, entry) if forkable else _spawn
    children: list[Any] = []
    how = "forked" if forkable else "new interpreters"
    click.echo(f"{ctx.info_name}: {count} processes ({how}), each over 1 in {count} "
               "personalities", err=True)
    try:
        for k in range(count):
            # one progress bar: the copies are the same size within a personality
            children.append(start([*argv, "--shard", f"{k}/{count}",
                                   "--out-dir", str(work / str(k))], quiet=k > 0))
        failed = 0
        while not failed and any(child.poll() is None for child in children):
            failed = next((c.returncode for c in children if c.returncode), 0)
            time.sleep(0.02)
        failed = failed or next((c.returncode for c in children if c.returncode), 0)
        if failed:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                child.wait()
            raise SystemExit(failed if failed > 0 else 1)
        shards = [work / str(k) for k in range(count)]
        for name, key in files.items():
            write_lines_atomic(out_dir / name, _merged([s / name for s in shards], key))
        summaries = [load_json_strict(s / RUN_LOG) for s in shards]
        total = summaries[0]
        for summary in summaries[1:]:
            total = add_summaries(total, summary)
        write_summary(out_dir / "summary.json", total["counts"], total["usage"])
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
        shutil.rmtree(work, ignore_errors=True)


def as_copies(params: P, shard: Shard | None, dry_run: bool,
              models: Iterable[ModelSettings], files: dict[str, OrderKey]) -> P | None:
    """Where a stage command decides how it runs: the params for this process (a copy's, when
    ``shard`` is given), or None once the stage has run as copies and merged ``files`` into
    its ``--out-dir`` (the command then has nothing left to do). A dry run is one process."""
    if shard is not None:
        return shard_params(params, shard)
    count = stage_processes(params, models)
    if dry_run or count == 1:
        return params
    ctx = click.get_current_context()
    run_copies(ctx, count, ctx.params["out_dir"], files)
    return None
