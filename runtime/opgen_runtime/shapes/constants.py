"""Statically known tensor values for shape functions, as TF's ShapeRefiner finds them.

`constant_value` is TF's EvaluateConstantTensor (tensorflow/core/common_runtime/
eval_const_tensor.cc) for the small integer subgraphs shape functions ask about: Consts,
Shape/Size/Rank of known shapes, and Identity, Cast, Pack, ConcatV2, StridedSlice, Range,
Fill and integer arithmetic over such values. `partial_shape` is ShapeRefiner::
ConstantPartialShape (shape_refiner.cc): a shape tensor read as a partial shape, so
`reshape(x, stack([batch, 3]))` keeps the known 3.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..graph.tensor import Tensor

# (flat values, dims) of a tensor known statically.
Values = tuple[list[Any], list[int]]
# The value of an op's output from its inputs' values (`constant_value`), at a depth.
Evaluator = Callable[["Tensor", int], Values | None]

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
_INT_TYPES = {3: "int32", 9: "int64"}
_decoded: dict[int, tuple[Any, Values]] = {}
# TF evaluates constant subgraphs only up to a size (kMaxTensorSize-like bound).
_MAX_ELEMENTS = 1024


def tensor_proto_values(proto: Any) -> Values:
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
    # the entry keeps proto alive, so its id stays unique
    _decoded[id(proto)] = (proto, (values, dims))
    return values, dims


def constant_value(tensor: Tensor, depth: int = 0) -> Values | None:
    """The value of `tensor` when TF's shape refiner can evaluate it statically, else None."""
    op = tensor._op
    kind = op._type
    if kind == "Const":
        return tensor_proto_values(op._attrs["value"].tensor)
    if depth > 16:
        return None
    evaluate = _EVALUATORS.get(kind)
    if evaluate is None:
        return None
    try:
        result = evaluate(tensor, depth + 1)
    except (IndexError, ValueError, ZeroDivisionError, KeyError, TypeError):
        return None
    if result is not None and len(result[0]) > _MAX_ELEMENTS:
        return None
    return result


def _input_value(tensor: Tensor, i: int, depth: int) -> Values | None:
    return constant_value(tensor._op._inputs[i], depth)


def _shape_value(tensor: Tensor, depth: int) -> Values | None:
    op = tensor._op
    index = tensor._value_index if op._type == "ShapeN" else 0
    dims = op._inputs[index]._shape._dims
    if dims is None or None in dims:
        return None
    return list(dims), [len(dims)]


def _size_value(tensor: Tensor, depth: int) -> Values | None:
    dims = tensor._op._inputs[0]._shape._dims
    if dims is None or None in dims:
        return None
    n = 1
    for d in dims:
        n *= d or 0
    return [n], []


def _rank_value(tensor: Tensor, depth: int) -> Values | None:
    dims = tensor._op._inputs[0]._shape._dims
    return None if dims is None else ([len(dims)], [])


def _identity_value(tensor: Tensor, depth: int) -> Values | None:
    return _input_value(tensor, 0, depth)


def _cast_value(tensor: Tensor, depth: int) -> Values | None:
    value = _input_value(tensor, 0, depth)
    if value is None:
        return None
    dst = tensor._op._attrs["DstT"].type
    if dst in _INT_TYPES:
        return [int(v) for v in value[0]], value[1]
    if dst in (1, 2):
        return [float(v) for v in value[0]], value[1]
    return None


def _pack_value(tensor: Tensor, depth: int) -> Values | None:
    op = tensor._op
    if op._attrs["axis"].i not in (0, -1) or not op._inputs:
        return None
    values: list[Any] = []
    dims: list[int] | None = None
    for i in range(len(op._inputs)):
        value = _input_value(tensor, i, depth)
        if value is None:
            return None
        if dims is None:
            dims = value[1]
        if value[1] or dims:  # only scalars: the axis does not matter then
            return None
        values.extend(value[0])
    return values, [len(values)]


def _concat_value(tensor: Tensor, depth: int) -> Values | None:
    op = tensor._op
    values: list[Any] = []
    for i in range(len(op._inputs) - 1):
        value = _input_value(tensor, i, depth)
        if value is None or len(value[1]) != 1:
            return None
        values.extend(value[0])
    return values, [len(values)]


def _strided_slice_value(tensor: Tensor, depth: int) -> Values | None:
    """A 1-D StridedSlice with constant begin/end/strides of one element."""
    op = tensor._op
    attrs = op._attrs
    if attrs["ellipsis_mask"].i or attrs["new_axis_mask"].i:
        return None
    value = _input_value(tensor, 0, depth)
    if value is None or len(value[1]) != 1:
        return None
    spec = [_input_value(tensor, i, depth) for i in (1, 2, 3)]
    if any(s is None or s[1] != [1] for s in spec):
        return None
    (begin,), (end,), (stride,) = (s[0] for s in spec if s is not None)
    n = len(value[0])
    if stride == 0:
        return None
    if attrs["shrink_axis_mask"].i & 1:
        index = begin + n if begin < 0 else begin
        if not 0 <= index < n:
            return None
        return [value[0][index]], []
    begin = None if attrs["begin_mask"].i & 1 else begin
    end = None if attrs["end_mask"].i & 1 else end
    items = value[0][slice(begin, end, stride)]
    return items, [len(items)]


def _range_value(tensor: Tensor, depth: int) -> Values | None:
    spec = [_input_value(tensor, i, depth) for i in (0, 1, 2)]
    if any(s is None or s[1] for s in spec):
        return None
    start, limit, delta = (s[0][0] for s in spec if s is not None)
    if not all(isinstance(v, int) for v in (start, limit, delta)) or delta == 0:
        return None
    items = list(range(start, limit, delta))
    return items, [len(items)]


def _fill_value(tensor: Tensor, depth: int) -> Values | None:
    dims, value = _input_value(tensor, 0, depth), _input_value(tensor, 1, depth)
    if dims is None or value is None or value[1] or len(dims[1]) != 1:
        return None
    n = 1
    for d in dims[0]:
        n *= d
    if n > _MAX_ELEMENTS or min(dims[0], default=0) < 0:
        return None
    return value[0] * n, list(dims[0])


def _binary(fn: Callable[[Any, Any], Any]) -> Evaluator:
    def evaluate(tensor: Tensor, depth: int) -> Values | None:
        x, y = _input_value(tensor, 0, depth), _input_value(tensor, 1, depth)
        if x is None or y is None:
            return None
        if x[1] == y[1]:
            return [fn(a, b) for a, b in zip(x[0], y[0])], x[1]
        if not y[1]:
            return [fn(a, y[0][0]) for a in x[0]], x[1]
        if not x[1]:
            return [fn(x[0][0], b) for b in y[0]], y[1]
        return None

    return evaluate


def _unary(fn: Callable[[Any], Any]) -> Evaluator:
    def evaluate(tensor: Tensor, depth: int) -> Values | None:
        x = _input_value(tensor, 0, depth)
        return None if x is None else ([fn(a) for a in x[0]], x[1])

    return evaluate


def _floor_div(a: Any, b: Any) -> Any:
    return a // b


def _int_div(a: Any, b: Any) -> Any:
    return int(a / b) if isinstance(a, int) and isinstance(b, int) else a / b


_EVALUATORS: dict[str, Evaluator] = {
    "Identity": _identity_value,
    "Shape": _shape_value,
    "ShapeN": _shape_value,
    "Size": _size_value,
    "Rank": _rank_value,
    "Cast": _cast_value,
    "Pack": _pack_value,
    "ConcatV2": _concat_value,
    "StridedSlice": _strided_slice_value,
    "Range": _range_value,
    "Fill": _fill_value,
    "Add": _binary(lambda a, b: a + b),
    "AddV2": _binary(lambda a, b: a + b),
    "Sub": _binary(lambda a, b: a - b),
    "Mul": _binary(lambda a, b: a * b),
    "FloorDiv": _binary(_floor_div),
    "RealDiv": _binary(_int_div),
    "Maximum": _binary(max),
    "Minimum": _binary(min),
    "Neg": _unary(lambda a: -a),
}


# Ops passing a resource handle (and its handle data) through unchanged.
_HANDLE_FORWARDING = {"Identity", "IdentityN", "Snapshot"}


def handle_data(tensor: Tensor) -> tuple[Any, int] | None:
    """(shape proto, dtype enum) of the variable a resource tensor refers to, when the graph
    shows it: TF's handle data, set by VarHandleOp from its attrs and forwarded by Identity.
    """
    op = tensor._op
    for _ in range(64):
        if op._type == "VarHandleOp":
            attrs = op._attrs
            return attrs["shape"].shape, attrs["dtype"].type
        if op._type not in _HANDLE_FORWARDING:
            return None
        tensor = op._inputs[tensor._value_index if op._type == "IdentityN" else 0]
        op = tensor._op
    return None


def partial_shape(tensor: Tensor, depth: int = 0) -> list[int | None] | None:
    """TF's ConstantPartialShape for a rank-1 shape tensor: dims (None unknown) or None."""
    op = tensor._op
    kind = op._type
    dims = tensor._shape._dims
    if dims is not None and len(dims) == 1 and dims[0] == 0:
        return []
    if depth > 16:
        return None
    if kind == "Shape":
        inner = op._inputs[0]._shape._dims
        return None if inner is None else list(inner)
    if kind == "ShapeN":
        inner = op._inputs[tensor._value_index]._shape._dims
        return None if inner is None else list(inner)
    if kind == "Cast":
        value = constant_value(tensor)
        if value is not None and len(value[1]) == 1:
            return [None if v == -1 else int(v) for v in value[0]]
        inner_dims = partial_shape(op._inputs[0], depth + 1)
        if inner_dims is None:
            return None
        if op._attrs["DstT"].type not in _INT_TYPES:
            return [None] * len(inner_dims)
        return inner_dims
    if kind == "Pack":
        result: list[int | None] = []
        for t in op._inputs:
            value = constant_value(t)
            if value is not None and not value[1]:
                size = int(value[0][0])
                result.append(None if size < 0 else size)
            else:
                result.append(None)
        return result
    if kind in ("Concat", "ConcatV2"):
        axis = 0 if kind == "Concat" else len(op._inputs) - 1
        result = []
        for i, t in enumerate(op._inputs):
            if i == axis:
                continue
            sub = partial_shape(t, depth + 1)
            if sub is None:
                return None
            result.extend(sub)
        return result
    if kind == "StridedSlice":
        return _partial_strided_slice(tensor, depth)
    value = constant_value(tensor)
    if value is not None and len(value[1]) == 1:
        for v in value[0]:
            if v < -1:
                # TF's MakeShapeFromTensor, called by ShapeRefiner::ConstantPartialShape
                # between shape function passes: its error is not framed with the node.
                raise ValueError(f"Invalid value in tensor used for shape: {v}")
        return [None if v == -1 else int(v) for v in value[0]]
    if dims is not None and len(dims) == 1 and dims[0] is not None:
        return [None] * dims[0]
    return None


def _partial_strided_slice(tensor: Tensor, depth: int) -> list[int | None] | None:
    """TF's PartialStridedSliceShape: a slice of a shape tensor with simple masks."""
    op = tensor._op
    for t in op._inputs[1:]:
        d = t._shape._dims
        if d is None or len(d) != 1 or d[0] != 1:
            return None
    attrs = op._attrs
    begin_mask, end_mask = attrs["begin_mask"].i, attrs["end_mask"].i
    if (
        begin_mask not in (0, 1)
        or end_mask not in (0, 1)
        or attrs["ellipsis_mask"].i
        or attrs["new_axis_mask"].i
        or attrs["shrink_axis_mask"].i
    ):
        return None
    spec = [constant_value(t) for t in op._inputs[1:]]
    begin = 0 if begin_mask else (spec[0][0][0] if spec[0] else None)
    end = None if end_mask else (spec[1][0][0] if spec[1] else False)
    stride = spec[2][0][0] if spec[2] else None
    if begin is None or end is False or stride is None or stride == 0:
        return None
    inner = partial_shape(op._inputs[0], depth + 1)
    if inner is None:
        return None
    return inner[slice(begin, end, stride)]


def summarize_value(value: Values, max_values: int = 256) -> str:
    """TF's Tensor::SummarizeValue: values space-separated, nested brackets per dimension."""
    values, dims = value
    items = [_format_scalar(v) for v in values[:max_values]]
    if len(dims) <= 1:
        text = " ".join(items)
        return text + "..." if len(values) > max_values else text

    def nest(offset: int, level: int) -> str:
        if level == len(dims) - 1:
            return "[" + " ".join(items[offset : offset + dims[level]]) + "]"
        stride = 1
        for d in dims[level + 1 :]:
            stride *= d
        return (
            "["
            + "".join(nest(offset + k * stride, level + 1) for k in range(dims[level]))
            + "]"
        )

    stride = len(values) // dims[0] if dims[0] else 0
    return "".join(nest(k * stride, 1) for k in range(dims[0]))


def _format_scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return f"{v:g}" if v != int(v) or abs(v) >= 1e16 else str(int(v))
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)
