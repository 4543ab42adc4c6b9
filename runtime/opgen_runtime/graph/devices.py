"""Device specs and device scopes with TensorFlow's rules.

Parsing and printing follow `device_spec.py` (`DeviceSpecV2._string_to_components`,
`_components_to_string`: `/cpu:0` -> `/device:CPU:0`). Scopes follow `ops.py`
`Graph._apply_device_functions` and `device.py` `MergeDevice`: innermost scope first, each
string scope merged with the device chosen so far by `DeviceSpecV2.make_merged_spec` (fields
already set win, so `/cpu:0` then `/gpu` gives `/device:GPU:0`), device functions called
with the Operation, `None` stops the walk, and an empty spec is skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Components = tuple[str | None, str | None, str | None, str | None, int | None]

_VALID_DEVICE_TYPES = {"CPU", "GPU", "TPU"}
_EMPTY: Components = (None, None, None, None, None)
_parsed: dict[str, Components] = {}
_merged: dict[tuple[Components, str], str] = {}


def parse_device(spec: str | None) -> Components:
    """DeviceSpec components (job, replica, task, device_type, device_index) of `spec`."""
    cached = _parsed.get(spec or "")
    if cached is not None:
        return cached
    job = replica = task = device_type = None
    device_index: int | None = None
    for part in (spec or "").split("/"):
        y = part.split(":")
        ly = len(y)
        if ly == 2 and y[0] == "job":
            job = y[1]
        elif ly == 2 and y[0] == "replica":
            replica = y[1]
        elif ly == 2 and y[0] == "task":
            task = y[1]
        elif ly in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(
                    f"Multiple device types are not allowed while parsing the device spec: {spec}."
                )
            device_type = y[0].upper()
            if ly == 2 and y[1] != "*":
                device_index = int(y[1])
        elif ly == 3 and y[0] == "device":
            if device_type is not None:
                raise ValueError(
                    f"Multiple device types are not allowed while parsing the device spec: {spec}."
                )
            device_type = y[1]
            if y[2] != "*":
                device_index = int(y[2])
        elif ly and y[0] != "":
            raise ValueError(
                f"Unknown attribute '{y[0]}' is encountered while parsing the device spec: '{spec}'."
            )
    result = (job, replica, task, device_type, device_index)
    if len(_parsed) < 4096:
        _parsed[spec or ""] = result
    return result


def device_to_string(components: Components) -> str:
    job, replica, task, device_type, device_index = components
    out = []
    if job is not None:
        out.append("/job:" + job)
    if replica is not None:
        out.append("/replica:" + str(replica))
    if task is not None:
        out.append("/task:" + str(task))
    if device_type is not None:
        out.append(
            f"/device:{device_type}:{'*' if device_index is None else device_index}"
        )
    return "".join(out)


def canonical_device(spec: str) -> str:
    return device_to_string(parse_device(spec))


def merge_device(spec: Components, current: str) -> str:
    """`MergeDevice(spec)` applied to an op whose device is `current`: the fields `current`
    sets win (`DeviceSpecV2.make_merged_spec(current)`)."""
    key = (spec, current)
    merged = _merged.get(key)
    if merged is None:
        dev = parse_device(current)
        merged = device_to_string(
            tuple(d if d is not None else s for s, d in zip(spec, dev))  # type: ignore[arg-type]
        )
        if len(_merged) < 4096:
            _merged[key] = merged
    return merged


class DeviceScope:
    """One `Graph.device(...)` entry: a spec string (or TF DeviceSpec), a function, or None."""

    __slots__ = ("function", "is_null_merge", "spec")

    def __init__(self, device_name_or_function: Any) -> None:
        self.function: Callable[[Any], Any] | None = None
        self.spec: Components | None = None
        self.is_null_merge = False
        value = device_name_or_function
        if value is not None and not isinstance(value, str) and _is_device_spec(value):
            value = value.to_string()
        if isinstance(value, str):
            self.spec = parse_device(value)
            self.is_null_merge = self.spec == _EMPTY
        elif callable(value):
            self.function = value
        elif value is not None:
            # TF hands any other value to `DeviceSpec.from_string`, which splits it.
            raise AttributeError(
                f"'{type(value).__name__}' object has no attribute 'split'"
            )


def _is_device_spec(value: Any) -> bool:
    return type(value).__name__ in ("DeviceSpecV1", "DeviceSpecV2") and hasattr(
        value, "to_string"
    )


def static_device(scopes: Sequence[DeviceScope]) -> str | None:
    """The device every op created under `scopes` gets, or None when a device function
    decides it per op."""
    device = ""
    for scope in reversed(scopes):
        if scope.is_null_merge:
            continue
        if scope.spec is None:
            if scope.function is None:
                break
            return None
        device = merge_device(scope.spec, device)
    return device


def apply_device_functions(scopes: Sequence[DeviceScope], op: Any) -> None:
    """`Graph._apply_device_functions`: sets `op`'s device from the scopes, innermost first."""
    for scope in reversed(scopes):
        if scope.is_null_merge:
            continue
        if scope.spec is not None:
            op._set_device(merge_device(scope.spec, op._device))
            continue
        if scope.function is None:
            break
        result = scope.function(op)
        if _is_device_spec(result):
            result = result.to_string()
        if isinstance(result, bytes):
            result = result.decode()
        elif not isinstance(result, str):
            raise TypeError(f"Expected binary or unicode string, got {result!r}")
        op._set_device(result)
