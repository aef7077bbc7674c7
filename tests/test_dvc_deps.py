"""`dvc.yaml` dependencies that cannot go stale: every project file a stage's code imports,
directly or through other project modules (lazy imports inside functions included), must be
covered by that stage's `deps` (the file itself or a folder above it), and every listed dep
must exist. A change to any code a stage runs then reruns it, and the reproduction check
(`make check-reproduction`) catches a commit that forgot `make lock`.

The closure starts at the stage's own module (the one `stages/cli.py` maps its command to);
the command group that dispatches to it is not part of any stage's result.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from stages.cli import COMMANDS

REPO = Path(__file__).resolve().parents[1]
PROJECT_PACKAGES = ("interviewsim", "stages")


def module_file(name: str) -> Path | None:
    """The repository file that defines module ``name``, or None outside the project."""
    if name.split(".")[0] not in PROJECT_PACKAGES:
        return None
    base = REPO.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_modules(path: Path, tree: ast.Module | None = None) -> set[str]:
    """Every module an ``import`` anywhere in the file (or in ``tree``, a part of it) may load
    (submodules named in a ``from package import name`` included), with their parent
    packages."""
    if tree is None:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(REPO).with_suffix("").parts)
    if path.name == "__init__.py":
        package = package.removesuffix(".__init__")
    else:
        package = package.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    with_parents = set()
    for name in names:
        parts = name.split(".")
        with_parents.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return with_parents


def import_closure(start: Path) -> set[Path]:
    seen: set[Path] = set()
    todo = [start]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in imported_modules(path):
            found = module_file(name)
            if found is not None and found not in seen:
                todo.append(found)
    return seen


def stage_entry(cmd: str) -> Path:
    words = cmd.split()
    command = words[words.index("interviewsim") + 1]
    module = COMMANDS[command].partition(":")[0]
    found = module_file(module)
    assert found is not None, f"command {command} maps to {module}, not a project file"
    return found


def resolved(dep: str, params: dict) -> str:
    """A dep with DVC's ``${a.b}`` templating filled from params.yaml."""
    while "${" in dep:
        start = dep.index("${")
        end = dep.index("}", start)
        value: object = params
        for key in dep[start + 2:end].split("."):
            value = value[key]  # type: ignore[index]
        dep = dep[:start] + str(value) + dep[end + 1:]
    return dep


def stages() -> dict[str, dict]:
    return yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]


def stage_deps(name: str) -> list[str]:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    return [resolved(d, params) for d in stages()[name]["deps"]]


def uncovered(entry: Path, deps: list[str]) -> list[str]:
    """The project files ``entry`` imports (transitively) that no dep covers."""
    covered = [REPO / d for d in deps]
    return sorted(str(p.relative_to(REPO)) for p in import_closure(entry)
                  if not any(p == c or c in p.parents for c in covered))


@pytest.mark.parametrize("name", sorted(stages()))
def test_a_stage_depends_on_every_project_file_its_code_imports(name: str) -> None:
    deps = stage_deps(name)
    missing_deps = [d for d in deps if not (REPO / d).exists()
                    and not d.startswith("data/artifacts/")]  # outs of earlier stages
    assert not missing_deps, f"stage {name}: listed deps that do not exist: {missing_deps}"
    needed = uncovered(stage_entry(stages()[name]["cmd"]), deps)
    assert not needed, (f"stage {name} imports project files its dvc.yaml deps do not cover "
                        f"(add them, or a folder above them): {needed}")


@pytest.mark.parametrize("name", sorted(stages()))
def test_library_deps_are_package_folders(name: str) -> None:
    """A stage depends on whole packages (a file added to one is covered at once), and on the
    two top-level modules by name; never on the whole library, which would rerun every stage
    for any change."""
    library = [d for d in stage_deps(name) if d.startswith("interviewsim")]
    wrong = [d for d in library if d not in ("interviewsim/__init__.py", "interviewsim/errors.py")
             and not (len(Path(d).parts) == 2 and (REPO / d).is_dir())]
    assert not wrong, f"stage {name}: library deps must be interviewsim/<package> folders: {wrong}"


def test_a_missing_dep_is_named() -> None:
    """The check fails, naming the file, when a stage's imports reach a package its deps leave
    out (what happens when someone adds an import and forgets dvc.yaml)."""
    deps = stage_deps("judge")
    entry = stage_entry(stages()["judge"]["cmd"])
    assert uncovered(entry, deps) == []
    fewer = [d for d in deps if d != "interviewsim/judges"]
    assert "interviewsim/judges/tasks.py" in uncovered(entry, fewer)


def test_the_closure_follows_lazy_and_relative_imports(tmp_path: Path) -> None:
    entry = REPO / "stages" / "generate.py"
    closure = {str(p.relative_to(REPO)) for p in import_closure(entry)}
    assert "interviewsim/llm/hub.py" in closure  # through interviewsim.llm's __init__
    assert "interviewsim/llm/llama_cpp_provider.py" in closure  # imported inside a function
