"""Einsum's shape function: TF's EinsumShape (common_shape_fns.cc) with its equation checks."""

from __future__ import annotations

from ..context import InferenceContext, ShapeError, ShapeHandle
from .common import broadcast_shapes


def _ellipsis(subscript: str) -> bool:
    """TF's ValidateEinsumEllipsis."""
    periods = subscript.count(".")
    if periods not in (0, 3):
        raise ShapeError(
            f"Expected at most one ellipsis (...), but found {periods} periods (.) in the "
            f"input subscript: {subscript}"
        )
    if periods == 3 and "..." not in subscript:
        raise ShapeError(f"Periods found outside of ellipsis in subscript: {subscript}")
    return periods > 0


def einsum_shape(c: InferenceContext) -> None:
    equation = c.get_attr("equation").decode("utf-8", "replace")
    parts = equation.split("->")
    if len(parts) != 2:
        raise ShapeError(f"Expecting exactly one '->' in einsum equation: {equation}")
    output_labels = parts[1]
    input_labels = parts[0].split(",")
    if len(input_labels) not in (1, 2):
        raise ShapeError(
            f"Expecting 1 or 2 input subscripts in equation '{equation}' but got: "
            f"{len(input_labels)}"
        )
    if c.num_inputs == 0 or c.num_inputs > 2:
        raise ShapeError(f"Expected either 1 or 2 inputs but got: {c.num_inputs}")
    if c.num_inputs != len(input_labels):
        raise ShapeError(
            f"Expected {len(input_labels)} inputs for equation {equation} but got: {c.num_inputs}"
        )
    dims: dict[str, int | None] = {}
    bcast: list[ShapeHandle] = []
    for i, labels in enumerate(input_labels):
        has_ellipsis = _ellipsis(labels)
        shape = c.input(i)
        if shape.dims is not None:
            try:
                if has_ellipsis:
                    shape = c.with_rank_at_least(shape, len(labels) - 3)
                else:
                    shape = c.with_rank(shape, len(labels))
            except ShapeError as e:
                raise ShapeError(
                    f"{e}\n\t for {i}th input and equation: {equation}"
                ) from None
        seen_ellipsis = False
        input_bcast = c.scalar()
        index = 0
        while index < len(labels):
            label = labels[index]
            before = index
            after = (
                index + len(shape.dims) - len(labels) if shape.dims is not None else -1
            )
            if label == ".":
                if shape.dims is None:
                    input_bcast = c.unknown_shape()
                else:
                    input_bcast = c.subshape(shape, before, after + 3)
                index += 3
                seen_ellipsis = True
                continue
            axis = after if seen_ellipsis else before
            new = c.dim(shape, axis) if shape.dims is not None else None
            dims[label] = c.merge_dim(dims[label], new) if label in dims else new
            index += 1
        bcast.append(input_bcast)
    out_bcast = bcast[0] if len(bcast) == 1 else broadcast_shapes(c, bcast[0], bcast[1])
    if _ellipsis(output_labels):
        if out_bcast.dims is None:
            c.set_output(0, c.unknown_shape())
            return
    else:
        try:
            c.with_rank_at_most(out_bcast, 0)
        except ShapeError as e:
            raise ShapeError(
                f"{e}\n\t for einsum equation '{equation}' without ellipsis (...) in the "
                "output subscripts where input(s) have non-empty broadcasting shape"
            ) from None
        out_bcast = c.scalar()
    out: list[int | None] = []
    index = 0
    while index < len(output_labels):
        label = output_labels[index]
        if label == ".":
            out.extend(out_bcast.known_dims())
            index += 3
            continue
        if label not in dims:
            raise ShapeError(
                f"Einsum output subscripts for equation '{equation}' has label '{label}' "
                "which is not present in the input subscripts"
            )
        out.append(dims[label])
        index += 1
    c.set_output(0, c.make_shape(out))
