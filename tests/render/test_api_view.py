"""Differential: `function_api(op, None)`, which reads TF's seed ApiDef straight from the OpDef
(`ApiView.seed`, what a build uses for an op without overrides), gives exactly what
`function_api(op, default_api_def(op))` gives: the same FunctionApi or SkippedOp, or the same
error, for every op of TF's registry and of the random and hostile OpDef corpora."""

from __future__ import annotations

import random

import pytest
from test_hostile_names_hypothesis import _op as hostile_op  # the hostile-name OpDef corpus
from test_render_hypothesis import random_op  # the random OpDef corpus

from opgen.errors import OpgenError
from opgen.overrides.apidef import default_api_def
from opgen.python_api.function import FunctionApi, function_api
from opgen.python_api.signature import ApiView
from opgen_runtime.proto import op_def_pb2


def _outcome(op: op_def_pb2.OpDef, with_api_def: bool):
    try:
        return function_api(op, default_api_def(op) if with_api_def else None)
    except OpgenError as e:
        return ("error", e.format())


def _check_same(ops: list[op_def_pb2.OpDef]) -> tuple[int, int]:
    """Checks every op; returns how many got a function and how many an error."""
    functions = errors = 0
    for op in ops:
        assert ApiView.seed(op) == ApiView.of(default_api_def(op)), op.name
        seeded = _outcome(op, with_api_def=False)
        assert seeded == _outcome(op, with_api_def=True), op.name
        functions += isinstance(seeded, FunctionApi)
        errors += isinstance(seeded, tuple)
    return functions, errors


@pytest.mark.oracle
def test_tf_registry_same_api_without_an_api_def():
    from oracle.tf_registry import tf_op_list

    functions, _ = _check_same(list(tf_op_list().op))
    assert functions > 1800


def test_random_opdefs_same_api_without_an_api_def():
    rnd = random.Random(20261127)
    functions, _ = _check_same([random_op(rnd) for _ in range(2000)])
    assert functions > 1000


def test_hostile_opdefs_same_api_or_error_without_an_api_def():
    rnd = random.Random(20261127)
    functions, errors = _check_same([hostile_op(rnd, i) for i in range(2000)])
    assert functions > 100 and errors > 100
