"""Built-in shape functions: Python ports of TF's C++ ones.

`NAMED` holds the common functions TF registers by name (`SetShapeFn(shape_inference::X)`),
looked up by the name a generated module declares. `BY_OP` maps TF op names to ports of the
shape function TF registers for that op (per-op lambdas and named functions alike), one
module per TF op file (`math`, `array` with `array_index` and `array_layout`, `nn`,
`quantized`, `image`, `other`); it serves every op whose module
declares no (known) shape function, so modules built from TF's registry or `--from-library`
get TF's static shapes and shape errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import array, array_index, array_layout, image, math, nn, other, quantized
from .common import NAMED, WITH_ARGS, ShapeFn
from .fast import DIRECT, GUARDED

__all__ = ["BY_OP", "DIRECT", "GUARDED", "NAMED", "ShapeFn", "by_name", "lookup"]

BY_OP: dict[str, ShapeFn] = {
    **math.BY_OP,
    **array.BY_OP,
    **array_index.BY_OP,
    **array_layout.BY_OP,
    **nn.BY_OP,
    **quantized.BY_OP,
    **image.BY_OP,
    **other.BY_OP,
}


def by_name(name: str, with_args: bool = False) -> Callable[..., Any]:
    """The built-in called `name` (`shape_inference::` qualifiers allowed); KeyError if none.
    `with_args`: one of TF's common functions called with arguments after the context."""
    key = name.rsplit("::", 1)[-1]
    try:
        return WITH_ARGS[key] if with_args else NAMED[key]
    except KeyError:
        raise KeyError(
            f"no built-in shape function named {name!r}; known: {', '.join(sorted(NAMED))}"
        ) from None


def lookup(op_type: str, declared: str | ShapeFn | None) -> ShapeFn | None:
    """The function for an op: its declared SetShapeFn name if built in, else TF's op's
    port, else the function its module translated from the op's C++ shape function (a
    port of TF's op is checked against TF; the translation of its lambda would agree)."""
    if isinstance(declared, str):
        fn = NAMED.get(declared.rsplit("::", 1)[-1])
        if fn is not None:
            return fn
    port = BY_OP.get(op_type)
    if port is not None or declared is None or isinstance(declared, str):
        return port
    return declared
