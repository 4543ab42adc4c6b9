"""The OpDefs generated modules register on import, looked up by op name.

`register_op_list` keeps the serialized bytes and parses lazily, so importing a large
generated module costs one dict update per op name (the OpList is parsed on first lookup).
Generated modules register last, so that the call can also mark their functions as
AutoGraph artifacts: inside `tf.function`, AutoGraph then calls them as they are, as it
calls TensorFlow's own generated wrappers, instead of converting them and the runtime.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import FunctionType

from opgen_runtime.proto import op_def_pb2

# What a module declares as an op's shape function: a built-in's SetShapeFn name, or a
# function translated from the op's C++ shape function (taking an InferenceContext).
DeclaredShapeFn = str | Callable[..., None]


class OpRegistrationError(ValueError):
    """Two modules registered different OpDefs under one op name."""


class _Entry:
    __slots__ = ("blob", "module", "name", "op_def", "shape_fn")

    def __init__(
        self, name: str, module: str, blob: _Blob, shape_fn: DeclaredShapeFn | None
    ) -> None:
        self.name = name
        self.module = module
        self.blob = blob
        self.op_def: op_def_pb2.OpDef | None = None
        self.shape_fn = shape_fn


class _Blob:
    """One module's serialized OpList, parsed on first use."""

    __slots__ = ("data", "parsed")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.parsed: dict[str, op_def_pb2.OpDef] | None = None

    def ops(self) -> dict[str, op_def_pb2.OpDef]:
        if self.parsed is None:
            op_list = op_def_pb2.OpList.FromString(self.data)
            self.parsed = {op.name: op for op in op_list.op}
        return self.parsed


_lock = threading.Lock()
_entries: dict[str, _Entry] = {}
_modules: dict[str, _Blob] = {}
# module name -> its `[tool.opgen] library`, until `op_libraries` has registered its ops
# with TensorFlow (checked before every op that runs on TF: a dict is the cheapest test)
pending_libraries: dict[str, str] = {}
generation = 0  # bumped by every registration (invalidates caches keyed by op name)
# Called with the module's name after a module with a library registered: `op_libraries`
# sets it on import (the `opgen_runtime` package imports that module, so it is set before
# any generated module registers), and the registry depends on nothing that needs TF.
library_registered: Callable[[str], None] | None = None


def _op_names(data: bytes) -> list[str]:
    """The op names of a serialized OpList without building messages (field 1 of each OpDef).

    Called at every generated module's import, so it is linear in the module's size and
    cheap per op: protobuf serializes fields in field-number order (generated modules hold
    OpDefs serialized so), which puts a short name's tag and one-byte length first; any
    other layout takes the general field walk (`_name_field`).
    """
    names: list[str] = []
    append = names.append
    pos, end = 0, len(data)
    while pos < end:
        if data[pos] != _OP_LIST_OP_TAG:
            raise ValueError("malformed OpList")
        length = data[pos + 1]
        if length < 0x80:
            pos += 2
        else:
            length, pos = _varint(data, pos + 1)
        sub_end = pos + length
        if sub_end > end:
            raise ValueError("malformed OpList")
        if (
            length >= 2
            and data[pos] == _OP_DEF_NAME_TAG
            and data[pos + 1] < 0x80
            and pos + 2 + data[pos + 1] <= sub_end
        ):
            append(data[pos + 2 : pos + 2 + data[pos + 1]].decode())
        else:
            append(_name_field(data, pos, sub_end))
        pos = sub_end
    return names


_OP_LIST_OP_TAG = 1 << 3 | 2  # OpList.op: field 1, length-delimited
_OP_DEF_NAME_TAG = 1 << 3 | 2  # OpDef.name: field 1, length-delimited


def _name_field(data: bytes, pos: int, end: int) -> str:
    """OpDef.name of the OpDef serialized in `data[pos:end]`, wherever it is ("" if absent)."""
    while pos < end:
        key, pos = _varint(data, pos)
        wire = key & 7
        if wire == 2:
            length, pos = _varint(data, pos)
            if key == _OP_DEF_NAME_TAG:
                return data[pos : pos + length].decode()
            pos += length
        elif wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 5:
            pos += 4
        elif wire == 1:
            pos += 8
        else:
            raise ValueError("malformed OpList")
    return ""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def register_op_list(
    module_name: str,
    serialized_op_list: bytes,
    shape_fns: dict[str, DeclaredShapeFn] | None = None,
    library: str | None = None,
) -> None:
    """Registers a module's OpDefs. Identical re-registration is fine; a conflict raises.

    `library` is the compiled op library that registers these ops with TensorFlow
    (`[tool.opgen] library`: a path relative to the module, or `pkg:resource`); when TF is
    imported already it is loaded now, else when TF is imported (`op_libraries`).
    """
    global generation
    blob = _Blob(serialized_op_list)
    shape_fns = shape_fns or {}
    with _lock:
        generation += 1
        _modules[module_name] = blob
        if library:
            pending_libraries[module_name] = library
        for name in _op_names(serialized_op_list):
            old = _entries.get(name)
            if old is not None and old.module != module_name:
                if _signature(blob.ops()[name]) != _signature(_resolve(old)):
                    raise OpRegistrationError(
                        f"Op {name} registered by module '{module_name}' conflicts with the OpDef "
                        f"already registered by module '{old.module}'"
                    )
                if old.shape_fn is None:
                    old.shape_fn = shape_fns.get(name)
                continue
            _entries[name] = _Entry(name, module_name, blob, shape_fns.get(name))
    _mark_autograph_artifacts(module_name)
    if library and library_registered is not None:
        library_registered(module_name)


def _mark_autograph_artifacts(module_name: str) -> None:
    """Sets AutoGraph's `autograph_info__` marker (`api.is_autograph_artifact`) on the module's functions."""
    module = sys.modules.get(module_name)
    if module is None:
        return
    for value in vars(module).values():
        if type(value) is FunctionType and value.__module__ == module_name:
            value.autograph_info__ = None  # type: ignore[attr-defined]


def without_docs(op_def: op_def_pb2.OpDef) -> op_def_pb2.OpDef:
    """A copy of the OpDef without its documentation (summary, descriptions)."""
    stripped = op_def_pb2.OpDef()
    stripped.CopyFrom(op_def)
    stripped.ClearField("summary")
    stripped.ClearField("description")
    for arg in list(stripped.input_arg) + list(stripped.output_arg):
        arg.ClearField("description")
    for attr in stripped.attr:
        attr.ClearField("description")
    return stripped


def _signature(op_def: op_def_pb2.OpDef) -> bytes:
    """The OpDef without documentation: docs alone never make two registrations conflict."""
    # A typed local: SerializeToString is Any to mypy (protobuf's Message has no stubs here).
    signature: bytes = without_docs(op_def).SerializeToString(deterministic=True)
    return signature


def register_op_def(
    module_name: str, op_def: op_def_pb2.OpDef, shape_fn: str | None = None
) -> None:
    """Registers one OpDef (tests, and OpLists read from compiled libraries)."""
    op_list = op_def_pb2.OpList(op=[op_def])
    register_op_list(
        module_name,
        op_list.SerializeToString(),
        {op_def.name: shape_fn} if shape_fn else None,
    )


def _resolve(entry: _Entry) -> op_def_pb2.OpDef:
    if entry.op_def is None:
        entry.op_def = entry.blob.ops()[entry.name]
    return entry.op_def


def get(op_type_name: str) -> op_def_pb2.OpDef | None:
    """The registered OpDef, or None (TF's `op_def_registry.get`)."""
    entry = _entries.get(op_type_name)
    if entry is None:
        return None
    return _resolve(entry)


def op_defs_of(module_name: str) -> dict[str, op_def_pb2.OpDef]:
    """The OpDefs a module registered (its own, also those another module registered first)."""
    blob = _modules.get(module_name)
    return dict(blob.ops()) if blob is not None else {}


def shape_fn_name(op_type_name: str) -> DeclaredShapeFn | None:
    """The SetShapeFn name (or translated function) a generated module declared for the op, if any."""
    entry = _entries.get(op_type_name)
    return entry.shape_fn if entry is not None else None
