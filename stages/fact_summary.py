"""DVC stage ``fact-summary``: one evaluation-only summary per personality and judge model."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from interviewsim.data.corpus import iter_personalities
from interviewsim.data.jsonio import write_jsonl_atomic
from interviewsim.data.stage_summary import write_summary
from interviewsim.judges.fact_summary import (
    CHUNK,
    FACT_SUMMARIES,
    summary_ask,
    summary_model,
    summary_task,
)
from interviewsim.llm import ModelHub
from interviewsim.llm.asking import Ask
from stages.common import FACT_SUMMARY_DIR, PREPARED_DIR, params_option, read_params


@click.command()
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True, help="Held-out responses (from prepare).")
@click.option("--out-dir", type=click.Path(path_type=Path), default=FACT_SUMMARY_DIR,
              show_default=True, help="Where fact_summaries.jsonl and summary.json go.")
@click.option("--dry-run", is_flag=True,
              help="Count calls, cache hits and estimated prompt tokens; call nothing.")
def fact_summary(params_path: Path, prepared_dir: Path, out_dir: Path, dry_run: bool) -> None:
    """Summarise each personality's held-out responses once per judge model.

    The summary is what the Factual Consistency judge checks answers against; it is built from
    held-out text, so it is evaluation-only and never reaches a generation prompt. Output must
    be {"summary", "explanation"} and the summary must not cite, link or name interview or
    question ids; an output that fails is re-asked with a new sample index up to
    judge.max_attempts, then kept with its raw outputs and the reason it is invalid.
    Writes fact_summaries.jsonl (sorted by personality_id, judge) and summary.json.
    """
    params = read_params(params_path)
    judges = [summary_model(j, params.judge.fact_summary_min_tokens)
              for j in sorted(params.models.judges, key=lambda j: j.name)]

    def chunks():
        """(personality ids, asks) of CHUNK personalities at a time: memory stays bounded."""
        ids: list[str] = []
        asks: list[Ask] = []
        for person in iter_personalities(prepared_dir):  # asks keep no training pairs
            ids.append(person.personality_id)
            asks.append(summary_ask(person))
            if len(ids) == CHUNK:
                yield ids, asks
                ids, asks = [], []
        if ids:
            yield ids, asks

    with ModelHub(params.hub) as hub:
        clients = {j.name: hub.client(j, label=f"fact-summary/{j.name}") for j in judges}
        if dry_run:
            plans = [summary_task(j).plan(clients[j.name], asks)
                     for _, asks in chunks() for j in judges]
            click.echo(f"fact-summary (dry run): {sum(p.calls for p in plans)} calls, "
                       f"{sum(p.cache_hits for p in plans)} already cached, "
                       f"~{sum(p.est_prompt_tokens for p in plans)} prompt tokens")
            return
        counts: Counter[str] = Counter(valid=0, invalid=0, reasks=0)

        def records():
            for ids, asks in chunks():
                chunk = []
                for judge in judges:
                    outcomes = summary_task(judge).run(clients[judge.name], asks,
                                                       params.judge.max_attempts,
                                                       desc=f"fact-summary {judge.name}")
                    for pid, outcome in zip(ids, outcomes, strict=True):
                        counts["valid" if outcome.valid else "invalid"] += 1
                        counts["reasks"] += len(outcome.calls) - 1
                        chunk.append({"personality_id": pid, "judge": judge.name,
                                      "model": judge.model, **outcome.record()})
                yield from sorted(chunk, key=lambda r: (r["personality_id"], r["judge"]))

        total = write_jsonl_atomic(out_dir / FACT_SUMMARIES, records())
        write_summary(out_dir / "summary.json", {"fact_summaries": total, **counts},
                      hub.usage())
    click.echo(f"fact-summary: {total} summaries ({counts['invalid']} invalid) "
               f"-> {out_dir}")
