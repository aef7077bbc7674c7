"""The one runner of the model stages (generate, fact-summary, judge, mcq-build, mcq-answer).

A stage declares a :class:`ModelStage`: the models it asks, its work per personality (in id
order), how many requests one item sends, how to ask a group of items, and how to reduce a
group's answers to records. :func:`run_stage` does everything else, the same way for each:

- ``--dry-run``: every item's first-attempt requests priced by the response cache
  (:meth:`ModelStage.dry_run`), one line of totals, nothing written;
- ``processes: N`` on a provider: the stage as N copies over every N-th personality
  (:mod:`stages.runner.copies`), for the stages that declare their mergeable files;
- otherwise personalities grouped until their requests fill the endpoint's concurrency, the
  next group asked while this one is reduced and written (:mod:`stages.runner.batching`),
  records in personality order whatever the grouping, the stage's side files and
  ``summary.json`` (counts and model usage) written last, each atomically.

:func:`count_calls` is the dry run without a command line: the cost planner
(``interviewsim plan``) counts each stage's calls through the same declarations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import click
from tqdm import tqdm

from interviewsim.config.params import Params
from interviewsim.config.settings import ModelSettings
from interviewsim.data.jsonio import write_jsonl_atomic
from interviewsim.data.stage_summary import write_summary
from interviewsim.llm import CallEstimate, ModelClient, ModelHub
from interviewsim.llm.progress import progress_enabled
from stages.runner.batching import fill_batches, overlapped
from stages.runner.copies import OrderKey, Shard, as_copies

W = TypeVar("W")
"""One personality's work: what the stage asks for it."""
R = TypeVar("R")
"""What asking a group of items returns (before it is reduced to records)."""

Clients = dict[str, ModelClient]


@dataclass(frozen=True)
class Role:
    """A model the stage asks, under the name its records and clients use."""

    name: str
    label: str
    """How usage and progress name it (``judge/local``)."""
    settings: ModelSettings


@dataclass
class CallCount:
    """First-attempt requests of a stage (a dry run), per client name: all of them, the
    distinct ones the cache lacks (the calls to make), those it answers, and the prompt tokens
    of the calls to make."""

    requests: Counter[str]
    calls: Counter[str]
    cache_hits: Counter[str]
    prompt_tokens: Counter[str]

    @classmethod
    def empty(cls) -> CallCount:
        return cls(Counter(), Counter(), Counter(), Counter())

    def add(self, name: str, estimate: CallEstimate) -> None:
        self.requests[name] += estimate.requests
        self.calls[name] += estimate.calls
        self.cache_hits[name] += estimate.cache_hits
        self.prompt_tokens[name] += estimate.est_prompt_tokens

    def line(self, stage: str, note: str = "") -> str:
        return (f"{stage} (dry run): {sum(self.requests.values())} requests, "
                f"{sum(self.calls.values())} first-attempt calls to make, "
                f"{sum(self.cache_hits.values())} already cached, "
                f"~{sum(self.prompt_tokens.values())} prompt tokens{note}")


class ModelStage(ABC, Generic[W, R]):
    """The declaration of one model stage (see the module doc)."""

    name: str
    """The DVC stage and command name (progress bars and messages use it)."""
    main_file: str
    """The JSON Lines file the reduced records stream into."""
    dry_run_note: str = ""
    """Appended to the dry-run line (what it cannot count)."""

    def __init__(self, params: Params, shard: Shard | None = None):
        self.params = params
        self.shard = shard

    @abstractmethod
    def roles(self) -> list[Role]:
        """The models this stage asks (one client each)."""

    def shard_files(self) -> dict[str, OrderKey] | None:
        """The files a copy writes and the parent merges (each with its order key), for a stage
        that can run as several processes; None: always one process."""
        return None

    def check(self, hub: ModelHub) -> None:
        """Fail early (before any input is read) when a model cannot run."""

    @abstractmethod
    def work(self) -> Iterator[W]:
        """Every personality's work item (of this copy's shard), in personality id order."""

    @abstractmethod
    def size(self, item: W) -> int:
        """How many requests ``item`` sends (personalities are grouped by it)."""

    @abstractmethod
    def dry_run(self, clients: Clients, item: W) -> Iterable[tuple[str, CallEstimate]]:
        """``item``'s first-attempt requests, priced per client name (nothing is called)."""

    @abstractmethod
    def ask(self, clients: Clients, chunk: list[W]) -> R:
        """Ask the models for a group of items (one batch per client)."""

    @abstractmethod
    def reduce(self, chunk: list[W], answered: R) -> Iterator[dict]:
        """The group's records for :attr:`main_file`, in personality order; side records
        (controls, runs, votes, metrics) are kept for :meth:`finish`."""

    @abstractmethod
    def finish(self, out_dir: Path, records: int) -> dict[str, Any]:
        """Write the side files into ``out_dir``; return the summary's counts (``records``:
        how many went to :attr:`main_file`)."""

    @abstractmethod
    def done(self, records: int, out_dir: Path) -> str:
        """The line printed when the stage has written everything."""


def _clients(stage: ModelStage, hub: ModelHub) -> Clients:
    return {role.name: hub.client(role.settings, label=role.label) for role in stage.roles()}


def _targets(clients: Sequence[ModelClient]) -> tuple[int, int]:
    return (max(c.batch_target for c in clients), max(c.first_batch_target for c in clients))


def count_calls(stage: ModelStage, hub: ModelHub) -> CallCount:
    """The stage's first-attempt calls, cache hits and prompt tokens, per client name."""
    clients = _clients(stage, hub)
    count = CallCount.empty()
    for item in stage.work():
        for name, plan in stage.dry_run(clients, item):
            count.add(name, plan)
    return count


def run_stage(stage: ModelStage, out_dir: Path, dry_run: bool) -> None:
    """Run a declared stage (see the module doc)."""
    files = stage.shard_files()
    if files is not None:
        params = as_copies(stage.params, stage.shard, dry_run,
                           [role.settings for role in stage.roles()], files)
        if params is None:  # ran as copies, merged
            return
        stage.params = params
    with ModelHub(stage.params.hub) as hub:
        stage.check(hub)
        if dry_run:
            click.echo(count_calls(stage, hub).line(stage.name, stage.dry_run_note))
            return
        clients = _clients(stage, hub)
        target, first = _targets(list(clients.values()))
        items = tqdm(stage.work(), desc=stage.name, unit="personality",
                     disable=not progress_enabled())
        chunks = fill_batches(items, stage.size, target, first)
        records = (record for chunk, answered in overlapped(
            chunks, lambda chunk: stage.ask(clients, chunk), stop=hub.stop)
                   for record in stage.reduce(chunk, answered))
        total = write_jsonl_atomic(out_dir / stage.main_file, records)
        counts = stage.finish(out_dir, total)
        write_summary(out_dir / "summary.json", counts, hub.usage())
    click.echo(stage.done(total, out_dir))
