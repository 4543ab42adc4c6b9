"""StridedSlice's shape function: TF's ValidateStridedSliceOp (tensorflow/core/util/
strided_slice_op.cc) on a partially known input shape, as array_ops.cc's StridedSlice uses it.
"""

from __future__ import annotations

from ..context import InferenceContext, ShapeError, Values

_NEW_AXIS = -1
_SHRINK_AXIS = -2


def _shape_text(dims: list[int]) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"


def strided_slice_shape(c: InferenceContext) -> None:
    shape = c.input(0)
    begin_shape = c.with_rank(c.input(1), 1)
    end_shape = c.with_rank(c.input(2), 1)
    strides_shape = c.with_rank(c.input(3), 1)
    begin_shape = c.merge(begin_shape, end_shape)
    begin_shape = c.merge(begin_shape, strides_shape)
    sparse_dims = c.dim(begin_shape, 0)
    strides = c.input_tensor(3)
    if shape.dims is None or sparse_dims is None or strides is None:
        c.set_output(0, c.unknown_shape())
        return
    begin = c.input_tensor(1)
    end = c.input_tensor(2)
    dims = [-1 if d is None else d for d in shape.dims]
    final = validate_strided_slice(
        begin,
        end,
        strides,
        dims,
        c.get_attr("begin_mask"),
        c.get_attr("end_mask"),
        c.get_attr("ellipsis_mask"),
        c.get_attr("new_axis_mask"),
        c.get_attr("shrink_axis_mask"),
    )
    c.set_output(0, c.make_shape([None if d < 0 else d for d in final]))


def _canonical(
    x: int,
    which: int,
    stride: int,
    dim: int,
    masks: tuple[int, int],
    valid: tuple[int, int],
) -> int:
    """TF's `canonical` lambda: a begin (which=0) or end (1) index clamped into range."""
    if masks[which]:
        return valid[which] if stride > 0 else valid[(which + 1) & 1]
    forward = dim + x if x < 0 else x
    return valid[0] if forward < valid[0] else min(forward, valid[1])


def validate_strided_slice(
    begin_t: Values | None,
    end_t: Values | None,
    strides_t: Values,
    input_shape: list[int],
    begin_mask_spec: int,
    end_mask_spec: int,
    ellipsis_mask: int,
    new_axis_mask: int,
    shrink_axis_mask: int,
) -> list[int]:
    """The final shape (-1 unknown) of a strided slice, or ShapeError with TF's message."""
    n = len(strides_t[0])

    def wrong(t: Values | None) -> bool:
        return t is not None and not (
            len(t[1]) == 1 and len(t[0]) == n and len(t[0]) < 32
        )

    if wrong(begin_t) or wrong(end_t) or len(strides_t[1]) != 1:
        if begin_t is not None and end_t is not None:
            raise ShapeError(
                "Expected begin, end, and strides to be 1D equal size tensors, but got "
                f"shapes {_shape_text(begin_t[1])}, {_shape_text(end_t[1])}, and "
                f"{_shape_text(strides_t[1])} instead."
            )
        raise ShapeError(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shape "
            f"{_shape_text(strides_t[1])} for strides."
        )
    if ellipsis_mask and ellipsis_mask & (ellipsis_mask - 1):
        raise ShapeError("Multiple ellipses in slice spec not allowed")
    # Step 1: account for the ellipsis and new axes.
    sparse_dims = n
    ellipsis_seen = False
    new_after_ellipsis = 0
    for i in range(sparse_dims):
        if ellipsis_seen and (1 << i) & new_axis_mask:
            new_after_ellipsis += 1
        if (1 << i) & ellipsis_mask:
            ellipsis_seen = True
    if not ellipsis_seen:
        ellipsis_mask |= 1 << sparse_dims
        sparse_dims += 1
    # Step 2: the sparse spec as a dense one (TF's BuildDenseSpec).
    dims = len(input_shape)
    begin = [0] * dims
    end = [0] * dims
    strides = [0] * dims
    begin_mask = end_mask = dense_shrink = 0
    gather: list[int] = []
    full_index = 0
    for i in range(sparse_dims):
        if (1 << i) & ellipsis_mask:
            next_index = min(dims - (sparse_dims - i) + 1 + new_after_ellipsis, dims)
            while full_index < next_index:
                begin[full_index] = end[full_index] = 0
                strides[full_index] = 1
                begin_mask |= 1 << full_index
                end_mask |= 1 << full_index
                gather.append(full_index)
                full_index += 1
        elif (1 << i) & new_axis_mask:
            gather.append(_NEW_AXIS)
        else:
            if full_index == dims:
                if dims == 0:
                    raise ShapeError("Attempting to slice scalar input.")
                raise ShapeError(
                    f"Index out of range using input dim {full_index}; input has only {dims} dims"
                )
            if begin_t is not None:
                begin[full_index] = int(begin_t[0][i])
            if end_t is not None:
                end[full_index] = int(end_t[0][i])
            strides[full_index] = int(strides_t[0][i])
            if begin_mask_spec & (1 << i):
                begin_mask |= 1 << full_index
            if end_mask_spec & (1 << i):
                end_mask |= 1 << full_index
            if shrink_axis_mask & (1 << i):
                gather.append(_SHRINK_AXIS)
                dense_shrink |= 1 << full_index
            else:
                gather.append(full_index)
            full_index += 1
    # Step 3: make implicit ranges explicit and bounds-check them.
    begin_valid = begin_t is not None
    end_valid = end_t is not None
    processing: list[int] = []
    for i in range(dims):
        stride = strides[i]
        dim = input_shape[i]
        if stride == 0:
            raise ShapeError(f"strides[{i}] must be non-zero")
        shrink = bool(dense_shrink & (1 << i))
        if dim == -1:
            processing.append(1 if shrink else -1)
            continue
        masks = (begin_mask & (1 << i), end_mask & (1 << i))
        valid = (0 if stride > 0 else -1, dim if stride > 0 else dim - 1)

        if shrink and stride <= 0:
            raise ShapeError("only stride 1 allowed on non-range indexing.")
        both_masked = bool(masks[0]) and bool(masks[1])
        if begin_valid and end_valid:
            if shrink:
                forward = dim + begin[i] if begin[i] < 0 else begin[i]
                begin[i] = forward
                end[i] = forward + 1
                if forward < 0 or forward >= dim:
                    raise ShapeError(
                        f"slice index {begin[i]} of dimension {i} out of bounds."
                    )
            else:
                begin[i] = _canonical(begin[i], 0, stride, dim, masks, valid)
                end[i] = _canonical(end[i], 1, stride, dim, masks, valid)
        interval: int | None = None
        if begin_valid and end_valid:
            interval = end[i] - begin[i]
        elif shrink:
            interval = 1
        elif both_masked and dim >= 0:
            interval = -dim if stride < 0 else dim
        if interval is None:
            processing.append(-1)
        elif interval == 0 or (interval < 0) != (stride < 0):
            processing.append(0)
        else:
            size = abs(interval) // abs(stride)
            processing.append(size + (1 if abs(interval) % abs(stride) else 0))
    # Step 4: the final shape (new axes add a 1, shrunk axes go).
    final: list[int] = []
    for index in gather:
        if index >= 0:
            final.append(processing[index])
        elif index == _NEW_AXIS:
            final.append(1)
    return final
