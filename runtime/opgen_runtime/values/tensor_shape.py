"""Dimension and TensorShape with TensorFlow's semantics (unknown dims/rank, merging)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from opgen_runtime.proto import tensor_shape_pb2

from .tf_objects import as_own_message, is_tf_dimension, is_tf_tensor_shape


class Dimension:
    """One dimension: a non-negative int or None (unknown)."""

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        if isinstance(value, int):
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
            self._value: int | None = value
        elif value is None:
            self._value = None
        elif isinstance(value, Dimension):
            self._value = value._value
        elif is_tf_dimension(value):
            self._value = value.value
        else:
            try:
                # An embedded Tensor's __index__ raises (graph/tensor.py), as TF's graph
                # tensors have none: TF's message, not the tensor's.
                if getattr(type(value), "_symbolic", False):
                    raise AttributeError
                self._value = int(value.__index__())
            except AttributeError:
                raise TypeError(
                    "Dimension value must be integer or None or have "
                    f"an __index__ method, got value '{value!r}' with type '{type(value)!r}'"
                ) from None
            if self._value < 0:
                raise ValueError(f"Dimension {self._value} must be >= 0")

    @property
    def value(self) -> int | None:
        return self._value

    def is_compatible_with(self, other: Any) -> bool:
        other = as_dimension(other)
        return (
            self._value is None or other._value is None or self._value == other._value
        )

    def merge_with(self, other: Any) -> Dimension:
        other = as_dimension(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")
        return Dimension(self._value if self._value is not None else other._value)

    def __eq__(self, other: object) -> Any:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __int__(self) -> int:
        return int(self._value)  # type: ignore[arg-type]

    def __index__(self) -> int:
        return self._value  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)


def as_dimension(value: Any) -> Dimension:
    return value if isinstance(value, Dimension) else Dimension(value)


def _dim_value(d: Any) -> int | None:
    if d is None:
        return None
    if type(d) is int and d >= 0:
        return d
    return as_dimension(d).value


class TensorShape:
    """A possibly-partial shape: `dims` is None for unknown rank, entries None for unknown dims."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Any) -> None:
        if isinstance(dims, (tuple, list)):
            self._dims: tuple[int | None, ...] | None = tuple(
                _dim_value(d) for d in dims
            )
        elif dims is None:
            self._dims = None
        elif isinstance(dims, tensor_shape_pb2.TensorShapeProto):
            self._dims = (
                None
                if dims.unknown_rank
                else tuple(d.size if d.size != -1 else None for d in dims.dim)
            )
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif is_tf_tensor_shape(dims):
            self._dims = None if dims.rank is None else tuple(dims.as_list())
        elif (
            own := as_own_message(dims, tensor_shape_pb2.TensorShapeProto)
        ) is not None:
            self._dims = TensorShape(own)._dims
        else:
            try:
                dims_iter = iter(dims)
            except TypeError:
                self._dims = (as_dimension(dims).value,)
            else:
                values = []
                for d in dims_iter:
                    try:
                        values.append(as_dimension(d).value)
                    except TypeError as e:
                        raise TypeError(
                            f"Failed to convert '{dims!r}' to a shape: '{d!r}'"
                            "could not be converted to a dimension. A shape should "
                            "either be single dimension (e.g. 10), or an iterable of "
                            "dimensions (e.g. [1, 10, None])."
                        ) from e
                self._dims = tuple(values)

    @classmethod
    def _from_dims(cls, dims: tuple[int | None, ...]) -> TensorShape:
        """A shape from already-validated dims (shape inference results); TensorShapes are
        immutable, so equal results share one object (one less object per op for the GC).
        """
        shape = _SHAPES.get(dims)
        if shape is None:
            shape = cls.__new__(cls)
            shape._dims = dims
            if len(_SHAPES) >= 4096:
                _SHAPES.clear()
            _SHAPES[dims] = shape
        return shape

    @property
    def rank(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self) -> list[int | None] | None:
        return None if self._dims is None else list(self._dims)

    def as_list(self) -> list[int | None]:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:  # type: ignore[union-attr]
            n *= d  # type: ignore[operator]
        return n

    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims)
        )

    def merge_with(self, other: Any) -> TensorShape:
        shape = as_shape(other)  # a new name: `other` is declared Any
        if self._dims is None:
            return shape
        if shape._dims is None:
            return self
        if not self.is_compatible_with(shape):
            raise ValueError(f"Shapes {self} and {shape} are not compatible")
        return TensorShape(
            [a if a is not None else b for a, b in zip(self._dims, shape._dims)]
        )

    def concatenate(self, other: Any) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank: int) -> TensorShape:
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self if self._dims is not None else TensorShape([None] * rank)

    def as_proto(self) -> tensor_shape_pb2.TensorShapeProto:
        if self._dims is None:
            return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
        try:
            dims = [
                tensor_shape_pb2.TensorShapeProto.Dim(size=-1 if d is None else d)
                for d in self._dims
            ]
        except TypeError as e:  # protobuf names the field by its message's full name: TF's, not opgen's package
            raise TypeError(
                str(e).replace("Field opgen.", "Field tensorflow.", 1)
            ) from None
        return tensor_shape_pb2.TensorShapeProto(dim=dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self) -> Iterator[int | None]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other: object) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __repr__(self) -> str:
        return (
            f"TensorShape({list(self._dims)!r})"
            if self._dims is not None
            else "TensorShape(None)"
        )

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"


_SHAPES: dict[tuple[int | None, ...], TensorShape] = {}


def as_shape(shape: Any) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: int | None = None) -> TensorShape:
    return TensorShape(None if rank is None else [None] * rank)
