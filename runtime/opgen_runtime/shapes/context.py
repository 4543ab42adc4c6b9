"""What a shape function works on: ShapeHandle, DimensionHandle and TF's InferenceContext.

A shape function takes an `InferenceContext` and sets output shapes, like a C++
`SetShapeFn` (tensorflow/core/framework/shape_inference.h). Errors are `ShapeError`s
carrying the text of TF's InvalidArgument status; `shape_inference.run` adds the node
summary TF appends and raises them as ValueError, as TF graph mode does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..graph.operation import attr_value_to_python
from ..proto.datatypes import cpp_name
from ..values.dtypes import DType
from . import constants as _constants

if TYPE_CHECKING:
    from ..graph.operation import Operation

INT64_MAX = 2**63 - 1

# A DimensionHandle is an int (known) or None (unknown).
DimensionHandle = int | None
Values = _constants.Values


# The built-in shape functions by name (`shape_fns.by_name`). shape_fns is built on this module,
# so it cannot be imported here: shape_inference, which imports both, sets it.
builtin_shape_fn: Callable[[str, bool], Callable[..., Any]] | None = None

class ShapeHandle:
    """A shape: `dims` is None for unknown rank, else a tuple of DimensionHandles."""

    __slots__ = ("dims",)

    def __init__(self, dims: Sequence[DimensionHandle] | None) -> None:
        self.dims: tuple[DimensionHandle, ...] | None = (
            None if dims is None else tuple(dims)
        )

    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    def known_dims(self) -> tuple[DimensionHandle, ...]:
        """The dims of a shape of known rank (callers check the rank first)."""
        assert self.dims is not None
        return self.dims

    def __repr__(self) -> str:
        return debug_string(self)


UNKNOWN = ShapeHandle(None)
SCALAR = ShapeHandle(())


def debug_string(shape: ShapeHandle) -> str:
    """TF's InferenceContext::DebugString: `?`, `[]`, `[2,?]`."""
    if shape.dims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.dims) + "]"


def dim_string(dim: DimensionHandle) -> str:
    return "?" if dim is None else str(dim)


# The Python type of each attr kind a translated shape function reads (`attr_value`).
_ATTR_KINDS = {"int": int, "bool": bool, "str": bytes, "float": float, "type": DType}


class ShapeError(ValueError):
    """A shape function rejected the op's inputs (message like TF's InvalidArgument text)."""


class InferenceContext:
    """What a shape function sees of one op: input shapes, constant inputs, attrs; outputs to set."""

    def __init__(self, op: Operation, eager: bool = False) -> None:
        self.op = op
        # eager: input values and partial shapes are evaluated when first asked for, so a
        # function succeeding needs one pass (its result is that of TF's last pass)
        self.eager = eager
        self._inputs = [ShapeHandle(t._shape._dims) for t in op._inputs]
        self._outputs: list[ShapeHandle] = [UNKNOWN] * len(op._outputs)
        # TF's ShapeRefiner runs a shape function in passes: input values and partial
        # shapes a pass asks for become available to the next pass (if they can be
        # evaluated); an error in any pass is final. See `shape_inference.run`.
        self.requested_tensors: set[int] = set()
        self.requested_partial_shapes: set[int] = set()
        self.tensors: dict[int, Values] = {}
        self.partial_shapes: dict[int, ShapeHandle] = {}

    # inputs / outputs
    @property
    def num_inputs(self) -> int:
        return len(self._inputs)

    @property
    def num_outputs(self) -> int:
        return len(self._outputs)

    def input(self, i: int) -> ShapeHandle:
        if not 0 <= i < len(self._inputs):
            raise self._index_error(i, "reads", "input")
        return self._inputs[i]

    def _index_error(self, i: int, verb: str, kind: str) -> ValueError:
        """TF's InferenceContext reads (or `outputs_.at()` throws and aborts TF) out of bounds
        here: a shape function written for another signature (TF's op of the same name, for an
        op declared differently), or with a wrong index. (Checked inline by the callers: this
        runs on every op.)"""
        count = len(self._inputs if kind == "input" else self._outputs)
        return ValueError(
            f"the shape function of '{self.op.type}' {verb} {kind} {i}, but the op has {count} {kind}(s): "
            "it does not fit the op's declaration; give the op a shape function of its own "
            "(SetShapeFn), or fix the index"
        )

    def inputs(self) -> list[ShapeHandle]:
        return list(self._inputs)

    def set_output(self, i: int, shape: ShapeHandle) -> None:
        if not 0 <= i < len(self._outputs):
            raise self._index_error(i, "sets", "output")
        self._outputs[i] = shape

    def reset_outputs(self) -> None:
        self._outputs = [UNKNOWN] * len(self._outputs)

    def output(self, i: int) -> ShapeHandle:
        if not 0 <= i < len(self._outputs):
            raise self._index_error(i, "reads", "output")
        return self._outputs[i]

    def _arg_range(self, output: bool, name: str) -> range:
        """Where the input or output arg `name` lies: TF's NameRangesForNode
        (tensorflow/core/framework/node_def_util.cc), an arg's length given by its number
        or type-list attr."""
        op_def = self.op._op_def
        start = 0
        for arg in (op_def.output_arg if output else op_def.input_arg) if op_def is not None else ():
            if arg.number_attr:
                size = self.op._attrs[arg.number_attr].i
            elif arg.type_list_attr:
                size = len(self.op._attrs[arg.type_list_attr].list.type)
            else:
                size = 1
            if arg.name == name:
                return range(start, start + size)
            start += size
        raise ShapeError(f"Unknown {'output' if output else 'input'} name: {name}")

    def input_list(self, name: str) -> list[ShapeHandle]:
        """TF's `input(input_name, &shapes)`."""
        return [self._inputs[i] for i in self._arg_range(False, name)]

    def output_list(self, name: str) -> list[ShapeHandle]:
        """TF's `output(output_name, &shapes)`."""
        return [self._outputs[i] for i in self._arg_range(True, name)]

    def set_output_list(self, name: str, shapes: Sequence[ShapeHandle]) -> None:
        """TF's `set_output(output_name, shapes)`: exactly as many shapes as the arg has."""
        where = self._arg_range(True, name)
        if len(where) != len(shapes):
            raise ShapeError(f"Must provide exactly {len(where)} shapes.")
        for i, shape in zip(where, shapes):
            self._outputs[i] = shape

    def get_attr(self, name: str) -> Any:
        value = self.op._attrs.get(name)
        if value is None:
            raise ShapeError(f"No attr named '{name}' in NodeDef")
        return attr_value_to_python(value)

    def has_attr(self, name: str) -> bool:
        return name in self.op._attrs

    def input_dtype(self, i: int) -> Any:
        return self.op._inputs[i]._dtype

    def input_tensor(self, i: int) -> Values | None:
        """(flat values, dims) when input i's value is known statically (TF's input_tensor)."""
        if self.eager and i not in self.requested_tensors:
            value = _constants.constant_value(self.op._inputs[i])
            if value is not None:
                self.tensors[i] = value
        self.requested_tensors.add(i)
        return self.tensors.get(i)

    def input_handle_shape_and_dtype(self, i: int) -> tuple[ShapeHandle, int] | None:
        """The variable shape and dtype a resource input i carries (TF's handle data), if known."""
        found = _constants.handle_data(self.op._inputs[i])
        if found is None:
            return None
        return self.make_shape_from_attr(found[0]), found[1]

    def input_partial_shape(self, i: int) -> ShapeHandle:
        """TF's ShapeRefiner::ConstantPartialShape of input i (a shape given as a tensor)."""
        if self.eager and i not in self.requested_partial_shapes:
            shape = self._constant_partial_shape(i)
            if shape.dims is not None:
                self.partial_shapes[i] = shape
        self.requested_partial_shapes.add(i)
        return self.partial_shapes.get(i, UNKNOWN)

    def _constant_partial_shape(self, i: int) -> ShapeHandle:
        """ShapeRefiner::ConstantPartialShape (tensorflow/core/common_runtime/shape_refiner.cc):
        a scalar shape tensor must be a constant -1 (unknown shape), else the node is
        rejected with the refiner's own error (a ValueError without the node framing)."""
        tensor = self.op._inputs[i]
        if tensor._shape._dims != ():
            return ShapeHandle(_constants.partial_shape(tensor))
        value = _constants.constant_value(tensor)
        if value is None:
            raise ValueError(
                "Received a shape scalar with unknown static value.  A static value of '-1' "
                "is required to represent an unknown shape."
            )
        if value[0][0] != -1:
            raise ValueError(
                "Received an invalid shape scalar with a static value that is not '-1': "
                f"Tensor<type: {tensor._dtype.name} shape: [] values: {value[0][0]}>"
            )
        return UNKNOWN

    def evaluate_requests(self) -> bool:
        """Makes requested input values/partial shapes available; True if any became so."""
        found = False
        for i in sorted(self.requested_tensors - self.tensors.keys()):
            value = _constants.constant_value(self.op._inputs[i])
            if value is not None:
                self.tensors[i] = value
                found = True
        for i in sorted(self.requested_partial_shapes - self.partial_shapes.keys()):
            shape = self._constant_partial_shape(i)
            if shape.dims is not None:
                self.partial_shapes[i] = shape
                found = True
        return found

    def error_context(self) -> str:
        """What TF appends to a shape error after the input shapes (InferenceContext::AttachContext)."""
        text = ""
        tensors = [
            f"input[{i}] = <{_constants.summarize_value(v)}>"
            for i, v in sorted(self.tensors.items())
            if i not in self.partial_shapes
        ]
        if tensors:
            text += " and with computed input tensors: " + ", ".join(tensors)
        partials = [
            f"input[{i}] = {debug_string(s)}"
            for i, s in sorted(self.partial_shapes.items())
        ]
        if partials:
            text += " and with input tensors computed as partial shapes: " + ",".join(
                partials
            )
        return text

    # constructors
    def unknown_shape(self) -> ShapeHandle:
        return UNKNOWN

    def unknown_shape_of_rank(self, rank: int) -> ShapeHandle:
        if rank == -1:  # TF's UnknownShapeOfRank(kUnknownRank)
            return UNKNOWN
        if rank < 0:
            raise self._tf_abort(f"UnknownShapeOfRank({rank}): a rank must not be negative")
        return ShapeHandle([None] * rank)

    def _tf_abort(self, what: str) -> ValueError:
        """Where TF's InferenceContext CHECK-fails and aborts the process (shape_inference.h
        and .cc): a plain ValueError naming the op, never an invalid shape."""
        return ValueError(
            f"the shape function of '{self.op.type}' called {what} (node '{self.op.name}'); "
            "TensorFlow aborts the process here (a failed CHECK in its InferenceContext), so "
            "opgen's runtime raises instead: fix the shape function"
        )

    def scalar(self) -> ShapeHandle:
        return SCALAR

    def vector(self, dim: DimensionHandle) -> ShapeHandle:
        return ShapeHandle([dim])

    def matrix(self, d0: DimensionHandle, d1: DimensionHandle) -> ShapeHandle:
        return ShapeHandle([d0, d1])

    def make_shape(self, dims: Sequence[DimensionHandle]) -> ShapeHandle:
        return ShapeHandle(dims)

    def make_shape_from_shape_tensor(
        self, i: int, scalar_is_unknown: bool = False
    ) -> ShapeHandle:
        """TF's MakeShapeFromShapeTensor (`...TreatScalarAsUnknownShape` if asked)."""
        if scalar_is_unknown:
            shape = self.with_rank_at_most(self.input(i), 1)
        else:
            shape = self.with_rank(self.input(i), 1)
        partial = self.input_partial_shape(i)
        if partial.dims is not None:
            return partial
        return self.make_shape_from_tensor(self.input_tensor(i), shape)

    def make_shape_from_tensor(
        self, value: Values | None, shape: ShapeHandle
    ) -> ShapeHandle:
        """TF's InternalMakeShapeFromTensor: a shape from a shape tensor's value, if known."""
        if value is None:
            if shape.dims is None or len(shape.dims) == 0 or shape.dims[0] is None:
                return UNKNOWN
            return self.unknown_shape_of_rank(shape.dims[0])
        values, dims = value
        if not dims:
            if values and values[0] != -1:
                raise ShapeError(
                    "Input tensor must be rank 1, or if its rank 0 it must have value -1 "
                    f"(representing an unknown shape).  Saw value: {values[0]}"
                )
            return UNKNOWN
        if len(dims) != 1:
            raise ShapeError(
                f"Input tensor must be rank 1, but was rank {len(dims)}. Saw tensor shape "
                 "["
                + ",".join(str(d) for d in dims)
                + "]"
            )
        out: list[DimensionHandle] = []
        for v in values:
            if v < -1:
                raise ShapeError(f"Invalid value in tensor used for shape: {v}")
            out.append(None if v == -1 else int(v))
        return ShapeHandle(out)

    def make_shape_from_attr(self, proto: Any) -> ShapeHandle:
        """A TensorShapeProto attr (unknown rank / -1 dims) as a ShapeHandle, checked as TF's
        PartialTensorShape is built from it (TensorShapeBase's InitDims, tensor_shape.cc):
        the element count, multiplied up to the first unknown dim, must fit in int64."""
        if proto.unknown_rank:
            return UNKNOWN
        shape = ShapeHandle([d.size if d.size >= 0 else None for d in proto.dim])
        n = 1
        for d in shape.known_dims():
            if d is None:
                break
            n *= d
            if n > INT64_MAX:
                raise ShapeError(
                    f"Shape {debug_string(shape)} is too large (more than 2**63 - 1 entries)"
                )
        return shape

    # queries
    @staticmethod
    def rank(shape: ShapeHandle) -> int | None:
        return shape.rank

    @staticmethod
    def dim(shape: ShapeHandle, i: int) -> DimensionHandle:
        if shape.dims is None:
            return None
        return shape.dims[i if i >= 0 else len(shape.dims) + i]

    @staticmethod
    def fully_defined(shape: ShapeHandle) -> bool:
        return shape.dims is not None and None not in shape.dims

    @staticmethod
    def num_elements(shape: ShapeHandle) -> DimensionHandle:
        """TF's NumElements: a zero dimension makes it 0 even beside unknown ones."""
        if shape.dims is None:
            return None
        if 0 in shape.dims:
            return 0
        if None in shape.dims:
            return None
        n = 1
        for d in shape.dims:
            assert d is not None
            n *= d
        # TF multiplies in int64 unchecked (InferenceContext::NumElements): the product
        # wraps, and a wrapped -1 is kUnknownDim
        n = (n + 2**63) % 2**64 - 2**63
        return None if n == -1 else n

    # checks and combinations (TF's InferenceContext methods)
    @staticmethod
    def _refuse_rank_past_int32(rank: int) -> None:
        """TF's WithRank* each refuse such a rank first (shape_inference.cc)."""
        if rank > 2**31 - 1:
            raise ShapeError("Rank cannot exceed kint32max")

    def with_rank(self, shape: ShapeHandle, rank: int) -> ShapeHandle:
        self._refuse_rank_past_int32(rank)
        if shape.dims is None:
            if rank < -1:  # TF reserves a vector of that (unsigned) size: std::length_error
                raise self._tf_abort(f"WithRank with rank {rank}: a rank must not be negative")
            return self.unknown_shape_of_rank(rank)
        if len(shape.dims) != rank:
            raise ShapeError(f"Shape must be rank {rank} but is rank {len(shape.dims)}")
        return shape

    def with_rank_at_least(self, shape: ShapeHandle, rank: int) -> ShapeHandle:
        self._refuse_rank_past_int32(rank)
        if shape.dims is not None and len(shape.dims) < rank:
            raise ShapeError(
                f"Shape must be at least rank {rank} but is rank {len(shape.dims)}"
            )
        return shape

    def with_rank_at_most(self, shape: ShapeHandle, rank: int) -> ShapeHandle:
        self._refuse_rank_past_int32(rank)
        if shape.dims is not None and len(shape.dims) > rank:
            raise ShapeError(
                f"Shape must be at most rank {rank} but is rank {len(shape.dims)}"
            )
        return shape

    def with_value(self, dim: DimensionHandle, value: int) -> DimensionHandle:
        """TF's WithValue: an unknown dim becomes MakeDim(value) (-1 keeps it unknown)."""
        if dim == value:
            return dim
        if dim is None:
            return self.make_dim(value)
        raise ShapeError(f"Dimension must be {value} but is {dim}")

    @staticmethod
    def merge_dim(a: DimensionHandle, b: DimensionHandle) -> DimensionHandle:
        if a is None:
            return b
        if b is None or a == b:
            return a
        raise ShapeError(f"Dimensions must be equal, but are {a} and {b}")

    @staticmethod
    def merge(a: ShapeHandle, b: ShapeHandle) -> ShapeHandle:
        if a.dims is None or a.dims == b.dims:
            return b if a.dims is None else a
        if b.dims is None:
            return a
        if len(a.dims) != len(b.dims):
            raise ShapeError(
                f"Shapes must be equal rank, but are {len(a.dims)} and {len(b.dims)}"
            )
        dims: list[DimensionHandle] = []
        for x, y in zip(a.dims, b.dims):
            if x is not None and y is not None and x != y:
                raise ShapeError(
                    f"Dimension {len(dims)} in both shapes must be equal, but are {x} and {y}. "
                    f"Shapes are {debug_string(a)} and {debug_string(b)}."
                )
            dims.append(x if x is not None else y)
        return ShapeHandle(dims)

    def merge_prefix(
        self, s: ShapeHandle, prefix: ShapeHandle
    ) -> tuple[ShapeHandle, ShapeHandle]:
        """TF's MergePrefix: (s with its prefix merged, the merged prefix)."""
        if s.dims is None or prefix.dims is None:
            return s, prefix
        s = self.with_rank_at_least(s, len(prefix.dims))
        n = len(prefix.dims)
        merged = [self.merge_dim(a, b) for a, b in zip(s.known_dims()[:n], prefix.dims)]
        return ShapeHandle(merged + list(s.known_dims()[n:])), ShapeHandle(merged)

    def subshape(
        self, shape: ShapeHandle, start: int, end: int | None = None
    ) -> ShapeHandle:
        """TF's Subshape(s, start, end) with its bounds checks and messages."""
        if shape.dims is None:
            return UNKNOWN
        rank = len(shape.dims)
        start_in, end_in = start, ("9223372036854775807" if end is None else end)
        if end is None or end > rank:
            end = rank
        start = min(start, rank)
        if start < 0:
            start += rank
            if start < 0:
                raise ShapeError(
                    f"Subshape start out of bounds: {start_in}, for shape with rank {rank}"
                )
        if end < 0:
            end += rank
            if end < 0:
                raise ShapeError(
                    f"Subshape end out of bounds: {end_in}, for shape with rank {rank}"
                )
        if start > end:
            raise ShapeError(
                f"Subshape must have computed start <= end, but is {start} and {end} "
                f"(computed from start {start_in} and end {end_in} over shape with rank {rank})"
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
        index = i if i >= 0 else len(dims) + i
        if not 0 <= index < len(dims):
            raise ShapeError(
                f"Out of range dim_index {i} for shape with {len(dims)} dimensions"
            )
        dims[index] = dim
        return ShapeHandle(dims)

    @staticmethod
    def add(a: DimensionHandle, b: DimensionHandle) -> DimensionHandle:
        """TF's InferenceContext::Add, with its int64 overflow error."""
        if a is None or b is None:
            return None
        total = a + b
        if total > INT64_MAX:
            raise ShapeError(f"Dimension size overflow from adding {a} and {b}")
        return total

    @staticmethod
    def subtract(a: DimensionHandle, b: DimensionHandle) -> DimensionHandle:
        if a is None or b is None:
            return None
        if a < b:
            raise ShapeError(
                f"Negative dimension size caused by subtracting {b} from {a}"
            )
        return a - b

    @staticmethod
    def multiply(a: DimensionHandle, b: DimensionHandle) -> DimensionHandle:
        if a == 0 or b == 0:
            return 0
        if a == 1:
            return b
        if b == 1:
            return a
        if a is None or b is None:
            return None
        # TF's InferenceContext::Multiply (MultiplyWithoutOverflow: an error past int64)
        product = a * b
        if product > INT64_MAX:
            raise ShapeError(
                f"Negative dimension size caused by overflow when multiplying {a} and {b}"
            )
        return product

    @staticmethod
    def divide(
        a: DimensionHandle, divisor: DimensionHandle, evenly_divisible: bool
    ) -> DimensionHandle:
        """TF's Divide: `divisor` None is an unknown dimension (a constant is never None)."""
        if divisor == 1:
            return a
        if a is None or divisor is None:
            return None
        if divisor <= 0:
            raise ShapeError(f"Divisor must be positive but is {divisor}")
        if evenly_divisible and a % divisor != 0:
            raise ShapeError(
                f"Dimension size must be evenly divisible by {divisor} but is {a}"
            )
        return a // divisor

    # What translated C++ shape functions call (opgen/shape_translate): C++ values, where
    # the methods above use None for unknown, and StrCat-built errors.
    @staticmethod
    def rank_value(shape: ShapeHandle) -> int:
        """TF's Rank: kUnknownRank (-1) when unknown."""
        return -1 if shape.dims is None else len(shape.dims)

    @staticmethod
    def dim_value(dim: DimensionHandle) -> int:
        """TF's Value: kUnknownDim (-1) when unknown."""
        return -1 if dim is None else dim

    @staticmethod
    def rank_known(shape: ShapeHandle) -> bool:
        return shape.dims is not None

    @staticmethod
    def value_known(dim: DimensionHandle) -> bool:
        return dim is not None

    @staticmethod
    def unknown_dim() -> DimensionHandle:
        return None

    def make_dim(self, value: DimensionHandle) -> DimensionHandle:
        """TF's DimensionOrConstant of an int: -1 (kUnknownDim) is unknown; below -1 TF's
        Dimension constructor CHECK-fails (shape_inference.h)."""
        if value is None or value == -1:
            return None
        if value < -1:
            raise self._tf_abort(
                f"MakeDim({value}): a dimension must be non-negative or -1 (unknown)"
            )
        if value >= 2**63:  # C++'s int64 arithmetic overflowed computing it: undefined behaviour
            raise ValueError(
                f"the shape function of '{self.op.type}' made the dimension {value}, past int64 "
                f"(node '{self.op.name}'): C++'s arithmetic overflows computing it (undefined "
                "behaviour in TensorFlow), so opgen's runtime raises instead: fix the shape function"
            )
        return value

    @staticmethod
    def dim_string(dim: DimensionHandle) -> str:
        return dim_string(dim)

    @staticmethod
    def debug_string(shape: ShapeHandle) -> str:
        return debug_string(shape)

    @staticmethod
    def as_size_t(value: int) -> int:
        """A C++ integer converted to size_t (in a comparison with a `size()`): -1 wraps."""
        return value % 2**64

    @staticmethod
    def as_int64(value: int) -> int:
        """A C++ 64-bit unsigned value (a size_t local, held as the int64 with its bits) after
        arithmetic that may have left int64's range: the value with the same low 64 bits, as
        C++'s unsigned arithmetic wraps modulo 2**64."""
        return (value + 2**63) % 2**64 - 2**63

    @staticmethod
    def as_int32(value: int) -> int:
        """A C++ integer stored into an int32 (`int n = c->Value(d);`, `static_cast<int32>`):
        its low 32 bits, signed, as the conversion gives them since C++20 (and g++ before)."""
        return (value + 2**31) % 2**32 - 2**31

    @staticmethod
    def truncdiv(a: int, b: int, bits: int = 64) -> int:
        """C++ integer division (toward zero) of `bits`-bit ints; the one quotient that does not
        fit, the smallest int divided by -1, traps as x86's division does (SIGFPE) and raises
        OverflowError (a division by zero raises ZeroDivisionError)."""
        if b == -1 and a == -(1 << (bits - 1)):
            raise OverflowError(f"{a} / -1 overflows {bits} bits")
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q

    @staticmethod
    def truncmod(a: int, b: int, bits: int = 64) -> int:
        """C++ `%` (the sign of the dividend); traps where `truncdiv` does."""
        return a - b * InferenceContext.truncdiv(a, b, bits)

    @staticmethod
    def invalid_argument(*pieces: str) -> ShapeError:
        """`errors::InvalidArgument(pieces...)` (StrCat of the pieces), to raise."""
        return ShapeError("".join(pieces))

    def attr_value(self, name: str, kind: str) -> Any:
        """`c->GetAttr(name, &v)` for v of `kind`: int (int32: a 32-bit one), bool, str, float,
        type (a DataType, as its enum value), their lists (`list_int`, ...), or shape /
        list_shape: a PartialTensorShape, as the ShapeHandle MakeShapeFromPartialTensorShape makes."""
        value = self.get_attr(name)
        item_kind = kind.removeprefix("list_")
        int32 = item_kind == "int32"  # read into a 32-bit int, which GetNodeAttr range-checks
        if int32:
            item_kind = "int"
        items = value if kind.startswith("list_") else [value]
        if not isinstance(items, list) or any(
            not hasattr(v, "unknown_rank") if item_kind == "shape"
            else type(v) is not _ATTR_KINDS[item_kind]
            for v in items
        ):
            raise ShapeError(f"Attr {name} does not have the type the shape function reads")
        for v in items if int32 else ():
            if not -(1 << 31) <= v < 1 << 31:  # tensorflow/core/framework/node_def_util.cc: DEFINE_GET_ATTR(int32_t
                raise ShapeError(f"Attr {name} has value {v} out of range for an int32")
        if item_kind == "shape":
            items = [self.make_shape_from_attr(v) for v in items]
        elif item_kind == "str":
            items = [v.decode("utf-8", "replace") for v in items]
        elif item_kind == "type":
            items = [v.as_datatype_enum for v in items]
        return items if kind.startswith("list_") else items[0]

    @staticmethod
    def float_text(value: float) -> str:
        """`StrCat` of a float or double: absl's SixDigitsToBuffer, printf's `%.6g`
        (absl/strings/numbers.cc)."""
        return f"{value:.6g}"

    @staticmethod
    def dtype_string(enum: int) -> str:
        """TF's DataTypeString (tensorflow/core/framework/types.cc)."""
        return cpp_name(enum)

    @staticmethod
    def _int_values(value: Values) -> list[int]:
        if any(type(v) is not int for v in value[0]):
            raise ShapeError("the shape function reads a non-integer input tensor as integers")
        return value[0]

    @staticmethod
    def tensor_scalar(value: Values) -> int:
        """`t->scalar<int>()()` of a constant input (TF CHECKs that it is a scalar)."""
        if value[1]:
            raise ShapeError("the shape function reads a non-scalar input tensor as a scalar")
        return InferenceContext._int_values(value)[0]

    @staticmethod
    def tensor_element(value: Values, i: int) -> int:
        """`t->flat<int>()(i)` of a constant input (out of range: TF reads out of bounds)."""
        values = InferenceContext._int_values(value)
        if not 0 <= i < len(values):
            raise ShapeError(f"the shape function reads element {i} of an input tensor of {len(values)}")
        return values[i]

    @staticmethod
    def tensor_size(value: Values) -> int:
        return len(value[0])

    @staticmethod
    def tensor_rank(value: Values) -> int:
        return len(value[1])

    def run_named(self, name: str, *args: Any) -> Any:
        """Runs the built-in shape function `name` (`return shape_inference::X(c);`), or one
        of TF's common functions taking arguments after the context (`X(c, 1)`; its
        out-param, if any, returned)."""
        assert builtin_shape_fn is not None  # set when shape_inference is imported
        return builtin_shape_fn(name, bool(args))(self, *args)
