"""Constant folding of shape tensors (`opgen_runtime/shapes/constants.py`) against TF 2.21.

TF's ShapeRefiner evaluates the small integer subgraphs a shape function reads
(EvaluateConstantTensor, tensorflow/core/common_runtime/eval_const_tensor.cc). Random
small graphs over `Shape`/`Size`/`Rank` of placeholders and constants, through the ops the
runtime folds (and a few it does not), are built on both sides; each result is fed to
consumers that read its value (Reshape, Fill, BroadcastTo, Tile; a scalar through Pack),
and their outcome (output shapes, or the exception type and whole message) must be equal.
No expectation is written by hand.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

pytestmark = pytest.mark.oracle

F32, I32, I64 = 1, 3, 9
U = "unknown"


def build(is_tf: bool, spec: Any) -> Any:
    """Builds the nested spec (`shape_differential.make_input`'s) in a fresh graph: the last
    op's output shapes, or (type, message) of the exception."""
    from oracle.shape_differential import graph_and_helper, make_input

    graph, lib = graph_and_helper(is_tf)
    with graph.as_default():
        try:
            out = make_input(lib, spec)
        except Exception as e:  # noqa: BLE001 - the outcome is the exception
            return (type(e).__name__, str(e))
    return None if out.shape.rank is None else tuple(out.shape.as_list())


# attrs with defaults, which `_apply_op_helper` wants named (None takes the default)
DEFAULTED = {
    "Shape": ["out_type"],
    "ShapeN": ["out_type"],
    "Size": ["out_type"],
    "Squeeze": ["squeeze_dims"],
    "Sum": ["keep_dims"],
    "Prod": ["keep_dims"],
    "Max": ["keep_dims"],
    "Min": ["keep_dims"],
    "Mean": ["keep_dims"],
    "GatherV2": ["batch_dims"],
    "Unpack": ["axis"],
    "Pack": ["axis"],
    "Cast": ["Truncate"],
    "StridedSlice": ["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"],
}


def _op(name: str, inputs: dict[str, Any], attrs: dict[str, Any] | None = None, index: int = 0) -> Any:
    return ("op", name, inputs, {**dict.fromkeys(DEFAULTED.get(name, [])), **(attrs or {})}, index)


def _ph(shape: Any, dtype: int = F32) -> Any:
    return ("ph", shape, dtype)


SHAPES: list[Any] = [[2, 3], [4, 1, 5], [6], [], [2, None, 3], [1, 1], [0, 3], [3, 2, 2, 1], [65536, 32768, 4]]


def _leaf(rng: random.Random) -> Any:
    kind = rng.choice(["shape", "shape", "shape", "shape64", "shapen", "size", "rank", "const", "const2"])
    shape = rng.choice(SHAPES)
    if kind == "shape":
        return _op("Shape", {"input": _ph(shape)})
    if kind == "shape64":
        return _op("Shape", {"input": _ph(shape)}, {"out_type": I64})
    if kind == "shapen":  # TF reads no ShapeN value from shapes, only from constant inputs
        inputs = rng.choice([[_ph(shape), _ph([4])], [("const", [[1, 2, 3]]), ("const", [5, 6])]])
        return _op("ShapeN", {"input": ("list", inputs)}, {}, rng.randrange(2))
    if kind == "size":
        return _op("Size", {"input": _ph(shape)})
    if kind == "rank":
        return _op("Rank", {"input": _ph(shape)})
    if kind == "const":
        return ("const", rng.choice([[2, 3], [4], [3, 1, 2], 5, [7, -1]]))
    return ("const", rng.choice([[[1, 2], [3, 4]], [[2, 3, 4]], [[5], [6]]]))


def _unary(rng: random.Random, t: Any) -> Any:
    """One folding step over t (sometimes an invalid one: TF then rejects or gives no value)."""
    kind = rng.choice(
        [
            "Reshape",
            "ExpandDims",
            "Squeeze",
            "Tile",
            "Sum",
            "Prod",
            "Max",
            "Min",
            "Mean",
            "Slice",
            "Transpose",
            "GatherV2",
            "StridedSlice",
            "Unpack",
            "Cast",
            "Mul",
            "Sub",
            "FloorDiv",
            "FloorMod",
            "RealDiv",
            "FloatMul",
            "Maximum",
            "ZerosLike",
            "OnesLike",
            "Pack",
            "ConcatV2",
            "Identity",
            "PackAxis",
            "BroadcastArgs",
        ]
    )
    if kind == "Reshape":
        return _op(
            kind,
            {"tensor": t, "shape": ("const", rng.choice([[-1], [1, -1], [-1, 1], [2, -1], [3], [-1, -1], [2, 2]]))},
        )
    if kind == "ExpandDims":
        return _op(kind, {"input": t, "dim": ("const", rng.choice([0, -1, 1, -2, 3]))})
    if kind == "Squeeze":
        return _op(kind, {"input": t}, {"squeeze_dims": rng.choice([[], [0], [-1], [1]])})
    if kind == "Tile":
        return _op(kind, {"input": t, "multiples": ("const", rng.choice([[2], [0], [1, 2], [3], [2, 1]]))})
    if kind in ("Sum", "Prod", "Max", "Min", "Mean"):
        axis = rng.choice([0, -1, [0], [], [0, 0], 1, [1, 0], 2])
        return _op(kind, {"input": t, "reduction_indices": ("const", axis)}, {"keep_dims": rng.random() < 0.3})
    if kind == "Slice":
        begin, size = rng.choice([([1], [-1]), ([0], [1]), ([1], [2]), ([2], [5]), ([0, 1], [1, -1]), ([3], [0])])
        return _op(kind, {"input": t, "begin": ("const", begin), "size": ("const", size)})
    if kind == "Transpose":
        return _op(kind, {"x": t, "perm": ("const", rng.choice([[0], [1, 0], []]))})
    if kind == "GatherV2":
        indices = rng.choice([[0, 2], [[1], [0]], 2, [-1], [5], 0, [1, 1]])
        return _op(kind, {"params": t, "indices": ("const", indices), "axis": ("const", rng.choice([0, -1, 1]))})
    if kind == "StridedSlice":
        begin, end, stride, masks = rng.choice(
            [
                ([1], [2], [1], {"shrink_axis_mask": 1}),
                ([-1], [0], [1], {"shrink_axis_mask": 1}),
                ([0], [-1], [1], {}),
                ([1], [0], [1], {"end_mask": 1}),
                ([0], [0], [2], {"begin_mask": 1, "end_mask": 1}),
                ([0], [3], [1], {"shrink_axis_mask": 1}),
                ([5], [6], [1], {"shrink_axis_mask": 1}),
            ]
        )
        inputs = {"input": t, "begin": ("const", begin), "end": ("const", end), "strides": ("const", stride)}
        return _op(kind, inputs, masks)
    if kind == "Unpack":
        num = rng.choice([1, 2, 3])
        return _op(kind, {"value": t}, {"num": num, "axis": 0}, rng.randrange(num))
    if kind == "FloatMul":  # float32 arithmetic between casts
        scaled = _op(
            "Mul", {"x": _op("Cast", {"x": t}, {"DstT": F32}), "y": ("const", rng.choice([0.5, 1.5, 0.1, 3.0]))}
        )
        return _op("Cast", {"x": scaled}, {"DstT": rng.choice([I32, I64])})
    if kind == "Cast":
        return _op(kind, {"x": t}, {"DstT": rng.choice([I32, I64])})
    if kind in ("Mul", "Sub", "FloorDiv", "FloorMod", "RealDiv", "Maximum"):
        return _op(kind, {"x": t, "y": ("const", rng.choice([2, -1, 3, 0]))})
    if kind in ("ZerosLike", "OnesLike", "Identity"):
        return _op(kind, {"x" if kind != "Identity" else "input": t})
    if kind == "PackAxis":
        axis = rng.choice([0, 1, -1, 2])
        return _op("Pack", {"values": ("list", [t, t])}, {"axis": axis})
    if kind == "BroadcastArgs":
        other = rng.choice([[1], [3, 1], [2, 1, 3], [], [0], [4, 5, 6, 7]])
        return _op(kind, {"s0": t, "s1": ("const", other)})
    if kind == "Pack":
        return _op(kind, {"values": ("list", [t, ("const", rng.choice([1, 2]))])})
    return _op(kind, {"values": ("list", [t, ("const", [4])]), "axis": ("const", 0)})


def _consumers(t: Any) -> list[Any]:
    """Ops whose static output shape shows t's value as the shape refiner knows it."""
    return [
        _op("Reshape", {"tensor": _ph(U), "shape": t}),
        _op("Fill", {"dims": t, "value": ("const", 0.0)}),
        _op("BroadcastTo", {"input": _ph([]), "shape": t}),
        _op("Tile", {"input": _ph([1, 1]), "multiples": t}),
        _op("Reshape", {"tensor": _ph(U), "shape": _op("Pack", {"values": ("list", [t, ("const", 2)])})}),
    ]


def _expressions(seed: int, count: int) -> list[Any]:
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        t = _leaf(rng)
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            t = _unary(rng, t)
        found.append(t)
    return found


def _compare(specs: list[Any]) -> None:
    failures = []
    for spec in specs:
        theirs, ours = build(True, spec), build(False, spec)
        if ours != theirs:
            failures.append(f"{spec}:\n  ours {ours}\n  TF   {theirs}")
    print(f"{len(specs)} graphs")
    assert not failures, "\n".join(failures[:10]) + f"\n({len(failures)} failures)"


def test_repro_cases(differential):
    """The user's report: shape tensors built from a known Shape through Reshape, Tile, Sum
    and ExpandDims+Squeeze are folded by TF's shape refiner."""
    a = _op("Shape", {"input": _ph([2, 3])})
    specs = [
        _op("Reshape", {"tensor": _ph([6]), "shape": _op("Reshape", {"tensor": a, "shape": ("const", [-1])})}),
        _op("Reshape", {"tensor": _ph([36]), "shape": _op("Tile", {"input": a, "multiples": ("const", [2])})}),
        _op(
            "Reshape",
            {
                "tensor": _ph([None]),
                "shape": _op(
                    "Pack",
                    {"values": ("list", [_op("Sum", {"input": a, "reduction_indices": ("const", 0)}), ("const", 1)])},
                ),
            },
        ),
        _op(
            "Reshape",
            {
                "tensor": _ph([6]),
                "shape": _op("Squeeze", {"input": _op("ExpandDims", {"input": a, "dim": ("const", 0)})}),
            },
        ),
    ]
    outcomes = [build(False, s) for s in specs]
    assert outcomes == [(2, 3), (2, 3, 2, 3), (5, 1), (2, 3)]
    _compare(specs)


def test_common_model_patterns(differential):
    """Shape arithmetic as model code writes it: concat(shape(x)[:-1], [n]), reduce_prod of
    a shape or of its tail, gather(shape(x), [0, 2]), unstack(shape(x)), shape(x)[i] of a
    partly known shape."""
    x = _ph([4, 5, 6])
    partial = _ph([None, 5, 6])
    s, sp = _op("Shape", {"input": x}), _op("Shape", {"input": partial})

    def sl(t: Any, begin: int, end: int, **masks: int) -> Any:
        inputs = {"input": t, "begin": ("const", [begin]), "end": ("const", [end]), "strides": ("const", [1])}
        return _op("StridedSlice", inputs, masks)

    values = [
        _op("ConcatV2", {"values": ("list", [sl(s, 0, -1), ("const", [3])]), "axis": ("const", 0)}),
        _op("Pack", {"values": ("list", [_op("Prod", {"input": s, "reduction_indices": ("const", 0)}), ("const", 1)])}),
        _op(
            "Pack",
            {
                "values": (
                    "list",
                    [
                        sl(s, 0, 0, shrink_axis_mask=1),
                        _op("Prod", {"input": sl(s, 1, 0, end_mask=1), "reduction_indices": ("const", 0)}),
                    ],
                )
            },
        ),
        _op("GatherV2", {"params": s, "indices": ("const", [0, 2]), "axis": ("const", 0)}),
        _op("Pack", {"values": ("list", [_op("Unpack", {"value": s}, {"num": 3}, 2), ("const", -1)])}),
        _op("Pack", {"values": ("list", [_op("Unpack", {"value": sp}, {"num": 3}, 1), ("const", -1)])}),
        _op(
            "Pack",
            {
                "values": (
                    "list",
                    [
                        _op("Mul", {"x": sl(sp, 1, 2, shrink_axis_mask=1), "y": sl(sp, -1, 0, shrink_axis_mask=1)}),
                        ("const", -1),
                    ],
                )
            },
        ),
        _op(
            "Pack", {"values": ("list", [_op("Max", {"input": s, "reduction_indices": ("const", [0])}), ("const", 2)])}
        ),
        _op(
            "Reshape",
            {
                "tensor": _op(
                    "Transpose",
                    {"x": _op("Reshape", {"tensor": s, "shape": ("const", [3, 1])}), "perm": ("const", [1, 0])},
                ),
                "shape": ("const", [-1]),
            },
        ),
        _op("Slice", {"input": s, "begin": ("const", [1]), "size": ("const", [-1])}),
        _op(
            "Mean",
            {"input": _op("Reshape", {"tensor": s, "shape": ("const", [3, 1])}), "reduction_indices": ("const", 1)},
        ),
    ]
    _compare([c for v in values for c in _consumers(v)])


@pytest.mark.parametrize("seed", [0, 1])
def test_random_shape_graphs(differential, seed):
    """Random chains of up to three folding steps over shape leaves, each read by every
    consumer: the runtime gives TF's value, or both reject with the same message."""
    _compare([c for e in _expressions(seed, 120) for c in _consumers(e)])
