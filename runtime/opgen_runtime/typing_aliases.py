"""The types generated wrappers annotate their parameters and results with (docs/typing.md),
read through `api_types`, which builds this module only when something evaluates them.

Each alias is what the runtime accepts for one kind of argument, on either backend, written
so that a type checker can hold a call to it without TensorFlow installed: TensorFlow's own
objects (`tf.Tensor`, `tf.DType`, `tf.TensorShape`, TF's protos) are matched by Protocols of
the members the runtime reads from them (`tf_objects`), never by importing TensorFlow (TF's
stubs leave some out: `TFDType`).

Results: the embedded runtime returns its `Tensor` and `Operation`; on the TensorFlow
backend the objects are TensorFlow's, which have the same members: a checker sees opgen's
classes, or TensorFlow's where told the code runs on TensorFlow (`OPGEN_TENSORFLOW_TYPES`).
TensorFlow's eager fast path returns None for an op without outputs (`TFE_Py_FastPathExecute`),
hence `Operation | None` there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ForwardRef, Protocol, TypeVar, Union

from opgen_runtime.proto import attr_value_pb2, tensor_pb2, tensor_shape_pb2

from .shapes.context import InferenceContext
from .values.dtypes import DType
from .values.tensor_shape import Dimension, TensorShape

# Results are opgen's `Tensor` and `Operation` unless a checker is told that the code runs on
# TensorFlow: pyright's `defineConstant = {OPGEN_TENSORFLOW_TYPES = true}`, mypy's `always_true =
# OPGEN_TENSORFLOW_TYPES` (docs/typing.md). Then they are TF's classes, which TF's own annotations
# ask for (typeshed's stubs, bundled with pyright, name `tf.Tensor` and no protocol). Told
# nothing, both checkers read both branches: mypy takes a name's first binding and pyright its
# last, hence opgen's classes imported before and after TF's.
OPGEN_TENSORFLOW_TYPES = False
if not OPGEN_TENSORFLOW_TYPES:
    from .graph.operation import Operation
    from .graph.tensor import Tensor
else:
    from tensorflow import Operation, Tensor  # type: ignore[assignment, import-untyped, no-redef, unused-ignore]
if not OPGEN_TENSORFLOW_TYPES:
    from .graph.operation import Operation  # type: ignore[no-redef, unused-ignore]
    from .graph.tensor import Tensor  # type: ignore[no-redef, unused-ignore]

__all__ = [
    "DType",
    "DTypeLike",
    "FuncLike",
    "InferenceContext",
    "ListOrTuple",
    "Operation",
    "ShapeLike",
    "Tensor",
    "TensorLike",
    "TensorLikeList",
    "TensorProtoLike",
]


class SupportsArray(Protocol):
    """numpy arrays and scalars, TensorFlow's tensors and variables (`__array__`)."""

    def __array__(self) -> Any: ...


class TFDType(Protocol):
    """`tf.DType`, by members both TF's class and typeshed's TensorFlow stubs declare (the stubs
    leave out `as_datatype_enum`, which `dtypes.as_dtype` reads of it)."""

    @property
    def name(self) -> str: ...

    @property
    def as_numpy_dtype(self) -> Any: ...


class SupportsAsList(Protocol):
    """`tf.TensorShape` (`tensor_shape.TensorShape` reads `rank` and `as_list()`)."""

    @property
    def rank(self) -> int | None: ...

    def as_list(self) -> list[int | None]: ...


class SerializedMessage(Protocol):
    """A protobuf message, TensorFlow's copy of a proto included (`tf_objects.as_own_message`)."""

    def SerializeToString(self) -> bytes: ...  # noqa: N802 - protobuf's method name


class NamedFunction(Protocol):
    """A function TensorFlow's `tf.function` made graph-callable (`attr_values.make_func`)."""

    name: Any

    def add_to_graph(self, graph: Any) -> None: ...


if TYPE_CHECKING:
    _NestedTensorLikes = Sequence["TensorLike"]
else:
    # `typing.get_type_hints(wrapper)` evaluates the strings it meets, this recursive reference
    # too, in the wrapper's module, which has no `TensorLike`: a ForwardRef naming this module
    # is evaluated here instead.
    _NestedTensorLikes = Sequence[ForwardRef("TensorLike", module=__name__)]
# A value `convert_to_tensor` takes: a Tensor, an array-like, a Python scalar, a shape, or a
# (nested) list or tuple of them.
# Union, not `|`: the recursive reference is a string, which has no `|` at run time.
TensorLike = Union[  # noqa: UP007
    Tensor,
    SupportsArray,
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    Dimension,
    TensorShape,
    _NestedTensorLikes,
]
# A list input (`N * T`, a type list): a list or tuple of tensor-likes (a Sequence, so that a
# `list[Tensor]` is one too).
TensorLikeList = Sequence[TensorLike]
_T = TypeVar("_T")
# A list attr's value: the wrapper accepts exactly a list or a tuple (one short name keeps a
# signature's lines as short as black and ruff lay them out alike).
ListOrTuple = list[_T] | tuple[_T, ...]
# `dtypes.as_dtype`: a DType (opgen's or TF's), a name, an enum value, a Python or numpy type.
DTypeLike = DType | TFDType | str | int | type[Any]
# `tensor_shape.as_shape`: a TensorShape (opgen's or TF's), dims (None: unknown), a
# TensorShapeProto, or None for an unknown rank.
ShapeLike = (
    TensorShape
    | SupportsAsList
    | Sequence[int | Dimension | None]
    | tensor_shape_pb2.TensorShapeProto
    | SerializedMessage
    | int
    | None
)
# `execute.make_tensor`: a TensorProto (opgen's or TF's) or its text format.
TensorProtoLike = tensor_pb2.TensorProto | SerializedMessage | str
# `attr_values.make_func`: a NameAttrList, a function name, or a graph-callable function.
FuncLike = attr_value_pb2.NameAttrList | SerializedMessage | str | bytes | NamedFunction
