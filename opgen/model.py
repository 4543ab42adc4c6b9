"""What the C++ front end hands to the OpDefBuilder: REGISTER_OP chains as typed calls.

The scanner (lexing, preprocessing, macro expansion, helper-call resolution) produces
`Registration`s; `opgen.spec.builder` turns each into an OpDef exactly as TF's
`OpDefBuilder::Finalize` would. Every piece keeps the location it came from, so errors
point at the offending call.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from opgen.errors import Location
from opgen.proto import kernel_def_pb2
from opgen_runtime.proto import op_def_pb2


class WrittenRun(Protocol):
    """Where characters `start:end` of a string argument's text are written (the front end's
    `opgen.spec.cpp_lexer.TextRun`): `use`, for text written elsewhere (a macro's body, a
    file constant), is where it is used and what wrote it."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def use(self) -> tuple[Location, str] | None: ...

    def location_of(self, offset: int) -> Location:
        """Where character `offset` (`start <= offset < end`) stands for an error: where it is
        used, noting where it is written, for text written elsewhere."""
        ...


@dataclass(frozen=True)
class CallArg:
    """One argument of a builder call after macro expansion.

    kind "string": adjacent literals concatenated and unescaped (or a resolved helper call),
    `value` is the resulting text; "int": an integer literal, `value` is the int;
    "expr": anything else (a lambda, a function name, `true`), `value` is its source text.
    `runs`: where the characters of a "string" are written, as far as that is known exactly
    (`location_at`), so an error about a word of the text (a misspelt type, a `Doc` line) can
    point at it.
    `helpers`: the helper-table keys a "string" was resolved through (`[tool.opgen.helpers]`
    or built-in), so an error in the text can say where it was written.
    """

    kind: Literal["string", "int", "expr"]
    value: str | int
    loc: Location
    runs: tuple[WrittenRun, ...] = ()
    helpers: tuple[str, ...] = ()

    def location_at(self, offset: int | None) -> Location:
        """Where character `offset` of the text is written when that is known exactly, else
        where the argument stands (offset None: the text as a whole)."""
        if offset is None:
            return self.loc
        for run in self.runs:
            if run.start <= offset < run.end:
                return run.location_of(offset)
        return self.loc


@dataclass(frozen=True)
class BuilderCall:
    method: str  # "Input", "Attr", "SetShapeFn", ...
    args: tuple[CallArg, ...]
    loc: Location  # where the method name stands


@dataclass(frozen=True)
class Registration:
    op_name: str
    loc: Location  # where REGISTER_OP stands
    calls: tuple[BuilderCall, ...]
    system: bool = False  # REGISTER_SYSTEM_OP: bypasses selective registration


# How an op part's place (`OpSource.parts`) notes the other place of text written elsewhere:
# a constant's or #define's text `USED_THROUGH` the call using it, a macro argument's text
# `USED_IN` the #define (`gather._written_at`); `part_use_site` turns it back.
USED_THROUGH = "used through "
USED_IN = "used in "


def part_use_site(part: Location) -> Location:
    """An op part's place as errors locate it: where the builder call uses the text, noted
    with the constant or macro that wrote it."""
    if part.expanded_from is None:
        return part
    what, other = part.expanded_from
    if what.startswith(USED_THROUGH):  # `part` is the constant's text, `other` the call using it
        return replace(other, expanded_from=(what.removeprefix(USED_THROUGH), part))
    return replace(part, expanded_from=(what.removeprefix(USED_IN), other))


@dataclass(frozen=True)
class OpSource:
    """Where an op of the gathered OpList came from."""

    location: Location  # REGISTER_OP, or the op's entry in an OpList file
    shape_fn: str | None = None  # the shape function's name when SetShapeFn was given a name
    # Where each part was declared: ("attr T" | "input x" | "output y" | "flag is_stateful" |
    # "deprecation", its builder call), so reviews point at the line that changed. An op of a
    # text OpList file has none when gathered; `opgen diff` adds them, with each part's fields
    # ("attr T default_value": `opgen.spec.oplist_parts`).
    parts: tuple[tuple[str, Location], ...] = ()
    # A part located at the macro argument that supplied some of its text (`FW_BINARY_OP(Hypot,
    # "float")` for `.Attr("T: {" Types "}")`): ("attr T", the text the argument supplied, the
    # part's place in the #define), so that `opgen diff` moves it there when the argument's
    # text is the same on both sides: then what changed is the #define's.
    argument_parts: tuple[tuple[str, str, Location], ...] = ()
    # The shape function translated to Python (its body's lines), when it could be
    # (opgen/shape_translate); and how the shape function was given: "named" (a name the
    # runtime may know), "lambda|function, translated|not translated", or "none".
    shape_fn_python: tuple[str, ...] | None = None
    shape_fn_kind: str = "none"
    shape_fn_problem: str | None = None  # `path:line:col: <construct>` when not translated
    from_op_list: bool = False  # read from an OpList file (no REGISTER_OP: its kernels live elsewhere)


@dataclass(frozen=True)
class KernelRegistration:
    """One REGISTER_KERNEL_BUILDER: its KernelDef, where it stands and where each of its
    constraints and host-memory args was written (for the cross-check's messages)."""

    kernel_def: kernel_def_pb2.KernelDef
    location: Location
    constraint_locations: tuple[Location, ...] = ()
    host_memory_locations: tuple[Location, ...] = ()
    system: bool = False  # REGISTER_SYSTEM_KERNEL_BUILDER: bypasses selective registration


@dataclass
class GatherResult:
    """The OpList (sorted by name, as `OpRegistry::Export`) and each op's origin."""

    op_list: op_def_pb2.OpList
    sources: dict[str, OpSource] = field(default_factory=dict)
    # Every file read (translation units, included headers, OpList files, the allow
    # file), sorted: what a build depends on.
    inputs: list[str] = field(default_factory=list)
    # `path:line:col: warning: ...` lines (missing include files), for the user to see.
    warnings: list[str] = field(default_factory=list)
    # The kernels the C++ sources register, by op name then source order; None when no
    # C++ source was read (kernels unknown, e.g. an OpList file alone).
    kernels: list[KernelRegistration] | None = None
    # The source directories searched for translation units (`SourceFiles.directories`):
    # depfiles list them, so that a source file added there rebuilds.
    directories: list[str] = field(default_factory=list)
