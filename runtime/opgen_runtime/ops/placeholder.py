"""`placeholder`: a graph input of a dtype and (partial) shape, TF's
`tf.compat.v1.placeholder`, for a package whose generated modules hold no `Placeholder` (a
custom-op library's); its node equals TF's."""

from __future__ import annotations

from typing import Any

from ..graph.tensor import Tensor
from ..proto import op_def_pb2
from . import op_def_library, registry

# TF 2.21's OpDef of Placeholder (array_ops.cc), without its documentation.
_OP_DEF = op_def_pb2.OpDef(
    name="Placeholder",
    output_arg=[op_def_pb2.OpDef.ArgDef(name="output", type_attr="dtype")],
    attr=[op_def_pb2.OpDef.AttrDef(name="dtype", type="type")],
)
_shape = _OP_DEF.attr.add(name="shape", type="shape")
_shape.default_value.shape.unknown_rank = True


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    """A `Placeholder` node of `dtype` and `shape` (None: unknown rank; `[None, 3]`: a
    partial shape) in the default graph, named `name` (default `Placeholder`)."""
    if registry.get("Placeholder") is None:
        registry.register_op_def("opgen_runtime", _OP_DEF)
    _, _, _, outputs = op_def_library._apply_op_helper("Placeholder", name=name, dtype=dtype, shape=shape)
    return outputs[0]
