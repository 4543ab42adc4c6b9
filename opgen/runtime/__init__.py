"""opgen's embedded runtime: what generated op modules import.

Builds TensorFlow-compatible graphs without TensorFlow (`Graph.as_graph_def()` imports into
TF), or drives real TensorFlow through the TF backend (see `backend`). Importing it imports
neither tensorflow nor numpy.
"""

from . import dtypes
from .backend import get_backend, set_backend
from .constant_op import constant
from .conversion import convert_to_tensor
from .graph import (
    Graph,
    control_dependencies,
    device,
    get_default_graph,
    name_scope,
    reset_default_graph,
)
from .operation import Operation
from .shape_inference import InferenceContext, ShapeHandle, register_shape_fn
from .tensor import Tensor
from .tensor_shape import Dimension, TensorShape

__all__ = [
    "Dimension",
    "Graph",
    "InferenceContext",
    "Operation",
    "ShapeHandle",
    "Tensor",
    "TensorShape",
    "constant",
    "control_dependencies",
    "convert_to_tensor",
    "device",
    "dtypes",
    "get_backend",
    "get_default_graph",
    "name_scope",
    "register_shape_fn",
    "reset_default_graph",
    "set_backend",
]
