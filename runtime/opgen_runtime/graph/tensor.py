"""Tensor: one output of an Operation, with TF graph mode's static dtype and shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from ..values import dtypes as _dtypes
from ..values.tensor_shape import TensorShape

if TYPE_CHECKING:
    from .graph import Graph
    from .operation import Operation

UNKNOWN_SHAPE = TensorShape(None)


class Tensor:
    """One output of an Operation."""

    __slots__ = ("_dtype", "_op", "_shape", "_value_index")

    def __init__(self, op: Operation, value_index: int, dtype: _dtypes.DType) -> None:
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = UNKNOWN_SHAPE

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        self._shape = self._shape.merge_with(shape)

    @property
    def graph(self) -> Graph:
        return self._op._graph

    @property
    def name(self) -> str:
        return f"{self._op._name}:{self._value_index}"

    @property
    def device(self) -> str:
        return self._op._device

    def _as_node_def_input(self) -> str:
        if self._value_index == 0:
            return self._op._name
        return f"{self._op._name}:{self._value_index}"

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        """TF's `Tensor.__str__`: shape only when the rank is known, device when set."""
        shape = "" if self._shape.rank is None else f", shape={self._shape}"
        device = f", device={self._op._device}" if self._op._device else ""
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name}{device})'

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __iter__(self) -> NoReturn:
        raise TypeError("Iterating over a symbolic Tensor is not allowed.")

    def __bool__(self) -> bool:
        raise TypeError("Using a symbolic Tensor as a Python bool is not allowed.")

    def __len__(self) -> int:
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}).")
