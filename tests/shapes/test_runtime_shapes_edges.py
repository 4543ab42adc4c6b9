"""Edge cases of the ported shape functions, TF 2.21 graph mode as the oracle.

Size-0 dimensions, dimension overflow, bad window attrs and TF's exact error texts: each
case is generated (a product of shapes and attrs), built on both sides by
`oracle.shape_differential.build`, and the outcome (output shapes, or the exception type
and its whole message) must be equal. No expectation is written by hand.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

pytestmark = pytest.mark.oracle

F32, I32 = 1, 3


@pytest.fixture(scope="module")
def differential(tf):
    from oracle import shape_differential
    from oracle.tf_registry import tf_op_list_bytes

    from opgen_runtime import register_shape_fn
    from opgen_runtime.ops import registry
    from opgen_runtime.shapes import fns as shape_fns

    registry.register_op_list("tensorflow_registry_shapes", tf_op_list_bytes())
    # another test module may have registered these TF ops first: pin TF's ports
    for op_type, fn in shape_fns.BY_OP.items():
        register_shape_fn(op_type, fn)
    return shape_differential


def _ph(shape: Any, dtype: int = F32) -> tuple[Any, ...]:
    return ("ph", "unknown" if shape is None else shape, dtype)


def _compare(differential, cases: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
    failures = []
    for op, inputs, attrs in cases:
        theirs = differential.build(True, op, inputs, attrs)
        ours = differential.build(False, op, inputs, attrs)
        if ours != theirs:
            failures.append(f"{op} {inputs} {attrs}:\n  ours {ours}\n  TF   {theirs}")
    print(f"{len(cases)} cases")
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} failures)"


# shapes with size-0, size-1, unknown and other dimensions, and unknown rank
ZERO_SHAPES: list[Any] = [
    None, [], [0], [1], [5], [None], [2, 3], [0, 3], [None, 3], [3, 2], [1, 0],
    [0, 1], [None, 0], [0, None], [2, 0, 3],
]


def test_broadcasting_with_size_zero_dims(differential):
    """BroadcastBinaryOpOutputShapeFnHelper: 0 broadcasts only against 1."""
    cases = [
        (op, {"x": _ph(a), "y": _ph(b)}, {})
        for op in ("AddV2", "Maximum")
        for a, b in itertools.product(ZERO_SHAPES, ZERO_SHAPES)
    ]
    cases += [
        ("BroadcastArgs", {"s0": ("const", a), "s1": ("const", b)}, {})
        for a, b in itertools.product([[0], [1], [5], [2, 3], [0, 3], [3, 0]], repeat=2)
    ]
    _compare(differential, cases)


def test_reshape_with_zero_element_tensors(differential):
    """SetOutputShapeForReshape: a 0 in a shape makes its element count known (0), so a
    -1 beside it is not inferred."""
    shapes = [None, [2, 3], [6], [0], [None, 0], [0, None], [None, 3], [None, None], [0, 3], [3, 0, 2]]
    targets = [
        [-1, 0], [0, -1], [2, -1, 0], [-1], [-1, 3], [3, -1], [0], [0, 3], [-1, -1], [6],
        [2, 3], [0, 0], [-1, 2], [], [1, -1],
    ]
    cases = [
        ("Reshape", {"tensor": _ph(s), "shape": ("const", t)}, {})
        for s, t in itertools.product(shapes, targets)
    ]
    _compare(differential, cases)
