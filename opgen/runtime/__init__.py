"""opgen's runtime: what generated op modules import.

Builds TensorFlow-compatible graphs without TensorFlow (`Graph.as_graph_def()` imports into
TF), or runs the wrappers on real TensorFlow exactly as TF's own generated wrappers run
(`tf_backend`). Importing it imports neither tensorflow nor numpy.

Which backend a call runs on, first match wins (`backend`):
1. `set_backend("tensorflow" | "embedded")`, else the environment variable
   `OPGEN_BACKEND`; `set_backend(None)` returns to the rule below;
2. an opgen `Graph` is this thread's default graph (`with graph.as_default():`): embedded;
3. TensorFlow is imported: TensorFlow (eager, or the `tf.Graph`/`tf.function` being built);
4. otherwise: embedded.
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
