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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from interviewsim.config.params import Params
from interviewsim.config.settings import ModelSettings
from interviewsim.errors import ConfigError, InputError, Problem
from interviewsim.llm.asking import AskingClient
from interviewsim.prep import evaluation
from interviewsim.prep.artifacts import clear_outputs, write_match_outputs, write_prep_outputs
from interviewsim.prep.clarify import ScriptedAnswers
from interviewsim.prep.config import SETTINGS_PATH, PrepConfig, load_prep_config
from interviewsim.prep.evidence import load_evidence_file, personality_evidence
from interviewsim.prep.modelcall import grammar_converter_available
from interviewsim.prep.models import EvidenceItem, PrepSettings, Requirement
from interviewsim.prep.pipeline import PrepOutcome, PrepState, run_match, run_prep
from interviewsim.prep.sources import read_text_file
from stages.common import params_option, read_params

if TYPE_CHECKING:
    from interviewsim.llm import ModelHub

PREP_DIR = Path("data/artifacts/prep")

prep_settings_option = click.option(
    "--prep-settings", "prep_settings", type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Prep settings: the reader model [default: data/prep/prep.yaml of this repository].")


def _inputs(func: Callable) -> Callable:
    options = [
        click.option("--posting", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     required=True, help="The job posting (or round brief) as plain text."),
        click.option("--evidence", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="Evidence YAML/JSON file (items EV-… with title and summary)."),
        click.option("--personality", type=click.Path(exists=True, path_type=Path),
                     help="A personality folder or prepared_input.json: one item per training "
                          "pair, citing its qa_id."),
        click.option("--extractor", type=click.Choice(["lexical", "llm"]), default=None,
                     help="How requirements are extracted [default: llm when the prep "
                          "settings name a reader model, else lexical]."),
        click.option("--matcher", type=click.Choice(["lexical", "llm"]), default=None,
                     help="How requirements are matched to evidence [default: llm when the "
                          "prep settings name a reader model, else lexical]."),
        click.option("--threshold", type=click.FloatRange(0, 1), default=0.30,
                     show_default=True, help="Lexical coverage needed for FULL."),
        click.option("--max-tokens", type=click.IntRange(1), default=2048, show_default=True,
                     help="Completion limit of each prep model call."),
        click.option("--max-requirements", type=click.IntRange(1), default=None,
                     help="Fail when more requirements are extracted (default: no limit)."),
        params_option,
        prep_settings_option,
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


@dataclass(frozen=True)
class _Setup:
    """What a prep command resolved before running: params, prep settings, the two paths."""

    params: Params
    config: PrepConfig
    extractor: str
    matcher: str

    @property
    def read_by(self) -> str:
        generator = self.params.models.generator
        return self.config.provenance(self.extractor, self.matcher, generator)


def _setup(params_path: Path, prep_settings: Path | None, extractor: str | None,
           matcher: str | None) -> _Setup:
    """Params and prep settings read and checked; each path the flag's, else the reader's
    (llm when the prep settings name one), else lexical."""
    params = read_params(params_path)
    config = load_prep_config(prep_settings)
    config.check(params, str(prep_settings or SETTINGS_PATH))
    default = "llm" if config.reader is not None else "lexical"
    return _Setup(params, config, extractor or default, matcher or default)


class _Models:
    """The command's model clients (the generator, the reader), on one hub opened at the
    first client: cache, retries and usage shared through the model seam."""

    def __init__(self, stack: ExitStack, params: Params):
        self.stack, self.params = stack, params
        self.hub: ModelHub | None = None

    def client(self, model: ModelSettings | None = None, label: str = "prep") -> AskingClient:
        """``model`` (default: the generator). The embedded runtime needs llama-cpp-python;
        without it the run stops here with a message naming the way out, before any model is
        loaded (the fixture-model demo does not need it)."""
        from interviewsim.llm import ModelHub

        model = model or self.params.models.generator
        name = model.provider
        if self.params.providers[name].kind == "llama_cpp" and not grammar_converter_available():
            raise ConfigError([Problem("params", f"providers.{name}.kind", (
                "llama_cpp needs llama-cpp-python, which is not installed: install it "
                "(make setup), or run the offline demo with --params "
                "data/prep/params.fixture.yaml"))])
        if self.hub is None:
            self.hub = self.stack.enter_context(ModelHub(self.params.hub))
        return self.hub.client(model, label=label)

    def reader(self, config: PrepConfig) -> AskingClient | None:
        """The reader model's client, when the prep settings name one."""
        return None if config.reader is None else self.client(config.reader, "prep-reader")

    def reading(self, config: PrepConfig) -> AskingClient:
        """The client that reads: the reader, else the generator."""
        return self.reader(config) or self.client()


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
def match(posting: Path, evidence: Path | None, personality: Path | None,
          extractor: str | None, matcher: str | None, threshold: float, max_tokens: int,
          max_requirements: int | None, params_path: Path, prep_settings: Path | None,
          out_dir: Path) -> None:
    """Extract requirements, match them to evidence, and rank focus areas (plan.md)."""
    with _user_errors(out_dir):
        setup = _setup(params_path, prep_settings, extractor, matcher)
        state = PrepState(posting=read_text_file(posting)[0],
                          base_evidence=_evidence(evidence, personality, setup.params),
                          settings=PrepSettings(match_threshold=threshold, max_tokens=max_tokens,
                                                max_requirements=max_requirements),
                          extractor=setup.extractor, matcher=setup.matcher)  # type: ignore[arg-type]
        with ExitStack() as stack:
            reads = "llm" in (setup.extractor, setup.matcher)  # the match graph only reads
            client = _Models(stack, setup.params).reading(setup.config) if reads else None
            outcome = run_match(state, client)
    write_match_outputs(out_dir, outcome, setup.read_by)
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
def run(posting: Path, evidence: Path | None, personality: Path | None, extractor: str | None,
        matcher: str | None, threshold: float, max_tokens: int, max_requirements: int | None,
        params_path: Path, prep_settings: Path | None, answers: Path | None,
        round_text: str | None, round_file: Path | None, max_clarifications: int,
        min_clarification_length: int, out_dir: Path) -> None:
    """The full graph: plan, strategy, questions, package gate and the clarification loop."""
    if round_text is not None and round_file is not None:
        raise click.UsageError("give --round or --round-file, not both")
    with _user_errors(out_dir):
        setup = _setup(params_path, prep_settings, extractor, matcher)
        if round_file is not None:
            round_text = read_text_file(round_file)[0]
        settings = PrepSettings(match_threshold=threshold, max_tokens=max_tokens,
                                max_requirements=max_requirements,
                                max_clarifications=max_clarifications,
                                min_clarification_length=min_clarification_length)
        state = PrepState(posting=read_text_file(posting)[0],
                          base_evidence=_evidence(evidence, personality, setup.params),
                          settings=settings, extractor=setup.extractor,  # type: ignore[arg-type]
                          matcher=setup.matcher,  # type: ignore[arg-type]
                          round_text=round_text)
        source = ScriptedAnswers.load(answers) if answers is not None else _terminal_answer
        with ExitStack() as stack:
            models = _Models(stack, setup.params)
            outcome = run_prep(state, models.client(), source, models.reader(setup.config))
    write_prep_outputs(out_dir, outcome, setup.read_by)
    state = outcome.state
    click.echo(f"clarifications: asked {len(state.processed)}, admitted {len(state.accepted)}, "
               f"rejected {len(state.rejected)}, never asked {len(state.remaining)}")
    _report(outcome, out_dir, "package.md")


@prep.command(name="eval")
@click.argument("set_dir", metavar="SET", type=click.Path(exists=True, file_okay=False,
                                                           path_type=Path))
@click.option("--path", "paths", type=click.Choice(["lexical", "llm"]), multiple=True,
              default=("lexical",), show_default=True,
              help="Which path to score (repeat for both; llm uses the prep settings' reader, "
                   "else the generator model).")
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
@prep_settings_option
def eval_set(set_dir: Path, paths: tuple[str, ...], threshold: float, baseline: Path | None,
             tolerance: float, write_baseline: Path | None, show_errors: bool,
             second: Path | None, params_path: Path, prep_settings: Path | None) -> None:
    """Score verdicts against a labelled SET (docs/PREP.md, Evaluation set): per path and part,
    false-proof, over-credit and false-gap rates, FULL and extraction precision and recall."""
    with _user_errors(), ExitStack() as stack:
        parts = {name: evaluation.load_part(folder)
                 for name, folder in evaluation.parts(set_dir).items()}
        reader = evaluation.load_reader(second) if second is not None else {}
        client = None
        if "llm" in paths:
            setup = _setup(params_path, prep_settings, None, None)
            client = _Models(stack, setup.params).reading(setup.config)
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
