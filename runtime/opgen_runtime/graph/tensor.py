"""Tensor: one output of an Operation, with TF graph mode's static dtype and shape."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from collections.abc import Iterator

from ..values import dtypes as _dtypes
from ..values.tensor_shape import TensorShape, as_shape

if TYPE_CHECKING:
    from .graph import Graph
    from .operation import Operation

UNKNOWN_SHAPE = TensorShape(None)


def symbolic_value_error(tensor: Tensor, what: str) -> str:
    """`what` (TF's words for the refused use), then why `tensor` has no value and how to get
    values: an embedded tensor is TF's graph-mode tensor, and TF-eager code reaches for its value.

    Read at the time of the error (the backend module by `sys.modules`, never imported here).
    """
    backend = sys.modules.get("opgen_runtime.tf.backend")
    if getattr(backend, "_selected", None) == "embedded":
        why = "opgen_runtime's backend is set to 'embedded' (set_backend or OPGEN_BACKEND)"
        how = "select TensorFlow instead: opgen_runtime.set_backend('tensorflow'), or OPGEN_BACKEND=tensorflow"
    elif "tensorflow" not in sys.modules:
        why = "TensorFlow is not imported"
        how = "`import tensorflow` before calling the wrappers, or set OPGEN_BACKEND=tensorflow"
    else:
        why = "it was built inside an opgen Graph's as_default() or before TensorFlow was imported"
        how = "call the wrappers outside opgen's Graph().as_default() now that TensorFlow is imported"
    return (
        f"{what}: Tensor '{tensor.name}' is symbolic, a node of a graph that opgen's embedded runtime "
        f"builds without computing values ({why}). For eager tensors with values, {how}."
    )


class Tensor:
    """One output of an Operation."""

    __slots__ = ("_dtype", "_op", "_shape", "_value_index")

    # Has no value: its __index__, __int__, ... raise (values/tensor_shape.py Dimension asks).
    _symbolic = True

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
        """TF's graph-mode `set_shape`: the shapes merged as TF's C++ ShapeRefiner merges them
        (`InferenceContext::Merge`), whose message the ValueError carries (trial38 #5: Python's
        `TensorShape.merge_with` text is TF's eager one)."""
        from ..shapes.context import InferenceContext, ShapeError, ShapeHandle

        other = as_shape(shape)
        if not self._shape.is_compatible_with(other):
            try:
                InferenceContext.merge(ShapeHandle(self._shape.dims), ShapeHandle(other.dims))
            except ShapeError as e:
                raise ValueError(str(e)) from None
        self._shape = self._shape.merge_with(other)

    @property
    def graph(self) -> Graph:
        return self._op._graph

    def consumers(self) -> list[Operation]:
        """TF's `Tensor.consumers`: the ops that take this tensor as an input, in the order they
        were created, an op once per input it takes it as (found by a scan of the graph: a rare
        call, not worth a per-tensor list on the path that builds ops)."""
        return [op for op in self._op._graph.get_operations() for t in op._inputs if t is self]

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

    if TYPE_CHECKING:
        # On the TensorFlow backend a wrapper's result is TF's tensor: its operators, indexing,
        # iteration and other members (`numpy()`, ...) are TF's, and code written for TF uses
        # them. Checkers see them (the other members as Any), as they accept that code with TF's
        # own wrappers; this graph tensor has none of them, a TypeError or AttributeError at
        # run time (docs/typing.md).
        def __getattr__(self, name: str) -> Any: ...
        def __iter__(self) -> Iterator[Tensor]: ...
        def __getitem__(self, key: Any) -> Tensor: ...
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __floordiv__(self, other: Any) -> Tensor: ...
        def __rfloordiv__(self, other: Any) -> Tensor: ...
        def __mod__(self, other: Any) -> Tensor: ...
        def __rmod__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __rand__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __ror__(self, other: Any) -> Tensor: ...
        def __xor__(self, other: Any) -> Tensor: ...
        def __rxor__(self, other: Any) -> Tensor: ...
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __float__(self) -> float: ...
        def __int__(self) -> int: ...
        def __index__(self) -> int: ...
        def __array__(self, dtype: Any = None) -> Any: ...
    else:
        # TF-eager members a graph tensor lacks: TF's graph tensors refuse them (the same
        # exception types; `numpy` is an AttributeError, so `hasattr(t, "numpy")` stays False),
        # with a message saying why this tensor is symbolic (symbolic_value_error).

        @property
        def numpy(self) -> NoReturn:
            raise AttributeError(symbolic_value_error(self, "'Tensor' object has no attribute 'numpy'"))

        def __array__(self, *args: Any, **kwargs: Any) -> NoReturn:
            raise NotImplementedError(
                symbolic_value_error(self, f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array")
            )

        def __iter__(self) -> NoReturn:
            raise TypeError(symbolic_value_error(self, "Iterating over a symbolic Tensor is not allowed"))

        def __float__(self) -> NoReturn:
            raise TypeError(symbolic_value_error(self, "float() of a symbolic Tensor"))

        def __int__(self) -> NoReturn:
            raise TypeError(symbolic_value_error(self, "int() of a symbolic Tensor"))

        def __complex__(self) -> NoReturn:
            raise TypeError(symbolic_value_error(self, "complex() of a symbolic Tensor"))

        def __index__(self) -> NoReturn:
            raise TypeError(symbolic_value_error(self, "a symbolic Tensor cannot be interpreted as an integer"))

    def __format__(self, format_spec: str) -> str:
        if not format_spec:
            return self.__str__()
        raise TypeError(symbolic_value_error(self, f"unsupported format string {format_spec!r} for a symbolic Tensor"))

    def __bool__(self) -> bool:
        raise TypeError(symbolic_value_error(self, "Using a symbolic Tensor as a Python bool is not allowed"))

    def __len__(self) -> int:
        raise TypeError(
            symbolic_value_error(
                self,
                f"len is not well defined for a symbolic Tensor ({self.name}). Please call "
                "`x.shape` rather than `len(x)` for shape information",
            )
        )
