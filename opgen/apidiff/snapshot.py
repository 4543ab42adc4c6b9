"""The API snapshot: per op, its graph-level facts and the Python function generated for it.

A `Snapshot` is what `opgen api` prints and what `opgen diff` compares. It is a thin
projection of the spec front end (OpDefs, REGISTER_OP locations), the override model
(ApiDefs, override-file lines) and `opgen.python_api.function` (the one mapping of an op to its
Python function), and it round-trips through JSON so committed snapshots can be diffed.

Locations live in memory only: a snapshot file records the API and graph facts, never a line
or a kernel's file, so a comment added to a source leaves the committed snapshot unchanged.
`opgen diff` recomputes them from the sources of a side (a project, spec tree or git
revision); a side read from a snapshot file is located at its op entries in that file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from opgen.errors import Location
from opgen_runtime.proto import op_def_pb2


@dataclass(frozen=True)
class Param:
    """One parameter of a generated function."""

    name: str  # Python name (after renames and reserved-word escaping)
    binds: str  # the OpDef arg or attr it feeds: "input x", "attr T" (a parameter `lambda_`: "attr lambda")
    default: str | None = None  # Python source of the default; None when required


@dataclass(frozen=True)
class Function:
    """The Python function generated for one op (a projection of `opgen.python_api.function.FunctionApi`)."""

    module: str  # "gen_math_ops"
    name: str  # "add", or "_add" when hidden
    visible: bool  # exported (in __all__) rather than hidden
    signature: str  # `add(x, y, name=None)`, without annotations
    aliases: tuple[str, ...] = ()  # further names bound to the same function
    deprecated_aliases: tuple[str, ...] = ()  # those of them that warn when called (sorted)
    params: tuple[Param, ...] = ()  # without the trailing name=None
    outputs: tuple[str, ...] = ()  # result fields in order (namedtuple fields when > 1)
    output_type: str | None = None  # namedtuple type name when the op has several outputs

    def returns(self) -> str:
        if self.output_type:
            return f"{self.output_type}({', '.join(self.outputs)})"
        return self.outputs[0] if self.outputs else "Operation"


@dataclass(frozen=True)
class OpEntry:
    """One op of the library."""

    op_def: op_def_pb2.OpDef  # graph facts: the OpDef with docs removed
    function: Function | None  # None when the op gets no Python function (skipped)
    docs: tuple[tuple[str, str], ...] = ()  # ("summary", text), ("input x", text), ... as the docstring shows
    skip_reason: str = ""  # why function is None
    # device -> type attr -> types its kernels accept (None: any), as
    # opgen.spec.kernel_summary.device_types gives it; None when kernels are unknown (no C++ read)
    kernels: dict[str, dict[str, tuple[str, ...] | None]] | None = None
    # device -> (host-memory args, priorities) where not the default (kernel_summary.device_placement)
    kernel_placement: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = field(default_factory=dict)
    # Locations, never written to a snapshot file (see the module docstring):
    location: Location | None = None  # REGISTER_OP (or the op's OpList entry, or its entry in a snapshot file)
    api_locations: tuple[Location, ...] = ()  # override-file lines that shaped its Python API
    # ("input x", the override line renaming it), ("endpoint", ...) (`ApiModel.renamed_at`)
    api_parts: tuple[tuple[str, Location], ...] = ()
    # device -> its first kernel TF can select; `kernel_type_key` -> its first kernel of that type
    kernel_locations: tuple[tuple[str, Location], ...] = ()
    # ("attr T", its .Attr line), ...; an OpList op's fields too ("attr T default_value") (`OpSource.parts`)
    parts: tuple[tuple[str, Location], ...] = ()
    # (part, text a macro argument supplied, the part's #define place) (`OpSource.argument_parts`)
    argument_parts: tuple[tuple[str, str, Location], ...] = ()

    def part_location(self, part: str) -> Location | None:
        return next((loc for key, loc in self.parts if key == part), None)

    def override_location(self, part: str) -> Location | None:
        """The override line that renamed (or set the default of) `part`; for a change of the
        op as a whole (no part), the first line that shaped its API. A part no override
        touched has none: another entry's line would not explain it."""
        if part:
            return next((loc for key, loc in self.api_parts if key == part), None)
        return self.api_locations[0] if self.api_locations else None

    @property
    def name(self) -> str:
        return self.op_def.name


@dataclass
class Snapshot:
    ops: dict[str, OpEntry] = field(default_factory=dict)  # by op name
    # ops whose module only repeats the name of the one file this side was read from
    # (`lib.pbtxt` -> gen_lib): no project, spec tree or `[tool.opgen.modules]` glob placed
    # them, so `opgen diff` takes their module from the other side (not serialized)
    modules_from_file_name: frozenset[str] = frozenset()
    # the snapshot file this side was read from (its locations are its op entries there), or
    # None when it was built from sources (its locations are the sources' lines; not serialized)
    snapshot_file: str | None = None

    def sorted_ops(self) -> list[OpEntry]:
        return [self.ops[name] for name in sorted(self.ops)]

    def relocated(self, move: Callable[[Location], Location]) -> Snapshot:
        """This snapshot with every location of its ops passed through `move`."""

        def pairs(items: tuple[tuple[str, Location], ...]) -> tuple[tuple[str, Location], ...]:
            return tuple((key, loc.moved(move)) for key, loc in items)

        ops = {name: replace(entry, location=entry.location and move(entry.location),
                             api_locations=tuple(map(move, entry.api_locations)), api_parts=pairs(entry.api_parts),
                             kernel_locations=pairs(entry.kernel_locations), parts=pairs(entry.parts),
                             argument_parts=tuple((key, text, at.moved(move))
                                                  for key, text, at in entry.argument_parts))
               for name, entry in self.ops.items()}
        return replace(self, ops=ops)


def kernel_type_key(device: str, attr: str, type_name: str) -> str:
    """The `OpEntry.kernel_locations` key of a device's first kernel accepting `type_name` for `attr`."""
    return f"{device} {attr}={type_name}"


def strip_docs(op_def: op_def_pb2.OpDef) -> op_def_pb2.OpDef:
    """The OpDef without summaries and descriptions (TF's RemoveNonDeprecationDescriptionsFromOpDef)."""
    stripped = op_def_pb2.OpDef()
    stripped.CopyFrom(op_def)
    stripped.ClearField("summary")
    stripped.ClearField("description")
    for arg in (*stripped.input_arg, *stripped.output_arg, *stripped.attr):
        arg.ClearField("description")
    return stripped
