"""Shape inference dispatch: which shape function an op runs, and running it.

Built-in functions live in the `fns` package: the common functions under their TF
names (`UnchangedShape`, `MatMulShape`, ...), which generated modules declare per op
(`register_op_list(..., shape_fns=...)`), and ports of TF's per-op shape functions by op
name, used when a module declares none (modules built from an OpList or `--from-library`).
Users register their own with `register_shape_fn(op_type, fn)`. An op without a function
gets unknown output shapes. Errors surface as ValueError (TF's C++ shape errors do too),
formatted like TF's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..ops import registry as _registry
from ..values.tensor_shape import TensorShape
from . import constants as _constants
from . import context as _shape_context
from . import fns as shape_fns
from .context import (
    InferenceContext,
    ShapeError,
    ShapeHandle,
    debug_string,
)
from .summary import summarize_attr

_shape_context.builtin_shape_fn = shape_fns.by_name

if TYPE_CHECKING:

    from ..graph.operation import Operation

__all__ = [
    "InferenceContext",
    "ShapeHandle",
    "register_shape_fn",
    "run",
    "shape_fn_for",
    "summarize_node",
]

ShapeFn = Callable[[InferenceContext], None]
_user_fns: dict[str, ShapeFn] = {}


def register_shape_fn(op_type: str, fn: ShapeFn | str) -> None:
    """Uses `fn` (a callable taking an InferenceContext, or a built-in's name) for `op_type`."""
    if isinstance(fn, str):
        fn = shape_fns.by_name(fn)
    _user_fns[op_type] = fn
    _callbacks.pop(op_type, None)


_callbacks: dict[str, tuple[int, Callable[[Operation], None] | None]] = {}


def shape_fn_for(op_type: str) -> Callable[[Operation], None] | None:
    """The inference callback the graph runs for a new `op_type` node (before adding it), if any."""
    cached = _callbacks.get(op_type)
    if cached is not None and cached[0] == _registry.generation:
        return cached[1]
    fn = _user_fns.get(op_type)
    if fn is None:
        fn = shape_fns.lookup(op_type, _registry.shape_fn_name(op_type))
    callback = None if fn is None else _callback(fn)
    _callbacks[op_type] = (_registry.generation, callback)
    return callback


def _callback(fn: ShapeFn) -> Callable[[Operation], None]:
    """The graph's inference callback for `fn`: a direct equivalent when one exists."""
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
    try:
        _run(op, fn)
    except (ArithmeticError, IndexError) as e:
        # What C++ leaves undefined, in a translated function: TF's process dies (SIGFPE) or
        # reads out of bounds; here a ValueError naming the node, as for TF's own errors.
        if isinstance(e, ZeroDivisionError):
            what = "a division by zero (TensorFlow's process dies of SIGFPE)"
        elif isinstance(e, ArithmeticError):  # `truncdiv`'s smallest int / -1
            what = f"a division that overflows, {e} (TensorFlow's process dies of SIGFPE)"
        else:
            what = "an index past the end of a shape or a vector (TensorFlow reads out of bounds)"
        shapes = ", ".join(debug_string(ShapeHandle(t._shape._dims)) for t in op._inputs)
        raise ValueError(
            f"The shape function of {op._type} makes {what} for '{{{{node {op._name}}}}} = "
            f"{summarize_node(op)}' with input shapes: {shapes}."
        ) from None


def _run(op: Operation, fn: ShapeFn) -> None:
    ctx = InferenceContext(op, eager=True)
    try:
        fn(ctx)
    except ValueError:
        # TF's ShapeRefiner runs the function in passes, input values a pass asked for
        # becoming available to the next, and an error in any pass is final: replay that
        # for TF's error and the inputs its message lists. ValueError, not only
        # ShapeError: the refiner's own errors (MakeShapeFromTensor's, read in
        # ConstantPartialShape) come only in the pass after the request, so an earlier
        # pass's error wins over them.
        try:
            ctx = _run_in_passes(op, fn)
        except _constants.RefinerError as e:
            # the op's creation fails with EvaluateConstantTensor's message, unframed
            raise ValueError(str(e)) from None
    for tensor, shape in zip(op._outputs, ctx._outputs):
        if shape.dims is not None:
            tensor._shape = TensorShape._from_dims(shape.dims)


def _run_in_passes(op: Operation, fn: ShapeFn) -> InferenceContext:
    ctx = InferenceContext(op)
    try:
        fn(ctx)
        while ctx.evaluate_requests():
            ctx.reset_outputs()
            fn(ctx)
    except ShapeError as e:
        shapes = ", ".join(debug_string(s) for s in ctx._inputs)
        raise ValueError(
            f"{e} for '{{{{node {op._name}}}}} = {summarize_node(op)}' with input shapes: "
            f"{shapes}{ctx.error_context()}."
        ) from None
    return ctx


def summarize_node(op: Operation) -> str:
    """`Op[attr=v, ...](in1, in2)` like TF's SummarizeNodeDef (attrs sorted, user attrs
    only, each as SummarizeAttrValue writes it: `shapes.summary`)."""
    attrs = ", ".join(
        f"{k}={summarize_attr(v, _dt_name)}"
        for k, v in sorted(op._attrs.items())
        if not k.startswith("_")
    )
    inputs = ", ".join(t._as_node_def_input() for t in op._inputs)
    return f"{op._type}[{attrs}]({inputs})"


def _dt_name(enum: int) -> str:
    from opgen_runtime.proto import datatypes

    return "DT_" + datatypes.enum_name(enum)[3:]
