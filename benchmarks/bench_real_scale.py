"""The whole pipeline at paper settings on transcript-shaped text, stage by stage, before/after.

For each git ref given (default: the [real-scale] baseline ``a90f8a7~1`` and ``HEAD``) the
repository is cloned at that ref into the work folder and every stage of its dvc.yaml runs,
in pipeline order, as the stage's own ``cmd`` with the clone's code, against the project's
mock OpenAI-compatible endpoint (tests/mock_openai.py in its own process, a fixed latency,
:func:`tests.mock_openai.contract_answer` answering every prompt in its contract). Params are
the clone's params.yaml with params.paper.yaml's overrides (100/100/100 pairs, hybrid 50+50,
every held-out pair, 7 strategies, 4 options, 3 PS runs) and every model on the mock. The
corpus is ``transcript_corpus.py``'s (12 interviews a person, 150–650 pairs, answers of
100–600 spoken words), written once per size.

    python benchmarks/bench_real_scale.py --persons 5 --refs a90f8a7~1 HEAD
    python benchmarks/bench_real_scale.py --persons 50 --refs HEAD

Printed: one markdown table per (size, ref) with each stage's wall seconds and share of the
run, the lexical stages' (claims, style) share, and the model requests the mock received.
Run it inside the project's virtualenv (the stages' ``interviewsim`` comes from PATH).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO)]
from bench_cold_run import pipeline_order  # noqa: E402
from transcript_corpus import write_corpus  # noqa: E402

from tests.mock_openai import separate_process  # noqa: E402

LEXICAL = ("claims", "style")
"""Stages that call no model: their time is tokenising and scoring text."""

def merged(base: dict, overrides: dict) -> dict:
    """params.paper.yaml's rule: mappings merge key by key, everything else is replaced."""
    out = dict(base)
    for key, value in overrides.items():
        out[key] = (merged(out[key], value) if isinstance(value, dict)
                    and isinstance(out.get(key), dict) else value)
    return out

def paper_params(clone: Path, corpus: Path, base_url: str, concurrency: int) -> dict:
    params = yaml.safe_load((clone / "params.yaml").read_text())
    paper = clone / "params.paper.yaml"
    if paper.exists():
        params = merged(params, yaml.safe_load(paper.read_text()))
    params["data"]["personalities"] = str(corpus)
    params["providers"] = {"mock": {"kind": "openai", "base_url": base_url,
                                    "api_key_env": "BENCH_KEY", "timeout_s": 60,
                                    "max_concurrency": concurrency}}
    models = params["models"]
    for role, model in models.items():
        for entry in model if isinstance(model, list) else [model]:
            entry["provider"] = "mock"
            entry["model"] = f"mock-{role}"
    return params

def clone_at(ref: str, target: Path) -> Path:
    if not target.exists():
        subprocess.run(["git", "clone", "-q", str(REPO), str(target)], check=True)
        subprocess.run(["git", "-C", str(target), "checkout", "-q", ref], check=True)
    return target

def stage_commands(clone: Path) -> list[tuple[str, str]]:
    stages = yaml.safe_load((clone / "dvc.yaml").read_text())["stages"]
    return [(name, " ".join(stages[name]["cmd"].split())) for name in
            pipeline_order(clone / "dvc.yaml")]

def run_pipeline(clone: Path, env: dict[str, str]) -> list[tuple[str, float]]:
    rows = []
    for name, command in stage_commands(clone):
        start = time.perf_counter()
        done = subprocess.run(command, shell=True, cwd=clone, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        rows.append((name, time.perf_counter() - start))
        if done.returncode != 0:
            raise SystemExit(f"{name} failed in {clone} (exit {done.returncode}):\n"
                             f"{done.stderr[-3000:]}")
        print(f"  {name}: {rows[-1][1]:.1f} s", file=sys.stderr, flush=True)
    return rows

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--persons", type=int, nargs="+", default=[5])
    parser.add_argument("--refs", nargs="+", default=["a90f8a7~1", "HEAD"])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--work", type=Path, default=Path("/tmp/interviewsim-real-scale"))
    args = parser.parse_args()
    work = args.work.resolve()
    results = []
    for persons in args.persons:
        corpus = work / f"corpus-{persons}"
        if not corpus.exists():
            print(f"corpus: {write_corpus(corpus, persons)}", file=sys.stderr)
        for ref in args.refs:
            sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", ref],
                                 check=True, capture_output=True, text=True).stdout.strip()
            clone = clone_at(sha, work / f"repo-{sha}")
            run_dir = work / f"run-{persons}-{sha}"
            env = {**os.environ, "INTERVIEWSIM_PROGRESS": "0", "BENCH_KEY": "sk-bench",
                   "PYTHONPATH": str(clone)}
            env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
            with separate_process("--latency", str(args.latency), "--lifetime", "14400",
                                  "--responder", "tests.mock_openai:contract_answer",
                                  env={**os.environ, "PYTHONPATH": str(REPO)}
                                  ) as (base_url, _mock):
                subprocess.run(["git", "-C", str(clone), "checkout", "-q", "--", "."],
                               check=True)
                subprocess.run(["git", "-C", str(clone), "clean", "-qfdx", "-e", ".venv"],
                               check=True)
                params = paper_params(clone, corpus, base_url, args.concurrency)
                (clone / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
                print(f"{persons} persons, {ref} ({sha}):", file=sys.stderr, flush=True)
                load = os.getloadavg()[0]
                rows = run_pipeline(clone, env)
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "stages.json").write_text(json.dumps(rows, indent=1))
            results.append((persons, ref, sha, load, rows))
    for persons, ref, sha, load, rows in results:
        total = sum(wall for _, wall in rows)
        lexical = sum(wall for name, wall in rows if name in LEXICAL)
        print(f"\n### {persons} persons, {ref} ({sha}); load average at start {load:.1f}\n")
        print("| stage | wall s | share |\n| --- | ---: | ---: |")
        for name, wall in rows:
            print(f"| {name} | {wall:.1f} | {100 * wall / total:.1f}% |")
        print(f"| **total** | **{total:.1f}** | lexical stages {100 * lexical / total:.1f}% |")

if __name__ == "__main__":
    main()
