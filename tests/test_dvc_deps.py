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


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` anywhere in the file may load (submodules named in a
    ``from package import name`` included), with their parent packages."""
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


@pytest.mark.parametrize("name", sorted(stages()))
def test_a_stage_depends_on_every_project_file_its_code_imports(name: str) -> None:
    stage = stages()[name]
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    deps = [resolved(d, params) for d in stage["deps"]]
    missing_deps = [d for d in deps if not (REPO / d).exists()
                    and not d.startswith("data/artifacts/")]  # outs of earlier stages
    assert not missing_deps, f"stage {name}: listed deps that do not exist: {missing_deps}"
    covered = [REPO / d for d in deps]
    needed = sorted(str(p.relative_to(REPO)) for p in import_closure(stage_entry(stage["cmd"]))
                    if not any(p == c or c in p.parents for c in covered))
    assert not needed, (f"stage {name} imports project files its dvc.yaml deps do not cover "
                        f"(add them, or a folder above them): {needed}")


def test_the_closure_follows_lazy_and_relative_imports(tmp_path: Path) -> None:
    entry = REPO / "stages" / "generate.py"
    closure = {str(p.relative_to(REPO)) for p in import_closure(entry)}
    assert "interviewsim/llm/hub.py" in closure  # through interviewsim.llm's __init__
    assert "interviewsim/llm/llama_cpp_provider.py" in closure  # imported inside a function
