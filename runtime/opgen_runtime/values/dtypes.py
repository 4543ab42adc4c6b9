"""DType objects for every TensorFlow DataType (incl. refs), with TF's `as_dtype` rules.

Names come from `opgen_runtime.proto.datatypes` (one table for the whole project). Module attributes
are named like TF's generator names (`float32`, `half`, `resource`, `float32_ref`, ...) so
generated defaults render as `_dtypes.float32`; TF's Python aliases (`float16`, `double`)
exist too. numpy is consulted only for values that are numpy objects (never imported here).
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable
from typing import Any

from opgen_runtime.proto import datatypes as _names

from .tf_objects import is_tf_dtype

_INTEGER = {3, 4, 5, 6, 9, 17, 22, 23, 29, 30, 31, 32}
_UNSIGNED = {4, 17, 22, 23, 30, 32}
_FLOATING = {1, 2, 14, 19, 24, 25, 26, 27, 28, 33}
_COMPLEX = {8, 18}
_QUANTIZED = {11, 12, 13, 15, 16}
# numpy's dtype.name for the types whose numpy name differs from TF's Python name.
_NUMPY_NAMES = {"string": "object"}


class DType:
    """A TensorFlow element type; `float32_ref` is a distinct (reference) DType."""

    __slots__ = ("_base_enum", "_type_enum", "name")

    def __init__(self, type_enum: int) -> None:
        self._type_enum = type_enum
        self._base_enum = _names.base(type_enum)
        self.name = _names.python_name(type_enum)

    @property
    def as_datatype_enum(self) -> int:
        return self._type_enum

    @property
    def _is_ref_dtype(self) -> bool:
        return self._type_enum > _names.REF_OFFSET

    is_ref = _is_ref_dtype

    @property
    def base_dtype(self) -> DType:
        return _BY_ENUM[self._base_enum]

    @property
    def _as_ref(self) -> DType:
        return _BY_ENUM[self._base_enum + _names.REF_OFFSET]

    as_ref = _as_ref

    @property
    def is_integer(self) -> bool:
        return self._base_enum in _INTEGER

    @property
    def is_unsigned(self) -> bool:
        return self._base_enum in _UNSIGNED

    @property
    def is_floating(self) -> bool:
        return self._base_enum in _FLOATING

    @property
    def is_complex(self) -> bool:
        return self._base_enum in _COMPLEX

    @property
    def is_quantized(self) -> bool:
        return self._base_enum in _QUANTIZED

    @property
    def is_bool(self) -> bool:
        return self._base_enum == 10

    @property
    def is_numpy_compatible(self) -> bool:
        return self._base_enum not in (20, 21)

    @property
    def as_numpy_dtype(self) -> Any:
        """The numpy type (imports numpy; ml_dtypes for bfloat16/float8/int4 types)."""
        import numpy as np

        name = _names.BY_ENUM[self._base_enum].python
        if self._base_enum in _QUANTIZED:
            raise TypeError(f"quantized dtype {name} has no plain numpy equivalent")
        if name == "string":
            return np.object_
        try:
            return np.dtype(name).type
        except TypeError:
            import ml_dtypes

            return getattr(ml_dtypes, name)

    def is_compatible_with(self, other: Any) -> bool:
        other = as_dtype(other)
        return self._type_enum in (other._type_enum, other._base_enum)

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        if type(other) is not DType:
            try:
                other = as_dtype(other)
            except TypeError:
                return False
        return self._type_enum == other._type_enum

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._type_enum

    def __int__(self) -> int:
        return self._type_enum

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"

    def __reduce__(self) -> tuple[Callable[[Any], DType], tuple[str]]:
        return as_dtype, (self.name,)


_BY_ENUM: dict[int, DType] = {}
for _enum in _names.BY_ENUM:
    _BY_ENUM[_enum] = DType(_enum)
    _BY_ENUM[_enum + _names.REF_OFFSET] = DType(_enum + _names.REF_OFFSET)

# TF's `_STRING_TO_TF`: Python names plus the C++ aliases half/float/double (and _ref forms).
_BY_STRING: dict[str, DType] = {}
for _dt in _BY_ENUM.values():
    _BY_STRING[_dt.name] = _dt
for _alias, _target in (
    ("half", "float16"),
    ("float", "float32"),
    ("double", "float64"),
):
    _BY_STRING[_alias] = _BY_STRING[_target]
    _BY_STRING[_alias + "_ref"] = _BY_STRING[_target + "_ref"]

_BY_PYTHON_TYPE: dict[type, DType] = {
    builtins.float: _BY_ENUM[1],
    builtins.bool: _BY_ENUM[10],
    builtins.object: _BY_ENUM[7],
}

# Module attributes (they shadow the builtins `bool`/`float` here: use `builtins.`): generator names
# (`half`), Python names (`float16`), aliases, `_ref` forms.
for _key, _dt in _BY_STRING.items():
    globals()[_key] = _dt
for _n in _names.BY_ENUM.values():
    globals()[_n.generator] = _BY_ENUM[_n.enum]
    globals()[_n.generator + "_ref"] = _BY_ENUM[_n.enum + _names.REF_OFFSET]
float32: DType = _BY_ENUM[1]
float64: DType = _BY_ENUM[2]
int32: DType = _BY_ENUM[3]
int64: DType = _BY_ENUM[9]
string: DType = _BY_ENUM[7]
resource: DType = _BY_ENUM[20]
variant: DType = _BY_ENUM[21]
half: DType = _BY_ENUM[19]
float16: DType = _BY_ENUM[19]
bfloat16: DType = _BY_ENUM[14]
uint64: DType = _BY_ENUM[23]
complex64: DType = _BY_ENUM[8]
complex128: DType = _BY_ENUM[18]
bool_: DType = _BY_ENUM[10]
# Static names of the remaining generator dtypes, so type checkers see every `_dtypes.<name>`.
uint8: DType = _BY_ENUM[4]
int16: DType = _BY_ENUM[5]
int8: DType = _BY_ENUM[6]
qint8: DType = _BY_ENUM[11]
quint8: DType = _BY_ENUM[12]
qint32: DType = _BY_ENUM[13]
qint16: DType = _BY_ENUM[15]
quint16: DType = _BY_ENUM[16]
uint16: DType = _BY_ENUM[17]
uint32: DType = _BY_ENUM[22]
float8_e5m2: DType = _BY_ENUM[24]
float8_e4m3fn: DType = _BY_ENUM[25]
float8_e4m3fnuz: DType = _BY_ENUM[26]
float8_e4m3b11fnuz: DType = _BY_ENUM[27]
float8_e5m2fnuz: DType = _BY_ENUM[28]
int4: DType = _BY_ENUM[29]
uint4: DType = _BY_ENUM[30]
int2: DType = _BY_ENUM[31]
uint2: DType = _BY_ENUM[32]
float4_e2m1fn: DType = _BY_ENUM[33]
globals()["bool"] = bool_

_NUMPY_KIND_TO_STRING = {"O", "S", "U"}


def _from_numpy_dtype(np_dtype: Any) -> DType | None:
    if np_dtype.kind in _NUMPY_KIND_TO_STRING:
        return string
    return _BY_STRING.get(np_dtype.name) if not np_dtype.name.endswith("_ref") else None


def as_dtype(type_value: Any) -> DType:
    """TF's `tf.as_dtype`: DType, enum int (incl. refs), name, numpy dtype/type, float/bool/object."""
    if type(type_value) is DType:
        return type_value
    np = sys.modules.get("numpy")
    if np is not None and isinstance(type_value, np.dtype):
        found = _from_numpy_dtype(type_value)
        if found is not None:
            return found
    try:
        if type(type_value) is str:
            return _BY_STRING[type_value]
        if isinstance(type_value, int) and not isinstance(type_value, builtins.bool):
            return _BY_ENUM[type_value]
        if type_value is True:  # hashes like 1 in TF's lookup table
            return _BY_ENUM[1]
        if isinstance(type_value, type):
            if type_value in _BY_PYTHON_TYPE:
                return _BY_PYTHON_TYPE[type_value]
            if np is not None and issubclass(type_value, np.generic):
                found = _from_numpy_dtype(np.dtype(type_value))
                if found is not None:
                    return found
    except (KeyError, TypeError):
        pass
    if is_tf_dtype(type_value):
        return _BY_ENUM[type_value.as_datatype_enum]
    if (
        np is not None
        and hasattr(type_value, "dtype")
        and not hasattr(type_value, "op")
    ):
        try:
            found = _from_numpy_dtype(np.dtype(type_value.dtype))
            if found is not None:
                return found
        except TypeError:
            pass
    raise TypeError(
        f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType."
    )


def datatype_enums() -> list[int]:
    """Every DataType enum value, refs included."""
    return sorted(_BY_ENUM)
