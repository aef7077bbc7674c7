"""One paper configuration: params.paper.yaml is what ``interviewsim plan --paper`` plans and what
the documented ``dvc exp run -n paper $(interviewsim params paper-args)`` runs, the docs show
no values of their own, and its context budget never cuts the paper's 100 pairs."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from dvc.utils.cli_parse import to_path_overrides
from dvc.utils.hydra import apply_overrides

from interviewsim.agent.config import load_agent_settings
from interviewsim.agent.plan import load_plan
from interviewsim.config.paper import (
    load_overrides,
    merge,
    override_args,
    paper_params,
)
from interviewsim.config.params import ALL_STRATEGIES, load_params, parse_params
from interviewsim.context.embeddings import build_embedder
from interviewsim.context.strategies import (
    PAIR_STRATEGIES,
    RetrievalIndex,
    pair_tokens,
    select_context,
)
from interviewsim.data.corpus import Pair, iter_inputs
from stages.commands.planning import build_plan
from tests.stage_runner import invoke

REPO = Path(__file__).resolve().parents[1]
PARAMS = REPO / "params.yaml"
PAPER = REPO / "params.paper.yaml"
SAMPLE = REPO / "data" / "personalities"
SUBSTITUTION = "$(interviewsim params paper-args)"


def documented_recipe() -> str:
    """The one ``dvc exp run -n paper`` line of docs/EXPERIMENTS.md (its comment dropped)."""
    lines = [line for line in (REPO / "docs/EXPERIMENTS.md").read_text().splitlines()
             if line.startswith("dvc exp run -n paper ")]
    assert len(lines) == 1, lines
    return lines[0]


def paper_args_output(tmp_path: Path) -> str:
    result = invoke(tmp_path, "params", "paper-args", str(PAPER), "--params", str(PARAMS))
    assert result.exit_code == 0, result.output
    return result.output.strip()


def shell_words(text: str) -> list[str]:
    """How the shell splits an unquoted ``$(...)``: on whitespace, no quote removal (checked
    against bash where there is one)."""
    words = text.split()
    if shutil.which("bash"):
        out = subprocess.run(["bash", "-c", 'printf "%s\\n" $1', "_", text],
                             capture_output=True, text=True, check=True).stdout
        assert out.splitlines() == words
    return words


def set_params(argv: list[str]) -> list[str]:
    """The values of ``-S`` / ``--set-param`` in a ``dvc exp run`` command line."""
    values = []
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag in ("-S", "--set-param"):
            values.append(value)
    return values


def dvc_applied(tmp_path: Path, overrides: list[str], base: Path = PARAMS):
    """``base`` after DVC applies ``-S`` values to it, with DVC's own functions."""
    target = tmp_path / "params.yaml"
    shutil.copy(base, target)
    by_file = to_path_overrides(overrides)
    assert list(by_file) == ["params.yaml"]
    apply_overrides(target, by_file["params.yaml"])
    return load_params(target)


def test_plan_paper_and_the_documented_recipe_are_the_same_configuration(tmp_path):
    line = documented_recipe()
    before, found, after = line.partition(SUBSTITUTION)
    assert found, f"the recipe must read params.paper.yaml through {SUBSTITUTION}: {line}"
    argv = (shlex.split(before) + shell_words(paper_args_output(tmp_path))
            + shlex.split(after, comments=True))
    assert argv[:5] == ["dvc", "exp", "run", "-n", "paper"]
    recipe = dvc_applied(tmp_path, set_params(argv))
    assert recipe == paper_params(load_params(PARAMS), PAPER)

    shutil.copytree(REPO / "data/agent", tmp_path / "data/agent")  # the interview's plan
    result = invoke(tmp_path, "plan", "--paper", "--params", str(PARAMS), "--paper-file",
                    str(PAPER), "--input-dir", str(SAMPLE), "--no-cache", "--json", "plan.json")
    assert result.exit_code == 0, result.output
    planned = json.loads((tmp_path / "plan.json").read_text())
    agent = (load_agent_settings(REPO / "data/agent/agent.yaml"),
             load_plan(recipe.interview.plan, REPO / "data/agent/plans"))
    expected = build_plan(recipe, iter_inputs(SAMPLE, recipe.data.test_fraction,
                                              recipe.data.max_heldout_pairs), agent=agent)
    assert planned["totals"] == expected.totals()
    assert planned["heldout_pairs"] == expected.heldout_pairs
    assert planned["heldout_pairs"] > len(list(SAMPLE.iterdir())) * 3  # not a 3-pair sample


def test_docs_point_at_params_paper_yaml_and_restate_no_value():
    experiments = (REPO / "docs/EXPERIMENTS.md").read_text()
    section = experiments.split("## The paper configuration", 1)[1].split("Ablations", 1)[0]
    assert "params.paper.yaml" in section
    assert not re.search(r"-S\s+['\"]?\+*\w+[.=]", section), "no hand-written -S values"
    readme = (REPO / "README.md").read_text()
    params_comments = "\n".join(line for line in PARAMS.read_text().splitlines()
                                if line.lstrip().startswith("#"))
    for name, text in (("README.md", readme), ("params.yaml", params_comments),
                       ("docs/EXPERIMENTS.md", experiments)):
        assert "params.paper.yaml" in text, name
        assert not re.search(r"-S\s+'?context\.max_context_tokens", text), name
        assert not re.search(r"100\s*/\s*100|50\s*\+\s*50|chronological_pairs:\s*100", text), name
    assert "dvc exp run -n paper " in readme and SUBSTITUTION in readme


def test_paper_file_validates_and_evaluates_every_heldout_pair():
    paper = paper_params(load_params(PARAMS), PAPER)
    assert paper.data.max_heldout_pairs is None
    assert paper.strategies == list(ALL_STRATEGIES)
    c = paper.context
    assert (c.chronological_pairs, c.random_pairs, c.retrieval_pairs) == (100, 100, 100)
    assert (c.hybrid_retrieved, c.hybrid_recent) == (50, 50)
    # the models stay params.yaml's: the file runs on the default embedded model
    assert paper.models == load_params(PARAMS).models


def test_the_budget_fits_100_pairs_of_600_word_answers():
    """No pair of the sample is cut, and 100 pairs of 600-word answers at the sample's own
    characters per word, each with its longest question, fit the budget."""
    budget = paper_params(load_params(PARAMS), PAPER).context.max_context_tokens
    people = list(iter_inputs(SAMPLE, 0.2, None))
    pairs = [p for person in people for p in person.train]
    question = max((p.question for p in pairs), key=len)
    longest = max(pairs, key=lambda p: len(p.response)).response.split()
    answer = " ".join(longest[i % len(longest)] for i in range(600))
    long_pair = Pair("p", "i", 0, 0, "q", question, answer)
    assert 100 * pair_tokens(long_pair) <= budget


def test_no_strategy_is_cut_on_the_sample(tmp_path):
    params = paper_params(load_params(PARAMS), PAPER)
    embedder = build_embedder(params.embedder, cache_dir=tmp_path)
    try:
        for person in iter_inputs(SAMPLE, params.data.test_fraction, None):
            index = RetrievalIndex.build(person.train, embedder.embed,
                                         params.context.retrieval_text)
            interview = [p.question for p in person.heldout]
            for strategy in params.strategies:
                for queries in ([interview[0]], interview):  # generation, MCQ answering
                    selection = select_context(strategy, person, queries, params.context,
                                               params.seed, index)
                    assert selection.dropped_for_budget == 0, (person.personality_id, strategy)
                    assert not selection.over_budget, (person.personality_id, strategy)
                    if strategy in PAIR_STRATEGIES:
                        assert selection.pair_ids
    finally:
        embedder.close()


def placeholders() -> dict:
    """params.paper.yaml's commented model block, uncommented."""
    lines = PAPER.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# embedder:"))
    return yaml.safe_load("\n".join(line[2:] for line in lines[start:]))


def test_paper_args_make_dvc_apply_the_same_merge_with_models_and_prices(tmp_path):
    """The commented placeholders, uncommented with a provider, validate, and a richer file
    (dotted price names, quoted strings, keys params.yaml lacks) reaches DVC unchanged."""
    overrides = merge(load_overrides(PAPER), placeholders())
    overrides |= {
        "providers": {"openai": {"kind": "openai", "base_url": "https://api.openai.com/v1",
                                 "api_key_env": "OPENAI_API_KEY"}},
        "prices": {"gpt-4.1-mini": {"prompt_per_million": 0.4, "completion_per_million": 1.6}},
    }
    overrides["context"] = {**overrides["context"], "retrieval_text": "question"}
    expected = parse_params(merge(yaml.safe_load(PARAMS.read_text()), overrides))
    assert len(expected.models.judges) == 3
    args = override_args(overrides)
    assert all(not any(c.isspace() for c in a) for a in args)
    assert dvc_applied(tmp_path, set_params(args)) == expected


def test_an_invalid_paper_file_stops_the_recipe(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("context: {max_context_tokens: 0}\n")
    result = invoke(tmp_path, "params", "paper-args", str(bad), "--params", str(PARAMS))
    assert result.exit_code == 1
    printed = set_params(result.stdout.split())
    with pytest.raises(Exception, match="set-param"):
        dvc_applied(tmp_path, printed)
