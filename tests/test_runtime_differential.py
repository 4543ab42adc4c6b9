"""Differential tests: opgen's `_apply_op_helper` against TensorFlow's, call for call.

Calls are generated systematically from TF's own OpDefs (tests/oracle/tf_registry.py):
dtypes picked from allowed lists, unknown-rank Placeholder inputs (so TF's C++ shape
functions accept them), list inputs of the right length, ref inputs from VariableV2,
attr values from defaults/allowed values/minimums, Python-value inputs for the inference
paths, explicit names, name scopes, control dependencies and devices. Each call runs in a
fresh graph on both sides and the whole GraphDefs must be equal.

Compared: every node's name, op, inputs (incl. ^control), device and attrs. Ignored: TF's
bookkeeping attr `_has_manual_control_dependencies` (set on control-dependency *sources*),
NodeDef.experimental_type (TF's full-type inference) and experimental_debug_info.
"""

from __future__ import annotations

import pytest

from opgen_runtime.proto import graph_pb2, node_def_pb2, tensor_pb2

pytestmark = pytest.mark.oracle

BOOKKEEPING_ATTRS = ("_has_manual_control_dependencies",)
PREFERRED = [
    1,
    3,
    9,
    2,
    10,
    7,
    19,
    4,
    6,
    5,
    14,
    8,
    18,
    17,
    22,
    23,
    11,
    12,
    13,
    15,
    16,
    20,
    21,
]
SAFE_PYTHON = {1: 1.5, 2: 2.5, 3: 3, 9: 4, 10: True, 7: "s"}
# TF's C++ shape functions of these ops crash the process (segfault) on scalar constant inputs.
CRASH_TF_WITH_CONSTANTS = {"FakeQuantWithMinMaxVarsPerChannelGradient"}


@pytest.fixture(scope="module")
def env(tf):
    from oracle.tf_registry import tf_op_list, tf_op_list_bytes

    from opgen_runtime.ops import registry

    registry.register_op_list("tensorflow_registry", tf_op_list_bytes())
    return tf, {op.name: op for op in tf_op_list().op}


def _pick_type(attr) -> int:
    allowed = (
        list(attr.allowed_values.list.type) if attr.HasField("allowed_values") else []
    )
    for t in PREFERRED:
        if not allowed or t in allowed:
            return t
    return allowed[0]


def _attr_value(attr):
    """A valid explicit Python value for a non-inferred attr (None = take the default)."""
    t = attr.type
    m = attr.minimum if attr.has_minimum else 0
    allowed = attr.allowed_values.list if attr.HasField("allowed_values") else None
    if t == "string":
        return allowed.s[0].decode() if allowed and allowed.s else ""
    if t == "int":
        return max(m, 1)
    if t == "float":
        return 0.5
    if t == "bool":
        return True
    if t == "type":
        return _pick_type(attr)
    if t == "shape":
        return [2, None]
    if t == "tensor":
        return (
            "tensor",
            tensor_pb2.TensorProto(
                dtype=1, tensor_shape={}, float_val=[1.0]
            ).SerializeToString(),
        )
    if t == "func":
        return "some_function"
    if t == "list(int)":
        return [1] * max(m, 1)
    if t == "list(float)":
        return [0.5] * max(m, 1)
    if t == "list(string)":
        return [allowed.s[0].decode() if allowed and allowed.s else "a"] * max(m, 1)
    if t == "list(bool)":
        return [True] * max(m, 1)
    if t == "list(type)":
        return [_pick_type(attr)] * max(m, 1)
    if t == "list(shape)":
        return [[2]] * max(m, 1)
    if t == "list(tensor)":
        return [
            (
                "tensor",
                tensor_pb2.TensorProto(
                    dtype=3, tensor_shape={}, int_val=[1]
                ).SerializeToString(),
            )
        ] * max(m, 1)
    if t == "list(func)":
        return []
    raise AssertionError(t)


def _default_python(attr):
    """The attr's default as a Python value (to pass explicitly)."""
    v = attr.default_value
    which = v.WhichOneof("value")
    if which == "list":
        for field in ("s", "i", "f", "b", "type", "shape"):
            items = list(getattr(v.list, field))
            if items:
                if field == "s":
                    return [x.decode() for x in items]
                if field == "shape":
                    return [
                        [d.size if d.size >= 0 else None for d in s.dim] for s in items
                    ]
                return items
        return []
    if which == "s":
        return v.s.decode()
    if which == "shape":
        return (
            None
            if v.shape.unknown_rank
            else [d.size if d.size >= 0 else None for d in v.shape.dim]
        )
    if which in ("i", "f", "b", "type"):
        return getattr(v, which)
    return None


def _cases_for(op):
    """Yields (description, spec) where spec = dict(inputs=..., attrs=..., name=..., scope=..., ...)."""
    attrs = {a.name: a for a in op.attr}
    inferred = set()
    for arg in op.input_arg:
        inferred.update(
            x for x in (arg.type_attr, arg.number_attr, arg.type_list_attr) if x
        )
    type_choice = {}
    number_choice = {}
    list_choice = {}
    for arg in op.input_arg:
        if arg.number_attr and arg.number_attr not in number_choice:
            a = attrs[arg.number_attr]
            number_choice[arg.number_attr] = max(a.minimum if a.has_minimum else 0, 2)
        if arg.type_attr and arg.type_attr not in type_choice:
            type_choice[arg.type_attr] = _pick_type(attrs[arg.type_attr])
        if arg.type_list_attr and arg.type_list_attr not in list_choice:
            a = attrs[arg.type_list_attr]
            n = max(a.minimum if a.has_minimum else 0, 2)
            list_choice[arg.type_list_attr] = [_pick_type(a)] * n
    inputs = []
    for arg in op.input_arg:
        if arg.type_list_attr:
            inputs.append(
                (arg.name, "list", list_choice[arg.type_list_attr], arg.is_ref)
            )
        else:
            dt = arg.type or type_choice[arg.type_attr]
            if arg.number_attr:
                inputs.append(
                    (
                        arg.name,
                        "list",
                        [dt] * number_choice[arg.number_attr],
                        arg.is_ref,
                    )
                )
            else:
                inputs.append((arg.name, "single", dt, arg.is_ref))
    explicit = {
        a.name: _attr_value(a)
        for a in op.attr
        if a.name not in inferred and not a.HasField("default_value")
    }
    defaulted = [
        a for a in op.attr if a.name not in inferred and a.HasField("default_value")
    ]
    base = {
        "inputs": inputs,
        "attrs": {**explicit, **{a.name: None for a in defaulted if a.type != "type"}},
    }
    yield "basic", base
    if defaulted:
        yield (
            "explicit-defaults",
            dict(
                base,
                attrs={**explicit, **{a.name: _default_python(a) for a in defaulted}},
            ),
        )
    yield "named-in-scope", dict(base, name="my_op", scope="outer")
    yield "control-device", dict(base, control=True, device="/cpu:0")
    python_able = [
        kind == "single" and not ref and dt in SAFE_PYTHON
        for _, kind, dt, ref in inputs
    ]
    if any(python_able):
        yield "python-values", dict(base, python=True)
    if sum(python_able) >= 2 and op.name not in CRASH_TF_WITH_CONSTANTS:
        yield "python-after-first", dict(base, python_after_first=True)
    if any(a.type == "type" and a.name not in inferred for a in op.attr):
        yield "types-as-names", dict(base, type_names=True)


def _input_makers(lib, make_proto):
    """`placeholder(dtype, ref)` and `value(attr spec)` for one side's `_apply_op_helper`."""

    def placeholder(dt, ref):
        if ref:
            return lib._apply_op_helper(
                "VariableV2", shape=[2], dtype=dt, container=None, shared_name=None
            )[3][0]
        return lib._apply_op_helper("Placeholder", dtype=dt, shape=None)[3][0]

    def value(v):
        if isinstance(v, tuple) and v and v[0] == "tensor":
            return make_proto(v[1])
        if isinstance(v, list):
            return [value(x) for x in v]
        return v

    return placeholder, value


def _build(rt, spec, op_name, is_tf):
    """Builds one call in a fresh graph on one side; returns the GraphDef as opgen's proto."""
    if is_tf:
        import tensorflow as tf
        from tensorflow.core.framework import tensor_pb2 as tf_tensor_pb2
        from tensorflow.python.framework import op_def_library as lib

        graph, dtypes = tf.Graph(), tf.dtypes
        make_proto = tf_tensor_pb2.TensorProto.FromString
    else:
        from opgen_runtime import Graph
        from opgen_runtime.ops import op_def_library as lib
        from opgen_runtime.values import dtypes

        graph = Graph()
        make_proto = tensor_pb2.TensorProto.FromString

    placeholder, value = _input_makers(lib, make_proto)

    with graph.as_default():
        kwargs = {}
        seen_tensor = False
        for name, kind, dt, ref in spec["inputs"]:
            python_ok = kind != "list" and not ref and dt in SAFE_PYTHON
            if kind == "list":
                kwargs[name] = [placeholder(d, ref) for d in dt]
            elif python_ok and (
                spec.get("python") or (spec.get("python_after_first") and seen_tensor)
            ):
                kwargs[name] = SAFE_PYTHON[dt]
            else:
                kwargs[name] = placeholder(dt, ref)
                seen_tensor = seen_tensor or python_ok
        attrs = {k: value(v) for k, v in spec["attrs"].items()}
        if spec.get("type_names"):
            attrs = {
                k: (
                    dtypes.as_dtype(v).name
                    if isinstance(v, int)
                    and not isinstance(v, bool)
                    and k[:1].isupper()
                    else v
                )
                for k, v in attrs.items()
            }
        kwargs.update(attrs)
        with (
            _Maybe(spec.get("scope"), graph.name_scope),
            _Maybe(spec.get("device"), graph.device),
        ):
            deps = [placeholder(1, False)] if spec.get("control") else None
            with _Maybe(deps, graph.control_dependencies):
                lib._apply_op_helper(op_name, name=spec.get("name"), **kwargs)
        raw = graph.as_graph_def().SerializeToString()
    return graph_pb2.GraphDef.FromString(raw)


class _Maybe:
    def __init__(self, arg, factory):
        self.cm = factory(arg) if arg is not None else None

    def __enter__(self):
        return self.cm.__enter__() if self.cm is not None else None

    def __exit__(self, *exc):
        return self.cm.__exit__(*exc) if self.cm is not None else False


def _normalise(graph_def):
    nodes = []
    for node in graph_def.node:
        n = node_def_pb2.NodeDef()
        n.CopyFrom(node)
        for key in BOOKKEEPING_ATTRS:
            if key in n.attr:
                del n.attr[key]
        n.ClearField("experimental_type")
        n.ClearField("experimental_debug_info")
        nodes.append(n.SerializeToString(deterministic=True))
    return nodes


def _run_case(op_name, spec):
    """(status, detail): 'same', 'tf-error-same', 'tf-only-error' (TF C++ rejected), or a mismatch."""
    try:
        theirs = _build(None, spec, op_name, True)
    except Exception as e:  # noqa: BLE001 - any TF failure is an outcome to compare
        tf_error = e
        theirs = None
    else:
        tf_error = None
    try:
        ours = _build(None, spec, op_name, False)
    except Exception as e:  # noqa: BLE001
        if tf_error is None:
            return "mismatch", f"we raised {type(e).__name__}: {e}"
        if type(e) is not type(tf_error):
            return (
                "mismatch",
                f"types differ: ours {type(e).__name__}: {e} / TF {type(tf_error).__name__}: {tf_error}",
            )
        return "tf-error-same", ""
    if tf_error is not None:
        return "tf-only-error", f"{type(tf_error).__name__}: {str(tf_error)[:200]}"
    if _normalise(ours) != _normalise(theirs):
        return "mismatch", f"GraphDefs differ:\nours={ours}\ntheirs={theirs}"
    return "same", ""


def _selected_ops(ops, limit):
    names = [n for n in sorted(ops) if not n.startswith("_")]
    # every op with a ref input, a list(type)/func/tensor/shape attr, then an even spread of the rest
    special = [
        n
        for n in names
        if any(a.is_ref for a in ops[n].input_arg)
        or any(
            a.type
            in (
                "list(type)",
                "func",
                "tensor",
                "shape",
                "list(shape)",
                "list(float)",
                "list(string)",
                "list(bool)",
                "list(tensor)",
            )
            for a in ops[n].attr
        )
    ]
    rest = [n for n in names if n not in set(special)]
    step = max(1, len(rest) // max(1, limit - len(special[: limit // 2])))
    return special[: limit // 2] + rest[::step]


def test_node_defs_equal_tensorflow(env):
    _, ops = env
    counts = {"same": 0, "tf-error-same": 0, "tf-only-error": 0, "mismatch": 0}
    same_ops = set()
    attr_types_seen = set()
    mismatches = []
    for op_name in _selected_ops(ops, 420):
        for desc, spec in _cases_for(ops[op_name]):
            status, detail = _run_case(op_name, spec)
            counts[status] += 1
            if status == "same":
                same_ops.add(op_name)
                attr_types_seen.update(a.type for a in ops[op_name].attr)
            elif status == "mismatch":
                mismatches.append(f"{op_name} [{desc}]: {detail}")
    print(counts, len(same_ops), sorted(attr_types_seen))
    assert not mismatches, (
        "\n\n".join(mismatches[:5]) + f"\n... {len(mismatches)} mismatches"
    )
    assert counts["same"] >= 1000
    assert len(same_ops) >= 300
    ref_ops = [name for name in same_ops if any(a.is_ref for a in ops[name].input_arg)]
    assert (
        len(ref_ops) >= 20
    )  # ref inputs: VariableV2 producers and the `_class` colocation attr
    assert {
        "string",
        "int",
        "float",
        "bool",
        "type",
        "shape",
        "tensor",
        "func",
        "list(int)",
        "list(float)",
        "list(string)",
        "list(type)",
        "list(shape)",
        "list(bool)",
    } <= attr_types_seen
