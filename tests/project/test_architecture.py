"""The import architecture of opgen and its runtime, from one table.

`LAYERS` lists, top to bottom, the components of the generator (`opgen/`) and of the runtime
(`opgen_runtime/`); a component is one or more module prefixes (a module belongs to the
component with its longest matching prefix). The rules:

- every module belongs to a component, and every prefix of the table names a module;
- a module imports its own component's modules and those of lower layers only: nothing of
  its layer's other components, nothing above (so the runtime, below the generator, imports
  nothing from it);
- no import cycle between modules;
- generated modules import the runtime's facade (`FACADE`) and the standard library only.

Imports are read with `ast`: module level and inside functions (lazy imports count). Imports
under `if TYPE_CHECKING:` never run: they obey the layers but cannot close a cycle. A package
imported through one of its submodules is not an edge (Python runs its `__init__` first, not
because the importer asked for it). To move or split a package, edit the table.
"""

from __future__ import annotations

import ast
import importlib
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from support.paths import REPO

ROOTS = {"opgen": REPO / "opgen", "opgen_runtime": REPO / "runtime" / "opgen_runtime"}

# Top to bottom. A row is a layer: component name -> module prefixes ("pkg.__init__" is a
# package's own module, without its submodules).
LAYERS: list[dict[str, list[str]]] = [
    {"entry point": ["opgen.__main__"]},
    {"cli": ["opgen.cli"]},
    {"commands": ["opgen.commands"]},
    {"init scaffold": ["opgen.scaffold"],
     "setup helpers": ["opgen.setup_helpers", "opgen.library_check", "opgen.library_build"]},
    # what `opgen build` writes: the tree, its diff, the depfile, the rules for written paths
    {"outputs": ["opgen.outputs"]},
    # render and apidiff never import each other
    {"render": ["opgen.render"], "apidiff": ["opgen.apidiff"]},
    {"settings": ["opgen.settings", "opgen.config"], "overrides": ["opgen.overrides"]},
    {"front end": ["opgen.spec", "opgen.shape_translate"], "module groups": ["opgen.module_groups"]},
    {"python api": ["opgen.python_api"]},
    {"registry": ["opgen.registry"]},
    # the model every stage shares: OpDefs with their sources, and the per-op ApiDefs
    {"model": ["opgen.model", "opgen.overrides.apidef"]},
    {
        "tf text": ["opgen.tf_text"],
        "json input": ["opgen.json_input"],
        "code layout": ["opgen.render.layout"],
        "output escaping": ["opgen.output_escape"],
        "toml positions": ["opgen.toml_positions"],
    },
    {"base": ["opgen.__init__", "opgen.errors", "opgen.limits", "opgen.fsutil", "opgen.globs", "opgen.heap",
              "opgen.parallel", "opgen.proto"]},
    # the runtime, below all of the generator
    {"runtime facade": ["opgen_runtime.__init__"]},
    {"runtime": ["opgen_runtime"]},
    {"runtime protos": ["opgen_runtime.proto"]},
]

# What generated modules may import from the runtime: the surface the runtime keeps stable.
FACADE = frozenset({
    "opgen_runtime.api_types",
    "opgen_runtime.atypes",
    "opgen_runtime.dispatch",
    "opgen_runtime.dtypes",
    "opgen_runtime.execute",
    "opgen_runtime.op_def_library",
    "opgen_runtime.registry",
    "opgen_runtime.version",
})
GENERATED = [REPO / "generated", REPO / "tests" / "golden"]


@dataclass(frozen=True)
class Import:
    importer: str
    target: str  # a module of the graph
    line: int
    type_checking: bool  # under `if TYPE_CHECKING:`: never runs


def find_modules(roots: Mapping[str, Path]) -> dict[str, Path]:
    """Module name -> file, for every .py under each root (a package is `pkg.__init__`)."""
    found = {}
    for top, root in roots.items():
        for path in sorted(root.rglob("*.py")):
            found[".".join((top, *path.relative_to(root).with_suffix("").parts))] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported_names(tree: ast.AST, package: str) -> Iterable[tuple[str, list[str], int, bool]]:
    """(absolute module, names imported from it, line, under TYPE_CHECKING) per import statement."""
    def visit(node: ast.AST, type_checking: bool) -> Iterable[tuple[str, list[str], int, bool]]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno, type_checking
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                module = ".".join([*base, *([module] if module else [])])
            yield module, [a.name for a in node.names], node.lineno, type_checking
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from visit(child, True)
            for child in node.orelse:
                yield from visit(child, type_checking)
            return
        for child in ast.iter_child_nodes(node):
            yield from visit(child, type_checking)

    yield from visit(tree, False)


def _resolve(name: str, modules: Mapping[str, Path]) -> str | None:
    """The graph's module for an imported dotted name (a package is its `__init__`)."""
    if f"{name}.__init__" in modules:
        return f"{name}.__init__"
    return name if name in modules else None


def read_imports(modules: Mapping[str, Path]) -> list[Import]:
    """Every import between the modules: `from pkg import mod` imports `pkg.mod`, `from pkg
    import name` the package, `import a.b` the module a.b (its parents' `__init__` run
    first, but are not what the importer asked for)."""
    found = []
    for importer, path in modules.items():
        package = importer.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for module, names, line, type_checking in _imported_names(tree, package):
            targets = {_resolve(f"{module}.{n}", modules) or _resolve(module, modules) for n in names}
            if not names:
                targets = {_resolve(module, modules)}
            found += [Import(importer, t, line, type_checking) for t in sorted(targets - {None, importer})]
    return found


def component_of(module: str, layers: Sequence[Mapping[str, Sequence[str]]]) -> tuple[int, str] | None:
    """(layer index, component name) of the longest prefix matching `module`."""
    best: tuple[int, int, str] | None = None
    for index, layer in enumerate(layers):
        for name, prefixes in layer.items():
            for prefix in prefixes:
                matches = module == prefix or (not prefix.endswith(".__init__") and module.startswith(prefix + "."))
                if matches and (best is None or len(prefix) > best[0]):
                    best = (len(prefix), index, name)
    return None if best is None else (best[1], best[2])


def table_problems(modules: Iterable[str], layers: Sequence[Mapping[str, Sequence[str]]]) -> list[str]:
    """Modules no component claims, and prefixes that name no module (a stale table)."""
    modules = list(modules)
    problems = [f"{m}: in no component of LAYERS" for m in modules if component_of(m, layers) is None]
    for layer in layers:
        for name, prefixes in layer.items():
            problems += [f"LAYERS: {name!r} lists {p}, which names no module" for p in prefixes
                         if not any(m == p or m.startswith(p + ".") for m in modules)]
    return problems


def layer_violations(imports: Iterable[Import], layers: Sequence[Mapping[str, Sequence[str]]],
                     modules: Mapping[str, Path]) -> list[str]:
    """Imports of a component above the importer's, or of another component of its layer."""
    found = []
    for imp in imports:
        source, target = component_of(imp.importer, layers), component_of(imp.target, layers)
        if source is None or target is None or source[1] == target[1]:
            continue
        if target[0] <= source[0]:
            how = "upward" if target[0] < source[0] else "sideways, in one layer"
            found.append(f"{modules[imp.importer]}:{imp.line}: {imp.importer} ({source[1]}) imports {imp.target} "
                         f"({target[1]}): {how}")
    return found


def cycles(imports: Iterable[Import]) -> list[list[str]]:
    """The import cycles (strongly connected components of more than one module, Tarjan's
    algorithm), each as its sorted modules; TYPE_CHECKING imports never run, so never count."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        if not imp.type_checking:
            graph.setdefault(imp.importer, set()).add(imp.target)
            graph.setdefault(imp.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return sorted(found)


def facade_violations(files: Iterable[Path], facade: frozenset[str]) -> list[str]:
    """Imports of generated files other than the facade's modules and the standard library."""
    found = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for module, names, line, _ in _imported_names(tree, ""):
            for name in [f"{module}.{n}" for n in names] or [module]:
                if not (name in facade or module in facade or name.partition(".")[0] in sys.stdlib_module_names):
                    found.append(f"{path}:{line}: imports {name}, not the runtime's facade or the standard library")
    return found


def check(roots: Mapping[str, Path], layers: Sequence[Mapping[str, Sequence[str]]]) -> list[str]:
    """Every problem with the tree under `roots` against `layers`: the test's one verdict."""
    modules = find_modules(roots)
    imports = read_imports(modules)
    return [
        *table_problems(modules, layers),
        *layer_violations(imports, layers, modules),
        *("import cycle: " + " <-> ".join(cycle) for cycle in cycles(imports)),
    ]


def test_opgen_and_its_runtime_follow_the_layers():
    assert check(ROOTS, LAYERS) == []


def test_generated_modules_import_only_the_runtime_facade():
    files = sorted(p for d in GENERATED for p in d.rglob("*.py"))
    assert len(files) >= 7
    assert facade_violations(files, FACADE) == []


def test_the_facade_keeps_what_generated_modules_import():
    """Generated modules import these by name from the package (`from opgen_runtime import
    execute as _execute`), wherever in the runtime's subpackages they live."""
    from opgen.render.emit import RUNTIME_MODULES

    assert {f"opgen_runtime.{name}" for name in RUNTIME_MODULES} <= FACADE
    for name in sorted(FACADE):
        module = importlib.import_module(name.rpartition(".")[0])
        attr = getattr(module, name.rpartition(".")[2], None) or importlib.import_module(name)
        assert isinstance(attr, ModuleType), name


def test_the_reader_sees_every_kind_of_import(tmp_path):
    """A broken reader would find no violation either: each import form is an edge."""
    _write(tmp_path, {
        "pkg/__init__.py": "from pkg import sub\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/a.py": "from . import b\nfrom .b import thing\nfrom ..c import x\nimport pkg.d as d\n",
        "pkg/sub/b.py": "def f():\n    from pkg import e\n",
        "pkg/c.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.sub import a\n"
                     "else:\n    import os\n"),
        "pkg/d.py": "import json\n",
        "pkg/e.py": "",
    })
    modules = find_modules({"pkg": tmp_path / "pkg"})
    edges = {(i.importer, i.target, i.type_checking) for i in read_imports(modules)}
    assert edges == {
        ("pkg.__init__", "pkg.sub.__init__", False),
        ("pkg.sub.a", "pkg.sub.b", False),
        ("pkg.sub.a", "pkg.c", False),
        ("pkg.sub.a", "pkg.d", False),
        ("pkg.sub.b", "pkg.e", False),
        ("pkg.c", "pkg.sub.a", True),
    }


PLANTED_LAYERS = [
    {"top": ["app.top"]},
    {"left": ["app.left"], "right": ["app.right"]},
    {"base": ["app.base"]},
    {"init": ["app.__init__"]},
]


def test_a_planted_upward_import_fails(tmp_path):
    _write(tmp_path, {"app/__init__.py": "", "app/top.py": "import app.left\n", "app/left.py": "from app import base\n",
                      "app/right.py": "", "app/base.py": "def late():\n    from app import top\n"})
    assert check({"app": tmp_path / "app"}, PLANTED_LAYERS) == [
        f"{tmp_path / 'app' / 'base.py'}:2: app.base (base) imports app.top (top): upward",
        "import cycle: app.base <-> app.left <-> app.top",
    ]


def test_a_planted_sideways_import_fails(tmp_path):
    _write(tmp_path, {"app/__init__.py": "", "app/top.py": "", "app/left.py": "from app.right import f\n",
                      "app/right.py": "def f(): pass\n", "app/base.py": ""})
    assert check({"app": tmp_path / "app"}, PLANTED_LAYERS) == [
        f"{tmp_path / 'app' / 'left.py'}:1: app.left (left) imports app.right (right): sideways, in one layer",
    ]


def test_a_planted_cycle_fails(tmp_path):
    """A cycle inside one component breaks no layer, but is a cycle; a TYPE_CHECKING import
    closing it is not."""
    _write(tmp_path, {"app/__init__.py": "", "app/top.py": "", "app/left.py": "", "app/right.py": "",
                      "app/base/__init__.py": "", "app/base/one.py": "from app.base import two\n",
                      "app/base/two.py": "from app.base.three import x\n",
                      "app/base/three.py": "from . import one\nif TYPE_CHECKING:\n    from app.base import four\n",
                      "app/base/four.py": "from app.base import two\n"})
    assert check({"app": tmp_path / "app"}, PLANTED_LAYERS) == [
        "import cycle: app.base.one <-> app.base.three <-> app.base.two",
    ]


def test_the_real_table_fails_on_planted_imports(tmp_path):
    """The same imports planted in a copy of opgen/: the runtime importing the generator, the
    model importing a stage (upward), and a cycle between two modules of the front end."""
    roots = {top: tmp_path / top for top in ROOTS}
    for top, root in ROOTS.items():
        shutil.copytree(root, roots[top], ignore=shutil.ignore_patterns("__pycache__"))
    _append(roots["opgen_runtime"] / "ops" / "registry.py", "from opgen.errors import OpgenError\n")
    _append(roots["opgen"] / "model.py", "def _late():\n    from opgen.render import build\n")
    _append(roots["opgen"] / "spec" / "cpp_lexer.py", "from opgen.spec import preprocessor\n")
    problems = check(roots, LAYERS)
    assert [p.partition(": ")[2] for p in problems if not p.startswith("import cycle")] == [
        "opgen.model (model) imports opgen.render.build (render): upward",
        "opgen_runtime.ops.registry (runtime) imports opgen.errors (base): upward",
    ]
    assert any(p.startswith("import cycle: ") and "opgen.spec.cpp_lexer <-> " in p and "opgen.spec.preprocessor" in p
               for p in problems)


def test_a_generated_module_importing_beyond_the_facade_fails(tmp_path):
    module = tmp_path / "gen_ops.py"
    module.write_text("from __future__ import annotations\nimport collections\nfrom typing import Any\n"
                      "from opgen_runtime import dispatch as _dispatch\nfrom opgen_runtime import graph\n"
                      "import opgen.cli\nfrom opgen_runtime.version import require\nimport numpy\n")
    assert facade_violations([module], FACADE) == [
        f"{module}:5: imports opgen_runtime.graph, not the runtime's facade or the standard library",
        f"{module}:6: imports opgen.cli, not the runtime's facade or the standard library",
        f"{module}:8: imports numpy, not the runtime's facade or the standard library",
    ]


def _write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n" + text, encoding="utf-8")
