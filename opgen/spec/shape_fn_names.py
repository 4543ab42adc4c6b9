"""Which `SetShapeFn(name)` names opgen's embedded runtime knows, and the warning for a name
that is most likely a typo of one (`shape_inference::UnchangedShap`): such an op would
silently get unknown output shapes in the runtime.

The known names are `opgen_runtime.shape_fns.common.NAMED`'s keys, read from that module's
source: gathering never imports the runtime (importing it costs ~90 ms, a sixth of a build
of TF's whole registry)."""

from __future__ import annotations

import ast
import difflib
import functools
import importlib.util
from pathlib import Path

from opgen.errors import Location, OpgenError

_TF_NAMESPACES = ("shape_inference::", "tensorflow::shape_inference::")


@functools.cache
def known_shape_fns() -> frozenset[str]:
    """The keys of the runtime's `NAMED` dict, read from its source: the generator needs the
    names only, not the runtime's shape functions (found, not imported)."""
    spec = importlib.util.find_spec("opgen_runtime")
    assert spec is not None and spec.origin is not None, "opgen depends on its runtime"
    source = Path(spec.origin).parent / "shape_fns" / "common.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    target: ast.expr
    for node in tree.body:
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "NAMED" and isinstance(value, ast.Dict):
            return frozenset(k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
    raise RuntimeError(f"no NAMED dict in {source}")


def unknown_shape_fn_warning(name: str, location: Location) -> str | None:
    """A warning for a `SetShapeFn` name the runtime does not know when it names TF's
    `shape_inference` namespace or is close to a known name; None for a known name or a
    library's own function (which only the compiled library runs)."""
    known = known_shape_fns()
    last = name.rsplit("::", 1)[-1]
    if last in known:
        return None
    in_tf_namespace = name.lstrip(":").startswith(_TF_NAMESPACES)
    nearest = difflib.get_close_matches(last, known, n=1, cutoff=0.0 if in_tf_namespace else 0.8)
    if not nearest:
        return None
    return OpgenError(
        f"unknown shape function '{name}': opgen's runtime has no shape function of that name, so without "
        "TensorFlow the op's outputs get unknown shapes",
        location,
        hint=f"did you mean shape_inference::{nearest[0]}? (a function of your own: register it in Python with "
        "opgen_runtime.shape_inference.register_shape_fn)",
    ).format_warning()
