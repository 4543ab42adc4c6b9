"""Where each part of each op of a text OpList file is written, as `OpSource.parts` gives it for
a C++ registration, so a review of an OpList-file op points at the line that changed.

A C++ part is one builder call (`.Attr("T: {float}")`); a text OpList spells a part over
several lines (`attr {`, `name: "T"`, `type: "type"`, `allowed_values { ... }`), so besides
the part (`attr T`, at its `attr {` line) each field of it is located (`attr T allowed_values`,
`attr T default_value` at its value's line, `input x type_attr`, ...): a diff locates a change at the field that
says it when the side has one, else at the part. Op-level fields: `flag is_stateful` (each
flag), `deprecation`, `doc` (the first of `summary`/`description`), `doc summary`,
`doc description`, and `doc input x` (an arg's or attr's `description`).

The text was parsed already (`oplist_io`): this scan (`opgen.tf_text.proto_positions`, which
locates the fields of override files too) only finds where fields stand. It is made for
`opgen diff` alone (a build never asks), so reading an OpList stays as fast as it is.
"""

from __future__ import annotations

from opgen.errors import Location
from opgen.heap import cyclic_gc_paused
from opgen.tf_text.proto_positions import Node, scan

__all__ = ["op_list_part_locations"]

_ARG_KINDS = {"input_arg": "input", "output_arg": "output", "attr": "attr"}  # OpDef field -> part key
_FLAGS = frozenset({"is_stateful", "is_commutative", "is_aggregate", "allows_uninitialized_input",
                    "is_distributed_communication"})


def _name(node: Node) -> str | None:
    """The value of the message's `name` field."""
    names = node.all("name")
    return names[0].value if names else None


def _op_parts(op: Node) -> tuple[tuple[str, Location], ...]:
    parts: dict[str, Location] = {}
    for arg in op.children:
        if arg.name not in _ARG_KINDS:
            continue
        key = f"{_ARG_KINDS[arg.name]} {_name(arg) or ''}"
        parts.setdefault(key, arg.loc)
        for child in arg.children:
            name = child.name
            # a default is located at its value (`b: true`), the line that changes with it
            loc = (child.first_scalar() or child).loc if name == "default_value" else child.loc
            parts.setdefault(f"doc {key}" if name == "description" else f"{key} {name}", loc)
    for child in op.children:
        name = child.name
        if name in _FLAGS:
            parts.setdefault(f"flag {name}", child.loc)
        elif name == "deprecation":
            parts.setdefault("deprecation", child.loc)
        elif name in ("summary", "description"):
            parts.setdefault("doc", child.loc)
            parts.setdefault(f"doc {name}", child.loc)
    return tuple(parts.items())


def op_list_part_locations(text: str, path: str) -> dict[str, tuple[tuple[str, Location], ...]]:
    """Op name -> the locations of its parts (the module docstring), for the text of an OpList
    that parsed (of two entries of one name, the first)."""
    with cyclic_gc_paused():  # a Node a field, alive until the parts are read
        out: dict[str, tuple[tuple[str, Location], ...]] = {}
        for op in scan(text, path).all("op"):
            name = _name(op)
            if name is not None:
                out.setdefault(name, _op_parts(op))
        return out
