"""DVC stage ``controls``: the oracle and impostor answers the judges and MCQ answerers score
beside the strategies (interviewsim/analysis/controls.py). Never an input of ``generate``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from statistics import fmean, median

import click

from interviewsim.analysis.controls import EMBEDDED, IMPOSTOR, RETEST, control_answers
from interviewsim.context.embeddings import open_embedder
from interviewsim.data.corpus import iter_personalities
from interviewsim.data.jsonio import write_json_atomic, write_jsonl_atomic
from interviewsim.data.records import ControlAnswer
from stages.common import (
    CONTROLS_DIR,
    PREPARED_DIR,
    EmbeddingTally,
    dry_run_option,
    params_option,
    read_params,
)


@click.command("controls")
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True, help="Held-out pairs (from prepare).")
@click.option("--out-dir", type=click.Path(path_type=Path), default=CONTROLS_DIR,
              show_default=True, help="Where answers.jsonl and summary.json go.")
@dry_run_option
def controls(params_path: Path, prepared_dir: Path, out_dir: Path, dry_run: bool) -> None:
    """Build the control answers of every held-out question: ``oracle`` (the person's own
    answer), ``impostor`` (another personality's real answer to the most similar question,
    by the retrieval embedder; ties broken by a seeded hash) and ``retest`` (the person's own
    real answer to their most similar training question), as params.controls lists them.

    The judge and mcq-answer stages score them like a strategy's answers and write them to
    their own control files; aggregate turns oracle − impostor into each judge's discrimination.
    Writes answers.jsonl (one record per personality, control and held-out question; the
    question similarity of each impostor and retest pair in ``similarity``) and summary.json
    (with the share of held-out questions whose retest source is a near-duplicate,
    params.fidelity.near_duplicate_similarity). With controls: [] it writes empty files.
    """
    params = read_params(params_path)
    embedder = open_embedder(params) if EMBEDDED & set(params.controls) else None
    tally = EmbeddingTally(embedder) if dry_run and embedder is not None else None
    embed = tally.embed if tally is not None else embedder.embed if embedder else None
    answers = control_answers(iter_personalities(prepared_dir), params.controls, embed,
                              params.seed)
    if dry_run:
        click.echo(tally.report("controls") if tally else "controls (dry run): no model call")
        return
    write_jsonl_atomic(out_dir / "answers.jsonl", (a.record() for a in answers))
    counts = Counter(a.control for a in answers)
    write_json_atomic(out_dir / "summary.json", {
        "controls": list(params.controls),
        "answers": dict(sorted(counts.items())),
        "impostor_mean_question_similarity": _mean_similarity(answers, IMPOSTOR),
        **retest_summary(answers, params.fidelity.near_duplicate_similarity),
    })
    shown = ", ".join(f"{name} {count}" for name, count in sorted(counts.items())) or "none"
    click.echo(f"controls: {len(answers)} answers ({shown}) -> {out_dir}")


def _mean_similarity(answers: list[ControlAnswer], control: str) -> float | None:
    found = [a.similarity for a in answers if a.control == control and a.similarity is not None]
    return round(fmean(found), 6) if found else None


def retest_summary(answers: list[ControlAnswer], threshold: float) -> dict[str, object]:
    """The retest pairs' question similarity and the share at or above ``threshold``
    (near-duplicates: the person was asked nearly the same question before)."""
    found = sorted(a.similarity for a in answers
                   if a.control == RETEST and a.similarity is not None)
    if not found:
        return {}
    near = sum(s >= threshold for s in found)
    return {"retest_mean_question_similarity": round(fmean(found), 6),
            "retest_median_question_similarity": round(median(found), 6),
            "retest_near_duplicate_threshold": threshold,
            "retest_near_duplicates": near,
            "retest_near_duplicate_share": round(near / len(found), 6)}
