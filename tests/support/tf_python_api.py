"""TF's shipped Python op modules read back: each op's wrapper as `PyFunction` (name, visibility,
dispatch, parameters, `_apply_op_helper` keywords, namedtuple fields), a module's OpList, and
the committed ApiDef files tests/data/tf_python_api/<module>.pbtxt that reproduce TF's
Python ApiDefs (derived by tests/overrides/test_tf_apidef_crosscheck.py)."""

from __future__ import annotations

import ast
import functools
import importlib
from dataclasses import dataclass
from pathlib import Path

from opgen.python_api.names import avoid_reserved
from opgen_runtime.proto import op_def_pb2
from support.paths import TESTS

DATA = TESTS / "data" / "tf_python_api"


@dataclass(frozen=True)
class PyFunction:
    """One op's wrapper as a generated TF module spells it."""

    op: str
    name: str  # the `def` name
    hidden: bool  # no `tf_export` decorator
    dispatched: bool  # TF's dispatch decorators (`add_fallback_dispatch_list`, `add_type_based_api_dispatcher`)
    params: tuple[tuple[str, str | None], ...]  # (name, default as `ast.dump`) without `name`
    keywords: tuple[tuple[str, str], ...]  # `_apply_op_helper` keyword (OpDef name) -> parameter
    fields: tuple[str, ...]  # namedtuple fields (several outputs only)


def parse_module(source: str, *, tf_style: bool = True) -> dict[str, PyFunction]:
    """Op name -> its wrapper, read from a generated module's source (graph-mode parts only).

    The op of a wrapper is the first argument of its `_apply_op_helper` call. Hidden means
    no `tf_export` decorator in TF's modules (`tf_style`), not in `__all__` in opgen's.
    """
    tree = ast.parse(source)
    fields: dict[str, tuple[str, ...]] = {}  # `_<Op>Output` -> namedtuple fields
    exported: set[str] = set()
    result = {}
    # opgen's namedtuple is made in the `else:` of `if TYPE_CHECKING:` (docs/typing.md)
    for node in [*tree.body, *(n for s in tree.body if isinstance(s, ast.If) for n in s.orelse)]:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id == "__all__":
                exported = set(ast.literal_eval(node.value))
            elif ast.unparse(node.value).startswith("collections.namedtuple("):
                fields[node.targets[0].id] = tuple(ast.literal_eval(node.value.args[1]))
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        helper = next((n for n in ast.walk(fn) if isinstance(n, ast.Call)
                       and ast.unparse(n.func).endswith("_apply_op_helper")), None)
        if helper is None:
            continue
        op = helper.args[0].value
        if tf_style:
            hidden = not any(ast.unparse(d).startswith("tf_export(") for d in fn.decorator_list)
        else:
            hidden = fn.name not in exported
        decorators = {ast.unparse(d) for d in fn.decorator_list}
        dispatched = {"_dispatch.add_fallback_dispatch_list", "_dispatch.add_type_based_api_dispatcher"} <= decorators
        args = fn.args.args
        defaults = [None] * (len(args) - len(fn.args.defaults)) + [ast.dump(d) for d in fn.args.defaults]
        params = tuple((a.arg, d) for a, d in zip(args, defaults) if a.arg != "name")
        keywords = tuple(sorted((k.arg, k.value.id) for k in helper.keywords if k.arg != "name"))
        result[op] = PyFunction(
            op, fn.name, hidden, dispatched, params, keywords, fields.get(f"_{avoid_reserved(op)}Output", ())
        )
    return result


@functools.cache
def shipped(module: str) -> dict[str, PyFunction]:
    mod = importlib.import_module(f"tensorflow.python.ops.{module}")
    return parse_module(Path(mod.__file__).read_text())


@functools.cache
def tf_ops() -> dict[str, op_def_pb2.OpDef]:
    from oracle.tf_registry import tf_op_list

    return {op.name: op for op in tf_op_list().op}


def module_op_list(module: str) -> op_def_pb2.OpList:
    ops = tf_ops()
    return op_def_pb2.OpList(op=[ops[name] for name in sorted(shipped(module))])


def api_def_file(module: str) -> Path:
    """The committed ApiDef file of TF's `module`."""
    return DATA / f"{module}.pbtxt"
