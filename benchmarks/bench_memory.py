"""Peak RSS of select-context, generate, fact-summary and judge as personalities grow.

    python benchmarks/bench_memory.py --sizes 10 100 1000 --corpus /tmp/paper_corpus

Each size gets its own workspace (the first N personalities of the synthetic corpus, written
if missing), a scripted model (this module's :func:`respond`, no model runs), a reduced
configuration so the 1,000-personality row finishes in minutes (``data.max_heldout_pairs``,
a subset of strategies, one PS run), and every stage runs in a child process whose own peak
RSS is read with ``os.wait4``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_corpus import write_corpus  # noqa: E402

STAGES = ("prepare", "select-context", "generate", "fact-summary", "judge")
MEASURED = ("select-context", "generate", "fact-summary", "judge")


def answer_for(system: str, user: str) -> str:
    """Valid output for every prompt generate, fact-summary and judge send; the generated
    answer varies with the prompt, so every answer (and every judge ask) is distinct."""
    from interviewsim.judges.prompts import CS_SYSTEM, FACT_SUMMARY_SYSTEM, FC_SYSTEM, PS_SYSTEM

    if system == FACT_SUMMARY_SYSTEM:
        return json.dumps({"summary": "A person who keeps a workshop.", "explanation": "text"})
    if system == CS_SYSTEM:
        return json.dumps({"score": 3, "explanation": "partly overlaps"})
    if system == FC_SYSTEM:
        return json.dumps({"label": "Neutral", "explanation": "not covered"})
    if system == PS_SYSTEM:
        return "<rate>Neutral</rate> <justification>weak evidence</justification>"
    digest = hashlib.sha256(user.encode("utf-8")).hexdigest()[:12]
    return f"I keep a ledger in the workshop, page {digest}."


def respond(request) -> str:
    """The scripted provider's callable (a ChatRequest)."""
    return answer_for(request.messages[0].content, request.messages[-1].content)


def params_for(corpus: Path, heldout: int, strategies: list[str]) -> dict:
    model = {"provider": "script", "model": "scripted", "max_tokens": 64}
    return {
        "data": {"personalities": str(corpus), "max_heldout_pairs": heldout},
        "strategies": strategies,
        "providers": {"script": {"kind": "scripted", "script": "bench_memory:respond"}},
        "models": {"generator": model, "judges": [{"name": "j1", **model}],
                   "mcq_builder": model, "mcq_answerers": [{"name": "a1", **model}]},
        "judge": {"ps_runs": 1},
    }


def run_stage(root: Path, stage: str) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one stage in a child process."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent),
           "INTERVIEWSIM_PROGRESS": "0"}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "stages", stage], cwd=root, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{stage} failed in {root} (exit {child.returncode})")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--corpus", type=Path, required=True,
                        help="synthetic corpus folder (written with max(sizes) if missing)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/interviewsim-bench-memory"))
    parser.add_argument("--heldout", type=int, default=2)
    parser.add_argument("--strategies", nargs="+", default=["no-context", "chronological"])
    args = parser.parse_args()
    if not args.corpus.is_dir():
        write_corpus(args.corpus, max(args.sizes))
    people = sorted(p.name for p in args.corpus.iterdir() if p.is_dir())
    repo = Path(__file__).resolve().parents[1]
    print("| personalities | " + " | ".join(f"{s} peak RSS (wall)" for s in MEASURED) + " |")
    print("| --- |" + " --- |" * len(MEASURED))
    for size in args.sizes:
        root = args.work / str(size)
        corpus = root / "corpus"
        corpus.mkdir(parents=True, exist_ok=True)
        for pid in people[:size]:
            link = corpus / pid
            if not link.exists():
                link.symlink_to(args.corpus / pid)
        (root / "params.yaml").write_text(
            yaml.safe_dump(params_for(corpus, args.heldout, args.strategies)))
        if not (root / "stages").exists():
            (root / "stages").symlink_to(repo / "stages")
        cells = []
        for stage in STAGES:
            wall, peak = run_stage(root, stage)
            if stage in MEASURED:
                cells.append(f"{peak:.0f} MB ({wall:.1f} s)")
        print(f"| {size:,} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
