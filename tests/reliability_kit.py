"""What the reliability suites share: workspaces wired to the mock OpenAI server, stage runs in
process or as real subprocesses, artifact snapshots, and a hard deadline for every test.

Every model call goes to :class:`tests.mock_openai.MockOpenAI` through the production
``openai`` provider; nothing here loads the embedded model.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from interviewsim.judges.prompts import CS_SYSTEM, FACT_SUMMARY_SYSTEM, FC_SYSTEM, PS_SYSTEM
from tests.factories import make_doc, write_doc
from tests.mock_openai import Fault, MockOpenAI, contract_answer
from tests.stage_runner import chdir

REPO = Path(__file__).resolve().parents[1]
KEY_ENV = "INTERVIEWSIM_RELIABILITY_KEY"
FAKE_KEY = "sk-reliability-FAKE-9f3c2a71d4e8b605"


@contextlib.contextmanager
def fake_api_key() -> Iterator[None]:
    """Set the recognisable fake key for the duration, restoring what was there before."""
    old = os.environ.get(KEY_ENV)
    os.environ[KEY_ENV] = FAKE_KEY
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(KEY_ENV, None)
        else:
            os.environ[KEY_ENV] = old
"""A recognisable fake API key: the secrets suite scans every output for it."""


@contextlib.contextmanager
def contract_endpoint(**options: Any) -> Iterator[MockOpenAI]:
    """The mock endpoint answering every InterviewSim prompt in its output contract
    (:func:`~tests.mock_openai.contract_answer`), with the fake key set while it runs: what
    every suite that runs whole stages against an endpoint starts from. ``options`` go to
    :class:`MockOpenAI` (``log_size``, ``lifetime_s``, ...)."""
    with MockOpenAI(responder=contract_answer, **{"lifetime_s": 600, **options}) as mock, \
            fake_api_key():
        yield mock
CACHE = "data/cache/responses.sqlite"
MODEL_STAGES = ("prepare", "select-context", "generate", "fact-summary", "judge")

GENERATE_SYSTEM_START = "You answer interview questions"
STAGE_MARKS = {
    "generate": GENERATE_SYSTEM_START,
    "fact-summary": FACT_SUMMARY_SYSTEM[:40],
    "judge/cs": CS_SYSTEM[:40],
    "judge/fc": FC_SYSTEM[:40],
    "judge/ps": PS_SYSTEM[:40],
}
"""Text unique to each stage's prompts: a fault with this ``match`` hits only that stage."""

TRANSIENT_FAULTS: dict[str, tuple[str, Callable[[str], Fault]]] = {
    "429-retry-after": ("429 + Retry-After 0.05 s",
                        lambda m: Fault.rate_limit(retry_after=0.05, match=m)),
    "500": ("HTTP 500", lambda m: Fault.http(500, match=m)),
    "502": ("HTTP 502", lambda m: Fault.http(502, match=m)),
    "503": ("HTTP 503", lambda m: Fault.http(503, match=m)),
    "read-timeout": ("read timeout (1 s)", lambda m: Fault.timeout(sleep_s=1.5, match=m)),
    "dropped-connection": ("dropped connection", lambda m: Fault.drop(match=m)),
    "malformed-json": ("malformed JSON body", lambda m: Fault.malformed(match=m)),
    "empty-choices": ("empty choices", lambda m: Fault.empty_choices(match=m)),
}
"""Every transient fault the suites inject: id → (label for RELIABILITY.md, fault factory)."""


def _pipeline() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """From dvc.yaml, so the suites follow the pipeline as it grows: the DVC stage names and
    the commands of the stages ``dvc repro aggregate`` runs (frozen stages left out),
    in dvc.yaml's order, and aggregate's full argument list."""
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    live = {name: stage["cmd"].split()[1:] for name, stage in stages.items()
            if not stage.get("frozen")}
    aggregate = tuple(live.pop("aggregate"))
    return (*live, "aggregate"), tuple(args[0] for args in live.values()), aggregate


DVC_STAGES, ALL_STAGES, AGGREGATE = _pipeline()
STRATEGIES = ["no-context", "chronological", "retrieval"]


def docs() -> list[dict[str, Any]]:
    """Two small personalities: 4 training interviews and 1 held-out interview of 3 pairs;
    their texts differ, so no two model requests of a run are the same."""
    return [make_doc("P1", marker="p1"), make_doc("P2", marker="p2")]


def mock_params(server: MockOpenAI, **overrides: Any) -> dict[str, Any]:
    """A reduced configuration whose every model is served by ``server``; short timeouts and
    backoffs so a fault costs fractions of a second. ``provider`` overrides provider fields."""
    provider = {"kind": "openai", "base_url": server.base_url, "api_key_env": KEY_ENV,
                "max_concurrency": 4, "timeout_s": 2, "max_attempts": 4,
                "backoff_initial_s": 0.01, "backoff_max_s": 0.2,
                **overrides.pop("provider", {})}
    model = {"provider": "mock", "model": "mock-model", "max_tokens": 64}
    data: dict[str, Any] = {
        "seed": 11,
        "data": {"personalities": "data/personalities"},
        "strategies": list(STRATEGIES),
        "context": {"chronological_pairs": 3, "random_pairs": 3, "retrieval_pairs": 3,
                    "hybrid_retrieved": 2, "hybrid_recent": 2},
        "judge": {"ps_runs": 1, "max_attempts": 2},
        "mcq": {"max_attempts": 2},
        "aggregate": {"permutations": 50, "bootstrap": 50},
        # The interview stage runs as a no-op here: whole agent sessions against a mock that
        # does not speak the agent's action protocol would test the mock, not the pipeline
        # (tests/test_agent_experiment.py covers the stage with a scripted provider).
        "interview": {"strategies": []},
        # Controls off: these chains name their stages, and the controls stage is not among
        # them (tests/test_validity.py runs the controls through judge and mcq-answer).
        "controls": [],
        "mlflow": {"tracking_uri": "sqlite:///mlflow.db", "experiment": "reliability"},
        "providers": {"mock": provider},
        "models": {"generator": model, "judges": [{"name": "mockjudge", **model}],
                   "mcq_builder": model, "mcq_answerers": [{"name": "mockanswerer", **model}]},
    }
    data.update(overrides)
    return data


def write_params(root: Path, data: dict[str, Any]) -> Path:
    path = root / "params.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def make_workspace(root: Path, server: MockOpenAI, people: list[dict] | None = None,
                   **overrides: Any) -> Path:
    """A temp project: personalities under data/personalities and a params.yaml for the mock."""
    root.mkdir(parents=True, exist_ok=True)
    for doc in docs() if people is None else people:
        write_doc(root / "data" / "personalities", doc)
    write_params(root, mock_params(server, **overrides))
    return root


@dataclass(frozen=True)
class Outcome:
    """How a stage run ended: the exit code and what it printed."""

    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_cli(root: Path, *args: str) -> Outcome:
    """One ``interviewsim`` command in this process, through the console entry point (so
    library errors become exit codes exactly as on the command line)."""
    from stages.cli import main

    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["interviewsim", *args]
    code: int | str | None = 0
    try:
        with chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as exc:
                code = exc.code
    finally:
        sys.argv = argv
    return Outcome(code if isinstance(code, int) else 1, out.getvalue(), err.getvalue())


def run_chain(root: Path, stages: tuple[str, ...] = MODEL_STAGES) -> list[Outcome]:
    """Run stages in order, in process; stop at the first that fails."""
    outcomes = []
    for stage in stages:
        outcomes.append(run_cli(root, stage))
        if outcomes[-1].code != 0:
            break
    return outcomes


def stage_env(**extra: str) -> dict[str, str]:
    """The environment of a stage subprocess: this interpreter's PATH, the repo importable,
    the fake key set, progress bars off."""
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "PYTHONPATH": str(REPO),
           "HOME": os.environ.get("HOME", "/tmp"), "INTERVIEWSIM_PROGRESS": "0",
           KEY_ENV: FAKE_KEY}
    env.update(extra)
    return env


def spawn_stage(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``python -m stages ARGS`` as a real process in ``root`` (for SIGKILL and exit codes)."""
    return subprocess.Popen([sys.executable, "-m", "stages", *args], cwd=root,
                            env=env or stage_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def run_stage(root: Path, *args: str, timeout: float = 120,
              env: dict[str, str] | None = None) -> Outcome:
    """Run a stage as a subprocess; a run past ``timeout`` is killed and fails the test."""
    process = spawn_stage(root, *args, env=env)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise AssertionError(f"`interviewsim {' '.join(args)}` hung for {timeout}s") from None
    return Outcome(process.returncode, stdout, stderr)


ARTIFACTS = "data/artifacts"
RUN_LOGS = {"run_log.json"}
"""Per-stage run logs (calls made now, cache hits, wall time): they differ between a fresh
run and a replay by design; everything else under data/artifacts must not."""


def artifacts(root: Path, include_logs: bool = False) -> dict[str, bytes]:
    """Every artifact file under data/artifacts by relative path, with its bytes."""
    base = root / ARTIFACTS
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(base.rglob("*"))
            if p.is_file() and p.name != ".gitignore"  # DVC's, in a DVC workspace
            and (include_logs or p.name not in RUN_LOGS)}


def reports(root: Path) -> dict[str, bytes]:
    """Every file aggregate wrote under reports/, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "reports").rglob("*"))
            if p.is_file() and p.name != ".gitignore"}


def temp_files(root: Path) -> list[str]:
    """Leftover temporary files of atomic writes anywhere under data/ or reports/."""
    return sorted(str(p.relative_to(root)) for folder in ("data", "reports")
                  for p in (root / folder).rglob("*.tmp"))


def cache_entries(root: Path) -> int:
    """Entries committed to the workspace's response cache (read like a second process)."""
    path = root / CACHE
    if not path.exists():
        return 0
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        try:
            return db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` every 20 ms; fail the test if it is not true within ``timeout``."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.02)


class Deadline(Exception):
    """A test ran past its deadline: something hung."""


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail with :class:`Deadline` if the block runs longer than ``seconds`` (SIGALRM, so it
    interrupts a blocked wait in the main thread)."""
    def expire(signum: int, frame: object) -> None:
        raise Deadline(f"test exceeded its {seconds}s deadline (a hang?)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
