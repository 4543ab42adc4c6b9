"""Structure of `opgen_runtime`: no import cycles between its modules, and mypy-clean.

Imports are read with `ast` (module level and inside functions, i.e. lazy imports count;
`if TYPE_CHECKING:` imports do not, as they never run).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import opgen_runtime

RUNTIME = Path(opgen_runtime.__file__).parent
MODULES = sorted(p.stem for p in RUNTIME.glob("*.py"))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str) -> set[str]:
    """The runtime modules `module` imports (directly, at any depth of its code)."""
    tree = ast.parse((RUNTIME / f"{module}.py").read_text())
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            if (
                node.level == 1
                or node.module
                and node.module.startswith("opgen_runtime")
            ):
                base = (
                    node.module or ""
                    if node.level == 1
                    else node.module.removeprefix("opgen_runtime").lstrip(".")
                )
                if base:
                    found.add(base.split(".")[0])
                else:
                    found.update(a.name for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("opgen_runtime."):
                    found.add(alias.name.split(".")[2])
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(module)
    return found & set(MODULES)


def _cycles() -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph = {m: _imports(m) for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(frozenset(component))

    for module in MODULES:
        if module not in index:
            connect(module)
    return components


def test_import_graph_is_read():
    """The reader sees real edges (a broken reader would find no cycles either)."""
    assert {"graph", "operation", "tensor", "scopes", "devices"} <= _imports(
        "graph"
    ) | {"graph"}
    assert {"op_info", "fast_path", "conversion"} <= _imports("op_def_library")
    # fast_path names graph for type checking only, and uses op_info's output_structure
    assert "op_info" in _imports("fast_path")
    assert not {"op_def_library", "graph"} & _imports("fast_path")


def test_no_import_cycles_in_the_runtime():
    assert _cycles() == []


def test_runtime_is_mypy_clean(tmp_path):
    files = [str(RUNTIME / f"{m}.py") for m in MODULES] + [str(RUNTIME / "shape_fns")]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
         "--check-untyped-defs", "--cache-dir", str(tmp_path / "mypy"), *files],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
