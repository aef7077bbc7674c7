"""The layout the README promises, kept by tests: the library's packages mirror the DAG, the
library never reaches into the command line, modules stay small, imports have no cycles, and a
class name means one thing."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import yaml

from tests.test_dvc_deps import REPO, imported_modules, module_file

LIBRARY = REPO / "interviewsim"
STAGES = REPO / "stages"
MAX_LINES = 400
PACKAGES = {"agent", "analysis", "context", "data", "experiment", "generation", "judges", "llm",
            "mcq", "prep", "text"}


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
