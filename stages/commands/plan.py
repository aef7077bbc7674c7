"""``interviewsim plan``: calls, tokens, cache hits and cost of a configuration, before paying.

Not a DVC stage: it reads params and the input data (through prepare's library, writing
nothing) and never calls a model.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from tqdm import tqdm

from interviewsim.agent.config import SETTINGS_PATH, load_agent_settings
from interviewsim.agent.plan import load_plan
from interviewsim.config.paper import PAPER_FILE, paper_params
from interviewsim.data.corpus import iter_inputs
from interviewsim.experiment.sizing import interview_strategies
from stages.commands.planning import CallPlan, build_plan
from stages.common import params_option, progress_enabled, read_params


def _fmt(value: float | int | None, money: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"${value:,.2f}" if money else f"{value:,}"


def render(plan: CallPlan, title: str) -> str:
    """The plan as a Markdown table (what the command prints)."""
    out = [f"{title}: {plan.personalities:,} personalities, {plan.train_pairs:,} training "
           f"pairs, {plan.heldout_pairs:,} held-out pairs in {plan.heldout_interviews:,} "
           "interviews", "",
           "| stage | role | model | calls | cache hits | prompt tokens | completion tokens "
           "(max) | cost |", "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for line in plan.lines.values():
        mark = " (est.)" if line.estimated else ""
        out.append(f"| {line.stage} | {line.role} | {line.model} | {_fmt(line.calls)} | "
                   f"{_fmt(line.cache_hits)} | {_fmt(line.prompt_tokens)}{mark} | "
                   f"{_fmt(line.completion_tokens)} | {_fmt(line.cost_usd, money=True)} |")
    t = plan.totals()
    out.append(f"| **total** | | | {_fmt(t['calls'])} | {_fmt(t['cache_hits'])} | "
               f"{_fmt(t['prompt_tokens'])} | {_fmt(t['completion_tokens'])} | "
               f"{_fmt(t['cost_usd'], money=True)} |")
    out += ["", *(f"- {note}" for note in plan.notes)]
    return "\n".join(out)


@click.command("plan")
@params_option
@click.option("--paper", is_flag=True,
              help="Apply the paper's configuration (--paper-file) on top of --params.")
@click.option("--paper-file", type=click.Path(dir_okay=False, path_type=Path),
              default=PAPER_FILE, show_default=True,
              help="The paper's overrides, read with --paper (what `dvc exp run -n paper "
                   "$(interviewsim params paper-args)` runs).")
@click.option("--input-dir", type=click.Path(path_type=Path), default=None,
              help="Personality folder (default: data.personalities from params).")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Also write the plan as JSON here.")
@click.option("--no-cache", is_flag=True, help="Do not look up cache hits.")
@click.option("--agent-settings", "settings_path", type=click.Path(dir_okay=False, path_type=Path),
              default=SETTINGS_PATH, show_default=True,
              help="The interview agent's settings (its plan is params.yaml interview.plan).")
def plan(params_path: Path, paper: bool, paper_file: Path, input_dir: Path | None,
         json_out: Path | None, no_cache: bool, settings_path: Path) -> None:
    """Count the model calls of every stage and model, estimate their tokens and cost.

    No model is called. Prompt tokens are 4 characters a token; completion tokens are each
    call's max_tokens (an upper bound); cost comes from params.prices. Lines marked (est.)
    size part of their prompts from stand-ins for earlier model outputs; the interview
    stage's calls come from its plan's turn budgets.
    """
    params = read_params(params_path)
    if paper:
        params = paper_params(params, paper_file)
    agent = None
    if interview_strategies(params):
        agent = (load_agent_settings(settings_path), load_plan(params.interview.plan))
    people = iter_inputs(input_dir or params.data.personalities, params.data.test_fraction,
                         params.data.max_heldout_pairs)
    people = tqdm(people, desc="plan", unit="personality", disable=not progress_enabled())
    result = build_plan(params, people, count_hits=not no_cache, agent=agent)
    title = f"{params_path} + {paper_file}" if paper else str(params_path)
    click.echo(render(result, title))
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(result.as_dict(), indent=2) + "\n", encoding="utf-8")
