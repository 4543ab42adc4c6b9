"""Split runtime/opgen_runtime/ into subpackages (graph, values, ops, shapes, tf) and rewrite
every reference to a moved module: imports in runtime/, opgen/, tests/, bench/, tools/ and
dotted names or paths in their strings, comments and in the docs.

Re-runnable, also on a tree that gained commits after the split (run it after merging a branch
that edits or adds runtime files): it `git mv`s only files still at their old paths and rewrites
only references that do not resolve in the split tree, so a second run changes nothing. Run it
from the repository's root: `python tools/runtime_split_moves.py`; it prints what it changed.

An import is resolved against the file's place in the split tree first; one that finds no module
there is read as written before the split (against the file's old place) and its target mapped
through MOVES. The new subpackages' `__init__` modules export nothing, so `from
opgen_runtime.graph import Graph` is the old `graph` module's name and gets rewritten. Generated
code (generated/, the golden files) is left alone: its imports name the facade, the names
`opgen_runtime/__init__.py` keeps importable.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

PACKAGE = "opgen_runtime"
ROOT = Path("runtime") / PACKAGE

# Module (or package) below opgen_runtime before the split -> after it.
MOVES: dict[str, str] = {
    # graph core: the Graph, its operations and tensors, name/control/device scopes
    "graph": "graph.graph",
    "operation": "graph.operation",
    "tensor": "graph.tensor",
    "scopes": "graph.scopes",
    "devices": "graph.devices",
    # values: dtypes, shapes as values, attr values, conversion to tensors, constants
    "dtypes": "values.dtypes",
    "tensor_shape": "values.tensor_shape",
    "attr_values": "values.attr_values",
    "conversion": "values.conversion",
    "constant_op": "values.constant_op",
    "tf_objects": "values.tf_objects",
    # op construction: OpDefs, the wrapper's call into the graph, eager execution
    "registry": "ops.registry",
    "op_info": "ops.op_info",
    "op_def_library": "ops.op_def_library",
    "fast_path": "ops.fast_path",
    "execute": "ops.execute",
    # shape inference
    "shape_inference": "shapes.inference",
    "shape_context": "shapes.context",
    "shape_constants": "shapes.constants",
    "shape_fn_names": "shapes.fn_names",
    "shape_fns": "shapes.fns",
    # TensorFlow: backend selection, the bridge to TF's execution, dispatch, op libraries
    "backend": "tf.backend",
    "tf_backend": "tf.bridge",
    "dispatch": "tf.dispatch",
    "op_libraries": "tf.op_libraries",
    "import_hooks": "tf.import_hooks",
    "tf_tracebacks": "tf.tracebacks",
}

NEW_PACKAGES: dict[str, str] = {
    "graph": "The graph core: `Graph`, `Operation`, `Tensor`, name, control and device scopes.",
    "values": (
        "Values: dtypes, `TensorShape`, attr values, conversion of Python values to tensors,\n"
        "constants, and recognising TensorFlow's own objects (without importing TensorFlow)."
    ),
    "ops": (
        "Op construction: the OpDef registry, what a wrapper's call adds to the graph\n"
        "(`op_def_library`, its fast path) and eager execution (`execute`)."
    ),
    "shapes": (
        "Shape inference: TF's InferenceContext, constant evaluation for shape functions and\n"
        "the ports of TF's shape functions (`fns`)."
    ),
    "tf": (
        "TensorFlow: which backend a call runs on, the bridge to TF's own execution, dispatch,\n"
        "op libraries and traceback filtering. TensorFlow is imported only when used."
    ),
}

# Generated code and protoc output: never rewritten (generated/ stays byte-identical).
SKIP = re.compile(r"^(generated/|tests/golden/|runtime/opgen_runtime/proto/.*_pb2\.pyi?$|opgen/proto/.*_pb2\.pyi?$)")
TEXT_SUFFIXES = (".py", ".pyi", ".md", ".j2", ".toml", ".cfg", ".txt", ".sh", ".ini")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def mapped(old: str) -> str | None:
    """`old` (dotted, below opgen_runtime) after the split, by its longest moved prefix."""
    parts = old.split(".")
    for k in range(len(parts), 0, -1):
        head = ".".join(parts[:k])
        if head in MOVES:
            return ".".join([MOVES[head], *parts[k:]])
    return None


def exists(rel: str) -> bool:
    """Whether `rel` (dotted, below opgen_runtime; "" the package) is a module now."""
    path = ROOT.joinpath(*rel.split(".")) if rel else ROOT
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def module_of(path: Path) -> tuple[str, bool]:
    """(dotted name below opgen_runtime, is a package) of a file under ROOT."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def old_module(rel: str) -> str:
    """The name `rel` had before the split (itself if it did not move)."""
    for old, new in sorted(MOVES.items(), key=lambda kv: -len(kv[1])):
        if rel == new or rel.startswith(new + "."):
            return old + rel[len(new) :]
    return rel


# ---------------------------------------------------------------------------------- moves


def move_files() -> list[str]:
    done = []
    for old, new in MOVES.items():
        src = ROOT.joinpath(*old.split("."))
        dst = ROOT.joinpath(*new.split("."))
        if src.with_suffix(".py").is_file():
            pairs = [(src.with_suffix(".py"), dst.with_suffix(".py"))]
            stub = src.with_suffix(".pyi")
            if stub.is_file():
                pairs.append((stub, dst.with_suffix(".pyi")))
        elif src.is_dir() and old not in NEW_PACKAGES:  # graph/ is the new package
            tracked = git("ls-files", "--", str(src)).split()
            pairs = [(Path(f), dst / Path(f).relative_to(src)) for f in tracked]
        else:
            continue
        for a, b in pairs:
            if b.exists():
                sys.exit(f"error: both {a} and {b} exist; merge them by hand, then re-run")
            b.parent.mkdir(parents=True, exist_ok=True)
            git("mv", str(a), str(b))
            done.append(f"moved {a} -> {b}")
        if src.is_dir() and not any(p.suffix == ".py" for p in src.rglob("*")):
            for leftover in sorted(src.rglob("*"), reverse=True):  # __pycache__ only
                leftover.unlink() if leftover.is_file() else leftover.rmdir()
            src.rmdir()
    for name, doc in NEW_PACKAGES.items():
        init = ROOT / name / "__init__.py"
        if not init.exists():
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(f'"""{doc}\n"""\n')
            git("add", str(init))
            done.append(f"created {init}")
    return done


# ------------------------------------------------------------------------------ rewrites


def _resolves(rel: str, names: list[str]) -> bool:
    """Whether `from <rel> import <names>` finds a module now (a new subpackage's `__init__`
    exports nothing, so there each name must be a submodule)."""
    if not exists(rel):
        return False
    if rel in NEW_PACKAGES:
        return all(exists(f"{rel}.{n}") for n in names)
    return True


def _relative(target: str, package: list[str]) -> tuple[int, str]:
    """(level, module) of a relative import of `target` from a module in `package`."""
    parts = target.split(".") if target else []
    common = 0
    while common < min(len(parts), len(package)) and parts[common] == package[common]:
        common += 1
    return len(package) - common + 1, ".".join(parts[common:])


def _statement(level: int, module: str, names: list[str], indent: str) -> str:
    head = f"from {'.' * level}{module} import "
    line = head + ", ".join(names)
    if len(indent) + len(line) <= 99:
        return line
    return head + "(\n" + "".join(f"{indent}    {n},\n" for n in names) + indent + ")"


def _rewrite_import(node: ast.ImportFrom, package: list[str] | None, old_package: list[str] | None,
                    segment: str, indent: str) -> str | None:
    """The new text of an ImportFrom of a moved module, or None when it resolves as it is."""
    names = [a.name for a in node.names]
    if node.level:
        if package is None or old_package is None:
            return None
        rel = ".".join([*package[: len(package) - node.level + 1], *([node.module] if node.module else [])])
        if not _resolves(rel, names):
            rel = ".".join([*old_package[: len(old_package) - node.level + 1], *([node.module] if node.module else [])])
    else:
        if node.module != PACKAGE and not (node.module or "").startswith(PACKAGE + "."):
            return None
        rel = (node.module or "").removeprefix(PACKAGE).lstrip(".")
    if not _resolves(rel, names):
        new_rel = mapped(rel)
        if new_rel is None or not exists(new_rel):
            return None
        rel = new_rel
    # each imported name: a module that moved away from `rel`, or a name `rel` still has
    groups: dict[str, list[str]] = {}
    for alias in node.names:
        sub = f"{rel}.{alias.name}".lstrip(".")
        # a new subpackage by the name of an old module (graph) is that module: nothing
        # imports a new subpackage's empty `__init__` by itself
        moved = not exists(sub) or sub in NEW_PACKAGES
        target = mapped(sub) if moved and alias.name != "*" else None
        if target is not None and exists(target):
            parent, _, last = target.rpartition(".")
            bound = alias.asname or alias.name
            # (an explicit `x as x` stays: it marks a re-export)
            name = last if alias.asname is None and bound == last else f"{last} as {bound}"
            groups.setdefault(parent, []).append(name)
        else:
            groups.setdefault(rel, []).append(alias.name if alias.asname is None else f"{alias.name} as {alias.asname}")
    if node.level:
        assert package is not None
        spelled = {m: _relative(m, package) for m in groups}
    else:
        spelled = {m: (0, f"{PACKAGE}.{m}" if m else PACKAGE) for m in groups}
    original = "." * node.level + (node.module or "")
    if len(groups) == 1 and rel in groups and groups[rel] == [
        a.name if a.asname is None else f"{a.name} as {a.asname}" for a in node.names
    ]:
        level, module = spelled[rel]
        new = "." * level + module
        if new == original:
            return None
        return re.sub(r"^from\s+[.\w]+", f"from {new}", segment, count=1)
    return ("\n" + indent).join(_statement(*spelled[m], groups[m], indent) for m in groups)


_DOTTED = re.compile(rf"\b{PACKAGE}((?:\.\w+)+)")
_PATH = re.compile(rf"\b{PACKAGE}/((?:\w+/)*\w+)(\.pyi?|/)")


def _map_dotted(chain: list[str]) -> list[str] | None:
    """A dotted reference opgen_runtime.<chain> in text, mapped when it names a moved module."""
    if not chain or chain[0] not in MOVES:
        return None
    # a new subpackage's name, also an old module's (graph): old when what follows is no
    # submodule of it
    if exists(chain[0]) and (len(chain) == 1 or exists(f"{chain[0]}.{chain[1]}")):
        return None
    new = mapped(".".join(chain))
    return new.split(".") if new else None


def rewrite_text(text: str) -> str:
    def dotted(m: re.Match[str]) -> str:
        chain = m.group(1)[1:].split(".")
        new = _map_dotted(chain)
        return m.group(0) if new is None else PACKAGE + "." + ".".join(new)

    def path(m: re.Match[str]) -> str:
        parts = m.group(1).split("/")
        if exists(".".join(parts)) or (m.group(2) == "/" and (ROOT.joinpath(*parts)).is_dir()):
            return m.group(0)
        new = mapped(".".join(parts))
        return m.group(0) if new is None else f"{PACKAGE}/{new.replace('.', '/')}{m.group(2)}"

    return _PATH.sub(path, _DOTTED.sub(dotted, text))


def rewrite_python(path: Path, text: str) -> str:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    package = old_package = None
    if ROOT in path.parents:
        rel, is_package = module_of(path)
        parts = rel.split(".") if rel else []
        package = parts if is_package else parts[:-1]
        old_parts = old_module(rel).split(".") if rel else []
        old_package = old_parts if is_package else old_parts[:-1]
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, col: int) -> int:  # ast columns count UTF-8 bytes
        line = lines[lineno - 1]
        return starts[lineno - 1] + len(line.encode()[:col].decode(errors="ignore"))

    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.end_lineno is not None and node.end_col_offset is not None
            a, b = offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset)
            indent = re.match(r"\s*", lines[node.lineno - 1]).group(0)  # type: ignore[union-attr]
            new = _rewrite_import(node, package, old_package, text[a:b], indent)
            if new is not None:
                edits.append((a, b, new))
    for a, b, new in sorted(edits, reverse=True):
        text = text[:a] + new + text[b:]
    return text


def rewrite_files() -> list[str]:
    me = Path(__file__).resolve()
    done = []
    for name in git("ls-files").splitlines():
        path = Path(name)
        if SKIP.match(name) or not name.endswith(TEXT_SUFFIXES) or path.resolve() == me or path.is_symlink():
            continue
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        if PACKAGE not in text and ROOT not in path.parents:
            continue
        new = rewrite_python(path, text) if path.suffix in (".py", ".pyi") else text
        new = rewrite_text(new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            done.append(f"rewrote {name}")
    return done


def sort_imports(rewritten: list[str]) -> None:
    """Re-sort the imports of the rewritten runtime modules (ruff's isort rules, with the
    repository's ruff settings), as moved imports land where the old ones stood; other files
    keep their order (and their own line lengths)."""
    files = [f for f in rewritten if f.endswith((".py", ".pyi")) and ROOT in Path(f).parents]
    if files:
        subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "I",
                        "--fix", "--quiet", "--exit-zero", *files], check=True)


def main() -> int:
    if not ROOT.is_dir():
        sys.exit(f"error: run from the repository's root (no {ROOT} here)")
    moves = move_files()
    rewrites = rewrite_files()
    sort_imports([line.removeprefix("rewrote ") for line in rewrites])
    for line in [*moves, *rewrites]:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
