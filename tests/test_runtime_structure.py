"""Structure of `opgen_runtime`: no import cycles between its modules, and mypy-clean.

Imports are read with `ast` (module level and inside functions, i.e. lazy imports count;
`if TYPE_CHECKING:` imports do not, as they never run).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import opgen_runtime
from opgen_runtime import (
    conversion,
    devices,
    fast_path,
    graph,
    op_def_library,
    op_info,
    operation,
    scopes,
    tensor,
)

RUNTIME = Path(opgen_runtime.__file__).parent
# Dotted names below opgen_runtime ("" is the package itself); generated protos left out
FILES = {
    ".".join(p.relative_to(RUNTIME).with_suffix("").parts).removesuffix("__init__").rstrip("."): p
    for p in RUNTIME.rglob("*.py")
    if "proto" not in p.relative_to(RUNTIME).parts
}
MODULES = sorted(FILES)


def _name(module: ModuleType) -> str:
    """`module`'s name as MODULES spell it."""
    return module.__name__.removeprefix("opgen_runtime").lstrip(".")


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(module: str) -> set[str]:
    """The runtime modules `module` imports (directly, at any depth of its code); `from pkg
    import mod` counts as `pkg.mod` when that is a module, importing a module counts as
    importing its packages too (their `__init__` runs)."""
    path = FILES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    package = [p for p in package if p]
    found: set[str] = set()

    def add(name: str) -> None:
        parts = name.split(".")
        found.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(
                    [*package[: len(package) - node.level + 1], *([node.module] if node.module else [])]
                )
            elif node.module and (node.module + ".").startswith("opgen_runtime."):
                base = node.module.removeprefix("opgen_runtime").lstrip(".")
            else:
                base = None
            if base is not None:
                for alias in node.names:
                    sub = f"{base}.{alias.name}".lstrip(".")
                    add(sub if sub in FILES else base)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("opgen_runtime."):
                    add(alias.name.removeprefix("opgen_runtime."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    # a package's __init__ importing its own submodules, or a module its own packages, is
    # no cycle
    return {
        m for m in found & set(MODULES)
        if m != module and not m.startswith(module + ".") and not (module + ".").startswith(m + ".")
    }


def _cycles() -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan); the package's own
    `__init__` (the facade, which imports everything) left out."""
    graph = {m: _imports(m) - {""} for m in MODULES if m}
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

    for module in graph:
        if module not in index:
            connect(module)
    return components


def test_import_graph_is_read():
    """The reader sees real edges (a broken reader would find no cycles either)."""
    assert {_name(m) for m in (graph, operation, tensor, scopes, devices)} <= _imports(
        _name(graph)
    ) | {_name(graph)}
    assert {_name(m) for m in (op_info, fast_path, conversion)} <= _imports(_name(op_def_library))
    # fast_path names graph for type checking only, and uses op_info's output_structure
    assert _name(op_info) in _imports(_name(fast_path))
    assert not {_name(op_def_library), _name(graph)} & _imports(_name(fast_path))


def test_no_import_cycles_in_the_runtime():
    assert _cycles() == []


def test_runtime_is_mypy_clean(tmp_path):
    files = [str(FILES[m]) for m in MODULES]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
         "--check-untyped-defs", "--cache-dir", str(tmp_path / "mypy"), *files],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
