"""opgen's runtime: what generated op modules import.

Builds TensorFlow-compatible graphs without TensorFlow (`Graph.as_graph_def()` imports into
TF), or runs the wrappers on real TensorFlow exactly as TF's own generated wrappers run
(`tf.bridge`). Importing it imports neither tensorflow nor numpy.

Which backend a call runs on, first match wins (`tf.backend`):
1. `set_backend("tensorflow" | "embedded")`, else the environment variable
   `OPGEN_BACKEND`; `set_backend(None)` returns to the rule below;
2. an opgen `Graph` is this thread's default graph (`with graph.as_default():`): embedded;
3. TensorFlow is imported: TensorFlow (eager, or the `tf.Graph`/`tf.function` being built);
4. otherwise: embedded.

Op libraries (`[tool.opgen] library`) are registered with TensorFlow at the module's import,
or when TF is imported, or by `load_op_libraries()` (`tf.op_libraries`; docs/custom-ops.md).
`call_when_imported("tensorflow", callback)` does the same for a package's own TF-side
registrations (gradients), so importing the package never imports TensorFlow.
"""

# The modules generated code imports by name (`from opgen_runtime import execute as
# _execute`, opgen/render/emit.py RUNTIME_MODULES): the facade keeps them importable from here
# wherever they live (`x as x`: a re-export).
from . import atypes as atypes
from .graph.graph import (
    Graph,
    control_dependencies,
    device,
    get_default_graph,
    name_scope,
    reset_default_graph,
)
from .graph.operation import Operation
from .graph.tensor import Tensor
from .ops import execute as execute
from .ops import op_def_library as op_def_library
from .ops import registry as registry
from .ops.placeholder import placeholder
from .shapes.inference import InferenceContext, ShapeHandle, register_shape_fn
from .tf import dispatch as dispatch
from .tf.backend import get_backend, set_backend
from .tf.import_hooks import call_when_imported
from .tf.op_libraries import OpLibraryError, OpLibraryWarning, load_op_libraries
from .values import dtypes as dtypes
from .values.constant_op import constant
from .values.conversion import convert_to_tensor
from .values.tensor_shape import Dimension, TensorShape

__all__ = [
    "Dimension",
    "Graph",
    "InferenceContext",
    "OpLibraryError",
    "OpLibraryWarning",
    "Operation",
    "ShapeHandle",
    "Tensor",
    "TensorShape",
    "call_when_imported",
    "constant",
    "control_dependencies",
    "convert_to_tensor",
    "device",
    "dtypes",
    "get_backend",
    "get_default_graph",
    "load_op_libraries",
    "name_scope",
    "placeholder",
    "register_shape_fn",
    "reset_default_graph",
    "set_backend",
]
