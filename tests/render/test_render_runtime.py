"""Generated bodies run on opgen_runtime: list checks, attr defaults/conversions, list and
tuple outputs, stateful no-output rules (docs/runtime.md; TF's wrappers as
`tensorflow/python/framework/python_op_gen.cc` writes them)."""

from __future__ import annotations

import importlib.util
import sys
import typing

import pytest
from support.paths import TESTS

GOLDEN = TESTS / "golden" / "render"


def _load(case: str, module: str):
    path = GOLDEN / case / "expected" / f"{module}.py"
    spec = importlib.util.spec_from_file_location(f"render_rt_{module}", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def sig():
    return _load("signature", "gen_signature_ops")


def test_outputs_and_lists(sig):
    import opgen_runtime as rt

    with rt.Graph().as_default():
        r = sig.many_outputs(1.0, n=2)
        assert type(r).__name__ == "ManyOutputs" and r._fields == ("first", "middle", "count", "last_list")
        assert len(r.middle) == 2 and len(r.last_list) == 2 and not isinstance(r.count, list)
        assert len(sig.split_like(0, [1.0, 2.0, 3.0], num_split=3)) == 3
        assert sig.list_inputs([1, 2], [3, 4], [5]).dtype.name == "int32"
        assert type(sig.no_outputs(1.0)).__name__ == "Operation"
        assert type(sig.stateful_list_output(n=0)).__name__ == "Operation"  # empty stateful list -> the op
        assert len(sig.type_lists([1, 2.0], Tout=[rt.dtypes.float32, rt.dtypes.int32])) == 2
        z = sig.ordering(1.0, 2.0, required="r", dst=rt.dtypes.int32)
        assert z.dtype.name == "int64"  # out_type's default


def test_annotations_evaluate_to_the_runtime_types(sig):
    """`typing.get_type_hints` of a wrapper gives opgen_runtime's types, TF's dtype TypeVars as
    `Annotated` metadata and the result's namedtuple class; `TensorLike`'s recursive member (a
    nested sequence) evaluates to `TensorLike` again, though the wrapper's module has no such
    name. (support/call_wrappers.py evaluates every module the tests build; this, to what.)"""
    from opgen_runtime import typing_aliases

    hints = typing.get_type_hints(sig.many_outputs, include_extras=True)
    tensor_like, typevar = typing.get_args(hints["x"])
    assert typevar is sig.TV_ManyOutputs_T
    assert hints["n"] is int and hints["name"] == str | None
    assert hints["return"] is sig._ManyOutputsOutput
    assert typing.get_type_hints(sig.many_outputs)["x"] == tensor_like
    members = typing.get_args(typing_aliases.TensorLike)[:-1]  # but the nested sequence
    *evaluated, nested = typing.get_args(tensor_like)
    assert tuple(evaluated) == members
    assert typing.get_args(typing.get_args(nested)[0])[:-1] == members  # Sequence[TensorLike] once more


def test_list_checks(sig):
    import opgen_runtime as rt

    with rt.Graph().as_default():
        with pytest.raises(TypeError, match="Expected list for 'values' argument to 'list_inputs' Op"):
            sig.list_inputs(1, [3], [5])
        with pytest.raises(
            ValueError, match="List argument 'more' to 'list_inputs' Op with length 1 must match length 2"
        ):
            sig.list_inputs([1, 2], [3], [5])


def test_every_default_converts():
    """A call that keeps every default runs, a shape with an unknown dimension included
    (`[None, 3]`; TF's generator writes `[-1, 3]`, which `make_shape` rejects)."""
    import opgen_runtime as rt

    mod = _load("defaults", "gen_default_ops")
    with rt.Graph().as_default():
        op = mod.defaults()  # an op without outputs: the Operation
        assert [d.size for d in op.get_attr("shape_partial").dim] == [-1, 3]
        # the declared bytes, not TF's latin-1 reading of them (docs/differences-from-tf.md 19)
        assert op.get_attr("s") == "café \t 'q' \"dq\" \\ {{ jinja }}".encode()
