"""Calls of TF's ops, generated from their OpDefs, shared by the `_apply_op_helper` differentials.

What tests/runtime/test_runtime_differential.py (and the wrapper differential, the drop-in
cases, the shape differential and support/call_wrappers.py) call each op with: dtypes picked
from allowed lists (`PREFERRED` order), attr values from defaults, allowed values and
minimums, list inputs of the right length, ref inputs from VariableV2, Python values for the
inference paths, names, scopes, control dependencies and devices (`cases_for`), and the
GraphDef normalisation both sides are compared after (`normalise`).
"""

from __future__ import annotations

from opgen_runtime.proto import node_def_pb2, tensor_pb2

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


def pick_type(attr) -> int:
    """The first `PREFERRED` dtype the attr allows."""
    allowed = (
        list(attr.allowed_values.list.type) if attr.HasField("allowed_values") else []
    )
    for t in PREFERRED:
        if not allowed or t in allowed:
            return t
    return allowed[0]


def attr_value(attr):
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
        return pick_type(attr)
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
        return [pick_type(attr)] * max(m, 1)
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


def default_python(attr):
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


def cases_for(op):
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
            type_choice[arg.type_attr] = pick_type(attrs[arg.type_attr])
        if arg.type_list_attr and arg.type_list_attr not in list_choice:
            a = attrs[arg.type_list_attr]
            n = max(a.minimum if a.has_minimum else 0, 2)
            list_choice[arg.type_list_attr] = [pick_type(a)] * n
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
        a.name: attr_value(a)
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
                attrs={**explicit, **{a.name: default_python(a) for a in defaulted}},
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


def input_makers(lib, make_proto):
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


class OptionalContext:
    """`factory(arg)` as a context manager, or nothing when `arg` is None."""

    def __init__(self, arg, factory):
        self.cm = factory(arg) if arg is not None else None

    def __enter__(self):
        return self.cm.__enter__() if self.cm is not None else None

    def __exit__(self, *exc):
        return self.cm.__exit__(*exc) if self.cm is not None else False


def normalise(graph_def):
    """Each node serialised deterministically, without the fields TF fills in and opgen does not."""
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


def selected_ops(ops, limit):
    """About `limit` op names: every op with a ref input or a rarer attr type, then an even spread."""
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
