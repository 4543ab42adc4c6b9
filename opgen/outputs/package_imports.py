"""The names a package's own modules import from the generated modules beside them, checked
against what those modules define: an override that hides or renames an op (or an op removed
from the sources) leaves `from .gen_x import old_name` in the package's `__init__.py`, and
`import package` then fails with ImportError on every user's machine, while the build, its
`--check` and a wheel's library check (which loads the generated modules alone) all pass
(trial37 #4).

Only what can be told without running the package's code: `from .gen_x import a, b` (the
scaffold's re-export) and `from <package>.gen_x import a` in a `.py` file of a folder that holds
generated modules, the folder's own package named by its folder name; a star import, or any
other import, is not checked."""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection
from pathlib import Path

from opgen.errors import Location, OpgenError, did_you_mean, opgen_command

# A user's module bigger than this is not read (a package's `__init__.py` is a few lines).
_MAX_USER_MODULE = 1 << 20


def missing_imports(out: Path, generated: Collection[str], read: Callable[[str], bytes]) -> list[OpgenError]:
    """For each name a module of the user's in a folder of `out` imports from a generated
    module (`generated`: the build's files, by path relative to `out`; `read` gives one's
    bytes, asked only for a module such an import names) that the module does not define, an
    error located at that name (the caller warns or fails with it)."""
    modules: dict[str, dict[str, str]] = {}  # folder -> module name -> its file (relative to out)
    for rel in generated:
        path = Path(rel)
        if path.suffix != ".py":
            continue
        if path.name == "__init__.py" and len(path.parts) > 1:  # a split module's package
            modules.setdefault(path.parent.parent.as_posix(), {})[path.parent.name] = rel
        elif path.name != "__init__.py":
            modules.setdefault(path.parent.as_posix(), {})[path.stem] = rel
    defined: dict[str, frozenset[str]] = {}  # a generated file -> the names it defines
    errors: list[OpgenError] = []
    for folder, names in sorted(modules.items()):
        directory = out / folder
        package = directory.resolve().name
        for user_file in sorted(directory.glob("*.py")):
            rel = user_file.relative_to(out).as_posix()
            if rel in generated or user_file.is_symlink() or not user_file.is_file():
                continue
            tree = _parsed(user_file)
            for node in ast.walk(tree) if tree is not None else ():
                if not isinstance(node, ast.ImportFrom) or node.module is None:
                    continue
                if node.level == 1:
                    module = node.module
                elif node.level == 0 and node.module.rpartition(".")[0].rpartition(".")[2] == package:
                    module = node.module.rpartition(".")[2]
                else:
                    continue
                file = names.get(module)
                if file is None:
                    continue
                if file not in defined:
                    defined[file] = _top_level_names(read(file))
                for alias in node.names:
                    if alias.name != "*" and alias.name not in defined[file]:
                        errors.append(_missing(user_file, alias, module, package, defined[file]))
    return errors


def _parsed(path: Path) -> ast.Module | None:
    """The user's module at `path`, or None when it is too big, unreadable or not Python (its
    own import says so, located, when the package is imported)."""
    try:
        if path.stat().st_size > _MAX_USER_MODULE:
            return None
        return ast.parse(path.read_bytes(), str(path))
    except (OSError, SyntaxError, ValueError):  # (ValueError: a NUL byte)
        return None


def _top_level_names(code: bytes) -> frozenset[str]:
    """The names a generated module binds at its top level, both branches of an `if`
    (`if TYPE_CHECKING:` stubs) included."""
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError):  # (a user's template's mistake: the build reports it)
        return frozenset()
    names: set[str] = set()
    statements = list(body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.If | ast.Try):
            statements += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
            statements += [s for handler in getattr(node, "handlers", []) for s in handler.body]
    return frozenset(names)


def _missing(user_file: Path, alias: ast.alias, module: str, package: str, defined: frozenset[str]) -> OpgenError:
    name = alias.name
    if f"_{name}" in defined:
        hint = (f"an override hides the op: its function is _{name}; import that, or drop {name} from this import "
                "(and from __all__)")
    else:
        close = did_you_mean(name, [n for n in defined if not n.startswith("_")], "'")
        hint = (f"{close + ' ' if close else ''}drop {name} from this import, or import what replaced it "
                f"(`{opgen_command('diff --git HEAD')}` lists renamed and removed functions)")
    return OpgenError(
        f"{user_file.name} imports {name} from generated module {module}, which does not define it: "
        f"`import {package}` fails with ImportError",
        Location(str(user_file), alias.lineno, alias.col_offset + 1),
        hint=hint,
    )
