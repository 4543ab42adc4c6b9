"""Fast equivalents of the hottest shape functions, working on the Operation directly.

DIRECT functions cannot fail, so they skip building an InferenceContext. GUARDED ones set
the outputs and return True only for the common case where the result is obviously the
general function's (all dims known, no error possible); for anything else they return
False before touching the op and the general function runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...values.tensor_shape import TensorShape
from ..constants import tensor_proto_values
from .array import split_shape
from .common import (
    ShapeFn,
    add_n_shape,
    broadcast_binary_op_shape,
    concat_v2_shape,
    mat_mul_shape,
    reduction_shape,
    scalar_shape,
    unchanged_shape,
)

Op = Any


# `op._in` and `op._out` are read directly, not through the tuple-making properties: an
# Operation stores a single input or output bare, several as a tuple.


def _unchanged_direct(op: Op) -> None:
    inputs, out = op._in, op._out
    (out[0] if type(out) is tuple else out)._shape = (
        inputs[0] if type(inputs) is tuple else inputs
    )._shape


def _scalar_direct(op: Op) -> None:
    out = op._out
    (out[0] if type(out) is tuple else out)._shape = _SCALAR_SHAPE


_SCALAR_SHAPE = TensorShape(())

DIRECT: dict[ShapeFn, Callable[[Op], None]] = {
    unchanged_shape: _unchanged_direct,
    scalar_shape: _scalar_direct,
}


def _mat_mul_guarded(op: Op) -> bool:
    inputs = op._in
    a, b = inputs[0]._shape._dims, inputs[1]._shape._dims
    if a is None or b is None or len(a) != 2 or len(b) != 2:
        return False
    attrs = op._attrs
    transpose_a, transpose_b = attrs["transpose_a"].b, attrs["transpose_b"].b
    inner_a = a[0] if transpose_a else a[1]
    inner_b = b[1] if transpose_b else b[0]
    if inner_a is None or inner_a != inner_b:
        return False
    out = op._out
    (out[0] if type(out) is tuple else out)._shape = TensorShape._from_dims(
        (a[1] if transpose_a else a[0], b[0] if transpose_b else b[1])
    )
    return True


def _same_shape_guarded(op: Op) -> bool:
    """Broadcasting or merging inputs of one fully known shape gives that shape."""
    inputs = op._in
    if type(inputs) is not tuple:
        inputs = (inputs,)
    shape = inputs[0]._shape
    dims = shape._dims
    if dims is None or None in dims:
        return False
    for t in inputs:
        if t._shape._dims != dims:
            return False
    out = op._out
    (out[0] if type(out) is tuple else out)._shape = shape
    return True


def _const_values(tensor: Any) -> Any:
    """(flat values, dims) of a tensor a Const op produces, else None."""
    producer = tensor._op
    if producer._type != "Const":
        return None
    return tensor_proto_values(producer._attrs["value"].tensor)


def _split_guarded(op: Op) -> bool:
    axis, value = op._inputs
    dims = value._shape._dims
    const = _const_values(axis)
    if dims is None or const is None:
        return False
    values, axis_dims = const
    if axis_dims or len(values) != 1:
        return False
    split_dim = int(values[0])
    if split_dim < 0:
        split_dim += len(dims)
    if not 0 <= split_dim < len(dims):
        return False
    num_split = op._attrs["num_split"].i
    size = dims[split_dim]
    if size is None or num_split <= 0 or size % num_split:
        return False
    out = TensorShape._from_dims(
        (*dims[:split_dim], size // num_split, *dims[split_dim + 1 :])
    )
    for t in op._outputs:
        t._shape = out
    return True


def _concat_v2_guarded(op: Op) -> bool:
    """Fully known inputs of one rank joined along a Const axis where the others agree."""
    inputs = op._inputs
    const = _const_values(inputs[-1])
    if const is None:
        return False
    values, axis_dims = const
    first = inputs[0]._shape._dims
    if axis_dims or len(values) != 1 or not first or None in first:
        return False
    rank = len(first)
    axis = int(values[0])
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        return False
    total = 0
    for t in inputs[:-1]:
        dims = t._shape._dims
        if dims is None or len(dims) != rank or None in dims:
            return False
        if dims[:axis] != first[:axis] or dims[axis + 1 :] != first[axis + 1 :]:
            return False
        total += dims[axis]
    if total > 2**63 - 1:  # the full port raises TF's overflow error
        return False
    op._outputs[0]._shape = TensorShape._from_dims(
        (*first[:axis], total, *first[axis + 1 :])
    )
    return True


def _reduction_guarded(op: Op) -> bool:
    """A known-rank input reduced over a Const scalar or vector of valid axes."""
    value, indices = op._in
    dims = value._shape._dims
    if dims is None:
        return False
    const = _const_values(indices)
    if const is None:
        return False
    values, index_dims = const
    keep_dims = op._attrs.get("keep_dims")
    # the general function raises TF's errors (a missing attr included)
    if len(index_dims) > 1 or keep_dims is None:
        return False
    rank = len(dims)
    out: list[Any] = list(dims)
    for index in values:
        index = int(index)
        if not -rank <= index < rank:
            return False
        out[index] = _REDUCED
    shape = TensorShape._from_dims(
        tuple(1 if d is _REDUCED else d for d in out)
        if keep_dims.b
        else tuple(d for d in out if d is not _REDUCED)
    )
    outputs = op._out
    (outputs[0] if type(outputs) is tuple else outputs)._shape = shape
    return True


_REDUCED = object()  # marks a reduced dimension


GUARDED: dict[ShapeFn, Callable[[Op], bool]] = {
    reduction_shape: _reduction_guarded,
    concat_v2_shape: _concat_v2_guarded,
    mat_mul_shape: _mat_mul_guarded,
    broadcast_binary_op_shape: _same_shape_guarded,
    add_n_shape: _same_shape_guarded,
    split_shape: _split_guarded,
}
