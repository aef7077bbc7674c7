"""The figures in RELIABILITY.md, measured the way the reliability suites test them.

    python -m tests.reliability_figures        # from the repo root; about a minute

Everything runs in process against the mock OpenAI server (never the embedded model): a
fault-free reference chain, every transient fault kind through prepare..judge, a fault outlasting
the retry budget per kind, and a from-scratch rerun with the cache kept. Prints markdown rows.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from tests.mock_openai import MockOpenAI, contract_answer
from tests.reliability_kit import (
    AGGREGATE,
    ALL_STAGES,
    CACHE,
    FAKE_KEY,
    KEY_ENV,
    MODEL_STAGES,
    STAGE_MARKS,
    TRANSIENT_FAULTS,
    artifacts,
    make_workspace,
    reports,
    run_chain,
    run_cli,
    temp_files,
)

MARKS = list(STAGE_MARKS.values())
TRANSIENT = dict(TRANSIENT_FAULTS.values())  # label → fault factory


def timed(root: Path, stages: tuple[str, ...]) -> tuple[list[int], float]:
    start = time.perf_counter()
    outcomes = run_chain(root, stages)
    return [o.code for o in outcomes], time.perf_counter() - start


def main() -> None:
    os.environ[KEY_ENV] = FAKE_KEY
    os.environ["INTERVIEWSIM_PROGRESS"] = "0"
    tmp = Path(tempfile.mkdtemp(prefix="reliability-figures-"))
    with MockOpenAI(responder=contract_answer, log_size=50_000, lifetime_s=900) as server:
        reference = make_workspace(tmp / "reference", server)
        mark = server.mark()
        codes, seconds = timed(reference, MODEL_STAGES)
        expected, calls = artifacts(reference), len(server.answered(mark))
        print(f"reference prepare..judge: exit {codes}, {calls} calls, {seconds:.1f} s\n")

        print("| transient fault | injected | extra requests | wall | artifacts |")
        print("|---|---:|---:|---:|---|")
        for i, (kind, make) in enumerate(TRANSIENT.items()):
            slow = "timeout" in kind
            root = make_workspace(tmp / f"t{i}", server, provider={"timeout_s": 1} if slow else {})
            faults = [make(m) for m in MARKS for _ in range(1 if slow else 2)]
            server.enqueue(*faults)
            mark = server.mark()
            codes, seconds = timed(root, MODEL_STAGES)
            extra = len(server.exchanges(mark)) - calls
            same = artifacts(root) == expected and not temp_files(root) and codes == [0] * 5
            print(f"| {kind} | {len(faults)} | {extra} | {seconds:.1f} s | "
                  f"{'byte-identical' if same else 'DIFFERENT'} |")

        print("\n| fault outlasting 3 attempts (generate) | exit | time to give up | message |")
        print("|---|---:|---:|---|")
        for i, (kind, make) in enumerate(TRANSIENT.items()):
            root = make_workspace(tmp / f"x{i}", server, provider={
                "timeout_s": 1, "max_attempts": 3, "max_concurrency": 1})
            run_chain(root, ("prepare", "select-context"))
            server.enqueue(*[make(MARKS[0])] * 3)
            start = time.perf_counter()
            outcome = run_cli(root, "generate")
            seconds = time.perf_counter() - start
            final = [line for line in outcome.stderr.splitlines() if line.startswith("error:")]
            message = final[-1].replace(server.base_url, "<url>") if final else "?"
            print(f"| {kind} | {outcome.code} | {seconds:.1f} s | `{message}` |")

        root = make_workspace(tmp / "again", server)
        run_chain(root, ALL_STAGES)
        run_cli(root, *AGGREGATE, "--no-mlflow")
        first, first_reports = artifacts(root), reports(root)
        shutil.rmtree(root / "data/artifacts")
        shutil.rmtree(root / "reports")
        mark = server.mark()
        codes, seconds = timed(root, ALL_STAGES)
        run_cli(root, *AGGREGATE, "--no-mlflow")
        print(f"\nfrom-scratch rerun, cache kept ({len(ALL_STAGES)} stages + aggregate): "
              f"{len(server.exchanges(mark, path=None))} requests, {seconds:.1f} s, "
              f"artifacts identical: {artifacts(root) == first}, "
              f"reports identical: {reports(root) == first_reports}, "
              f"cache file: {(root / CACHE).stat().st_size} bytes")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
