"""The import graph of opgen/ (every import, also those inside functions): layers import
one way (cli -> commands -> spec, overrides, render, apidiff -> registry, proto)."""

from __future__ import annotations

import ast
from pathlib import Path

import opgen

ROOT = Path(opgen.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the opgen modules it imports (a `from pkg import mod` counts as `pkg.mod`)."""
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges.update(a.name for a in node.names if a.name.startswith("opgen"))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                if not base.startswith("opgen"):
                    continue
                for alias in node.names:
                    edges.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        graph[name] = {e for e in edges if e in modules and e != name}
    return graph


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_render_and_apidiff_do_not_import_each_other():
    graph = import_graph()
    crossings = sorted(
        f"{a} -> {b}"
        for a, targets in graph.items()
        for b in targets
        if (_in(a, "opgen.render") and _in(b, "opgen.apidiff")) or (_in(a, "opgen.apidiff") and _in(b, "opgen.render"))
    )
    assert crossings == []


def test_layers_import_downwards_only():
    """Nothing below the commands imports them or the CLI; spec, render and apidiff never
    import their callers."""
    graph = import_graph()
    top = ("opgen.cli", "opgen.__main__")
    upward = sorted(
        f"{a} -> {b}"
        for a, targets in graph.items()
        for b in targets
        if (b in top or _in(b, "opgen.commands")) and not (a in top or _in(a, "opgen.commands"))
    )
    assert upward == []


def test_no_import_cycles_outside_runtime():
    graph = {a: {b for b in bs if not _in(b, "opgen_runtime")} for a, bs in import_graph().items()
             if not _in(a, "opgen_runtime")}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert [" -> ".join(c) for c in cycles] == []
