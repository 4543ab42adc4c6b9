"""Ports of TF's common shape functions (tensorflow/core/framework/common_shape_fns.cc).

`NAMED` maps the names TF registers them under (`SetShapeFn(shape_inference::X)`) to the
ports, looked up by the name a generated module declares; the names and which port each
gets are the table in `shapes.fn_names`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..context import DimensionHandle, InferenceContext, ShapeError, ShapeHandle, Values
from ..fn_names import PORTS

ShapeFn = Callable[[InferenceContext], None]


def scalar_from_tensor(value: Values) -> int:
    """TF's InferenceContext::GetScalarFromTensor."""
    if value[1]:
        raise ShapeError(f"Input must be scalar but has rank {len(value[1])}")
    return int(value[0][0])


def unchanged_shape(c: InferenceContext) -> None:
    c.set_output(0, c.input(0))


def unchanged_shape_with_rank(c: InferenceContext, rank: int) -> None:
    c.set_output(0, c.with_rank(c.input(0), rank))


def unchanged_shape_with_rank_at_least(c: InferenceContext, rank: int) -> None:
    c.set_output(0, c.with_rank_at_least(c.input(0), rank))


def unchanged_shape_with_rank_at_most(c: InferenceContext, rank: int) -> None:
    c.set_output(0, c.with_rank_at_most(c.input(0), rank))


def scalar_input_dim(c: InferenceContext, index: int) -> int | None:
    """TF's MakeDimForScalarInput: a constant scalar input as a non-negative dimension."""
    value = c.input_tensor(index)
    if value is None:
        return None
    dim = scalar_from_tensor(value)
    if dim < 0:
        raise ShapeError(
            f"Dimension size, given by scalar input {index}, must be non-negative but is {dim}"
        )
    return dim


def scalar_shape(c: InferenceContext) -> None:
    c.set_output(0, c.scalar())


def no_outputs(c: InferenceContext) -> None:
    return None


def unknown_shape(c: InferenceContext) -> None:
    for i in range(c.num_outputs):
        c.set_output(i, c.unknown_shape())


def mat_mul_shape(c: InferenceContext) -> None:
    a = c.with_rank(c.input(0), 2)
    b = c.with_rank(c.input(1), 2)
    transpose_a = c.get_attr("transpose_a")
    transpose_b = c.get_attr("transpose_b")
    rows = c.dim(a, 1 if transpose_a else 0)
    cols = c.dim(b, 0 if transpose_b else 1)
    c.merge_dim(c.dim(a, 0 if transpose_a else 1), c.dim(b, 1 if transpose_b else 0))
    c.set_output(0, c.matrix(rows, cols))


def broadcast_binary_op_shape(c: InferenceContext) -> None:
    c.set_output(0, broadcast_shapes(c, c.input(0), c.input(1)))


def broadcast_binary_op_output_shape(c: InferenceContext, output_index: int) -> None:
    """TF's BroadcastBinaryOpOutputShapeFn(c, output_index) (common_shape_fns.h)."""
    c.set_output(output_index, broadcast_shapes(c, c.input(0), c.input(1)))


def broadcast_binary_op_output_shape_helper(
    c: InferenceContext, x: ShapeHandle, y: ShapeHandle, incompatible_shape_error: bool
) -> ShapeHandle:
    """TF's BroadcastBinaryOpOutputShapeFnHelper(c, x, y, true, &out) (common_shape_fns.cc):
    translated shape functions call it with incompatible_shape_error true only."""
    assert incompatible_shape_error
    return broadcast_shapes(c, x, y)


def broadcast_shapes(
    c: InferenceContext, x: ShapeHandle, y: ShapeHandle
) -> ShapeHandle:
    """TF's BroadcastBinaryOpOutputShapeFnHelper (common_shape_fns.cc) with
    incompatible_shape_error true, case by case: a known size-0 dimension broadcasts only
    against 1 (against another known size it is merged, so `[0]+[5]` fails naming x's size
    first), and against an unknown one gives an unknown dimension."""
    if x.dims is None or y.dims is None:
        return c.unknown_shape()
    rank = max(len(x.dims), len(y.dims))
    pad_x = rank - len(x.dims)
    pad_y = rank - len(y.dims)
    dims: list[int | None] = []
    for i in range(rank):
        dx = 1 if i < pad_x else x.dims[i - pad_x]
        dy = 1 if i < pad_y else y.dims[i - pad_y]
        if dx is None or dy is None:
            # TF compares Value(), -1 for an unknown dimension
            if dx is not None and dx > 1:
                dims.append(dx)
            elif (dy is not None and dy > 1) or dx == 1:
                dims.append(dy)
            elif dy == 1:
                dims.append(dx)
            else:
                # both unknown (TF keeps dim_x when they are one handle: unknown either
                # way), or unknown against 0: an unknown dimension
                dims.append(None)
        elif dx == 1 or dy == 1:
            dims.append(dy if dx == 1 and i >= pad_y else dx)
        else:
            dims.append(c.merge_dim(dx, dy))
    return c.make_shape(dims)


def reduction_shape(c: InferenceContext) -> None:
    shape = c.input(0)
    c.with_rank_at_most(c.input(1), 1)
    keep_dims = c.get_attr("keep_dims")
    indices = c.input_tensor(1)
    if indices is None or shape.dims is None:
        if keep_dims and shape.dims is not None:
            c.set_output(0, c.unknown_shape_of_rank(len(shape.dims)))
        else:
            c.set_output(0, c.unknown_shape())
        return
    rank = len(shape.dims)
    reduced = set()
    for index in indices[0]:
        if index < -rank or index >= rank:
            raise ShapeError(
                f"Invalid reduction dimension {index} for input with {rank} dimensions."
            )
        reduced.add(index + rank if index < 0 else index)
    dims: list[int | None] = []
    for i, d in enumerate(shape.dims):
        if i in reduced:
            if keep_dims:
                dims.append(1)
        else:
            dims.append(d)
    c.set_output(0, c.make_shape(dims))


def concat_inputs_shape(
    c: InferenceContext, start: int, end: int, dim_index: int
) -> None:
    """TF's ConcatShapeHelper (common_shape_fns.cc): inputs [start, end) joined along the
    scalar input dim_index. As TF 2.21 does (the oracle's order, tests/shapes/
    test_runtime_shapes_edges.py), every input must have the first known rank, and a first
    known rank of 0 is "Can't concatenate scalars", whether or not the axis is known."""
    c.with_rank(c.input(dim_index), 0)
    axis = c.input_tensor(dim_index)
    rank = None
    for i in range(start, end):
        if rank is None:
            rank = c.rank(c.input(i))
            if rank == 0:
                raise ShapeError("Can't concatenate scalars (use tf.stack instead)")
        if rank is not None:
            c.with_rank(c.input(i), rank)
    if axis is None:
        c.set_output(0, c.unknown_shape() if rank is None else c.unknown_shape_of_rank(rank))
        return
    concat_dim = int(axis[0][0])
    min_rank = -concat_dim if concat_dim < 0 else concat_dim + 1

    def split(shape: ShapeHandle) -> tuple[ShapeHandle, DimensionHandle, ShapeHandle]:
        shape = c.with_rank_at_least(shape, min_rank)
        before = c.subshape(shape, 0, concat_dim)
        middle = c.dim(shape, concat_dim)
        after = c.scalar() if concat_dim == -1 else c.subshape(shape, concat_dim + 1)
        return before, middle, after

    out_before, out_middle, out_after = split(c.input(end - 1))
    for i in range(end - 2, start - 1, -1):
        before, middle, after = split(c.input(i))
        out_before = c.merge(before, out_before)
        out_middle = c.add(out_middle, middle)
        out_after = c.merge(after, out_after)
    c.set_output(
        0, c.concatenate(c.concatenate(out_before, c.vector(out_middle)), out_after)
    )


def concat_v2_shape(c: InferenceContext) -> None:
    concat_inputs_shape(c, 0, c.num_inputs - 1, c.num_inputs - 1)


def concat_shape(c: InferenceContext) -> None:
    concat_inputs_shape(c, 1, c.num_inputs, 0)


def add_n_shape(c: InferenceContext) -> None:
    current = c.input(c.num_inputs - 1)
    for i in range(c.num_inputs - 2, -1, -1):
        current = merge_from_input(c, i, current)
    c.set_output(0, current)


def merge_from_input(c: InferenceContext, i: int, current: ShapeHandle) -> ShapeHandle:
    """Input i merged into `current`, with the context TF adds to a failed merge."""
    try:
        return c.merge(c.input(i), current)
    except ShapeError as e:
        raise ShapeError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None


def merge_both_inputs_shape(c: InferenceContext) -> None:
    c.set_output(0, c.merge(c.input(0), c.input(1)))


def explicit_shape(c: InferenceContext) -> None:
    c.set_output(0, c.make_shape_from_attr(c.get_attr("shape")))


def bias_add_shape(c: InferenceContext) -> None:
    nchw = c.has_attr("data_format") and c.get_attr("data_format") == b"NCHW"
    shape = c.with_rank_at_least(c.input(0), 3 if nchw else 2)
    bias = c.with_rank(c.input(1), 1)
    if shape.dims is None:
        c.set_output(0, c.unknown_shape())
        return
    channel = 1 if nchw else len(shape.dims) - 1
    c.set_output(
        0,
        c.replace_dim(shape, channel, c.merge_dim(shape.dims[channel], c.dim(bias, 0))),
    )


def _windowed_output_size(
    c: InferenceContext,
    size: DimensionHandle,
    window: DimensionHandle,
    dilation: int,
    stride: int,
    padding: bytes,
    pad_before: int = 0,
    pad_after: int = 0,
) -> DimensionHandle:
    """TF's GetWindowedOutputSizeFromDimsV2 (common_shape_fns.cc), step by step with the
    context's Add/Subtract/Multiply/Divide, so each error (a 0-size window under dilation
    included, even beside an unknown size) is TF's."""
    if stride <= 0:
        raise ShapeError(f"Stride must be > 0, but got {stride}")
    if dilation < 1:
        raise ShapeError(f"Dilation rate must be >= 1, but got {dilation}")
    if padding == b"SAME":
        return c.divide(c.add(size, stride - 1), stride, False)
    if padding != b"EXPLICIT":  # VALID
        pad_before = pad_after = 0
    size = c.add(size, pad_before + pad_after)
    if dilation > 1:
        effective = c.subtract(window, 1)
        effective = c.add(c.multiply(effective, dilation), 1)
        out = c.subtract(size, effective)
    else:
        out = c.subtract(size, window)
    return c.divide(c.add(out, stride), stride, False)


def check_valid_padding(
    padding: bytes, explicit: list[int], num_dims: int, nchw: bool
) -> None:
    """TF's CheckValidPadding (tensorflow/core/util/padding.cc) for NHWC / NCHW layouts."""
    if padding == b"EXPLICIT":
        if len(explicit) != 2 * num_dims:
            raise ShapeError(
                f"explicit_paddings attribute must contain {2 * num_dims} values, "
                f"but got: {len(explicit)}"
            )
        if any(v < 0 for v in explicit):
            raise ShapeError("All elements of explicit_paddings must be nonnegative")
        batch, depth = 0, (1 if nchw else num_dims - 1)
        if any(explicit[i] for i in (2 * batch, 2 * batch + 1, 2 * depth, 2 * depth + 1)):
            raise ShapeError(
                "Nonzero explicit padding in the batch or depth dimensions is not supported"
            )
    elif explicit:
        raise ShapeError(
            "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT"
        )


def _explicit_pads(c: InferenceContext, padding: bytes, nchw: bool) -> list[int]:
    """(rows before, rows after, cols before, cols after): CheckValidPadding on the
    `explicit_paddings` attr (empty when the op has none), then TF's
    GetExplicitPaddingForDim for H and W under EXPLICIT padding, else zeros."""
    explicit = (
        list(c.get_attr("explicit_paddings")) if c.has_attr("explicit_paddings") else []
    )
    check_valid_padding(padding, explicit, 4, nchw)
    if padding != b"EXPLICIT":
        return [0, 0, 0, 0]
    rows, cols = (2, 3) if nchw else (1, 2)
    return [
        explicit[2 * rows],
        explicit[2 * rows + 1],
        explicit[2 * cols],
        explicit[2 * cols + 1],
    ]


def _spatial(c: InferenceContext, values: list[int], nchw: bool) -> tuple[int, int]:
    return (values[2], values[3]) if nchw else (values[1], values[2])


def _conv(c: InferenceContext, depthwise: bool) -> None:
    nchw = c.has_attr("data_format") and c.get_attr("data_format") == b"NCHW"
    format_name = "NCHW" if nchw else "NHWC"
    shape = c.with_rank(c.input(0), 4)
    filt = c.with_rank(c.input(1), 4)
    strides = c.get_attr("strides")
    dilations = c.get_attr("dilations")
    if depthwise:
        # DepthwiseConv2DNativeShapeImpl: strides first, under its own name
        if len(strides) != 4:
            raise ShapeError(
                "DepthwiseConv2D requires the stride attribute to contain 4 values, "
                f"but got: {len(strides)}"
            )
        if len(dilations) != 4:
            raise ShapeError(
                "DepthwiseConv2D requires the dilations attribute to contain 4 values, "
                f"but got: {len(dilations)}"
            )
    else:
        # Conv2DShapeImpl: dilations first; the stride message names the data format
        if len(dilations) != 4:
            raise ShapeError(
                "Conv2D requires the dilation attribute to contain 4 values, "
                f"but got: {len(dilations)}"
            )
        if len(strides) != 4:
            raise ShapeError(
                f"Conv2D on data format {format_name} requires the stride attribute to "
                f"contain 4 values, but got: {len(strides)}"
            )
    stride_rows, stride_cols = _spatial(c, strides, nchw)
    dilation_rows, dilation_cols = _spatial(c, dilations, nchw)
    if nchw:
        batch, depth, rows, cols = shape.known_dims()
    else:
        batch, rows, cols, depth = shape.known_dims()
    filter_rows, filter_cols, filter_depth, out_depth = filt.known_dims()
    if depthwise:
        depth = c.merge_dim(depth, filter_depth)
        out_depth = c.multiply(depth, out_depth)
    elif depth is not None and filter_depth is not None:
        if filter_depth == 0:
            raise ShapeError("Depth of filter must not be 0")
        if depth % filter_depth != 0:
            raise ShapeError(
                f"Depth of input ({depth}) is not a multiple of input depth of filter ({filter_depth})"
            )
        groups = depth // filter_depth
        if out_depth is not None and groups == 0:  # checked only beside a known output depth
            raise ShapeError("Number of groups must not be 0")
        if out_depth is not None and out_depth % groups != 0:
            raise ShapeError(
                f"Depth of output ({out_depth}) is not a multiple of the number of groups ({groups})"
            )
    padding = c.get_attr("padding")
    pads = _explicit_pads(c, padding, nchw)
    out_rows = _windowed_output_size(
        c, rows, filter_rows, dilation_rows, stride_rows, padding, pads[0], pads[1]
    )
    out_cols = _windowed_output_size(
        c, cols, filter_cols, dilation_cols, stride_cols, padding, pads[2], pads[3]
    )
    dims = (
        [batch, out_depth, out_rows, out_cols]
        if nchw
        else [batch, out_rows, out_cols, out_depth]
    )
    c.set_output(0, c.make_shape(dims))


def conv2d_shape(c: InferenceContext) -> None:
    _conv(c, depthwise=False)


def depthwise_conv2d_shape(c: InferenceContext) -> None:
    _conv(c, depthwise=True)


def max_pool_shape(c: InferenceContext) -> None:
    _pool(c, "MaxPool", pool_depth=True)


def avg_pool_shape(c: InferenceContext) -> None:
    _pool(c, "AvgPool", pool_depth=False)


def _pool(c: InferenceContext, name: str, pool_depth: bool) -> None:
    pool_shape(c, name, pool_depth, c.get_attr("ksize"), c.get_attr("strides"))


def pool_shape(
    c: InferenceContext,
    name: str,
    pool_depth: bool,
    ksize: list[int],
    strides: list[int],
) -> None:
    """TF's MaxPoolShape/AvgPoolShape with the window given."""
    nchw = c.has_attr("data_format") and c.get_attr("data_format") == b"NCHW"
    shape = c.with_rank(c.input(0), 4)
    if len(strides) != 4:
        raise ShapeError(
            f"{name} requires the stride attribute to contain 4 values, but got: {len(strides)}"
        )
    if len(ksize) != 4:
        raise ShapeError(
            f"{name} requires the ksize attribute to contain 4 values, but got: {len(ksize)}"
        )
    if nchw:
        batch, depth, rows, cols = shape.known_dims()
        window_depth, stride_depth = ksize[1], strides[1]
    else:
        batch, rows, cols, depth = shape.known_dims()
        window_depth, stride_depth = ksize[3], strides[3]
    stride_rows, stride_cols = _spatial(c, strides, nchw)
    ksize_rows, ksize_cols = _spatial(c, ksize, nchw)
    padding = c.get_attr("padding")
    pads = _explicit_pads(c, padding, nchw)
    out_rows = _windowed_output_size(
        c, rows, ksize_rows, 1, stride_rows, padding, pads[0], pads[1]
    )
    out_cols = _windowed_output_size(
        c, cols, ksize_cols, 1, stride_cols, padding, pads[2], pads[3]
    )
    out_depth = (
        _windowed_output_size(c, depth, window_depth, 1, stride_depth, padding)
        if pool_depth
        else depth
    )
    dims = (
        [batch, out_depth, out_rows, out_cols]
        if nchw
        else [batch, out_rows, out_cols, out_depth]
    )
    c.set_output(0, c.make_shape(dims))


# Each port by the name TF registers it under, from the table the generator reads too.
NAMED: dict[str, ShapeFn] = {name: globals()[port] for name, port in PORTS.items()}

# TF's common functions that take arguments after the context (common_shape_fns.h), which a
# translated shape function calls (`return shape_inference::UnchangedShapeWithRank(c, 2);`);
# not `SetShapeFn` names. opgen/shape_translate/parser.py's `_COMMON_WITH_ARGS` lists them.
WITH_ARGS: dict[str, Callable[..., ShapeHandle | None]] = {
    "UnchangedShapeWithRank": unchanged_shape_with_rank,
    "UnchangedShapeWithRankAtLeast": unchanged_shape_with_rank_at_least,
    "UnchangedShapeWithRankAtMost": unchanged_shape_with_rank_at_most,
    "BroadcastBinaryOpOutputShapeFn": broadcast_binary_op_output_shape,
    "BroadcastBinaryOpOutputShapeFnHelper": broadcast_binary_op_output_shape_helper,
}
