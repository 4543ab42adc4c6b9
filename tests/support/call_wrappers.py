"""Call every wrapper of a generated module once, with inputs synthesized from its OpDefs.

`check_module(text_or_path)` imports a generated module in isolation and calls each of its
wrappers on the embedded runtime (inside an `opgen_runtime.Graph`) and, where TensorFlow is
importable and TF has the op registered with an equal OpDef (or the module's `library`
registers it), inside a `tf.Graph` on the TF backend (optionally eagerly too). The module
carries everything needed: its OpDefs (`_OP_DEFS`); a wrapper is the function whose calls
name an op (`_apply_op_helper("<Op>", ...)`, `fast_path_execute(_ctx, "<Op>", ...)`), and its
`_apply_op_helper` keywords tie each parameter to its op arg or attr (overrides may rename
parameters). Values suit the OpDef's types: placeholders of an allowed dtype (lists of the
least allowed length), attrs as `support.op_call_cases.attr_value` picks them. TF runs
in graph mode (a node is built, with TF's shape function); eagerly only for kernels written
for the tests, since a registry kernel may abort the process on such values. Before the calls,
`typing.get_type_hints` evaluates the annotations of everything the module defines
(`annotation_errors`); one it cannot evaluate is a crash.

Crash or op-level error: a wrapper "crashed" when the first call fails where no op-level check
failed deliberately. An exception is deliberate (op-level: accepted, counted) when
  - it is of a class op-level checks raise: TypeError, ValueError, NotImplementedError,
    RuntimeError (not RecursionError), or TF's `OpError`; and
  - it was raised by a `raise` statement: its innermost traceback frame is outside the
    generated module (the runtime's or TF's checks: `_apply_op_helper`, shape functions,
    `raise_from_not_ok_status`), or it is the wrapper's own `raise` line (TF's list-length
    TypeError/ValueError, the eager-unsupported RuntimeError).
Everything else is a crash: the module fails to import; any other exception class (NameError,
AttributeError, ImportError, KeyError, ... : no op-level check raises those); or an exception
Python itself raised while evaluating the wrapper's own code (innermost frame in the module on
a line that is not a `raise`: a wrong call arity, `None` called, ...). Synthesized values are
valid for the OpDef's types but not for every op's semantics (a shape its kernel rejects), so
op-level errors are expected; `strict=True` (libraries written for the tests) makes them
failures too. The rule cannot see a wrapper bug that makes the runtime raise deliberately
(a misspelt `_apply_op_helper` keyword is the runtime's TypeError): strict mode, and the
wrapper differentials against TF (test_runtime_wrappers.py), cover those.

How every module the tests build gets here (`conftest.py`, `BuildRecorder`):
  - in-process builds (`opgen build` through click, `render_tree`, `Renderer.render`): the
    session patches `Renderer.render` and `Renderer.rerender` and records each module they
    render with opgen's own templates (a user's `--templates` may render anything; a build
    whose stamp matches renders nothing: its files were recorded when they were rendered);
  - subprocess builds: each test's `tmp_path` is scanned for build outputs (a directory
    holding `opgen_sourcemap.json`) at teardown, and fixtures that build elsewhere (content
    caches, `tmp_path_factory`) call `record_build_dir`; `tests/render/test_call_every_wrapper.py`
    lists every subprocess build site in the tests and fails when a new one appears that is
    not in `SUBPROCESS_BUILD_SITES` (which says how each is covered).
A test's teardown checks the modules recorded during it (each distinct module text once per
process) and errors naming the crashed wrappers. So the example library (generated/), TF's
registry (test_render_tf.py), the random-OpDef and hostile-name corpora, the adversarial
builds and the golden corpora are all called, as the tests that build them run; the gather
projects are built for it by tests/render/test_call_every_wrapper.py. Corpora whose ops TF has
(TF's registry; libraries compiled for the tests: tests/data/first_call_library and
custom_op_project) are also checked on TF by their own tests.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import inspect
import os
import stat
import sys
import traceback
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opgen.heap import cyclic_gc_paused
from opgen_runtime.proto import op_def_pb2, tensor_pb2

SOURCE_MAP = "opgen_sourcemap.json"

# Every place in the tests that runs `opgen build` in a subprocess, and how its output is
# covered (kept equal to the tests' sources by tests/render/test_call_every_wrapper.py).
SUBPROCESS_BUILD_SITES = {
    "tests/commands/test_cli.py": "builds into the test's tmp_path (scanned at teardown)",
    "tests/gather/test_from_library_oracle.py": "its subprocess runs `opgen oplist`; its builds run in-process "
                                                "(recorded), into the test's tmp_path",
    "tests/tf/test_tf_custom_op_library.py": "the fixture calls record_build_dir (checked on TF too)",
    "tests/commands/test_tree_safety.py": "builds into the test's tmp_path (scanned at teardown)",
    "tests/runtime/test_runtime_end_to_end.py": "the fixture calls record_build_dir",
    "tests/oracle/wrapper_modules.py": "opgen_module calls record_build_dir",
    "tests/commands/test_pre_commit_hook.py": "builds into the test's tmp_path (scanned at teardown)",
    "tests/commands/test_render_build.py": "builds into the test's tmp_path (scanned at teardown), or generated/",
    "tests/commands/test_build_depfile.py": "builds into the test's tmp_path (scanned at teardown)",
    "tests/tf/test_op_library_loading.py": "builds into the test's tmp_path (scanned at teardown)",
    "tests/commands/test_scaffold.py": "builds into the test's tmp_path (scanned at teardown), or into a cached "
                                       "in-place build, which the test records with record_build_dir",
    "tests/shapes/test_shape_translate_oracle.py": "the fixture calls record_build_dir",
    "tests/render/test_reserved_op_names.py": "builds into the test's tmp_path (scanned at teardown)",
    "tests/commands/test_directory_option.py": "builds into the test's tmp_path (scanned at teardown)",
}

# A placeholder op of any dtype (and a ref one) for the embedded side's inputs: registered
# under this module's own name, so no corpus op is shadowed.
_INPUT_OPS = op_def_pb2.OpList(op=[
    op_def_pb2.OpDef(
        name="OpgenCallCheckInput",
        output_arg=[op_def_pb2.OpDef.ArgDef(name="output", type_attr="dtype")],
        attr=[op_def_pb2.OpDef.AttrDef(name="dtype", type="type")],
    ),
    op_def_pb2.OpDef(
        name="OpgenCallCheckRefInput",
        output_arg=[op_def_pb2.OpDef.ArgDef(name="ref", type_attr="dtype", is_ref=True)],
        attr=[op_def_pb2.OpDef.AttrDef(name="dtype", type="type")],
        is_stateful=True,
    ),
])


@dataclass
class CallReport:
    """What calling every wrapper of one module gave."""

    module: str
    calls: int = 0  # wrapper calls made (all backends)
    crashes: list[str] = field(default_factory=list)  # "<op> on <backend>: <error>"
    op_errors: list[str] = field(default_factory=list)  # deliberate op-level errors (accepted)
    unwrapped: list[str] = field(default_factory=list)  # ops the module has no wrapper for (skipped ops)
    tf_skipped: list[str] = field(default_factory=list)  # ops TF has not registered (not called on TF)

    def failures(self, strict: bool = False) -> list[str]:
        return self.crashes + (self.op_errors if strict else [])


# ---------------------------------------------------------------------------- the module


@dataclass
class Wrapper:
    op: op_def_pb2.OpDef
    function: Any
    params: dict[str, str]  # OpDef arg/attr name -> the Python parameter that carries it


def _load(tree: ast.Module, filename: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module  # the registration marks the module's functions (registry.py)
    try:
        exec(compile(tree, filename, "exec"), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _is_op_call(node: ast.AST, ops: dict[str, op_def_pb2.OpDef]) -> bool:
    """A call naming one of the module's ops (`_apply_op_helper("<Op>", ...)`,
    `fast_path_execute(_ctx, "<Op>", ...)`)."""
    return isinstance(node, ast.Call) and any(
        isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value in ops for a in node.args[:2])


def _parameter_of(value: ast.expr, assigned: dict[str, ast.expr], params: set[str]) -> str | None:
    """The parameter an `_apply_op_helper` keyword's value comes from: the parameter itself,
    or the one parameter the local it names is computed from (`_attr_x = make_int(x, "x")`)."""
    if not isinstance(value, ast.Name):
        return None
    if value.id in params:
        return value.id
    used = {n.id for n in ast.walk(assigned[value.id]) if isinstance(n, ast.Name) and n.id in params} \
        if value.id in assigned else set()
    return used.pop() if len(used) == 1 else None


def _statement_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node under the statements of `body` but constants (`ast.walk` without them: the
    docstrings and defaults of a registry's wrappers are most of its nodes)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                if not isinstance(value, ast.Constant):
                    stack.append(value)
            elif isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, ast.AST) and not isinstance(v, ast.Constant))


def wrappers(module: types.ModuleType, tree: ast.Module) -> tuple[list[Wrapper], list[str]]:
    """Each op of the module with its wrapper, and the ops that have none (skipped ops). A
    wrapper is the function whose calls name the op (`_apply_op_helper`'s first): a body
    broken anywhere still shows which op it wraps."""
    ops = {op.name: op for op in op_def_pb2.OpList.FromString(b"".join(module._OP_DEFS)).op}
    found: dict[str, Wrapper] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        calls: list[ast.Call] = []
        assigned: dict[str, ast.expr] = {}
        for sub in _statement_nodes(node.body):
            if _is_op_call(sub, ops):
                calls.append(sub)  # type: ignore[arg-type]
            elif isinstance(sub, ast.Assign):
                assigned.update((t.id, sub.value) for t in sub.targets if isinstance(t, ast.Name))
        if not calls:
            continue
        call = min(calls, key=lambda c: not (isinstance(c.func, ast.Attribute) and c.func.attr == "_apply_op_helper"))
        op = ops[next(a.value for a in call.args[:2] if isinstance(a, ast.Constant) and a.value in ops)]
        params = {a.arg for a in node.args.args + node.args.kwonlyargs}
        op_names = {a.name for a in [*op.input_arg, *op.attr]}
        # a parameter named like the OpDef arg (a Python keyword with `_` appended: `in_`),
        # else the one carried by `_apply_op_helper`'s keyword of that name
        names = {n: p for n in op_names for p in (n, n + "_") if p in params}
        for k in call.keywords:  # `in_=` carries OpDef arg `in`; `name=` carries none (not `nam`)
            arg = k.arg or ""
            op_name = arg if arg in op_names else arg[:-1] if arg.endswith("_") else ""
            if op_name in op_names and (p := _parameter_of(k.value, assigned, params)):
                names[op_name] = p
        found[op.name] = Wrapper(op, getattr(module, node.name), names)
    return list(found.values()), sorted(set(ops) - set(found))


# ---------------------------------------------------------------------------- values


class _Side:
    """Input and attr values for one backend, synthesized from an OpDef."""

    def __init__(self, backend: str) -> None:
        from support.op_call_cases import input_makers

        if backend == "embedded":
            from opgen_runtime.ops import op_def_library as lib

            self.lib = lib
            self.make_proto = tensor_pb2.TensorProto.FromString
        else:
            from tensorflow.core.framework import tensor_pb2 as tf_tensor_pb2
            from tensorflow.python.framework import op_def_library as lib

            self.lib = lib
            self.make_proto = tf_tensor_pb2.TensorProto.FromString
        self.backend = backend
        _, self.value = input_makers(lib, self.make_proto)

    def tensor(self, dtype: int, ref: bool) -> Any:
        if self.backend == "embedded":
            op = "OpgenCallCheckRefInput" if ref else "OpgenCallCheckInput"
            return self.lib._apply_op_helper(op, dtype=dtype)[3][0]
        import tensorflow as tf

        if self.backend == "tf-eager":
            return tf.zeros([1], tf.dtypes.as_dtype(dtype))
        if ref:
            return self.lib._apply_op_helper("VariableV2", shape=[1], dtype=dtype, container="", shared_name="")[3][0]
        return self.lib._apply_op_helper("Placeholder", dtype=dtype, shape=None)[3][0]


def arguments(w: Wrapper, side: _Side) -> dict[str, Any]:
    """Keyword arguments for every parameter of `w` without a default, from its OpDef: inputs of
    a type each type attr allows (lists of the least length the OpDef allows, at least 1),
    attrs as `support.op_call_cases.attr_value` picks them."""
    from support.op_call_cases import attr_value, pick_type

    attrs = {a.name: a for a in w.op.attr}
    chosen: dict[str, Any] = {}

    def dtype_of(attr_name: str) -> int:
        if attr_name not in chosen:
            a = attrs[attr_name]
            chosen[attr_name] = a.default_value.type if a.HasField("default_value") else pick_type(a)
        return chosen[attr_name]

    def count(attr_name: str, default: int = 1) -> int:
        a = attrs[attr_name]
        return max(a.minimum if a.has_minimum else 0, default)

    values: dict[str, Any] = {}
    for arg in w.op.input_arg:
        if arg.type_list_attr:
            a = attrs[arg.type_list_attr]
            types_ = list(a.default_value.list.type) if a.HasField("default_value") else []
            types_ = types_ or [pick_type(a)] * count(arg.type_list_attr)
            values[arg.name] = [side.tensor(t, arg.is_ref) for t in types_]
            continue
        dtype = arg.type or dtype_of(arg.type_attr)
        if arg.number_attr:
            values[arg.name] = [side.tensor(dtype, arg.is_ref) for _ in range(count(arg.number_attr))]
        else:
            values[arg.name] = side.tensor(dtype, arg.is_ref)
    for a in w.op.attr:
        if a.name not in values:
            values[a.name] = side.value(attr_value(a))
    signature = inspect.signature(w.function).parameters
    required = [p for p, spec in signature.items() if spec.default is inspect.Parameter.empty and p != "name"]
    by_param = {param: op_name for op_name, param in w.params.items()}
    missing = [p for p in required if p not in by_param or by_param[p] not in values]
    if missing:
        raise LookupError(f"no value for parameters {missing} (no `_apply_op_helper` keyword carries them)")
    return {p: values[by_param[p]] for p in required}


# ---------------------------------------------------------------------------- annotations


def annotation_errors(module: types.ModuleType) -> list[str]:
    """What `typing.get_type_hints` (with and without `Annotated` metadata) fails on among the
    functions and classes the module defines (wrappers, hidden ones, deprecated aliases, result
    namedtuples), one line each: the annotations are strings evaluated only then, in the
    module's globals, as run-time checkers and doc generators evaluate them (docs/typing.md). A
    hint that is a function (a module-level name shadowing a builtin a type names) fails too."""
    errors = []
    for name, value in vars(module).items():
        if not isinstance(value, (types.FunctionType, type)) or value.__module__ != module.__name__:
            continue
        try:
            typing.get_type_hints(value, include_extras=True)
            hints = typing.get_type_hints(value)
        except Exception as e:  # noqa: BLE001 - reported as the module's failure
            errors.append(f"{name}: typing.get_type_hints: {type(e).__name__}: {e}")
            continue
        errors.extend(f"{name}: typing.get_type_hints: {param} is the function {hint.__name__!r}"
                      for param, hint in hints.items() if isinstance(hint, types.FunctionType))
    return errors


# ---------------------------------------------------------------------------- calls


_OP_LEVEL: tuple[type[BaseException], ...] = (TypeError, ValueError, NotImplementedError, RuntimeError)


def _op_level_classes() -> tuple[type[BaseException], ...]:
    if "tensorflow" in sys.modules:
        import tensorflow as tf

        return (*_OP_LEVEL, tf.errors.OpError)
    return _OP_LEVEL


def is_crash(error: BaseException, filename: str, lines: list[str]) -> bool:
    """Whether `error` from a wrapper call is a crash rather than a deliberate op-level error
    (the rule in this module's docstring)."""
    if isinstance(error, RecursionError) or not isinstance(error, _op_level_classes()):
        return True
    frames = traceback.extract_tb(error.__traceback__)
    innermost = frames[-1] if frames else None
    if innermost is None or innermost.filename != filename:
        return False  # raised by the runtime or TF
    line = lines[innermost.lineno - 1].strip() if innermost.lineno else ""
    return not line.startswith("raise ")


@contextlib.contextmanager
def isolated_registry() -> Iterator[None]:
    """opgen's op registry emptied (but for the input ops) while a module under test runs, and
    restored after: corpora reuse op names with different OpDefs. The runtime's per-op-name
    state goes with it (`op_info.infos`, the fast-path plans keyed by them, and which ops'
    libraries registered or failed, `op_libraries`): a name is never registered twice with
    different OpDefs in one process, so they are not keyed by the registry's generation."""
    from opgen_runtime.ops import fast_path, op_info, registry
    from opgen_runtime.tf import op_libraries

    state: list[Any] = [registry._entries, registry._modules, registry.pending_libraries, op_info.infos,
                        fast_path._PLANS, op_libraries.failed_libraries, op_libraries.registered_ops,
                        op_libraries.failed_ops]  # dicts and a set
    saved = [d.copy() for d in state]
    for d in state:
        d.clear()
    # A module's library stays pending at its import, TF or not: `_load_library` registers it
    # after the embedded calls, and a missing one only leaves its ops uncalled on TF.
    registered_hook = registry.library_registered
    registry.library_registered = lambda module_name: None
    registry.register_op_list(__name__, _INPUT_OPS.SerializeToString())
    try:
        yield
    finally:
        registry.library_registered = registered_hook
        for live, old in zip(state, saved):
            live.clear()
            live.update(old)
        registry.generation += 1


def _tf_has(op: op_def_pb2.OpDef) -> bool:
    """Whether TF has `op` registered with an equal OpDef (documentation aside)."""
    from tensorflow.python.framework import op_def_registry

    from opgen_runtime.ops.registry import _signature

    theirs = op_def_registry.get(op.name)
    return theirs is not None and _signature(op_def_pb2.OpDef.FromString(theirs.SerializeToString())) == _signature(op)


def _call(w: Wrapper, backend: str, filename: str, lines: list[str], report: CallReport) -> None:
    import opgen_runtime as runtime

    previous = runtime.get_backend()
    runtime.set_backend("embedded" if backend == "embedded" else "tensorflow")
    try:
        if backend == "embedded":
            graph = runtime.Graph()
        elif backend == "tf-graph":
            import tensorflow as tf

            graph = tf.Graph()
        side = _Side(backend)
        with graph.as_default() if backend != "tf-eager" else contextlib.nullcontext():
            try:
                kwargs = arguments(w, side)
            except Exception as e:  # noqa: BLE001 - the check cannot build inputs: say so, never pass silently
                report.crashes.append(f"{w.op.name} on {backend}: no inputs: {type(e).__name__}: {e}")
                return
            report.calls += 1
            try:
                w.function(**kwargs)
            except Exception as e:  # noqa: BLE001 - classified below
                where = f"{w.op.name} ({w.function.__name__}) on {backend}: {type(e).__name__}: {str(e)[:300]}"
                if is_crash(e, filename, lines):
                    report.crashes.append(where + "\n" + "".join(traceback.format_exception(e)[-4:]))
                else:
                    report.op_errors.append(where)
    finally:
        runtime.set_backend(None if previous == "auto" else previous)


def check_module(source: str | Path, *, name: str | None = None, tf: bool | None = None,
                 tf_eager: bool = False, tf_crashes: frozenset[str] = frozenset()) -> CallReport:
    """Imports the generated module (its text, or the path of its file) and calls every
    wrapper once on the embedded runtime and, when `tf` (default: when TensorFlow is
    already imported), once in a `tf.Graph` for each op TF has registered with an equal
    OpDef (after loading the module's library, if it names one); `tf_eager` also calls
    those eagerly on TF (only for kernels written for the tests: a registry op's kernel
    may abort the process on synthesized values). Ops in `tf_crashes` are not called on TF:
    TF's own C++ (a shape function) crashes the process on them (`oracle.shape_differential.CRASH_TF`)."""
    path = Path(source) if isinstance(source, Path) else None
    text = path.read_text(encoding="utf-8") if path is not None else str(source)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    stem = name or (path.stem if path is not None else "module")
    filename = str(path) if path is not None else f"<generated {stem} {digest}>"
    report = CallReport(stem)
    lines = text.split("\n")
    if tf is None:
        tf = "tensorflow" in sys.modules
    module_name = f"_opgen_call_check_{digest}_{stem}"
    if path is not None and path.parent.is_dir():
        sys.path.insert(0, str(path.parent))  # a `library` path resolves next to the module
    try:
        with isolated_registry():
            try:
                with cyclic_gc_paused():  # a module's AST: many acyclic objects
                    tree = ast.parse(text, filename)
                    module = _load(tree, filename, module_name)
            except Exception as e:  # noqa: BLE001 - a module that fails to import is the first crash
                report.crashes.append(
                    f"import: {type(e).__name__}: {e}\n" + "".join(traceback.format_exception(e)[-4:])
                )
                return report
            try:
                with cyclic_gc_paused():  # a module's AST: many acyclic objects
                    found, report.unwrapped = wrappers(module, tree)
                del tree
                report.crashes.extend(annotation_errors(module))
                for w in found:
                    _call(w, "embedded", filename, lines, report)
                if tf and found:
                    _load_library()
                    for w in found:
                        if w.op.name in tf_crashes or not _tf_has(w.op):
                            report.tf_skipped.append(w.op.name)
                            continue
                        _call(w, "tf-graph", filename, lines, report)
                        if tf_eager:
                            _call(w, "tf-eager", filename, lines, report)
            finally:
                sys.modules.pop(module_name, None)
    finally:
        if path is not None and path.parent.is_dir():
            sys.path.remove(str(path.parent))
    return report


def _load_library() -> None:
    """The module's `library`, loaded into TF if it names one (a missing or unloadable library
    leaves its ops unregistered in TF: then they are not called on TF, and reported so)."""
    from opgen_runtime.ops import registry
    from opgen_runtime.tf import op_libraries

    if registry.pending_libraries:
        with contextlib.suppress(Exception):
            op_libraries.load_op_libraries()


def read_regular(path: Path) -> str | None:
    """The text of `path` when it is a regular file (not a link, FIFO or device: tests plant
    those in output directories), else None; never blocks."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            return f.read().decode("utf-8")
        except UnicodeDecodeError:
            return None


def build_dir_modules(out: Path) -> dict[Path, str]:
    """The generated modules of a build output directory and their texts: the `<name>.py`
    files directly in it, and the parts `<name>/_partN.py` of split modules, that its source
    map lists and that open with opgen's module header (tests plant source maps naming other
    files). A split module's `__init__.py` holds no wrapper: it only imports its parts."""
    import json

    from opgen.render.emit import opens_with_module_header

    try:
        modules = json.loads(read_regular(out / SOURCE_MAP) or "")["modules"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return {}
    if not isinstance(modules, dict):
        return {}
    names = [n for n in modules if isinstance(n, str) and n.endswith(".py") and not n.endswith(_PACKAGE_INIT)
             and all(part.isidentifier() for part in n[:-3].split("/", 1))]
    texts = {out / name: read_regular(out / name) for name in sorted(names)}
    return {
        path: text for path, text in texts.items()
        if text is not None and opens_with_module_header(text, path.stem if path.parent == out else path.parent.name)
    }


_PACKAGE_INIT = "/__init__.py"  # a split module's package file (`opgen.module_groups.module_files`)


def check_build_dir(out: Path, **options: Any) -> list[CallReport]:
    """`check_module` of every module of a build output directory."""
    return [check_module(path, **options) for path in build_dir_modules(out)]


def assert_all_called(reports: list[CallReport], strict: bool = False) -> None:
    """No wrapper crashed (with `strict`, none raised at all), and some wrapper was called."""
    failures = [f"{r.module}: {f}" for r in reports for f in r.failures(strict)]
    assert not failures, "wrappers failed on their first call:\n" + "\n".join(failures)
    silent = [r.module for r in reports if not r.calls and not r.unwrapped]
    assert not silent, f"modules none of whose wrappers was called: {silent}"


class BuildRecorder:
    """The modules the tests build, each distinct text checked once per process
    (`check_module`, embedded runtime; TF-side checks belong to the corpora whose ops TF has)."""

    def __init__(self) -> None:
        self.pending: dict[str, tuple[str, str]] = {}  # sha256 -> (module name, text)
        self.checked: set[str] = set()
        self.dirs: list[Path] = []

    def install(self, monkeypatch: Any) -> None:
        """Records every module `Renderer.render` renders, or `Renderer.rerender` puts changed
        chunks into, with opgen's own templates."""
        from opgen.render import build

        recorder = self

        def recording(method: Any) -> Any:
            def record(renderer: build.Renderer, *args: Any, **kwargs: Any) -> build.RenderResult | None:
                result = method(renderer, *args, **kwargs)
                if result is not None and renderer.templates.shipped:
                    for path, data in result.files.items():
                        if path.endswith(".py") and not path.endswith(_PACKAGE_INIT):
                            recorder.add(Path(path).stem, data.decode("utf-8"))
                return result

            return record

        monkeypatch.setattr(build.Renderer, "render", recording(build.Renderer.render))
        monkeypatch.setattr(build.Renderer, "rerender", recording(build.Renderer.rerender))

    def add(self, name: str, text: str) -> None:
        key = hashlib.sha256(text.encode()).hexdigest()
        if key not in self.checked:
            self.pending[key] = (name, text)

    def add_dir(self, out: Path) -> None:
        """The modules of a build output directory (`build_dir_modules`), and of every build
        output directory below it."""
        for source_map in sorted(out.rglob(SOURCE_MAP)) if out.is_dir() else ():
            for path, text in build_dir_modules(source_map.parent).items():
                self.add(path.stem, text)

    def check_pending(self) -> list[str]:
        """Checks what was recorded since the last call: the crashes, one line each."""
        failures = []
        pending, self.pending = self.pending, {}
        for key, (name, text) in pending.items():
            self.checked.add(key)
            report = check_module(text, name=name, tf=False)
            failures.extend(f"{name}: {crash}" for crash in report.crashes)
        return failures


_recorder: BuildRecorder | None = None


def recorder() -> BuildRecorder:
    """This process's recorder (conftest installs it for the session)."""
    global _recorder
    if _recorder is None:
        _recorder = BuildRecorder()
    return _recorder


def record_build_dir(out: Path) -> None:
    """Records a build output directory a subprocess wrote outside the test's `tmp_path`."""
    recorder().add_dir(out)


def check_in_subprocess(
    paths: list[Path], env: dict[str, str], *, tf: bool, tf_eager: bool = False
) -> list[CallReport]:
    """`check_module` of each module in a fresh Python process (a library loaded into TF
    there stays out of the test process); `env` must put opgen and the modules' packages
    on PYTHONPATH."""
    import json
    import subprocess

    tests = str(Path(__file__).resolve().parent.parent)
    args = [
        sys.executable,
        "-m",
        "support.call_wrappers",
        *(["--tf"] if tf else []),
        *(["--tf-eager"] if tf_eager else []),
        *map(str, paths),
    ]
    run = subprocess.run(args, cwd=tests, env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return [CallReport(**report) for report in json.loads(run.stdout.splitlines()[-1])]


def main(argv: list[str]) -> int:
    """`python -m support.call_wrappers [--tf] [--tf-eager] MODULE.py...`: the reports as one JSON line."""
    import dataclasses
    import json

    options = {"tf": "--tf" in argv, "tf_eager": "--tf-eager" in argv}
    if options["tf"]:
        import tensorflow  # noqa: F401 - the TF side needs it imported

    reports = [check_module(Path(arg), **options) for arg in argv if not arg.startswith("--")]
    print(json.dumps([dataclasses.asdict(r) for r in reports]))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `support`, `oracle`
    sys.exit(main(sys.argv[1:]))
