"""``interviewsim prep``: the governed interview-prep pipeline (not a DVC stage; a tool).

``prep match`` extracts requirements, matches them against an evidence corpus and ranks focus
areas — offline with the default lexical paths. ``prep run`` adds the model-written strategy and
practice questions, the package gate, and the clarification loop (answers from a file or the
terminal). Both exit 1 with an error report when a gate rejects the run, and with one line
naming the file and the fix when an input cannot be read; either way the output folder holds
nothing from an earlier run. ``prep eval`` scores both paths against a labelled set.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click

from interviewsim.config.params import Params
from interviewsim.errors import ConfigError, InputError, Problem
from interviewsim.llm.asking import AskingClient
from interviewsim.prep import evaluation
from interviewsim.prep.artifacts import clear_outputs, write_match_outputs, write_prep_outputs
from interviewsim.prep.clarify import ScriptedAnswers
from interviewsim.prep.evidence import load_evidence_file, personality_evidence
from interviewsim.prep.modelcall import grammar_converter_available
from interviewsim.prep.models import EvidenceItem, PrepSettings, Requirement
from interviewsim.prep.pipeline import PrepOutcome, PrepState, run_match, run_prep
from interviewsim.prep.sources import read_text_file
from stages.common import params_option, read_params

PREP_DIR = Path("data/artifacts/prep")


def _inputs(func: Callable) -> Callable:
    options = [
        click.option("--posting", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     required=True, help="The job posting (or round brief) as plain text."),
        click.option("--evidence", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="Evidence YAML/JSON file (items EV-… with title and summary)."),
        click.option("--personality", type=click.Path(exists=True, path_type=Path),
                     help="A personality folder or prepared_input.json: one item per training "
                          "pair, citing its qa_id."),
        click.option("--extractor", type=click.Choice(["lexical", "llm"]), default="lexical",
                     show_default=True, help="How requirements are extracted."),
        click.option("--matcher", type=click.Choice(["lexical", "llm"]), default="lexical",
                     show_default=True, help="How requirements are matched to evidence."),
        click.option("--threshold", type=click.FloatRange(0, 1), default=0.30,
                     show_default=True, help="Lexical coverage needed for FULL."),
        click.option("--max-tokens", type=click.IntRange(1), default=2048, show_default=True,
                     help="Completion limit of each prep model call."),
        click.option("--max-requirements", type=click.IntRange(1), default=None,
                     help="Fail when more requirements are extracted (default: no limit)."),
        params_option,
    ]
    for option in reversed(options):
        func = option(func)
    return func


@contextmanager
def _user_errors(out_dir: Path | None = None) -> Iterator[None]:
    """The output folder emptied of an earlier run's files first; an unreadable input ends the
    command with one line naming the file and what to do (exit 1), never a traceback."""
    if out_dir is not None:
        clear_outputs(out_dir)
    try:
        yield
    except (InputError, ConfigError) as exc:
        raise click.ClickException("; ".join(str(p) for p in exc.problems)) from None


def _evidence(evidence: Path | None, personality: Path | None,
              params: Params) -> list[EvidenceItem]:
    if (evidence is None) == (personality is None):
        raise InputError([Problem("command line", "--evidence/--personality",
                                  "give exactly one evidence source")])
    if evidence is not None:
        return load_evidence_file(evidence)
    assert personality is not None
    return personality_evidence(personality, params.data.test_fraction)


def _client(stack: ExitStack, params: Params) -> AskingClient:
    """The generator model through the shared seam (cache, retries, usage).

    The embedded runtime needs llama-cpp-python; without it the run stops here with a message
    naming the way out, before any model is loaded (the fixture-model demo does not need it).
    """
    from interviewsim.llm import ModelHub

    name = params.models.generator.provider
    if params.providers[name].kind == "llama_cpp" and not grammar_converter_available():
        raise ConfigError([Problem("params", f"providers.{name}.kind", (
            "llama_cpp needs llama-cpp-python, which is not installed: install it "
            "(make setup), or run the offline demo with --params "
            "data/prep/params.fixture.yaml"))])

    hub = stack.enter_context(ModelHub(params.hub))
    return hub.client(params.models.generator, label="prep")


def _report(outcome: PrepOutcome, out_dir: Path, artifact: str) -> None:
    state = outcome.state
    if outcome.valid:
        counts = {c: sum(v.coverage == c for v in state.matches)
                  for c in ("FULL", "PARTIAL", "GAP")}
        click.echo(f"{len(state.requirements)} requirements: {counts['FULL']} FULL, "
                   f"{counts['PARTIAL']} PARTIAL, {counts['GAP']} GAP; stop: "
                   f"{state.stop_reason} -> {out_dir / artifact}")
        return
    gate = state.failed_gate or "unknown"
    problems = state.gate_problems.get(gate, [])
    click.echo(f"no {artifact.split('.')[0]}: {state.stop_reason} during the {state.phase} "
               f"pass ({len(problems)} problem(s)); see {out_dir / 'error_report.md'}", err=True)
    for problem in problems[:10]:
        click.echo(f"  {problem}", err=True)
    click.get_current_context().exit(1)


@click.group()
def prep() -> None:
    """Interview preparation: requirements, evidence matches, strategy and practice questions."""


@prep.command()
@_inputs
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path),
              default=PREP_DIR / "match", show_default=True)
def match(posting: Path, evidence: Path | None, personality: Path | None, extractor: str,
          matcher: str, threshold: float, max_tokens: int, max_requirements: int | None,
          params_path: Path, out_dir: Path) -> None:
    """Extract requirements, match them to evidence, and rank focus areas (plan.md)."""
    with _user_errors(out_dir):
        params = read_params(params_path)
        state = PrepState(posting=read_text_file(posting)[0],
                          base_evidence=_evidence(evidence, personality, params),
                          settings=PrepSettings(match_threshold=threshold, max_tokens=max_tokens,
                                                max_requirements=max_requirements),
                          extractor=extractor, matcher=matcher)  # type: ignore[arg-type]
        with ExitStack() as stack:
            needs_model = "llm" in (extractor, matcher)
            outcome = run_match(state, _client(stack, params) if needs_model else None)
    write_match_outputs(out_dir, outcome)
    _report(outcome, out_dir, "plan.md")


def _terminal_answer(requirement: Requirement, question: str) -> str:
    click.echo(f"\n[{requirement.id}] {question}")
    return click.prompt("answer (blank to skip)", default="", show_default=False)


@prep.command()
@_inputs
@click.option("--answers", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Scripted answers (YAML/JSON: answers: {REQ-…: text}); default: ask here.")
@click.option("--round", "round_text", help="Free text about the upcoming round.")
@click.option("--round-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The round description read from a file.")
@click.option("--max-clarifications", type=click.IntRange(0), default=10, show_default=True,
              help="Gaps asked about at most.")
@click.option("--min-clarification-length", type=click.IntRange(0), default=24,
              show_default=True, help="Characters an answer needs before a model judges it.")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path),
              default=PREP_DIR / "run", show_default=True)
def run(posting: Path, evidence: Path | None, personality: Path | None, extractor: str,
        matcher: str, threshold: float, max_tokens: int, max_requirements: int | None,
        params_path: Path, answers: Path | None, round_text: str | None,
        round_file: Path | None, max_clarifications: int, min_clarification_length: int,
        out_dir: Path) -> None:
    """The full graph: plan, strategy, questions, package gate and the clarification loop."""
    if round_text is not None and round_file is not None:
        raise click.UsageError("give --round or --round-file, not both")
    with _user_errors(out_dir):
        params = read_params(params_path)
        if round_file is not None:
            round_text = read_text_file(round_file)[0]
        settings = PrepSettings(match_threshold=threshold, max_tokens=max_tokens,
                                max_requirements=max_requirements,
                                max_clarifications=max_clarifications,
                                min_clarification_length=min_clarification_length)
        state = PrepState(posting=read_text_file(posting)[0],
                          base_evidence=_evidence(evidence, personality, params),
                          settings=settings, extractor=extractor,
                          matcher=matcher,  # type: ignore[arg-type]
                          round_text=round_text)
        source = ScriptedAnswers.load(answers) if answers is not None else _terminal_answer
        with ExitStack() as stack:
            outcome = run_prep(state, _client(stack, params), source)
    write_prep_outputs(out_dir, outcome)
    state = outcome.state
    click.echo(f"clarifications: asked {len(state.processed)}, admitted {len(state.accepted)}, "
               f"rejected {len(state.rejected)}, never asked {len(state.remaining)}")
    _report(outcome, out_dir, "package.md")


@prep.command(name="eval")
@click.argument("set_dir", metavar="SET", type=click.Path(exists=True, file_okay=False,
                                                           path_type=Path))
@click.option("--path", "paths", type=click.Choice(["lexical", "llm"]), multiple=True,
              default=("lexical",), show_default=True,
              help="Which path to score (repeat for both; llm uses the configured model).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.30, show_default=True,
              help="Lexical coverage needed for FULL.")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="JSON of rates per path and part; exit 1 when one regresses.")
@click.option("--tolerance", type=click.FloatRange(0, 1), default=0.05, show_default=True,
              help="How much worse than the baseline a rate may be (0.05 = 5 points).")
@click.option("--write-baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="Write this run's rates as the new baseline JSON.")
@click.option("--errors", "show_errors", is_flag=True,
              help="List every disagreement with the gold and every requirement not found.")
@click.option("--second", "second", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A second reader's verdicts (JSON Lines: posting, key_phrase, verdict, "
                   "evidence, why): score them as a row of their own, the ceiling a path is "
                   "held to, with gold against shown counts.")
@params_option
def eval_set(set_dir: Path, paths: tuple[str, ...], threshold: float, baseline: Path | None,
             tolerance: float, write_baseline: Path | None, show_errors: bool,
             second: Path | None, params_path: Path) -> None:
    """Score verdicts against a labelled SET (docs/PREP.md, Evaluation set): per path and part,
    false-proof, over-credit and false-gap rates, FULL and extraction precision and recall."""
    with _user_errors(), ExitStack() as stack:
        parts = {name: evaluation.load_part(folder)
                 for name, folder in evaluation.parts(set_dir).items()}
        reader = evaluation.load_reader(second) if second is not None else {}
        params = read_params(params_path) if "llm" in paths else None
        client = _client(stack, params) if params is not None else None
        settings = PrepSettings(match_threshold=threshold)
        rows = [(path, name, evaluation.evaluate(cases, evaluation.pipeline_run(
                    path, client if path == "llm" else None, settings)))  # type: ignore[arg-type]
                for path in paths for name, cases in parts.items()]
        read = [(name, tally) for name, cases in parts.items()
                if (tally := evaluation.reader_tally(cases, reader)) is not None]
        if second is not None and not read:
            raise InputError([Problem(str(second), "posting, key_phrase",
                                      f"no line names a gold requirement of {set_dir}")])
        rows += [("second reader", name, tally) for name, tally in read]
    waiting = [tally.awaiting for _, _, tally in rows if tally.awaiting is not None]
    if waiting:  # the last one counts every request still waiting
        click.echo(f"error: {waiting[-1]}", err=True)
        raise SystemExit(waiting[-1].exit_code)
    click.echo(evaluation.table(rows))
    for name, tally in read:
        click.echo(f"\nsecond reader / {name}, gold (rows) against its verdicts:\n\n"
                   f"{evaluation.confusion(tally)}")
    for path, name, tally in rows:
        if tally.failed:
            click.echo(f"{path}/{name}: rejected by a gate: {', '.join(tally.failed)}")
        if show_errors:
            for where, gold, shown in tally.errors:
                click.echo(f"{path}/{name}: {where}: gold {gold}, shown {shown}")
            for where in tally.misses:
                click.echo(f"{path}/{name}: not extracted: {where}")
    current = {f"{path}/{name}": evaluation.summary(tally) for path, name, tally in rows}
    if write_baseline is not None:
        write_baseline.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n",
                                  encoding="utf-8")
    if baseline is not None:
        _check_baseline(current, baseline, tolerance)


def _check_baseline(current: dict, baseline: Path, tolerance: float) -> None:
    expected = json.loads(read_text_file(baseline)[0])
    worse = [f"{key}: {problem}" for key, rates in current.items() if key in expected
             for problem in evaluation.regressions(rates, expected[key], tolerance)]
    if worse:
        raise click.ClickException("regressed beyond the tolerance: " + "; ".join(worse))
    click.echo(f"no rate regressed beyond {tolerance * 100:.1f} points of {baseline}")
