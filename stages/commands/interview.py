"""``interviewsim session``: one interview with a simulated personality or a person.

Not a DVC stage (the experiment over every personality and strategy is
``stages/interview.py``); this is the command a researcher or a candidate runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from interviewsim.agent.artifacts import write_session
from interviewsim.agent.candidates import HumanCandidate
from interviewsim.agent.clock import WallClock
from interviewsim.agent.config import SETTINGS_PATH, load_agent_settings
from interviewsim.agent.plan import load_plan
from interviewsim.agent.results import CandidateInfo
from interviewsim.agent.setup import open_clients, personality_plan, run_session, twin
from interviewsim.config.conditions import INDEXED_STRATEGIES
from interviewsim.config.params import ALL_STRATEGIES
from interviewsim.data.corpus import load_personality
from interviewsim.data.stage_summary import RUN_LOG, write_run_log
from interviewsim.llm import ModelHub
from stages.common import PREPARED_DIR, params_option, read_params

INTERVIEW_DIR = Path("data/artifacts/interview/runs")


@click.command("session")
@params_option
@click.option("--personality", "personality_id", default=None,
              help="Interview this personality's twin (a personality_id of the prepared data).")
@click.option("--strategy", type=click.Choice(ALL_STRATEGIES), default="hybrid",
              show_default=True, help="Context strategy of the twin (as in `generate`).")
@click.option("--human", is_flag=True, help="Interview the person at this terminal instead.")
@click.option("--plan", "plan_name", default=None,
              help="technical, personality, or a plan YAML path "
                   "[default: personality for a twin, technical for --human].")
@click.option("--out-dir", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help=f"Artifact folder [default: {INTERVIEW_DIR}/<who>-<plan>].")
@click.option("--out", "legacy_out", type=click.Path(file_okay=False, path_type=Path),
              default=None, hidden=True, help="Deprecated spelling of --out-dir.")
@click.option("--prepared-dir", type=click.Path(path_type=Path), default=PREPARED_DIR,
              show_default=True)
@click.option("--agent-settings", "settings_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help=f"Agent settings YAML [default: {SETTINGS_PATH}]; a file "
                                 "given here must exist.")
@click.option("--coach", "coach_mode", type=click.Choice(["off", "after", "live"]), default=None,
              help="Override coach_mode: live shows feedback after each answer (practice).")
def interview(params_path: Path, personality_id: str | None, strategy: str, human: bool,
              plan_name: str | None, out_dir: Path | None, legacy_out: Path | None,
              prepared_dir: Path, settings_path: Path | None, coach_mode: str | None) -> None:
    """Run one interview and write its transcript, scorecard, flags, state history and audit.

    With --personality the candidate is that personality's twin, built exactly as `generate`
    builds it and never shown a held-out answer; the personality plan then asks the held-out
    questions. With --human you answer at the terminal, one line per answer; an empty line
    is silence (the interviewer gives you time or another angle), /quit or end of input
    (Ctrl-D) ends the session early, and its artifacts are still written.
    """
    if human == (personality_id is not None):
        raise click.UsageError("give exactly one of --personality ID or --human")
    params = read_params(params_path)
    settings = load_agent_settings(settings_path)
    if coach_mode is not None:
        settings = settings.model_copy(update={"coach_mode": coach_mode})
    settings.check_providers(params, str(settings_path or SETTINGS_PATH))
    plan = load_plan(plan_name or ("technical" if human else "personality"))
    who = "human" if human else f"{personality_id}-{strategy}"
    if legacy_out is not None:
        click.echo("warning: --out is deprecated; use --out-dir", err=True)
    out = out_dir or legacy_out or INTERVIEW_DIR / f"{who}-{plan.name}"
    with ModelHub(params.hub) as hub:
        clients = open_clients(hub, params, settings)
        if human:
            candidate = HumanCandidate(sys.stdin, sys.stdout)
            info = CandidateInfo(kind="human")
            result = run_session(plan, settings, clients, candidate, info, WallClock())
        else:
            try:
                person = load_personality(prepared_dir, personality_id)
            except KeyError as exc:
                raise click.BadParameter(str(exc.args[0]), param_hint="--personality") from None
            plan = personality_plan(plan, person)
            index = None
            if strategy in INDEXED_STRATEGIES:
                from interviewsim.context.embeddings import open_embedder
                from interviewsim.context.strategies import RetrievalIndex

                index = RetrievalIndex.build(person.train, open_embedder(params).embed,
                                             params.context.retrieval_text)
            candidate = twin(person, strategy, clients, params, settings, index)
            info = CandidateInfo(kind="simulated", personality_id=person.personality_id,
                                 strategy=strategy)
            result = run_session(plan, settings, clients, candidate, info)
        if human and result.stop_reason != "candidate_left":
            candidate.hear("Interviewer", "That's the end of the interview.")
        scorecard = write_session(result, out)
        write_run_log(out / RUN_LOG, {"turns": scorecard.turns}, hub.usage())
    composite = "n/a" if scorecard.composite_mean is None else f"{scorecard.composite_mean:.2f}"
    click.echo(
        f"interview {plan.name} ({result.stop_reason}): {scorecard.turns} turns, "
        f"{scorecard.answers_scored} answers scored (mean composite {composite}), "
        f"{scorecard.flags_raised} flags, {scorecard.guardrails.turns_with_violations} turns with "
        f"guardrail violations, state coverage {scorecard.state_coverage:.2f} -> {out}"
    )
