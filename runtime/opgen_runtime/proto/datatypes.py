"""Names of TensorFlow's DataType enum values, as TF 2.21 spells them in each context.

One table serves the spec front end (C++ `DataTypeFromString` / `DataTypeString`), the
renderer (`_dtypes.<name>` defaults, docstring names, `_atypes.<X>` annotations) and the
runtime (Python `DType.name`). See TF's `types.proto` and `types.cc` DataTypeFromString.
"""

from __future__ import annotations

from typing import NamedTuple

REF_OFFSET = 100


# A NamedTuple, not a dataclass: the runtime imports this module, and dataclasses (with
# inspect) would add ~10 ms to every import of a generated module.
class DataTypeNames(NamedTuple):
    enum: int  # DataType value (non-ref)
    enum_name: str  # "DT_FLOAT"
    cpp: str  # DataTypeString: "float", "half"
    python: str  # tf.DType.name: "float32", "float16"
    generator: str  # python_op_gen's `_dtypes.`/docstring name: "float32", "half"
    annotation: str  # `_atypes.` class name: "Float32", "Half"


_ROWS = [
    (1, "DT_FLOAT", "float", "float32", "float32", "Float32"),
    (2, "DT_DOUBLE", "double", "float64", "float64", "Float64"),
    (3, "DT_INT32", "int32", "int32", "int32", "Int32"),
    (4, "DT_UINT8", "uint8", "uint8", "uint8", "UInt8"),
    (5, "DT_INT16", "int16", "int16", "int16", "Int16"),
    (6, "DT_INT8", "int8", "int8", "int8", "Int8"),
    (7, "DT_STRING", "string", "string", "string", "String"),
    (8, "DT_COMPLEX64", "complex64", "complex64", "complex64", "Complex64"),
    (9, "DT_INT64", "int64", "int64", "int64", "Int64"),
    (10, "DT_BOOL", "bool", "bool", "bool", "Bool"),
    (11, "DT_QINT8", "qint8", "qint8", "qint8", "QInt8"),
    (12, "DT_QUINT8", "quint8", "quint8", "quint8", "QUInt8"),
    (13, "DT_QINT32", "qint32", "qint32", "qint32", "QInt32"),
    (14, "DT_BFLOAT16", "bfloat16", "bfloat16", "bfloat16", "BFloat16"),
    (15, "DT_QINT16", "qint16", "qint16", "qint16", "QInt16"),
    (16, "DT_QUINT16", "quint16", "quint16", "quint16", "QUInt16"),
    (17, "DT_UINT16", "uint16", "uint16", "uint16", "UInt16"),
    (18, "DT_COMPLEX128", "complex128", "complex128", "complex128", "Complex128"),
    (19, "DT_HALF", "half", "float16", "half", "Half"),
    (20, "DT_RESOURCE", "resource", "resource", "resource", "Resource"),
    (21, "DT_VARIANT", "variant", "variant", "variant", "Variant"),
    (22, "DT_UINT32", "uint32", "uint32", "uint32", "UInt32"),
    (23, "DT_UINT64", "uint64", "uint64", "uint64", "UInt64"),
    (24, "DT_FLOAT8_E5M2", "float8_e5m2", "float8_e5m2", "float8_e5m2", "Float8e5m2"),
    (25, "DT_FLOAT8_E4M3FN", "float8_e4m3fn", "float8_e4m3fn", "float8_e4m3fn", "Float8e4m3fn"),
    (26, "DT_FLOAT8_E4M3FNUZ", "float8_e4m3fnuz", "float8_e4m3fnuz", "float8_e4m3fnuz", "Float8e4m3fnuz"),
    (
        27,
        "DT_FLOAT8_E4M3B11FNUZ",
        "float8_e4m3b11fnuz",
        "float8_e4m3b11fnuz",
        "float8_e4m3b11fnuz",
        "Float8e4m3b11fnuz",
    ),
    (28, "DT_FLOAT8_E5M2FNUZ", "float8_e5m2fnuz", "float8_e5m2fnuz", "float8_e5m2fnuz", "Float8e5m2fnuz"),
    (29, "DT_INT4", "int4", "int4", "int4", "Int4"),
    (30, "DT_UINT4", "uint4", "uint4", "uint4", "UInt4"),
    (31, "DT_INT2", "int2", "int2", "int2", "Int2"),
    (32, "DT_UINT2", "uint2", "uint2", "uint2", "UInt2"),
    (33, "DT_FLOAT4_E2M1FN", "float4_e2m1fn", "float4_e2m1fn", "float4_e2m1fn", "Float4e2m1fn"),
]

BY_ENUM: dict[int, DataTypeNames] = {r[0]: DataTypeNames(*r) for r in _ROWS}

# DataTypeFromString's accepted spellings (`types.cc`): every C++ name, the float/double/half aliases,
# and each of those with a `_ref` suffix.
_CPP_ALIASES = {"float32": 1, "float64": 2, "float16": 19}
FROM_CPP_STRING: dict[str, int] = {}
for _names in BY_ENUM.values():
    FROM_CPP_STRING[_names.cpp] = _names.enum
for _alias, _enum in _CPP_ALIASES.items():
    FROM_CPP_STRING[_alias] = _enum
for _spelling, _enum in list(FROM_CPP_STRING.items()):
    FROM_CPP_STRING[_spelling + "_ref"] = _enum + REF_OFFSET


def is_ref(enum: int) -> bool:
    return enum > REF_OFFSET


def base(enum: int) -> int:
    return enum - REF_OFFSET if enum > REF_OFFSET else enum


def data_type_from_string(text: str) -> int | None:
    """C++ `DataTypeFromString`: the enum for `text`, or None when TF would reject it."""
    return FROM_CPP_STRING.get(text)


def cpp_name(enum: int) -> str:
    """C++ `DataTypeString`: `float`, `half`, `float_ref`; `INVALID` for 0."""
    names = BY_ENUM.get(base(enum))
    if names is None:
        return "INVALID" if enum == 0 else f"unknown dtype enum ({enum})"
    return names.cpp + ("_ref" if is_ref(enum) else "")


def python_name(enum: int) -> str:
    """tf.DType.name: `float32`, `float16`, `float32_ref`."""
    names = BY_ENUM[base(enum)]
    return names.python + ("_ref" if is_ref(enum) else "")


def enum_name(enum: int) -> str:
    """The proto enum value name: `DT_FLOAT`, `DT_FLOAT_REF`, `DT_INVALID`."""
    if enum == 0:
        return "DT_INVALID"
    return BY_ENUM[base(enum)].enum_name + ("_REF" if is_ref(enum) else "")
