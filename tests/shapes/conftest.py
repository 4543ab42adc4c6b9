"""Fixtures of the shape tests."""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def differential(tf: ModuleType) -> ModuleType:
    """`oracle.shape_differential`, with TF's registry registered in the embedded runtime and
    TF's ops pinned to the runtime's ports of them (another test module may have registered
    the same ops first with other declared shape functions: as a user would, with
    register_shape_fn)."""
    from oracle import shape_differential
    from oracle.tf_registry import tf_op_list_bytes

    from opgen_runtime import register_shape_fn
    from opgen_runtime.ops import registry
    from opgen_runtime.shapes import fns as shape_fns

    registry.register_op_list("tensorflow_registry_shapes", tf_op_list_bytes())
    for op_type, fn in shape_fns.BY_OP.items():
        register_shape_fn(op_type, fn)
    return shape_differential
