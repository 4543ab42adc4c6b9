"""Differential tests against TensorFlow 2.21's own generator on TF's whole registry.

TF's `_pywrap_python_op_gen.GetPythonWrappers(OpList)` runs in the test; its module is
executed next to ours and, for every op TF emits, `inspect.signature`s and docstrings
are compared. The same build is checked to compile, import, be black-stable, give the
same bytes through black and ruff, and pass mypy --strict, pyright and ruff check.
"""

from __future__ import annotations

import importlib
import inspect
import math
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import REPO
from support.type_checkers import pyright_missing, run_mypy, run_pyright

from opgen.errors import Location
from opgen.model import GatherResult, OpSource
from opgen.outputs.tree_writer import commit, compute_changes
from opgen.overrides.apidef import default_api_model
from opgen.python_api.function import module_api
from opgen.render.build import BuildOptions, render_tree
from opgen_runtime.proto import attr_value_pb2, op_def_pb2

pytestmark = pytest.mark.oracle

MODULE = "gen_tf_registry"

# Deliberate differences from TF's generator (docs/differences-from-tf.md "Deliberate
# differences from TensorFlow's generator"): a `type` attr with a default keeps its default
# but drops TF's TypeVar annotation (a DType is not an instance of the TypeVar; mypy rejects
# TF's spelling); a float attr's integral default is a float (`2.0` where TF writes `2`: TF's
# eager fast path rejects an int for a float attr), equal in value (`_same_default`).


def _tf_op_list():
    from oracle.tf_registry import tf_op_list

    return tf_op_list()


def _build(out: Path, formatter: str, op_list: op_def_pb2.OpList, jobs: int = 2,
           max_ops_per_module: int | None = None) -> Path:
    sources = {
        op.name: OpSource(Location(f"{MODULE.removeprefix('gen_')}.pbtxt", i + 1)) for i, op in enumerate(op_list.op)
    }
    opts = BuildOptions(out=out, templates=None, formatter=formatter, jobs=jobs, modules={}, root=REPO,
                        config_location=Location("pyproject.toml"), max_ops_per_module=max_ops_per_module)
    result = render_tree(GatherResult(op_list, sources), default_api_model(op_list), opts)
    commit(out, compute_changes(out, result.files))
    return out / (MODULE if max_ops_per_module else f"{MODULE}.py")


@pytest.fixture(scope="session")
def tf_build(tmp_path_factory, tf):
    """TF's registry rendered once through ruff (fast); the black build is a separate fixture."""
    out = tmp_path_factory.mktemp("tf_ruff")
    return _build(out, "ruff", _tf_op_list())


@pytest.fixture(scope="session")
def tf_generated(tf):
    """TF's own generated module for the same OpList, executed."""
    from oracle.tf_registry import tf_op_list_bytes
    from tensorflow.python.framework import _pywrap_python_op_gen

    src = _pywrap_python_op_gen.GetPythonWrappers(tf_op_list_bytes())
    src = src.decode() if isinstance(src, bytes) else src
    namespace: dict = {"__name__": "tf_gen_under_test"}
    exec(compile(src, "tf_gen_under_test.py", "exec"), namespace)
    return namespace


@pytest.fixture(scope="session")
def ours(tf_build):
    sys.path.insert(0, str(tf_build.parent))
    try:
        return importlib.import_module(MODULE)
    finally:
        sys.path.remove(str(tf_build.parent))


def _norm_default(value):
    if value is inspect.Parameter.empty:
        return value
    if hasattr(value, "SerializeToString"):  # tensor defaults compare by proto bytes
        return ("proto", value.SerializeToString())
    if type(value).__name__ == "DType":  # TF's and opgen's DType compare by name
        return ("dtype", value.name)
    if isinstance(value, list):
        return [_norm_default(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return (type(value).__name__, value)


def _same_default(tf_default, our_default, attr_type: str | None) -> bool:
    """Whether our default equals TF's, up to the one documented difference: a float attr's
    default (or a list(float)'s items) that TF writes as an int is ours as an equal float."""
    if _norm_default(tf_default) == _norm_default(our_default):
        return True
    if attr_type not in ("float", "list(float)"):
        return False
    tf_items, our_items = (tf_default, our_default) if attr_type == "list(float)" else ([tf_default], [our_default])
    if not (isinstance(tf_items, list) and isinstance(our_items, list) and len(tf_items) == len(our_items)):
        return False
    return all(_norm_default(t) == _norm_default(o) or (type(t) is int and type(o) is float and t == o)
               for t, o in zip(tf_items, our_items))


def _norm_annotation(ann) -> str:
    text = ann if isinstance(ann, str) else inspect.formatannotation(ann)
    text = re.sub(r"<class '(?:[\w]+\.)*(\w+)'>", r"\1", text)
    text = re.sub(r"\b(?:typing|typing_extensions|tensorflow[\w.]*|opgen[\w.]*|_atypes)\.", "", text)
    text = text.replace("~", "")
    return text.replace("List[", "list[")


def _tf_functions(op_list, tf_ns):
    """(op, TF function) for every op TF emits a wrapper for."""
    from opgen.python_api.names import lower_case_op_name

    pairs = []
    for op in op_list.op:
        fn = tf_ns.get(lower_case_op_name(op.name))
        if callable(fn) and getattr(fn, "__module__", None) is not None:
            pairs.append((op, fn))
    return pairs


def test_signatures_match_tf(ours, tf_generated):
    op_list = _tf_op_list()
    model = module_api(MODULE, op_list.op, default_api_model(op_list))
    by_op = {f.op_name: f for f in model.functions}
    pairs = _tf_functions(op_list, tf_generated)
    assert len(pairs) > 1850
    mismatches = []
    annotation_diffs = []
    for op, tf_fn in pairs:
        api = by_op.get(op.name)
        if api is None:
            mismatches.append(f"{op.name}: TF emits {tf_fn.__name__}, opgen does not")
            continue
        ours_fn = getattr(ours, api.name)
        s_tf, s_ours = inspect.signature(tf_fn), inspect.signature(ours_fn)
        if api.name != tf_fn.__name__:
            mismatches.append(f"{op.name}: name {api.name} != {tf_fn.__name__}")
        p_tf, p_ours = list(s_tf.parameters.values()), list(s_ours.parameters.values())
        if [p.name for p in p_tf] != [p.name for p in p_ours]:
            mismatches.append(f"{op.name}: params {[p.name for p in p_ours]} != {[p.name for p in p_tf]}")
            continue
        attr_types = {p.name: p.attr_type for p in api.params}
        for a, b in zip(p_tf, p_ours):
            if a.kind != b.kind or not _same_default(a.default, b.default, attr_types.get(b.name)):
                mismatches.append(f"{op.name}.{a.name}: default {b.default!r} != TF {a.default!r}")
            if _norm_annotation(a.annotation) != _norm_annotation(b.annotation):
                annotation_diffs.append(
                    (op.name, a.name, _norm_annotation(a.annotation), _norm_annotation(b.annotation))
                )
        if _norm_annotation(s_tf.return_annotation) != _norm_annotation(s_ours.return_annotation):
            annotation_diffs.append((op.name, "->", _norm_annotation(s_tf.return_annotation),
                                     _norm_annotation(s_ours.return_annotation)))
    assert mismatches == []
    # Annotations differ on purpose (docs/typing.md): ours are types a checker can use, and
    # keep TF's dtype metadata wherever TF has it, except on a defaulted `type` attr.
    wrong = []
    for op_name, param, tf_ann, our_ann in annotation_diffs:
        op = next(o for o in op_list.op if o.name == op_name)
        attr = next((a for a in op.attr if a.name == param), None)
        if attr is not None and attr.type == "type" and attr.HasField("default_value"):
            continue
        if not _keeps_tf_annotation(str(tf_ann), str(our_ann)):
            wrong.append((op_name, param, tf_ann, our_ann))
    assert wrong == []


def _keeps_tf_annotation(tf_ann: str, our_ann: str) -> bool:
    """Ours carries what TF's says: its dtype metadata (`Annotated[Any, TV_Op_T]`, a bare
    TypeVar, `_atypes.X`) as our `Annotated` metadata; `int`/`float`/`bool` as they are, `str`
    as `str` or the Literal of the allowed values; nothing (TF has no annotation) as anything."""
    metadata = re.fullmatch(r"Annotated\[(?:Any|list\[Any\]), (\w+)\]|(TV_\w+)", tf_ann)
    if metadata:
        return our_ann.startswith("Annotated[") and our_ann.endswith(f", {metadata.group(1) or metadata.group(2)}]")
    if tf_ann == "str":
        return our_ann in ("str", "str | None") or our_ann.startswith("Literal[")
    if tf_ann in ("int", "float", "bool"):
        return our_ann in (tf_ann, f"{tf_ann} | None")
    return tf_ann in ("_empty", "inspect._empty") or tf_ann.endswith("empty")


def test_docstrings_match_tf(ours, tf_generated):
    op_list = _tf_op_list()
    model = module_api(MODULE, op_list.op, default_api_model(op_list))
    by_op = {f.op_name: f for f in model.functions}
    diffs = []
    for op, tf_fn in _tf_functions(op_list, tf_generated):
        api = by_op[op.name]
        expected = inspect.cleandoc(tf_fn.__doc__)
        if inspect.cleandoc(api.docstring) != expected or inspect.cleandoc(getattr(ours, api.name).__doc__) != expected:
            diffs.append(op.name)
    assert diffs == []


def _doc_text(rng: random.Random, allow_eq: bool = True) -> str:
    words = ["alpha", "`x`", "beta", "gamma_delta", "a" * 30, "Tensor", "`T`", "(see below)", "\\(x\\)"]
    if rng.random() < 0.2:
        return ""
    n = rng.randint(1, 25)
    text = " ".join(rng.choice(words) for _ in range(n))
    if rng.random() < 0.3:
        text += "\n" + " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
    if allow_eq and rng.random() < 0.15:
        text = "=" + " " * rng.randint(0, 2) + text
    return text


def _documented_ops(count: int) -> op_def_pb2.OpList:
    """Registry ops with random summaries, descriptions and arg/attr docs."""
    rng = random.Random(7)
    base = [op for op in _tf_op_list().op if not op.name.startswith("_")]
    ops = op_def_pb2.OpList()
    for op in rng.sample(base, count):
        op = ops.op.add().CopyFrom(op) or ops.op[-1]
        op.summary = _doc_text(rng, allow_eq=False).replace("\n", " ")
        op.description = _doc_text(rng, allow_eq=False) + ("\n\n" + _doc_text(rng, False) if rng.random() < 0.3 else "")
        for arg in [*op.input_arg, *op.output_arg]:
            arg.description = _doc_text(rng)
        for attr in op.attr:
            attr.description = _doc_text(rng)
    return ops


def test_docstrings_with_docs_match_tf(tf, tmp_path):
    from tensorflow.core.framework import op_def_pb2 as tf_op_def_pb2
    from tensorflow.python.framework import _pywrap_python_op_gen

    op_list = _documented_ops(400)
    src = _pywrap_python_op_gen.GetPythonWrappers(
        tf_op_def_pb2.OpList.FromString(op_list.SerializeToString()).SerializeToString()
    )
    src = src.decode() if isinstance(src, bytes) else src
    namespace: dict = {"__name__": "tf_docs_under_test"}
    exec(compile(src, "tf_docs_under_test.py", "exec"), namespace)
    model = module_api("gen_docs", op_list.op, default_api_model(op_list))
    diffs = []
    for f in model.functions:
        tf_fn = namespace.get(f.name)
        if tf_fn is None:
            continue
        if inspect.cleandoc(f.docstring) != inspect.cleandoc(tf_fn.__doc__):
            diffs.append((f.op_name, f.docstring, inspect.cleandoc(tf_fn.__doc__)))
    assert diffs == [], diffs[:3]


def test_tf_module_same_bytes_through_black_and_ruff(tf_build, tmp_path):
    """The black path (parallel workers, per-chunk) gives the ruff path's bytes exactly."""
    black_module = _build(tmp_path / "black", "black", _tf_op_list(), jobs=2)
    assert black_module.read_bytes() == tf_build.read_bytes()


@pytest.mark.slow
def test_tf_module_is_black_stable(tf_build):
    import black

    text = tf_build.read_text(encoding="utf-8")
    assert black.format_str(text, mode=black.Mode()) == text


def test_tf_module_is_ruff_format_stable(tf_build):
    """With the black check above: both formatters are fixed points of the shipped templates'
    direct chunks (emitted without any formatter, `opgen.render.emit.direct_chunk`)."""
    proc = subprocess.run([sys.executable, "-m", "ruff", "format", "--isolated", "--check", "--diff", str(tf_build)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]


def test_tf_module_passes_ruff_check(tf_build):
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", str(tf_build)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]


@pytest.mark.slow
def test_tf_module_passes_mypy_strict(tf_build, tmp_path):
    """The whole registry as generated: no error from mypy --strict (docs/typing.md)."""
    assert run_mypy([tf_build], [], tmp_path) == []


@pytest.mark.slow
def test_tf_module_passes_pyright(tmp_path_factory, tmp_path, tf):
    """The whole registry, as a package of parts of 250 ops (`max_ops_per_module`): no error
    from pyright (docs/typing.md). pyright's check time grows faster than the module: 150 s
    for the one 1,300-op file, 30 s for its parts, which hold the same wrappers (the parts'
    package re-exports them, and is checked too)."""
    missing = pyright_missing()
    if missing:
        pytest.skip(missing)
    package = _build(tmp_path_factory.mktemp("tf_parts"), "ruff", _tf_op_list(), max_ops_per_module=250)
    files = sorted(package.glob("*.py"))
    assert len(files) > 5 and (package / "__init__.py") in files
    assert run_pyright(files, [], tmp_path) == []


def test_default_attrs_round_trip(ours, tf_generated):
    """Every attr default TF's registry has (every AttrValue kind) evaluates equal in both modules."""
    default_attrs = tf_generated["default_attrs"]
    ours_sig = inspect.signature(ours.default_attrs)
    op = next(o for o in _tf_op_list().op if o.name == "DefaultAttrs")
    attr_types = {a.name: a.type for a in op.attr}
    for name, p in inspect.signature(default_attrs).parameters.items():
        assert _same_default(p.default, ours_sig.parameters[name].default, attr_types.get(name)), name
    assert isinstance(attr_value_pb2.AttrValue(), attr_value_pb2.AttrValue)


def test_every_wrapper_runs_on_both_backends(tf_build):
    """Every wrapper of TF's registry, called once on the embedded runtime and once in a
    tf.Graph (support/call_wrappers.py; graph mode only: a registry kernel may abort the
    process on synthesized values, and some of TF's shape functions do: `CRASH_TF`)."""
    from oracle.shape_differential import CRASH_TF
    from support.call_wrappers import assert_all_called, check_module

    report = check_module(tf_build, tf=True, tf_crashes=frozenset(CRASH_TF))
    assert_all_called([report])
    assert report.calls > 3700 and set(report.tf_skipped) <= set(CRASH_TF), report.tf_skipped
    # Synthesized values suit every op's types, not every op's semantics: op-level errors are
    # expected, but most calls build their node.
    assert len(report.op_errors) < report.calls // 4


# String values TF's docstrings print through absl::CEscape (python_op_gen_internal.cc
# StringToPython): quotes, backslashes, control and non-ASCII bytes, invalid UTF-8.
_ESCAPED_STRINGS = [b"it's", b'say "hi"', b"tab\there", b"back\\slash", "caf\u00e9".encode(), b"nl\nx\r",
                    b"\x01\x7f", b"\xff", b"", b"both'\""]


def _string_default_ops() -> op_def_pb2.OpList:
    """Ops whose string, list(string), allowed-values, func and named-dim shape defaults need escaping."""
    ops = op_def_pb2.OpList()
    for i, value in enumerate(_ESCAPED_STRINGS):
        op = ops.op.add(name=f"StrDefault{i}")
        op.output_arg.add(name="y", type=1)
        op.attr.add(name="a", type="string").default_value.s = value
        listed = op.attr.add(name="b", type="list(string)")
        listed.default_value.list.s.extend([value, b"plain", value[::-1]])
        allowed = op.attr.add(name="c", type="string")
        allowed.default_value.s = value
        allowed.allowed_values.list.s.extend([b"plain", value])
    op = ops.op.add(name="NamedDefaults")
    op.output_arg.add(name="y", type=1)
    op.attr.add(name="f", type="func").default_value.func.name = "it's \"f\""
    shape = op.attr.add(name="s", type="shape").default_value.shape
    shape.dim.add(size=2, name='d"0')
    shape.dim.add(size=3, name="d'1")  # -1 is a documented difference in code
    return ops


def _as_declared(tf_default):
    """TF's string default as the text the op declares (docs/differences-from-tf.md 19): TF's
    literal reads each byte as a character; UTF-8 bytes are text in opgen's signature."""
    if isinstance(tf_default, list):
        return [_as_declared(v) for v in tf_default]
    if isinstance(tf_default, str):
        try:
            return tf_default.encode("latin-1").decode("utf-8")
        except UnicodeError:
            return tf_default
    return tf_default


def test_string_default_docstrings_match_tf(tf, tmp_path):
    """`Defaults to` and `from:` print strings as TF's generator does (CEscape'd); the
    signature default is TF's but for UTF-8 text (docs/differences-from-tf.md 19)."""
    from tensorflow.core.framework import op_def_pb2 as tf_op_def_pb2
    from tensorflow.python.framework import _pywrap_python_op_gen

    op_list = _string_default_ops()
    src = _pywrap_python_op_gen.GetPythonWrappers(
        tf_op_def_pb2.OpList.FromString(op_list.SerializeToString()).SerializeToString()
    )
    namespace: dict = {"__name__": "tf_str_defaults_under_test"}
    exec(compile(src.decode() if isinstance(src, bytes) else src, "tf_str_defaults_under_test.py", "exec"), namespace)
    module_path = _build(tmp_path, "ruff", op_list)
    spec = importlib.util.spec_from_file_location("opgen_str_defaults_under_test", module_path)
    ours = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ours)
    model = module_api(MODULE, op_list.op, default_api_model(op_list))
    diffs = []
    for f in model.functions:
        tf_fn = namespace[f.name]
        expected = inspect.cleandoc(tf_fn.__doc__)
        assert "Defaults to" in expected
        ours_fn = getattr(ours, f.name)
        if inspect.cleandoc(f.docstring) != expected or inspect.cleandoc(ours_fn.__doc__) != expected:
            diffs.append((f.op_name, inspect.cleandoc(ours_fn.__doc__), expected))
        for a, b in zip(inspect.signature(tf_fn).parameters.values(), inspect.signature(ours_fn).parameters.values()):
            if a.name != b.name or _norm_default(_as_declared(a.default)) != _norm_default(b.default):
                diffs.append((f.op_name, a.name, b.default, a.default))
    assert len(model.functions) == len(op_list.op)
    assert diffs == [], diffs[:3]


def test_builtin_named_parameters_differ_from_tf_as_documented(tf):
    """docs/differences-from-tf.md 17: TF keeps a parameter named `list` (AvoidPythonReserved
    knows no lowercase builtins), and its wrapper then fails in graph mode where the body calls
    `list`; opgen renames it exactly then (`list_`), and keeps `list` where the body calls no `list`."""
    from tensorflow.core.framework import op_def_pb2 as tf_op_def_pb2
    from tensorflow.python.framework import _pywrap_python_op_gen

    ops = op_def_pb2.OpList()
    for name, list_attr in (("ListIn", False), ("ListInL", True)):
        op = ops.op.add(name=name)
        op.input_arg.add(name="list", type=1)
        op.output_arg.add(name="y", type=1)
        if list_attr:
            op.attr.add(name="ks", type="list(int)").default_value.list.i.append(1)
    src = _pywrap_python_op_gen.GetPythonWrappers(
        tf_op_def_pb2.OpList.FromString(ops.SerializeToString()).SerializeToString())
    namespace: dict = {"__name__": "tf_builtin_names_under_test"}
    exec(compile(src.decode() if isinstance(src, bytes) else src, "tf_builtin_names_under_test.py", "exec"), namespace)
    ours = {f.name: [p.name for p in f.params] for f in module_api(MODULE, ops.op, default_api_model(ops)).functions}
    assert list(inspect.signature(namespace["list_in"]).parameters) == ["list", "name"] == ours["list_in"] + ["name"]
    assert list(inspect.signature(namespace["list_in_l"]).parameters) == ["list", "ks", "name"]
    assert ours["list_in_l"] == ["list_", "ks"]
    with tf.Graph().as_default(), pytest.raises(TypeError, match="isinstance"):
        namespace["list_in_l"](tf.constant(1.0), ks=[2])
