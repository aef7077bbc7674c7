"""The layout the README promises, kept by tests: the library's packages mirror the DAG, the
library never reaches into the command line, modules stay small, imports have no cycles, and a
class name means one thing."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import yaml

from tests.test_dvc_deps import REPO, imported_modules, module_file

LIBRARY = REPO / "interviewsim"
STAGES = REPO / "stages"
MAX_LINES = 400
PACKAGES = {"agent", "analysis", "config", "context", "data", "experiment", "generation", "judges",
            "llm", "mcq", "prep", "text"}
FLOORS = {"config": 0, "text": 1, "data": 1, "llm": 2, "context": 3, "generation": 4,
          "judges": 4, "mcq": 4, "analysis": 5, "agent": 5, "prep": 5, "experiment": 6}
"""The library's floor plan, bottom up, following the DAG: typed configuration at the bottom
(every package may import it, it imports none), then text and data, the model seam, the
context strategies, the stage families, and on top the experiment's whole-run helpers (the
interview stage's sizing, the offline responder). A package imports only from its own floor
or below, so no package cycle can form."""
MAX_FUNCTION_LINES = 60
LONG_FUNCTIONS: dict[str, str] = {}
"""Functions allowed over MAX_FUNCTION_LINES (``path:name`` -> why). The list may only shrink:
an entry whose function has become short fails the ratchet test until it is removed. The model
stages' commands may never be on it (they declare, :mod:`stages.runner` runs)."""


def sources(*roots: Path) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_imports(path: Path) -> set[str]:
    """Modules imported when ``path`` is imported: module-level statements only (``if
    TYPE_CHECKING`` blocks and imports inside functions cannot form a cycle at import time)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = [n for n in tree.body
            if not (isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test))
            and not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    return imported_modules(path, ast.Module(body=body, type_ignores=[]))


def test_no_flat_module_in_the_library() -> None:
    flat = sorted(p.name for p in LIBRARY.glob("*.py"))
    assert flat == ["__init__.py", "errors.py"], f"move these into a package: {flat}"
    packages = {p.name for p in LIBRARY.iterdir() if (p / "__init__.py").is_file()}
    assert packages == PACKAGES, "a package was added or removed: update PACKAGES and the README"


def test_no_module_over_400_lines() -> None:
    long = {str(p.relative_to(REPO)): n for p in sources(LIBRARY, STAGES)
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these modules (over {MAX_LINES} lines): {long}"


def test_the_library_never_imports_the_command_line() -> None:
    offenders = {str(p.relative_to(REPO)): sorted(m for m in imported_modules(p)
                                                  if m.split(".")[0] == "stages")
                 for p in sources(LIBRARY)}
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, f"interviewsim must not import stages: {offenders}"


def test_stages_holds_the_dvc_stages_and_the_command_line_only() -> None:
    """One file per DVC stage, named after it; the group, shared options and the tool
    commands (stages/commands/) beside them; nothing else."""
    dvc_stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    expected = {f"{name.replace('-', '_')}.py" for name in dvc_stages}
    expected |= {"__init__.py", "__main__.py", "cli.py", "common.py"}
    assert {p.name for p in STAGES.iterdir() if p.is_dir() and p.name != "__pycache__"} == {
        "commands", "runner"}, "stages/ holds commands/ (tool commands) and runner/ only"
    found = {p.name for p in STAGES.glob("*.py")}
    assert found == expected, (f"not a stage: {sorted(found - expected)}; "
                               f"stage without a file: {sorted(expected - found)}")


def test_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for path in sources(LIBRARY, STAGES):
        targets = set()
        for name in top_level_imports(path):
            found = module_file(name)
            if found is not None and found != path:
                targets.add(module_name(found))
        graph[module_name(path)] = targets
    # a module importing its own package's __init__ (or the reverse) is how packages work
    cycles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            if node.startswith(f"{target}."):
                continue  # a package's own __init__, imported by its modules
            if state.get(target) == 1:
                cycles.append(trail[trail.index(target):] + [target])
            elif target not in state:
                visit(target, [*trail, target])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not cycles, f"import cycles: {cycles[:5]}"


def test_no_two_classes_share_a_name() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for path in sources(LIBRARY, STAGES):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(str(path.relative_to(REPO)))
    shared = {name: files for name, files in where.items() if len(files) > 1}
    assert not shared, f"one name, one thing: {shared}"


def _package_imports(path: Path) -> set[str]:
    """The library packages a module imports anywhere in it (lazy imports included)."""
    return {name.split(".")[1] for name in imported_modules(path)
            if name.startswith("interviewsim.") and name.count(".") >= 1}


def test_packages_import_only_from_their_floor_or_below() -> None:
    assert set(FLOORS) == PACKAGES
    upward = {}
    for path in sources(LIBRARY):
        parts = path.relative_to(LIBRARY).parts
        if len(parts) < 2:
            continue
        own = parts[0]
        higher = sorted(p for p in _package_imports(path)
                        if p in FLOORS and FLOORS[p] > FLOORS[own])
        if higher:
            upward[str(path.relative_to(REPO))] = higher
    assert not upward, f"imports from a higher floor (move the shared part down): {upward}"


def test_config_imports_no_other_package() -> None:
    for path in sources(LIBRARY / "config"):
        assert _package_imports(path) <= {"config", "errors"}, path


def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node.end_lineno - node.lineno + 1  # def line to last, no decorators


def test_no_function_over_60_lines() -> None:
    long = {f"{p.relative_to(REPO)}:{name}": n for p in sources(LIBRARY, STAGES)
            for name, n in _functions(p) if n > MAX_FUNCTION_LINES}
    new = {key: n for key, n in long.items() if key not in LONG_FUNCTIONS}
    assert not new, f"split these functions (over {MAX_FUNCTION_LINES} lines): {new}"
    shrunk = sorted(set(LONG_FUNCTIONS) - set(long))
    assert not shrunk, f"now short: remove them from LONG_FUNCTIONS: {shrunk}"


def test_the_model_stage_commands_are_declarations() -> None:
    """generate, fact-summary, judge, mcq-build and mcq-answer hand their work to the runner;
    batching and overlap live only there."""
    for name in ("generate", "fact_summary", "judge", "mcq_build", "mcq_answer"):
        text = (STAGES / f"{name}.py").read_text(encoding="utf-8")
        assert "run_stage(" in text, name
        assert "fill_batches" not in text and "overlapped" not in text, name
    users = sorted(str(p.relative_to(REPO)) for p in sources(LIBRARY, STAGES)
                   if "fill_batches(" in p.read_text(encoding="utf-8")
                   and p.parent.name != "runner")
    assert not users, f"batching outside stages/runner: {users}"


def test_the_library_never_names_the_command_line_package() -> None:
    """Not by import (above) and not as a string: ``python -m stages`` or a ``stages.x``
    module path would couple the library to the CLI where the import test cannot see it."""
    offenders = []
    for path in sources(LIBRARY):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if (text == "stages" or re.search(r"-m\s+stages\b", text)
                        or any(re.fullmatch(r"stages(\.\w+)+", w) for w in text.split())):
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not offenders, f"the library names the CLI package: {offenders}"
