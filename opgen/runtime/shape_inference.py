"""Shape inference: a Python InferenceContext with ShapeHandle/DimensionHandle semantics.

A shape function takes an `InferenceContext` and sets output shapes, like a C++
`SetShapeFn`. Built-in functions live in `shape_fns` under their TF names
(`UnchangedShape`, `MatMulShape`, ...). Generated modules declare which one each op uses
(`register_op_list(..., shape_fns=...)`); users register their own with
`register_shape_fn(op_type, fn)`. An op without a known function gets unknown output shapes.
Errors surface as ValueError (TF's C++ shape errors do too), formatted like TF's.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any

from . import registry as _registry
from .operation import Operation, attr_value_to_python
from .tensor_shape import TensorShape

# A DimensionHandle is an int (known) or None (unknown); a ShapeHandle a ShapeHandle.
DimensionHandle = Any


class ShapeHandle:
    """A shape: `dims` is None for unknown rank, else a tuple of DimensionHandles."""

    __slots__ = ("dims",)

    def __init__(self, dims: Sequence[DimensionHandle] | None) -> None:
        self.dims = None if dims is None else tuple(dims)

    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    def __repr__(self) -> str:
        return debug_string(self)


UNKNOWN = ShapeHandle(None)
SCALAR = ShapeHandle(())


def debug_string(shape: ShapeHandle) -> str:
    if shape.dims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.dims) + "]"


class ShapeError(ValueError):
    """A shape function rejected the op's inputs (message like TF's InvalidArgument text)."""


class InferenceContext:
    """What a shape function sees of one op: input shapes, constant inputs, attrs; outputs to set."""

    def __init__(self, op: Operation) -> None:
        self.op = op
        self._inputs = [ShapeHandle(t._shape._dims) for t in op._inputs]
        self._outputs: list[ShapeHandle] = [UNKNOWN] * len(op._outputs)

    # inputs / outputs
    @property
    def num_inputs(self) -> int:
        return len(self._inputs)

    @property
    def num_outputs(self) -> int:
        return len(self._outputs)

    def input(self, i: int) -> ShapeHandle:
        return self._inputs[i]

    def set_output(self, i: int, shape: ShapeHandle) -> None:
        self._outputs[i] = shape

    def output(self, i: int) -> ShapeHandle:
        return self._outputs[i]

    def get_attr(self, name: str) -> Any:
        value = self.op._attrs.get(name)
        if value is None:
            raise ShapeError(f"No attr named '{name}' in NodeDef")
        return attr_value_to_python(value)

    def input_tensor(self, i: int) -> tuple[list[Any], list[int]] | None:
        """(flat values, dims) when input i is a Const's output, else None."""
        t = self.op._inputs[i]
        producer = t._op
        if producer._type != "Const":
            return None
        return tensor_proto_values(producer._attrs["value"].tensor)

    # constructors
    def unknown_shape(self) -> ShapeHandle:
        return UNKNOWN

    def unknown_shape_of_rank(self, rank: int) -> ShapeHandle:
        return ShapeHandle([None] * rank)

    def scalar(self) -> ShapeHandle:
        return SCALAR

    def vector(self, dim: DimensionHandle) -> ShapeHandle:
        return ShapeHandle([dim])

    def matrix(self, d0: DimensionHandle, d1: DimensionHandle) -> ShapeHandle:
        return ShapeHandle([d0, d1])

    def make_shape(self, dims: Sequence[DimensionHandle]) -> ShapeHandle:
        return ShapeHandle(dims)

    # queries
    @staticmethod
    def rank(shape: ShapeHandle) -> int | None:
        return shape.rank

    @staticmethod
    def dim(shape: ShapeHandle, i: int) -> DimensionHandle:
        if shape.dims is None:
            return None
        return shape.dims[i if i >= 0 else len(shape.dims) + i]

    # checks and combinations (TF's InferenceContext methods)
    def with_rank(self, shape: ShapeHandle, rank: int) -> ShapeHandle:
        if shape.dims is None:
            return self.unknown_shape_of_rank(rank)
        if len(shape.dims) != rank:
            raise ShapeError(f"Shape must be rank {rank} but is rank {len(shape.dims)}")
        return shape

    def with_rank_at_least(self, shape: ShapeHandle, rank: int) -> ShapeHandle:
        if shape.dims is not None and len(shape.dims) < rank:
            raise ShapeError(
                f"Shape must be at least rank {rank} but is rank {len(shape.dims)}"
            )
        return shape

    def with_rank_at_most(self, shape: ShapeHandle, rank: int) -> ShapeHandle:
        if shape.dims is not None and len(shape.dims) > rank:
            raise ShapeError(
                f"Shape must be at most rank {rank} but is rank {len(shape.dims)}"
            )
        return shape

    @staticmethod
    def merge_dim(a: DimensionHandle, b: DimensionHandle) -> DimensionHandle:
        if a is None:
            return b
        if b is None or a == b:
            return a
        raise ShapeError(f"Dimensions must be equal, but are {a} and {b}")

    def merge(self, a: ShapeHandle, b: ShapeHandle) -> ShapeHandle:
        if a.dims is None or a.dims == b.dims:
            return b if a.dims is None else a
        if b.dims is None:
            return a
        if len(a.dims) != len(b.dims):
            raise ShapeError(
                f"Shapes must be equal rank, but are {len(a.dims)} and {len(b.dims)}"
            )
        dims = []
        for x, y in zip(a.dims, b.dims):
            if x is not None and y is not None and x != y:
                raise ShapeError(
                    f"Dimension {len(dims)} in both shapes must be equal, but are {x} and {y}. "
                    f"Shapes are {debug_string(a)} and {debug_string(b)}."
                )
            dims.append(x if x is not None else y)
        return ShapeHandle(dims)

    def subshape(
        self, shape: ShapeHandle, start: int, end: int | None = None
    ) -> ShapeHandle:
        if shape.dims is None:
            return UNKNOWN
        rank = len(shape.dims)
        if end is None:
            end = rank
        if start < 0:
            start += rank
        if end < 0:
            end += rank
        if start > rank or end > rank or start < 0 or end < start:
            raise ShapeError(
                f"Subshape [{start}:{end}] out of range for shape {debug_string(shape)}"
            )
        return ShapeHandle(shape.dims[start:end])

    def concatenate(self, a: ShapeHandle, b: ShapeHandle) -> ShapeHandle:
        if a.dims is None or b.dims is None:
            return UNKNOWN
        return ShapeHandle(a.dims + b.dims)

    def replace_dim(
        self, shape: ShapeHandle, i: int, dim: DimensionHandle
    ) -> ShapeHandle:
        if shape.dims is None:
            return UNKNOWN
        dims = list(shape.dims)
        dims[i if i >= 0 else len(dims) + i] = dim
        return ShapeHandle(dims)

    @staticmethod
    def add(a: DimensionHandle, b: DimensionHandle) -> DimensionHandle:
        return None if a is None or b is None else a + b

    @staticmethod
    def divide(
        a: DimensionHandle, divisor: int, evenly_divisible: bool
    ) -> DimensionHandle:
        if divisor == 1:
            return a
        if a is None:
            return None
        if divisor <= 0:
            raise ShapeError(f"Divisor must be positive but is {divisor}")
        if evenly_divisible and a % divisor != 0:
            raise ShapeError(
                f"Dimension size must be evenly divisible by {divisor} but is {a}"
            )
        return a // divisor


_STRUCT_FORMATS = {
    1: "f",
    2: "d",
    3: "i",
    9: "q",
    4: "B",
    5: "h",
    6: "b",
    17: "H",
    22: "I",
    23: "Q",
}
_VALUE_FIELDS = {
    1: "float_val",
    2: "double_val",
    9: "int64_val",
    10: "bool_val",
    7: "string_val",
    22: "uint32_val",
    23: "uint64_val",
}
_decoded: dict[int, tuple[Any, tuple[list[Any], list[int]]]] = {}


def tensor_proto_values(proto: Any) -> tuple[list[Any], list[int]]:
    """The flat values and dims of a TensorProto (int/float/bool/string types), memoised."""
    hit = _decoded.get(id(proto))
    if hit is not None and hit[0] is proto:
        return hit[1]
    dims = [d.size for d in proto.tensor_shape.dim]
    n = 1
    for d in dims:
        n *= d
    dtype = proto.dtype
    fmt = _STRUCT_FORMATS.get(dtype)
    if fmt and proto.tensor_content:
        values = list(struct.unpack(f"<{n}{fmt}", proto.tensor_content))
    else:
        values = list(getattr(proto, _VALUE_FIELDS.get(dtype, "int_val")))
        if len(values) < n and values:
            values += [values[-1]] * (n - len(values))
    if len(_decoded) >= 4096:
        _decoded.clear()
    _decoded[id(proto)] = (
        proto,
        (values, dims),
    )  # keeps proto alive, so its id stays unique
    return values, dims


ShapeFn = Callable[[InferenceContext], None]
_user_fns: dict[str, ShapeFn] = {}


def register_shape_fn(op_type: str, fn: ShapeFn | str) -> None:
    """Uses `fn` (a callable taking an InferenceContext, or a built-in's name) for `op_type`."""
    if isinstance(fn, str):
        from . import shape_fns

        fn = shape_fns.by_name(fn)
    _user_fns[op_type] = fn
    _callbacks.pop(op_type, None)


_callbacks: dict[str, tuple[int, Callable[[Operation], None] | None]] = {}


def shape_fn_for(op_type: str) -> Callable[[Operation], None] | None:
    """The inference callback the graph runs for a new `op_type` node (before adding it), if any."""
    cached = _callbacks.get(op_type)
    if cached is not None and cached[0] == _registry.generation:
        return cached[1]
    from . import shape_fns

    fn = _user_fns.get(op_type)
    if fn is None:
        fn = shape_fns.lookup(op_type, _registry.shape_fn_name(op_type))
    callback = None if fn is None else _callback(fn)
    _callbacks[op_type] = (_registry.generation, callback)
    return callback


def _callback(fn: ShapeFn) -> Callable[[Operation], None]:
    """The graph's inference callback for `fn`: a direct equivalent when one exists."""
    from . import shape_fns

    direct = shape_fns.DIRECT.get(fn)
    if direct is not None:
        return direct
    guarded = shape_fns.GUARDED.get(fn)
    if guarded is not None:

        def guarded_or_run(op: Operation) -> None:
            if not guarded(op):
                run(op, fn)

        return guarded_or_run
    return lambda op: run(op, fn)


def run(op: Operation, fn: ShapeFn) -> None:
    ctx = InferenceContext(op)
    try:
        fn(ctx)
    except ShapeError as e:
        shapes = ", ".join(debug_string(s) for s in ctx._inputs)
        raise ValueError(
            f"{e} for '{{{{node {op._name}}}}} = {summarize_node(op)}' with input shapes: {shapes}."
        ) from None
    for tensor, shape in zip(op._outputs, ctx._outputs):
        if shape.dims is not None:
            tensor._shape = TensorShape._from_dims(shape.dims)


def summarize_node(op: Operation) -> str:
    """`Op[attr=v, ...](in1, in2)` like TF's SummarizeNodeDef (attrs sorted, user attrs only)."""
    attrs = ", ".join(
        f"{k}={_summarize_attr(v)}"
        for k, v in sorted(op._attrs.items())
        if not k.startswith("_")
    )
    inputs = ", ".join(t._as_node_def_input() for t in op._inputs)
    return f"{op._type}[{attrs}]({inputs})"


def _summarize_attr(value: Any) -> str:
    which = value.WhichOneof("value")
    if which == "type":
        return "DT_" + _enum_name(value.type)
    if which == "b":
        return "true" if value.b else "false"
    if which == "i":
        return str(value.i)
    if which == "f":
        return f"{value.f:g}"
    if which == "s":
        return '"' + value.s.decode("utf-8", "replace") + '"'
    if which == "shape":
        return debug_string(ShapeHandle(TensorShape(value.shape)._dims))
    if which == "list":
        lst = value.list
        if lst.type:
            return "[" + ", ".join("DT_" + _enum_name(t) for t in lst.type) + "]"
        if lst.i:
            return "[" + ", ".join(str(i) for i in lst.i) + "]"
        return "[]"
    return "<...>"


def _enum_name(enum: int) -> str:
    from opgen.proto import datatypes

    return datatypes.enum_name(enum)[3:]
