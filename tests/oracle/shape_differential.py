"""Static-shape differential over TF's registry: opgen's shape functions against TF graph mode.

Each op of TF's registry gets setups generated from its OpDef: every input a Placeholder of
a known, partially known or unknown shape (or, for integer inputs such as axes, shapes and
paddings, a constant value), times attr variants (defaults, each bool flipped, each allowed
string, typical window/axis values). Each setup builds the op in a fresh graph on both
sides; the outcome is the output shapes, or the exception type and message.

`run_differential` compares the ops opgen has a shape function for; `coverage` reports per
TF module (gen_math_ops, gen_array_ops, ...) how many of its *informative* ops (TF knows
some output rank, or rejects some setup in its shape function) get TF's static shapes on
every setup. `python -m oracle.shape_differential` (from tests/) prints that report.
"""

from __future__ import annotations

import functools
import os
import pickle
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from support.op_call_cases import PREFERRED, attr_value

U = "unknown"  # unknown rank
INT_TYPES = (3, 9)
SAME_SHAPES: list[Any] = [
    U,
    [],
    [3],
    [None],
    [2, 3],
    [None, 3],
    [2, None],
    [1, 3],
    [4, 2, 3],
    [2, 3, 4, 5],
    [1, 5, 5, 3],
    [None, None, None, None],
]
MIXED_SHAPES: list[tuple[Any, Any]] = [
    ([2, 3], [3]),
    ([2, 3], [3, 2]),
    ([4, 2, 3], [3]),
    ([2, 3], []),
    ([], [2, 3]),
    ([2, 3], U),
    ([None, 3], [2, None]),
    ([2, 3], [2, 3, 1]),
    ([1, 5, 5, 3], [2, 2, 3, 8]),
    ([4, 2, 3], [4, 3, 5]),
    ([2, 3], [2]),
]
CONST_VALUES: list[Any] = [
    0,
    1,
    -1,
    2,
    [0],
    [1],
    [-1],
    [0, 1],
    [1, 0],
    [2, 3],
    [3, 2],
    [6],
    [-1, 3],
    [1, 1, 1, 1],
    [[0, 0], [1, 1]],
    [[1, 1], [2, 2], [0, 0]],
]
CONST_DATA_SHAPES: list[Any] = [[2, 3], [4, 2, 3], [None, 3], U, [1, 5, 5, 3], [3]]
ATTR_BASE_SHAPES: list[Any] = [U, [2, 3], [4, 2, 3], [1, 5, 5, 3], [None, 4, 4, 3]]
# Values for required attrs and variants, by attr name (TF's ops name these consistently).
ATTR_HINTS: dict[str, list[Any]] = {
    "strides": [[1, 1, 1, 1], [1, 2, 2, 1], [1, 1]],
    "ksize": [[1, 2, 2, 1], [1, 3, 3, 1]],
    "dilations": [[1, 1, 1, 1], [1, 2, 2, 1]],
    "padding": ["VALID", "SAME"],
    "axis": [0, 1, -1, 3],
    "num_split": [1, 2, 3],
    "num": [2, 3],
    "N": [2],
    "depth": [3],
    "rates": [[1, 1, 1, 1]],
    "block_size": [2],
    "squeeze_dims": [[], [0], [-1], [1]],
    "perm": [[1, 0]],
    "shape": [[2, 3], [None, 3], None],
    "size_splits": [[1, 2]],
    "concat_dim": [0, 1],
    "out_type": None,
    "equation": ["ij,jk->ik", "bij,bjk->bik", "ij->ji", "i,i->", "ij,jk"],
    "begin_mask": [0, 1],
    "end_mask": [0, 1],
    "shrink_axis_mask": [0, 1],
    "new_axis_mask": [0, 1],
    "ellipsis_mask": [0, 1],
    "keep_dims": [False, True],
    "transpose_a": [False, True],
    "transpose_b": [False, True],
    "adj_x": [False, True],
    "adj_y": [False, True],
    "data_format": ["NHWC", "NCHW"],
}
# Extra setups for ops whose constant inputs need coherent values together.
EXTRA_INPUTS: dict[str, list[dict[str, Any]]] = {
    "StridedSlice": [
        {
            "input": ("ph", s),
            "begin": ("const", b),
            "end": ("const", e),
            "strides": ("const", st),
        }
        for s in ([4, 2, 3], [None, 3], U, [5])
        for b, e, st in (
            ([0], [1], [1]),
            ([1], [3], [1]),
            ([0, 1], [2, 3], [1, 1]),
            ([-1], [0], [1]),
            ([0], [0], [0]),
            ([0], [4], [2]),
            ([3], [0], [-1]),
        )
    ],
    "Slice": [
        {"input": ("ph", s), "begin": ("const", b), "size": ("const", z)}
        for s in ([4, 2, 3], [None, 3], U, [5])
        for b, z in (
            ([0, 0, 0], [1, 2, 3]),
            ([1, 0, 0], [-1, 1, -1]),
            ([0, 0], [2, 2]),
            ([0], [9]),
            ([1, 1, 1], [4, 2, 3]),
        )
    ],
    "Pad": [
        {"input": ("ph", s), "paddings": ("const", p)}
        for s in ([4, 2, 3], [None, 3], U, [2, 3])
        for p in (
            [[1, 1], [0, 2]],
            [[0, 0], [1, 1], [2, 2]],
            [[-1, 0], [0, 0]],
            [[1, 1]],
        )
    ],
    "OneHot": [
        {
            "indices": ("iph", s),
            "depth": ("const", d),
            "on_value": ("const", 1.0),
            "off_value": ("const", 0.0),
        }
        for s in ([4], [2, 3], U, [], [None, 2])
        for d in (3, -1, [3])
    ],
    "Range": [
        {"start": ("const", a), "limit": ("const", b), "delta": ("const", c)}
        for a, b, c in (
            (0, 5, 1),
            (0, 10, 3),
            (5, 0, -1),
            (0, 5, 0),
            (5, 0, 1),
            (0.0, 2.5, 0.5),
        )
    ],
    "Fill": [
        {"dims": ("const", d), "value": ("ph", v)}
        for d in ([2, 3], [-1], [], [0, 4])
        for v in ([], [1], U)
    ],
    "GatherV2": [
        {"params": ("ph", p), "indices": ("iph", i), "axis": ("const", a)}
        for p in ([4, 2, 3], [None, 3], U)
        for i in ([5], [2, 2], U, [])
        for a in (0, 1, -1, 3)
    ],
    "Tile": [
        {"input": ("ph", s), "multiples": ("const", m)}
        for s in ([2, 3], [None, 3], U, [4, 2, 3])
        for m in ([1, 2], [2, 1, 3], [-1, 2], [0, 2])
    ],
}


# TF's shape functions of these ops crash the process (segfault) on some setups.
CRASH_TF = {
    "BoostedTreesAggregateStats",
    "BoostedTreesExampleDebugOutputs",
    "BoostedTreesPredict",
    "BoostedTreesTrainingPredict",
    "SplitDedupData",
    "XlaSparseGradientsStack",
} | (set(os.environ.get("SHAPE_DIFF_SKIP", "").split(",")) - {""})


@dataclass
class OpReport:
    name: str
    module: str
    ported: bool
    cases: int = 0
    tf_accepted: int = 0
    tf_rejected: int = 0
    informative: bool = False
    mismatches: list[str] = field(default_factory=list)


def _pick_type(attr: Any, prefer_int: bool) -> int:
    allowed = (
        list(attr.allowed_values.list.type) if attr.HasField("allowed_values") else []
    )
    order = [3, 9, *PREFERRED] if prefer_int else PREFERRED
    for t in order:
        if not allowed or t in allowed:
            return t
    return allowed[0]


def _is_int_arg(arg: Any, attrs: dict[str, Any]) -> bool:
    if arg.type in INT_TYPES:
        return True
    if arg.type_attr:
        a = attrs[arg.type_attr]
        allowed = (
            set(a.allowed_values.list.type) if a.HasField("allowed_values") else set()
        )
        return bool(allowed) and allowed <= {3, 9}
    return False


def _required_value(attr: Any) -> Any:
    hints = ATTR_HINTS.get(attr.name)
    return hints[0] if hints else attr_value(attr)


def setups(op: Any) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(inputs, attrs) setups for `op` (an OpDef); inputs map arg name to a spec tuple."""
    attrs = {a.name: a for a in op.attr}
    inferred: set[str] = set()
    for arg in op.input_arg:
        inferred.update(
            x for x in (arg.type_attr, arg.number_attr, arg.type_list_attr) if x
        )
    if any(
        a.type in ("func", "list(func)", "tensor", "list(tensor)", "list(type)")
        and a.name not in inferred
        and not a.HasField("default_value")
        for a in op.attr
    ):
        return
    if any(arg.is_ref for arg in op.input_arg):
        return
    required: dict[str, Any] = {}
    for a in op.attr:
        if a.name in inferred or a.HasField("default_value"):
            continue
        if a.type == "type":
            required[a.name] = _pick_type(a, False)
            continue
        required[a.name] = _required_value(a)
    int_args = {arg.name for arg in op.input_arg if _is_int_arg(arg, attrs)}
    dtypes: dict[str, int] = {}
    for arg in op.input_arg:
        if arg.type_attr and arg.type_attr not in dtypes:
            dtypes[arg.type_attr] = _pick_type(
                attrs[arg.type_attr], arg.name in int_args
            )
    if any(arg.type_list_attr for arg in op.input_arg):
        for arg in op.input_arg:
            if arg.type_list_attr:
                a = attrs[arg.type_list_attr]
                n = max(a.minimum if a.has_minimum else 0, 1)
                dtypes[arg.type_list_attr] = [_pick_type(a, False)] * n  # type: ignore[assignment]
    counts = {}
    for arg in op.input_arg:
        if arg.number_attr:
            a = attrs[arg.number_attr]
            counts[arg.number_attr] = max(a.minimum if a.has_minimum else 0, 2)

    def spec(arg: Any, shape: Any, const: Any = None) -> Any:
        dt = arg.type or dtypes.get(arg.type_attr)
        if arg.type_list_attr:
            return ("list", [("ph", shape, d) for d in dtypes[arg.type_list_attr]])  # type: ignore[union-attr]
        one = ("const", const) if const is not None else ("ph", shape, dt)
        if arg.number_attr:
            return ("list", [one] * counts[arg.number_attr])
        return one

    def inputs_for(shapes: list[Any], const: Any = None) -> dict[str, Any]:
        result = {}
        for i, arg in enumerate(op.input_arg):
            shape = shapes[min(i, len(shapes) - 1)]
            if const is not None and arg.name in int_args:
                result[arg.name] = spec(arg, shape, const)
            else:
                result[arg.name] = spec(arg, shape)
        return result

    # TF's _apply_op_helper wants every attr named; None takes the default
    base_attrs = {
        a.name: None
        for a in op.attr
        if a.name not in inferred and a.HasField("default_value") and a.type != "type"
    }
    base_attrs.update(required)
    for s in SAME_SHAPES:
        yield inputs_for([s]), base_attrs
    if len(op.input_arg) >= 2 or any(arg.number_attr for arg in op.input_arg):
        for a, b in MIXED_SHAPES:
            yield inputs_for([a, b]), base_attrs
    if int_args and len(int_args) < len(op.input_arg):
        for value in CONST_VALUES:
            for s in CONST_DATA_SHAPES:
                yield inputs_for([s], value), base_attrs
    elif int_args:
        for value in CONST_VALUES:
            yield inputs_for([[2]], value), base_attrs
    for extra in EXTRA_INPUTS.get(op.name, []):
        full = {}
        for arg in op.input_arg:
            s = extra.get(arg.name)
            if s is None:
                full[arg.name] = spec(arg, [2, 3])
            elif s[0] == "iph":
                full[arg.name] = ("ph", s[1], dtypes.get(arg.type_attr, arg.type) or 3)
            elif s[0] == "ph":
                full[arg.name] = ("ph", s[1], arg.type or dtypes.get(arg.type_attr))
            else:
                full[arg.name] = s
        for variant in _attr_variants(op, inferred, base_attrs, limit=3):
            yield full, variant
    for variant in _attr_variants(op, inferred, base_attrs, limit=None):
        for s in ATTR_BASE_SHAPES:
            yield inputs_for([s, [3] if len(op.input_arg) > 1 else s]), variant
            if int_args and len(int_args) < len(op.input_arg):
                for value in (0, [1], -1, [0, 1]):
                    yield inputs_for([s], value), variant


def _attr_variants(
    op: Any, inferred: set[str], base: dict[str, Any], limit: int | None
) -> Iterator[dict[str, Any]]:
    count = 0
    for a in op.attr:
        if a.name in inferred or a.type == "type":
            continue
        choices: list[Any] = []
        hints = ATTR_HINTS.get(a.name)
        if hints:
            choices = list(hints)
        elif a.type == "bool":
            choices = [True, False]
        elif a.type == "string" and a.HasField("allowed_values"):
            choices = [s.decode() for s in a.allowed_values.list.s]
        for value in choices:
            if base.get(a.name, "unset") == value or (
                base.get(a.name) is None and _is_default(a, value)
            ):
                continue
            count += 1
            if limit is not None and count > limit:
                return
            yield dict(base, **{a.name: value})


def _is_default(attr: Any, value: Any) -> bool:
    if not attr.HasField("default_value"):
        return False
    v = attr.default_value
    which = v.WhichOneof("value")
    if which == "s":
        return bool(v.s.decode() == value)
    if which in ("i", "b"):
        return bool(getattr(v, which) == value)
    if which == "list":
        return list(v.list.i) == value
    return False


def graph_and_helper(is_tf: bool) -> tuple[Any, Any]:
    """A fresh graph and the `op_def_library` module of one side (TF or the embedded runtime)."""
    if is_tf:
        import tensorflow as tf
        from tensorflow.python.framework import op_def_library as lib

        return tf.Graph(), lib
    from opgen_runtime import Graph
    from opgen_runtime.ops import op_def_library as lib

    return Graph(), lib


def make_input(lib: Any, s: Any) -> Any:
    """An input from its spec, in the current graph: ("ph", shape, dtype) a Placeholder,
    ("const", value) the value, ("op", name, {arg: spec}, {attr: value}, output index) that
    op's output, ("list", [specs]) a list of them."""
    if s[0] == "ph":
        shape = None if s[1] == U else s[1]
        return lib._apply_op_helper("Placeholder", dtype=s[2], shape=shape)[3][0]
    if s[0] == "const":
        return s[1]
    if s[0] == "op":
        _, name, inputs, attrs, index = s
        kwargs = {k: make_input(lib, v) for k, v in inputs.items()}
        return lib._apply_op_helper(name, **kwargs, **attrs)[3][index]
    return [make_input(lib, x) for x in s[1]]


def build(
    is_tf: bool, op_name: str, inputs: dict[str, Any], attrs: dict[str, Any]
) -> Any:
    """Builds the op in a fresh graph on one side: output shapes, ('skip',) or (type, message)."""
    graph, lib = graph_and_helper(is_tf)
    with graph.as_default():
        try:
            kwargs = {name: make_input(lib, s) for name, s in inputs.items()}
        except (TypeError, ValueError):  # an input this side cannot build: not compared
            return ("skip",)
        try:
            outs = lib._apply_op_helper(op_name, **kwargs, **attrs)[3]
        except Exception as e:  # noqa: BLE001 - the outcome is the exception
            return (type(e).__name__, str(e))
    return [None if o.shape.rank is None else tuple(o.shape.as_list()) for o in outs]


def _is_shape_error(outcome: Any) -> bool:
    return (
        isinstance(outcome, tuple)
        and outcome[0] == "ValueError"
        and "{{node " in outcome[1]
    )


def module_of_ops() -> dict[str, str]:
    """Op name -> the TF Python module defining its wrapper (gen_math_ops, ...)."""
    import importlib
    import pkgutil

    import tensorflow.python.ops as ops_pkg

    result: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(ops_pkg.__path__), key=lambda m: m.name):
        if not info.name.startswith("gen_"):
            continue
        try:
            module = importlib.import_module(f"tensorflow.python.ops.{info.name}")
        except ImportError:  # a module needing an optional dependency: its ops stay "-"
            continue
        for name, value in vars(module).items():
            if name[:1].isupper() and callable(value) and name not in result:
                result[name] = info.name
    return result


@functools.cache
def registry_ops() -> set[str]:
    from oracle.tf_registry import tf_op_list

    return {op.name for op in tf_op_list().op}


def run_differential(
    op_names: list[str] | None = None,
) -> list[OpReport]:
    """Runs the differential; needs TF imported and TF's registry registered in opgen."""
    from opgen_runtime.shapes import fns as shape_fns
    from oracle.tf_registry import tf_op_list

    modules = module_of_ops()
    ops = {op.name: op for op in tf_op_list().op}
    cache_path = os.environ.get("SHAPE_DIFF_CACHE")  # development: reuse TF's outcomes
    cache: dict[str, Any] = {}
    if cache_path and os.path.exists(cache_path):
        with open(cache_path, "rb") as f:
            cache = pickle.load(f)
    names = op_names if op_names is not None else sorted(set(ops) - CRASH_TF)
    reports = []
    for name in names:
        op = ops[name]
        ported = shape_fns.lookup(name, None) is not None
        report = OpReport(name, modules.get(name, "-"), ported)
        if os.environ.get("SHAPE_DIFF_TRACE"):
            print(name, file=sys.stderr, flush=True)
        for index, (inputs, attrs) in enumerate(setups(op)):
            key = f"{name}#{index}:{inputs!r}{attrs!r}"
            theirs = cache.get(key)
            if theirs is None:
                theirs = cache[key] = build(True, name, inputs, attrs)
            if theirs == ("skip",):
                continue
            if isinstance(theirs, list):
                report.tf_accepted += 1
                if any(s is not None for s in theirs):
                    report.informative = True
            elif _is_shape_error(theirs):
                report.tf_rejected += 1
                report.informative = True
            else:
                continue  # rejected before shape inference: the wrapper differential's concern
            report.cases += 1
            if ported:
                ours = build(False, name, inputs, attrs)
                if ours != theirs:
                    report.mismatches.append(
                        f"{name} {inputs} {attrs}:\n  ours {ours}\n  TF   {theirs}"
                    )
        reports.append(report)
    if cache_path:
        with open(cache_path, "wb") as f:
            pickle.dump(cache, f)
    return reports


def coverage(reports: list[OpReport]) -> dict[str, tuple[int, int]]:
    """Per module: (informative ops getting TF's shapes on every setup, informative ops)."""
    table: dict[str, tuple[int, int]] = {}
    for r in reports:
        if not r.informative:
            continue
        good, total = table.get(r.module, (0, 0))
        table[r.module] = (good + (r.ported and not r.mismatches), total + 1)
    return table


def format_coverage(table: dict[str, tuple[int, int]]) -> str:
    lines = []
    for module, (good, total) in sorted(table.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"{module:40s} {good:4d}/{total:<4d} {100.0 * good / total:5.1f}%")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    import time

    from opgen_runtime.ops import registry
    from oracle.tf_registry import tf_op_list_bytes

    registry.register_op_list("tensorflow_registry", tf_op_list_bytes())
    start = time.perf_counter()
    reports = run_differential(argv or None)
    cases = sum(r.cases for r in reports)
    print(format_coverage(coverage(reports)))
    bad = [r for r in reports if r.mismatches]
    for r in bad:
        print(f"--- {r.name}: {len(r.mismatches)}/{r.cases} mismatches")
        for m in r.mismatches[:3]:
            print(m)
    print(f"{len(reports)} ops, {cases} cases, {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
