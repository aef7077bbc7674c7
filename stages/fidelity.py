"""DVC stage ``fidelity``: the judge-free measures of how close each answer is to its person
(interviewsim/analysis/individuation.py). Deterministic: no model is called; the only
embeddings are the configured ``embedder``'s, as for retrieval and the controls."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import click
import numpy as np

from interviewsim.analysis.individuation import individuate, pools_of
from interviewsim.config.conditions import Condition
from interviewsim.config.params import Params
from interviewsim.context.embeddings import open_embedder
from interviewsim.data.corpus import PersonalityData, iter_personalities
from interviewsim.data.jsonio import read_jsonl, write_jsonl_atomic
from interviewsim.data.stage_summary import write_summary
from interviewsim.text.speech import analyze_speech
from interviewsim.text.verbatim import Sources, verbatim_tokens
from stages.common import (
    CONTEXT_DIR,
    CONTROLS_DIR,
    FIDELITY_DIR,
    GENERATED_DIR,
    PREPARED_DIR,
    EmbeddingTally,
    dry_run_option,
    params_option,
    read_params,
)


def speech(text: str) -> dict[str, float]:
    """The style measures whose spread :mod:`interviewsim.analysis.fidelity` compares."""
    found = analyze_speech(text)
    return {"words": found.words, "filler_rate": round(found.filler_rate, 6),
            "hedge_rate": round(found.hedge_rate, 6)}


class Corpus:
    """Every personality's question and answer vectors, held-out and training."""

    def __init__(self, people: list[PersonalityData], embed):
        self.people = {p.personality_id: p for p in people}
        self.embed = embed
        self.heldout = {pid: self._vectors(p.heldout) for pid, p in self.people.items()}
        self.train = {pid: self._vectors(p.train) for pid, p in self.people.items()}
        self.targets = {pid: {pair.qa_id: row for pair, row in
                              zip(p.heldout, self.heldout[pid][1], strict=True)}
                        for pid, p in self.people.items()}
        self.questions = {pid: {pair.qa_id: row for pair, row in
                                zip(p.heldout, self.heldout[pid][0], strict=True)}
                          for pid, p in self.people.items()}
        self.heldout_pools = pools_of({k: v[0] for k, v in self.heldout.items()},
                                      {k: v[1] for k, v in self.heldout.items()})
        self.train_pools = pools_of({k: v[0] for k, v in self.train.items()},
                                    {k: v[1] for k, v in self.train.items()})
        self.sources = {pid: Sources([pair.response for pair in p.heldout])
                        for pid, p in self.people.items()}

    def _vectors(self, pairs) -> tuple[np.ndarray, np.ndarray]:
        if not pairs:
            return np.zeros((0, 0), np.float32), np.zeros((0, 0), np.float32)
        return (np.asarray(self.embed([p.question for p in pairs])),
                np.asarray(self.embed([p.response for p in pairs])))


def _answer_records(corpus: Corpus, answers: Iterable[Mapping], contexts: Mapping,
                    window: int) -> list[dict]:
    """One record per scored answer (strategies' valid answers and the controls')."""
    records = list(answers)
    texts = [r["response"] for r in records]
    vectors = np.asarray(corpus.embed(texts)) if texts else np.zeros((0, 0))
    out = []
    for record, vector in zip(records, vectors, strict=True):
        pid, qa_id = record["personality_id"], record["qa_id"]
        condition = Condition.of(record)
        tokens = verbatim_tokens(record["response"])
        found = individuate(vector, corpus.targets[pid][qa_id], corpus.questions[pid][qa_id],
                            pid, corpus.heldout_pools)
        row = {"personality_id": pid, **condition.where(), "qa_id": qa_id,
               "interview_id": record["interview_id"], **found.record(),
               "longest_run": corpus.sources[pid].longest_run(tokens),
               "window_share": _round(corpus.sources[pid].window_share(tokens, window)),
               "context_copy_share": None, **speech(record["response"])}
        if not condition.is_control:
            context = contexts.get((pid, condition.name, qa_id))
            if context is not None:
                row["context_copy_share"] = _round(context.window_share(tokens, window))
        out.append(row)
    return sorted(out, key=_order)


def _ceiling_records(corpus: Corpus) -> list[dict]:
    """The real held-out answers against the training answers (the ceiling of
    individuation and attribution): target is the person's training answer to their most
    similar training question."""
    out = []
    for pid, person in sorted(corpus.people.items()):
        pool = corpus.train_pools.get(pid)
        if pool is None:
            continue
        for pair in person.heldout:
            vector, question = corpus.targets[pid][pair.qa_id], corpus.questions[pid][pair.qa_id]
            target = pool.answers[pool.nearest(question)]
            found = individuate(vector, target, question, pid, corpus.train_pools)
            out.append({"personality_id": pid, "qa_id": pair.qa_id,
                        "interview_id": pair.interview_id, **found.record(),
                        **speech(pair.response)})
    return out


def _order(row: Mapping) -> tuple:
    condition = Condition.of(row)
    return (row["personality_id"], condition.kind, condition.name, row["interview_id"],
            row["qa_id"])


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _contexts(path: Path, people: Mapping[str, PersonalityData]) -> dict:
    """(personality, strategy, qa_id) -> the Sources of that answer's context: its profile
    and the selected training pairs' questions and responses."""
    found = {}
    for record in read_jsonl(path):
        person = people.get(record["personality_id"])
        if person is None:
            continue
        train = person.train_by_id()
        texts = [record["profile"]] if record.get("profile") else []
        for qa_id in record["pair_ids"]:
            texts += [train[qa_id].question, train[qa_id].response]
        found[(record["personality_id"], record["strategy"], record["qa_id"])] = Sources(texts)
    return found


def fidelity_records(params: Params, people: list[PersonalityData], answers: Iterable[Mapping],
                     controls: Iterable[Mapping], contexts_path: Path, embed
                     ) -> tuple[list[dict], list[dict]]:
    """(answer records, ceiling records) of :mod:`interviewsim.analysis.individuation`."""
    corpus = Corpus(people, embed)
    contexts = _contexts(contexts_path, corpus.people)
    scored = [r for r in answers if r.get("valid") and r.get("response")]
    scored += [r for r in controls if r["control"] in params.controls]
    return (_answer_records(corpus, scored, contexts, params.fidelity.verbatim_window),
            _ceiling_records(corpus))


@click.command("fidelity")
@params_option
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True, help="Training and held-out pairs (from prepare).")
@click.option("--answers", type=click.Path(dir_okay=False, path_type=Path),
              default=GENERATED_DIR / "answers.jsonl", show_default=True,
              help="The generated answers (from generate).")
@click.option("--contexts", type=click.Path(dir_okay=False, path_type=Path),
              default=CONTEXT_DIR / "contexts.jsonl", show_default=True,
              help="Each answer's context (from select-context), for the copy share.")
@click.option("--controls-dir", type=click.Path(path_type=Path), default=CONTROLS_DIR,
              show_default=True, help="answers.jsonl of the controls (read when params "
              "controls lists any).")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path),
              default=FIDELITY_DIR, show_default=True)
@dry_run_option
def fidelity(params_path: Path, prepared_dir: Path, answers: Path, contexts: Path,
             controls_dir: Path, out_dir: Path, dry_run: bool) -> None:
    """Judge-free fidelity of every generated and control answer: individuation (similarity
    to its own person's real answer minus the mean to the other personalities' real answers
    to their most similar questions), attribution (is its own person's answer the nearest;
    chance 1/N), verbatim overlap with the person's held-out answers (memorization) and with
    its own context (copying), and its length, filler and hedge rates; and the same
    individuation and attribution for the real held-out answers against the training answers
    (the ceiling).

    Outputs: answers.jsonl, ceiling.jsonl, summary.json. Deterministic: no model is called.
    """
    params = read_params(params_path)
    inputs = [prepared_dir, answers, contexts]
    if params.controls:
        inputs.append(controls_dir / "answers.jsonl")
    for path in inputs:  # every input before any work (stages/cli.py names its stage)
        if not path.exists():
            raise FileNotFoundError(2, "missing input", str(path))
    people = list(iter_personalities(prepared_dir))
    controls = read_jsonl(controls_dir / "answers.jsonl") if params.controls else []
    embedder = open_embedder(params)
    tally = EmbeddingTally(embedder) if dry_run else None
    try:
        rows, ceiling = fidelity_records(params, people, read_jsonl(answers), controls,
                                         contexts, tally.embed if tally else embedder.embed)
    finally:
        embedder.close()
    if tally is not None:
        click.echo(tally.report("fidelity"))
        return
    write_jsonl_atomic(out_dir / "answers.jsonl", rows)
    write_jsonl_atomic(out_dir / "ceiling.jsonl", ceiling)
    write_summary(out_dir / "summary.json", {"answers": len(rows), "ceiling": len(ceiling)}, {})
    click.echo(f"fidelity: {len(rows)} answers, {len(ceiling)} real answers -> {out_dir}")
