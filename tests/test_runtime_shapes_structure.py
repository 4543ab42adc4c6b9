"""The shape-inference modules of the runtime: mypy-clean, and no import cycle among them
(inference -> the shape functions -> context -> constants, one way)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import opgen_runtime
from opgen_runtime import (
    shape_constants,
    shape_context,
    shape_fn_names,
    shape_fns,
    shape_inference,
)

RUNTIME = Path(opgen_runtime.__file__).parent
SHAPE_FILES = sorted(
    [
        *(Path(m.__file__) for m in (shape_inference, shape_context, shape_constants, shape_fn_names)),
        *Path(shape_fns.__file__).parent.glob("*.py"),
    ]
)


def _module_name(path: Path) -> str:
    rel = path.relative_to(RUNTIME).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_imports(path: Path) -> set[str]:
    """Runtime modules `path` imports at run time (TYPE_CHECKING blocks excluded)."""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            if node.module is None:
                found.update(f"{target}.{a.name}".strip(".") for a in node.names)
            else:
                found.add(target)
    return found


def test_no_import_cycle_among_shape_modules():
    names = {_module_name(p): p for p in SHAPE_FILES}
    graph = {
        name: {m for m in _runtime_imports(path) if m in names and m != name}
        for name, path in names.items()
    }
    # a package's own __init__ importing its submodules is not a cycle
    graph = {
        name: {m for m in deps if not (name and m.startswith(name + "."))}
        for name, deps in graph.items()
    }
    visiting: list[str] = []
    done: set[str] = set()

    def visit(name: str) -> None:
        assert name not in visiting, "import cycle: " + " -> ".join([*visiting, name])
        if name in done:
            return
        visiting.append(name)
        for dep in sorted(graph[name]):
            visit(dep)
        visiting.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)
    assert _module_name(Path(shape_inference.__file__)) not in graph[
        _module_name(Path(shape_fns.__file__))
    ]


def test_shape_modules_pass_mypy(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--follow-imports=silent",
            "--ignore-missing-imports",
            "--cache-dir",
            str(tmp_path / "mypy"),
            *map(str, SHAPE_FILES),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
