"""`convert_to_tensor` with TensorFlow's conversion functions, tried in TF's order.

Beyond constants (`constant_op`): lists/tuples containing Tensors are auto-packed exactly as
TF's `array_ops._autopacking_conversion_function` does (Casts when a dtype is requested, a
Pack per nested list, a Const per Python element); `Dimension` and `TensorShape` (opgen's or
TensorFlow's) as `constant_op._dimension_tensor_conversion_function` and
`_tensor_shape_tensor_conversion_function`; `range` as `math_ops._range_tensor_conversion_function`
(a Range op). A preferred dtype is tried first and dropped on TypeError/ValueError, as in
`tensor_conversion_registry.convert`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opgen_runtime.proto import attr_value_pb2, tensor_pb2

from ..graph.graph import Graph, get_default_graph
from ..graph.tensor import Tensor
from ..ops import registry as _registry
from ..shapes import inference as _shape_inference
from . import dtypes as _dtypes
from .attr_values import _TYPE_ATTRS
from .constant_op import _const_op, _const_parts_for, constant
from .tensor_shape import Dimension, TensorShape
from .tf_objects import as_own_message, is_tf_dimension, is_tf_tensor_shape

_NOT_IMPLEMENTED: Any = NotImplemented
_FALSE = attr_value_pb2.AttrValue(b=False)


def convert_to_tensor(
    value: Any,
    dtype: Any = None,
    name: str | None = None,
    as_ref: bool = False,
    preferred_dtype: Any = None,
) -> Tensor:
    """TF's `convert_to_tensor` in graph mode (preferred dtype tried first)."""
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = _dtypes.as_dtype(dtype)
            if not dtype.is_compatible_with(value._dtype):
                raise ValueError(
                    f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                    f"{value._dtype.name}: {value!r}"
                )
        return value
    if hasattr(value, "_as_graph_tensor"):
        # A typed local: `value` is Any (an object that makes its own graph tensor).
        graph_tensor: Tensor = value._as_graph_tensor(dtype)
        return graph_tensor
    convert = _conversion_function(value)
    if convert is not None:
        dtype = None if dtype is None else _dtypes.as_dtype(dtype)
        result = None
        if dtype is None and preferred_dtype is not None:
            try:
                result = convert(value, _dtypes.as_dtype(preferred_dtype), name, as_ref)
            except (TypeError, ValueError):
                pass
        if result is None:
            result = convert(value, dtype, name, as_ref)
        if result is not _NOT_IMPLEMENTED:
            return result
    tensor = _constant_tensor_conversion_function(value, dtype, name, preferred_dtype)
    if dtype is not None or preferred_dtype is not None:
        _check_constant_dtype(value, tensor, dtype, preferred_dtype, name)
    return tensor


def _constant_tensor_conversion_function(
    value: Any, dtype: Any, name: str | None, preferred_dtype: Any
) -> Tensor:
    """The Const for a Python/numpy value (TF's constant conversion function)."""
    return _const_op(_const_parts_for(value, dtype, preferred_dtype), name)


def _check_constant_dtype(
    value: Any, tensor: Tensor, dtype: Any, preferred_dtype: Any, name: str | None
) -> None:
    """`tensor_conversion_registry.convert`'s check of what the constant conversion returned:
    a TensorProto keeps its own dtype whatever was asked, and no constant has a ref dtype.
    """
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
        if dtype.is_compatible_with(tensor._dtype):
            return
        requested, actual = dtype.name, tensor._dtype.name
    else:
        preferred = _dtypes.as_dtype(preferred_dtype).base_dtype
        if not _is_tensor_proto(value) or preferred == tensor._dtype.base_dtype:
            return
        requested, actual = preferred.name, tensor._dtype.base_dtype.name
    message = (
        f"Conversion function {_constant_tensor_conversion_function!r} for type "
        f"{_registered_type(value)} returned incompatible dtype: requested = {requested}, "
        f"actual = {actual}"
    )
    raise RuntimeError(message if name is None else f"{name}: {message}")


def _is_tensor_proto(value: Any) -> bool:
    return isinstance(value, tensor_pb2.TensorProto) or (
        as_own_message(value, tensor_pb2.TensorProto) is not None
    )


def _registered_type(value: Any) -> str:
    """The type TF registers its constant conversion function under, as TF prints it."""
    if isinstance(value, (list, tuple)):
        return "(<class 'list'>, <class 'tuple'>)"
    if isinstance(value, (int, float)) or type(value).__module__ == "numpy":
        return (
            "(<class 'int'>, <class 'float'>, <class 'numpy.generic'>, "
            "<class 'numpy.ndarray'>)"
        )
    return "<class 'object'>"


# (value, dtype, name, as_ref) -> its Tensor, or NotImplemented (typed through _NOT_IMPLEMENTED).
ConversionFunction = Callable[[Any, Any, Any, bool], Tensor]


def _conversion_function(value: Any) -> ConversionFunction | None:
    """TF's registered conversion function for `value`'s type, when it is not the constant one."""
    if isinstance(value, (list, tuple)):
        return _autopack if _nested_dtype(value) is not None else None
    if isinstance(value, Dimension) or is_tf_dimension(value):
        return _convert_dimension
    if isinstance(value, TensorShape) or is_tf_tensor_shape(value):
        return _convert_shape
    if type(value) is range:
        return _convert_range
    return None


# --- auto-packing ----------------------------------------------------------------------


def _nested_dtype(values: list[Any] | tuple[Any, ...]) -> _dtypes.DType | None:
    """`_get_dtype_from_nested_lists`: the base dtype of the first Tensor in nested lists."""
    for item in values:
        if isinstance(item, Tensor):
            return item._dtype.base_dtype
        if isinstance(item, (list, tuple)):
            found = _nested_dtype(item)
            if found is not None:
                return found
    return None


def _autopack(value: Any, dtype: Any, name: Any, as_ref: bool) -> Any:
    if as_ref:
        return _NOT_IMPLEMENTED
    inferred = _nested_dtype(value)
    if inferred is None:
        return _NOT_IMPLEMENTED
    if dtype is None:
        dtype = inferred
    elif dtype != inferred:
        value = _cast_nested(value, dtype)
    return _autopacking_helper(value, dtype, name or "packed")


def _cast_nested(value: Any, dtype: _dtypes.DType) -> Any:
    """`nest.map_structure(_cast_nested_seqs_to_dtype(dtype), value)` over lists/tuples."""
    if isinstance(value, (list, tuple)):
        items = [_cast_nested(item, dtype) for item in value]
        return items if isinstance(value, list) else type(value)(items)
    if isinstance(value, Tensor) and value._dtype.base_dtype != dtype:
        return _cast(value, dtype, "Cast")
    return value


def _autopacking_helper(values: Any, dtype: _dtypes.DType, name: str) -> Any:
    g = get_default_graph()
    must_pack = False
    converted: list[Any] = []
    with g.name_scope(name) as scope:
        for i, item in enumerate(values):
            if isinstance(item, Tensor):
                if item._dtype.base_dtype != dtype:
                    raise TypeError(
                        f"Cannot convert a list containing a tensor of dtype {item._dtype} "
                        f"to {dtype} (Tensor is: {item!r})"
                    )
                converted.append(item)
                must_pack = True
            elif isinstance(item, (list, tuple)):
                packed = _autopacking_helper(item, dtype, str(i))
                must_pack = must_pack or isinstance(packed, Tensor)
                converted.append(packed)
            else:
                converted.append(item)
        if not must_pack:
            return converted
        tensors = [
            item if isinstance(item, Tensor) else constant(item, dtype, str(i))
            for i, item in enumerate(converted)
        ]
        attrs = {
            "N": attr_value_pb2.AttrValue(i=len(tensors)),
            "T": _TYPE_ATTRS[dtype._base_enum],
            "axis": attr_value_pb2.AttrValue(i=0),
        }
        return _create(g, "Pack", tensors, scope, attrs, dtype)


def _cast(x: Tensor, dtype: _dtypes.DType, name: str) -> Tensor:
    """`gen_math_ops.cast(x, dtype, name=name)` (Truncate=False)."""
    attrs = {
        "SrcT": _TYPE_ATTRS[x._dtype._base_enum],
        "DstT": _TYPE_ATTRS[dtype._base_enum],
        "Truncate": _FALSE,
    }
    return _create(x._op._graph, "Cast", [x], name, attrs, dtype)


def _create(
    g: Graph,
    op_type: str,
    inputs: list[Tensor],
    name: str,
    attrs: dict[str, attr_value_pb2.AttrValue],
    dtype: _dtypes.DType,
) -> Tensor:
    """One node of a TF op whose attrs the caller computed (as its generated wrapper would)."""
    op = g._create_op(
        op_type,
        inputs,
        name,
        attrs,
        [dtype.base_dtype],
        _registry.get(op_type),
        _shape_inference.shape_fn_for(op_type),
    )
    return op._outputs[0]


# --- shapes and dimensions -------------------------------------------------------------


def _convert_dimension(value: Any, dtype: Any, name: Any, as_ref: bool) -> Tensor:
    d = Dimension(value)
    if d.value is None:
        raise ValueError(f"Cannot convert unknown Dimension {d} to a Tensor.")
    if dtype is not None:
        if dtype not in (_dtypes.int32, _dtypes.int64):
            raise TypeError(
                f"Cannot convert Dimension {d} to dtype {dtype}. "
                "Allowed dtypes are tf.int32 and tf.int64."
            )
    else:
        dtype = _dtypes.int32
    return constant(d.value, dtype, name or "shape_as_tensor")


def _convert_shape(value: Any, dtype: Any, name: Any, as_ref: bool) -> Tensor:
    s = TensorShape(value)
    if not s.is_fully_defined():
        raise ValueError(
            f"Cannot convert a partially known TensorShape {s} to a Tensor."
        )
    dims = s.as_list()
    large = next((d for d in dims if d is not None and d >= 2**31), 0)
    if dtype is not None:
        if dtype not in (_dtypes.int32, _dtypes.int64):
            raise TypeError(
                f"Cannot convert TensorShape {s} to dtype {dtype}. "
                "Allowed dtypes are tf.int32 and tf.int64."
            )
        if dtype == _dtypes.int32 and large:
            raise ValueError(
                f"Cannot convert TensorShape {s} to dtype int32; "
                "a dimension is too large. Consider using tf.int64."
            )
    else:
        dtype = _dtypes.int64 if large else _dtypes.int32
    return constant(dims, dtype, name or "shape_as_tensor")


# --- range -----------------------------------------------------------------------------

# `math_ops.range`'s dtype_hierarchy: the widest argument dtype wins.
_RANGE_DTYPES = [3, 9, 19, 14, 1, 2]


def _convert_range(value: range, dtype: Any, name: Any, as_ref: bool) -> Tensor:
    """`tf.range(value.start, value.stop, value.step, dtype=dtype, name=name)`."""
    g = get_default_graph()
    with g.name_scope(name or "Range") as scope:
        args = [
            convert_to_tensor(v, dtype=dtype, name=arg)
            for v, arg in (
                (value.start, "start"),
                (value.stop, "limit"),
                (value.step, "delta"),
            )
        ]
        if dtype is None:
            dtype = _dtypes.as_dtype(
                max((t._dtype._base_enum for t in args), key=_RANGE_DTYPES.index)
            )
        args = [t if t._dtype == dtype else _cast(t, dtype, "Cast") for t in args]
        attrs = {"Tidx": _TYPE_ATTRS[dtype._base_enum]}
        return _create(g, "Range", args, scope, attrs, dtype)
