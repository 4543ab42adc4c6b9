"""The shape of an API snapshot's JSON: every field's type and range, checked before anything
reads the snapshot, so a hand-edited or crafted file is a located error naming the field
(`ops[3].graph.attrs[0].minimum: expected an integer, got a string`), never a traceback.
What the shape cannot say (an OpDef TF would reject, an op listed twice) `from_json` checks
after parsing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import Descriptor

from opgen.json_input import JsonProblem, json_kind, proto_json_problem
from opgen.limits import MAX_TEXT_NESTING, text_nesting_problem
from opgen_runtime.proto import op_def_pb2
from opgen_runtime.proto.op_def_compat import FLAGS

FORMAT_TAG = "opgen-api-snapshot/1"

Check = Callable[[Any, str], None]  # raises JsonProblem naming the field path


def _string(value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise JsonProblem(path, f"expected a string, got {json_kind(value)}")


def _bool(value: Any, path: str) -> None:
    if not isinstance(value, bool):
        raise JsonProblem(path, f"expected true or false, got {json_kind(value)}")


def _int_in(bits: int) -> Check:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def check(value: Any, path: str) -> None:
        if type(value) is not int:
            raise JsonProblem(path, f"expected an integer, got {json_kind(value)}")
        if not lo <= value <= hi:
            raise JsonProblem(path, f"{value} is outside [{lo}, {hi}]")
    return check


def _one_of(*choices: str) -> Check:
    def check(value: Any, path: str) -> None:
        if value not in choices:
            shown = repr(value) if isinstance(value, str) else json_kind(value)
            raise JsonProblem(path, f"expected one of {', '.join(map(repr, choices))}, got {shown}")
    return check


def _list(item: Check) -> Check:
    def check(value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise JsonProblem(path, f"expected an array, got {json_kind(value)}")
        for i, v in enumerate(value):
            item(v, f"{path}[{i}]")
    return check


def _map(item: Check) -> Check:
    """An object with any keys (device names, part keys, ...), each value an `item`."""
    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise JsonProblem(path, f"expected an object, got {json_kind(value)}")
        for k, v in value.items():
            item(v, f"{path}[{k!r}]")
    return check


def _nullable(inner: Check) -> Check:
    def check(value: Any, path: str) -> None:
        if value is not None:
            inner(value, path)
    return check


def _any_or(inner: Check) -> Check:
    """The string "any", or an `inner` value."""
    def check(value: Any, path: str) -> None:
        if value != "any":
            inner(value, path)
    return check


def _object(required: dict[str, Check], optional: dict[str, Check] | None = None) -> Check:
    known = {**required, **(optional or {})}

    def check(value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise JsonProblem(path, f"expected an object, got {json_kind(value)}")
        for key in required:
            if key not in value:
                raise JsonProblem(path, f"missing key {key!r}")
        for key, v in value.items():
            if key not in known:
                raise JsonProblem(path, f"unknown key {key!r} (known: {', '.join(known)})")
            known[key](v, f"{path}.{key}")
    return check


def _proto(descriptor: Descriptor) -> Check:
    def check(value: Any, path: str) -> None:
        problem = proto_json_problem(value, descriptor, path)
        if problem is not None:
            raise problem
    return check


def _text_proto(value: Any, path: str) -> None:
    """An attr value in text format (parsed by `from_json`, which reports its syntax errors)."""
    _string(value, path)
    if text_nesting_problem(value) is not None:
        raise JsonProblem(path, f"text-format value nests messages more than {MAX_TEXT_NESTING} deep (opgen's limit)")


_strings = _list(_string)
_ARG = _proto(op_def_pb2.OpDef.ArgDef.DESCRIPTOR)
_GRAPH = _object({"inputs": _list(_ARG), "outputs": _list(_ARG), "attrs": _list(_object(
    {"name": _string, "type": _string},
    {"default": _text_proto, "minimum": _int_in(64), "allowed": _text_proto})), "flags": _list(_one_of(*FLAGS))},
    {"control_outputs": _strings, "deprecation": _object({"version": _int_in(32)}, {"explanation": _string})})
_FUNCTION = _object(
    {"module": _string, "name": _string, "visible": _bool, "signature": _string},
    {"aliases": _strings, "deprecated_aliases": _strings,
     "params": _list(_object({"name": _string, "binds": _string}, {"default": _string})),
     "outputs": _strings, "output_type": _nullable(_string)})
# "location", "api_locations", "parts" and "kernel_locations" are source locations that earlier
# opgen versions wrote; they are accepted (checked, then ignored) so that a snapshot committed
# by one still reads: locations now come from the sources (snapshot.py).
_OP = _object(
    {"op": _string, "graph": _GRAPH},
    {"location": _string, "api_locations": _strings, "parts": _map(_string), "function": _nullable(_FUNCTION),
     "skip_reason": _string, "docs": _map(_string), "kernels": _map(_map(_any_or(_strings))),
     "kernel_placement": _map(_object({"host_memory": _strings, "priority": _list(_int_in(32))})),
     "kernel_locations": _map(_string)})
_SNAPSHOT = _object({"format": _one_of(FORMAT_TAG), "ops": _list(_OP)})


def snapshot_problem(data: Any) -> JsonProblem | None:
    """The first field of `data` (parsed JSON) that is not what `to_json` writes there."""
    try:
        _SNAPSHOT(data, "")
    except JsonProblem as e:
        return JsonProblem(e.field.lstrip("."), e.message)
    return None
