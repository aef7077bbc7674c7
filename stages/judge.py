"""DVC stage ``judge``: Content Similarity, Factual Consistency and Personality Similarity,
once per judge model, reduced to per-personality metrics for ``aggregate``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click

from interviewsim.config.conditions import is_control_record
from interviewsim.data.corpus import (
    PersonalityData,
    grouped_by_personality,
    iter_personalities,
    next_group,
)
from interviewsim.data.jsonio import read_jsonl, write_jsonl_atomic
from interviewsim.data.records import ControlMetric, PersonalityMetric
from interviewsim.data.spool import Spool
from interviewsim.errors import StaleInput
from interviewsim.judges.fact_summary import FACT_SUMMARIES
from interviewsim.judges.reduction import JudgeResults, PersonJudged, judge_person
from interviewsim.judges.tasks import (
    CS,
    FC,
    JudgeAsks,
    JudgeTasks,
    judge_groups,
    per_person,
    person_asks,
    ps_asks_per_person,
)
from interviewsim.llm import CallEstimate
from interviewsim.llm.asking import Outcome, run_together
from interviewsim.llm.progress import group_label
from stages.common import (
    CONTROLS_DIR,
    FACT_SUMMARY_DIR,
    GENERATED_DIR,
    JUDGED_DIR,
    PREPARED_DIR,
    params_option,
    read_params,
)
from stages.runner.copies import OrderKey, Shard, by_personality, shard_option
from stages.runner.model_stage import Clients, ModelStage, Role, run_stage

JUDGED_OUTPUTS = (CS, FC, "ps_runs")
Item = tuple[PersonalityData, list[dict], list[dict]]
"""A personality, its generated answers and its controls' answers."""
Asked = dict[str, tuple[list[JudgeAsks], list[list[int]], list]]
"""Per judge: each personality's asks and CS order, and the (task, asks) groups of them all."""


class JudgeStage(ModelStage[Item, tuple[Asked, dict[str, list[list[Outcome]]]]]):
    name = "judge"
    main_file = "judgments.jsonl"

    def __init__(self, params, shard: Shard | None, prepared_dir: Path, answers_path: Path,
                 summaries: dict[tuple[str, str], dict], controls_path: Path | None):
        """``summaries``: the fact summaries by (personality, judge)."""
        super().__init__(params, shard)
        self.prepared_dir, self.answers_path = prepared_dir, answers_path
        self.controls_path = controls_path
        self.summaries = summaries
        self.judges = sorted(params.models.judges, key=lambda j: j.name)
        self.results = JudgeResults()
        self.control_judgments = Spool()
        self.skipped: Counter[str] = Counter(answers=0, invalid_answers_not_judged=0)

    def roles(self) -> list[Role]:
        return [Role(j.name, f"judge/{j.name}", j) for j in self.judges]

    def shard_files(self) -> dict[str, OrderKey]:
        files: dict[str, OrderKey] = {
            "judgments.jsonl": by_personality, "ps_runs.jsonl": by_personality,
            "ps_votes.jsonl": by_personality,
            "personality_metrics.jsonl": lambda r: PersonalityMetric(**r).sort_key()}
        if self.params.controls:
            files |= {f"control_{name}.jsonl": by_personality
                      for name in ("judgments", "ps_runs", "ps_votes")}
            files["control_metrics.jsonl"] = lambda r: ControlMetric(**r).sort_key()
        return files

    def work(self) -> Iterator[Item]:
        """Each personality (of the shard) with its answers, checked against params and the
        fact summaries, and its control answers."""
        answers = grouped_by_personality(self.answers_path)
        controls = (grouped_by_personality(self.controls_path)
                    if self.controls_path is not None else None)
        takes = self.shard.takes if self.shard else None
        for person in iter_personalities(self.prepared_dir, takes):
            pid = person.personality_id
            found_pid, records = next_group(answers, pid, takes is not None)
            if found_pid != pid:
                raise StaleInput(self.answers_path, "generate", f"{found_pid} vs {pid}")
            found = sorted({r["strategy"] for r in records})
            if found != sorted(self.params.strategies):
                raise StaleInput(self.answers_path, "generate",
                                 f"{pid} has answers for {found} but params.strategies is "
                                 f"{sorted(self.params.strategies)}")
            for judge in self.judges:
                if (pid, judge.name) not in self.summaries:
                    raise StaleInput(FACT_SUMMARIES, "fact-summary",
                                     f"no fact summary for {pid} by judge {judge.name!r}")
            own: list[dict] = []
            if controls is not None:
                cid, own = next_group(controls, pid, True)
                if cid != pid or {c["control"] for c in own} != set(self.params.controls):
                    raise StaleInput(self.controls_path, "controls", f"for {pid}")
            yield person, records, own

    def size(self, item: Item) -> int:
        ps = ps_asks_per_person(len(self.params.strategies) + len(self.params.controls),
                                self.params.judge.ps_runs)
        return 2 * (len(item[1]) + len(item[2])) + ps

    def _asks(self, judge, item: Item) -> JudgeAsks:
        person, answers, controls = item
        return person_asks(person, answers, self.summaries[(person.personality_id, judge.name)],
                           self.params, controls)

    def dry_run(self, clients: Clients, item: Item) -> Iterable[tuple[str, CallEstimate]]:
        for judge in self.judges:
            mine = self._asks(judge, item)
            tasks = JudgeTasks.of(judge, self.params)
            for task, asks in ((tasks.cs, mine.cs), (tasks.fc, mine.fc or []),
                               (tasks.ps, mine.ps)):
                yield judge.name, task.estimate(clients[judge.name], asks)

    def ask(self, clients: Clients, chunk: list[Item]
            ) -> tuple[Asked, dict[str, list[list[Outcome]]]]:
        asked: Asked = {}
        for judge in self.judges:
            tasks = JudgeTasks.of(judge, self.params)
            mine, orders, groups = [], [], []
            for item in chunk:
                person_asks = self._asks(judge, item)
                asks, order = judge_groups(item[0], person_asks, tasks, self.params)
                mine.append(person_asks)
                orders.append(order)
                groups += asks
            asked[judge.name] = (mine, orders, groups)
        ids = group_label([person.personality_id for person, _, _ in chunk])
        return asked, {j.name: run_together(clients[j.name], asked[j.name][2],
                                            self.params.judge.max_attempts,
                                            f"judge {j.name} {ids}")
                       for j in self.judges}

    def reduce(self, chunk: list[Item], answered: tuple[Asked, dict[str, list[list[Outcome]]]]
               ) -> Iterator[dict]:
        """Judgments in personality order, then judge order (a control's go to its spool);
        PS runs and votes to the results, each to its condition's list."""
        asked, outcome_sets = answered
        records: dict[tuple[str, str], PersonJudged] = {}
        for judge in self.judges:
            mine, orders, _ = asked[judge.name]
            outcomes = per_person(outcome_sets[judge.name], len(chunk))
            for k, (person, _, _) in enumerate(chunk):
                records[(person.personality_id, judge.name)] = judge_person(
                    person, mine[k], judge, self.params, self.results, outcomes[k], orders[k])
        for person, answers, _ in chunk:
            self.skipped.update(answers=len(answers),
                                invalid_answers_not_judged=sum(not a["valid"] for a in answers))
            for judge in self.judges:
                judged = records[(person.personality_id, judge.name)]
                self.results.file_ps(judged.ps_runs, judged.ps_votes)
                for record in judged.judgments:
                    if is_control_record(record):
                        self.control_judgments.append(record)
                    else:
                        yield record

    def finish(self, out_dir: Path, records: int) -> dict[str, Any]:
        results = self.results
        write_jsonl_atomic(out_dir / "ps_runs.jsonl", results.ps_runs)
        write_jsonl_atomic(out_dir / "ps_votes.jsonl", results.ps_votes)
        metrics = sorted(results.metrics, key=PersonalityMetric.sort_key)
        write_jsonl_atomic(out_dir / "personality_metrics.jsonl",
                           (m.model_dump() for m in metrics))
        if self.params.controls:
            write_jsonl_atomic(out_dir / "control_judgments.jsonl", self.control_judgments)
            write_jsonl_atomic(out_dir / "control_ps_runs.jsonl", results.control_ps_runs)
            write_jsonl_atomic(out_dir / "control_ps_votes.jsonl", results.control_ps_votes)
            write_jsonl_atomic(out_dir / "control_metrics.jsonl", (
                m.model_dump() for m in sorted(results.control_metrics,
                                               key=ControlMetric.sort_key)))
        return {"inputs": dict(self.skipped), "judgments": records,
                "per_judge": {j: {w: dict(c) for w, c in per.items()}
                              for j, per in sorted(results.counts.items())}}

    def done(self, records: int, out_dir: Path) -> str:
        invalid = sum(per[w]["invalid"] for per in self.results.counts.values()
                      for w in JUDGED_OUTPUTS)
        return (f"judge: {records} CS/FC judgments, {len(self.results.ps_runs)} PS runs, "
                f"{invalid} invalid (kept, not scored; see summary.json) -> {out_dir}")


@click.command()
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True, help="Held-out references (from prepare).")
@click.option("--generated-dir", type=click.Path(path_type=Path), default=GENERATED_DIR,
              show_default=True, help="answers.jsonl (from generate).")
@click.option("--summary-dir", type=click.Path(path_type=Path), default=FACT_SUMMARY_DIR,
              show_default=True, help="fact_summaries.jsonl (from fact-summary).")
@click.option("--controls-dir", type=click.Path(path_type=Path), default=CONTROLS_DIR,
              show_default=True, help="answers.jsonl of the controls (from controls).")
@click.option("--out-dir", type=click.Path(path_type=Path), default=JUDGED_DIR,
              show_default=True, help="Where judgments, PS runs/votes and metrics go.")
@click.option("--dry-run", is_flag=True,
              help="Count first-attempt calls, cache hits and prompt tokens; call nothing.")
@shard_option
def judge(params_path: Path, prepared_dir: Path, generated_dir: Path, summary_dir: Path,
          controls_dir: Path, out_dir: Path, dry_run: bool, shard: Shard | None) -> None:
    """Judge every valid generated answer with every judge in models.judges.

    CS: each answer against its held-out reference (score 1-5). FC: each answer against the
    personality's fact summary from the same judge (Entailment / Neutral / Contradiction).
    PS: each Big Five trait of the held-out responses and of each strategy's answers, rated
    judge.ps_runs times at judge.ps_temperature, voted, and compared as an alignment.
    Outputs breaking their contract are re-asked up to judge.max_attempts, then kept with raw
    outputs and the error, excluded from the metrics and counted in summary.json.
    Writes judgments.jsonl, ps_runs.jsonl, ps_votes.jsonl, personality_metrics.jsonl. The
    params.controls (oracle, impostor, retest; from the controls stage) are judged the same way into
    control_judgments.jsonl, control_ps_runs.jsonl, control_ps_votes.jsonl and
    control_metrics.jsonl, never into the strategies' files.
    With ``processes: N`` on the judges' providers the stage runs as N processes.
    """
    params = read_params(params_path)
    summaries = {(r["personality_id"], r["judge"]): r
                 for r in read_jsonl(summary_dir / FACT_SUMMARIES)}
    controls_path = controls_dir / "answers.jsonl" if params.controls else None
    if controls_path is not None and not controls_path.is_file():
        raise click.ClickException(f"{controls_path} is missing; run `interviewsim controls`, "
                                   "or set controls: [] in params.yaml")
    stage = JudgeStage(params, shard, prepared_dir, generated_dir / "answers.jsonl", summaries,
                  controls_path)
    run_stage(stage, out_dir, dry_run)
