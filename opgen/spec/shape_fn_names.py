"""Which `SetShapeFn(name)` names opgen's embedded runtime knows, and the warning for a name
that is most likely a typo of one (`shape_inference::UnchangedShap`): such an op would
silently get unknown output shapes in the runtime.

The known names are the keys of the runtime's table `opgen_runtime.shapes.fn_names.PORTS`, a leaf
module the runtime builds its `NAMED` shape functions from.
"""

from __future__ import annotations

import difflib

from opgen.errors import Location, OpgenError
from opgen_runtime.shapes.fn_names import PORTS

_TF_NAMESPACES = ("shape_inference::", "tensorflow::shape_inference::")


def shape_fn_name(text: str) -> str:
    """The function a `SetShapeFn` argument names, as written without spaces and without the
    `&` of `SetShapeFn(&Fn)` (the same function pointer)."""
    return "".join(text.split()).lstrip("&")


def unqualified(name: str) -> str:
    """`Fn` of `ns::Fn`."""
    return name.rsplit("::", 1)[-1]


def builtin_shape_fn(name: str) -> bool:
    """Whether the `SetShapeFn` name `name`, which the translation unit does not define, means
    the runtime's port of TF's function: a known name, unqualified or in TF's
    `shape_inference` namespace (`mine::UnchangedShape` is the project's function; so is a
    unit's own `UnchangedShape`, which gathering translates instead)."""
    if unqualified(name) not in PORTS:
        return False
    return "::" not in name.lstrip(":") or name.lstrip(":").startswith(_TF_NAMESPACES)


def known_shape_fns() -> frozenset[str]:
    """The `SetShapeFn` names the runtime has a shape function for."""
    return frozenset(PORTS)


def unknown_shape_fn_warning(name: str, location: Location) -> str | None:
    """A warning for a `SetShapeFn` name the runtime does not know when it names TF's
    `shape_inference` namespace or is close to a known name; None for a known name or a
    library's own function (which only the compiled library runs)."""
    known = PORTS.keys()
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
        "opgen_runtime.shapes.inference.register_shape_fn)",
    ).format_warning()
