"""Calls for the TensorFlow drop-in differential: concrete eager inputs for TF's ops.

Each op gets a few input recipes (shapes and values per input dtype); the first recipe on
which TF's own generated wrapper runs is the op's case, and opgen's wrapper must then give
the same outputs. Attrs without defaults get the explicit values of the graph-mode
differential (support.op_call_cases.attr_value); attrs with defaults are left out.
"""

from __future__ import annotations

from support.op_call_cases import attr_value, pick_type

# Ops left out of the value differential, with why. Stateful ops are left out as a class
# (random ops, queues, resources: their outputs depend on state, not only on inputs).
UNSUPPORTED_PREFIXES = ("Collective", "Nccl", "Xla", "Tpu", "TPU", "_")
# TF 2.21 aborts the process (CHECK failures in the kernels) on these ops with the
# synthesized inputs: found by running every selected op in a subprocess.
CRASHES_TF = frozenset(
    {
        "AvgPool3DGrad",
        "AvgPoolGrad",
        "Conv2DBackpropFilter",
        "Conv2DBackpropInput",
        "Conv3D",
        "DepthwiseConv2dNativeBackpropFilter",
        "DepthwiseConv2dNativeBackpropInput",
        "FakeQuantWithMinMaxVarsPerChannel",
        "FakeQuantWithMinMaxVarsPerChannelGradient",
        "IRFFT",
        "LSTMBlockCell",
        "LSTMBlockCellGrad",
        "MaxPool3D",
        "QuantizeAndDequantizeV3",
        "RFFT",
        "Unbatch",
    }
)

# Outputs not determined by the inputs: Batch's `id` is new on every call; Cholesky leaves
# uninitialised memory in its result when the input is not positive definite.
NONDETERMINISTIC = frozenset({"Batch", "Cholesky"})

RECIPES = (
    # (description, shape of non-integer inputs, (kind, value) of integer inputs or None
    # for integer inputs shaped like the others)
    ("matrices", [2, 3], None),
    ("scalars", [], None),
    ("matrices-axis0", [2, 3], ("scalar", 0)),
    ("vectors", [3], None),
    ("square", [2, 2], ("scalar", 1)),
    ("matrices-axes", [2, 3], ("vector", [0])),
    ("images", [1, 4, 4, 2], ("vector", [1, 1])),
)

_NUMPY_NAMES = {
    1: "float32",
    2: "float64",
    3: "int32",
    4: "uint8",
    5: "int16",
    6: "int8",
    9: "int64",
    10: "bool",
    14: "bfloat16",
    17: "uint16",
    19: "float16",
    22: "uint32",
    23: "uint64",
    8: "complex64",
    18: "complex128",
}
INTEGER_TYPES = {3, 4, 5, 6, 9, 17, 22, 23}


def selected(op, has_cpu_kernel) -> bool:
    if op.name.startswith(UNSUPPORTED_PREFIXES) or op.name in CRASHES_TF | NONDETERMINISTIC:
        return False
    if op.is_stateful or not has_cpu_kernel:
        return False
    if any(a.type in ("func", "list(func)") for a in op.attr):
        return False
    if any(a.is_ref for a in list(op.input_arg) + list(op.output_arg)):
        return False  # no eager wrapper (TF raises RuntimeError; tested separately)
    # resource and variant inputs need real handles
    return not any(a.type in (20, 21) for a in op.input_arg)


def tensor(tf, dtype: int, shape: list[int], integer=None):
    """A deterministic eager tensor of `dtype` and `shape` (integers from the recipe)."""
    import numpy as np

    if dtype == 7:
        return tf.constant(np.full(shape, b"ab", dtype=object))
    if dtype not in _NUMPY_NAMES:
        raise ValueError(f"no values for DataType {dtype}")
    if dtype in INTEGER_TYPES and integer is not None:
        return tf.constant(np.array(integer[1]), dtype=tf.dtypes.as_dtype(dtype))
    size = int(np.prod(shape)) if shape else 1
    base = (np.arange(size, dtype=np.float64) % 5 + 1) / 4.0
    if dtype == 10:
        data = (np.arange(size) % 2 == 0).reshape(shape)
        return tf.constant(data)
    if dtype in INTEGER_TYPES:
        data = (np.arange(size) % 3).reshape(shape)
    elif dtype in (8, 18):
        data = (base + 0.5j * base).reshape(shape)
    else:
        data = base.reshape(shape)
    return tf.cast(tf.constant(data), tf.dtypes.as_dtype(dtype))


def calls(tf, op):
    """(recipe description, keyword arguments by OpDef name) for each recipe."""
    attrs = {a.name: a for a in op.attr}
    inferred = set()
    for arg in op.input_arg:
        inferred.update(x for x in (arg.type_attr, arg.number_attr, arg.type_list_attr) if x)
    types = {}
    for arg in op.input_arg:
        for ref in (arg.type_attr,):
            if ref and ref not in types:
                types[ref] = pick_type(attrs[ref])
    explicit = {a.name: attr_value(a) for a in op.attr if a.name not in inferred and not a.HasField("default_value")}
    if any(isinstance(v, tuple) for v in explicit.values()):
        return  # tensor attrs: covered by the graph-mode differential
    for desc, shape, integer in RECIPES:
        try:
            kwargs = {}
            for arg in op.input_arg:
                if arg.type_list_attr:
                    a = attrs[arg.type_list_attr]
                    n = max(a.minimum if a.has_minimum else 0, 2)
                    kwargs[arg.name] = [tensor(tf, pick_type(a), shape, integer) for _ in range(n)]
                    continue
                dt = arg.type or types[arg.type_attr]
                if arg.number_attr:
                    a = attrs[arg.number_attr]
                    n = max(a.minimum if a.has_minimum else 0, 2)
                    kwargs[arg.name] = [tensor(tf, dt, shape, integer) for _ in range(n)]
                else:
                    kwargs[arg.name] = tensor(tf, dt, shape, integer)
        except (ValueError, TypeError):
            return
        kwargs.update(explicit)
        yield desc, kwargs
