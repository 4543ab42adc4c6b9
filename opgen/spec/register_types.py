"""TensorFlow 2.21's kernel-registration vocabulary, for reading REGISTER_KERNEL_BUILDER
without TF's headers: the `TF_CALL_*` type lists of `register_types.h` (with the platform
defines that change them), the C++ types `DataTypeToEnum` maps to a DataType (`types.h`),
and the device names of `types.h` (`DEVICE_CPU`, ...).

`tests/gather/test_register_types.py` expands the wheel's own `register_types.h` with opgen's
preprocessor under each platform and checks it equals `tf_call_defines`.
"""

from __future__ import annotations

from collections.abc import Iterable

from opgen.spec.preprocessor import parse_define_option
from opgen_runtime.proto import types_pb2

# `TF_CALL_<name>(m)` -> `m(<C++ type>)`, in register_types.h's order.
TYPE_MACROS: dict[str, str] = {
    "float": "float",
    "double": "double",
    "int32": "::int32_t",
    "uint32": "::uint32_t",
    "uint8": "::uint8_t",
    "int16": "::int16_t",
    "int8": "::int8_t",
    "string": "::tensorflow::tstring",
    "tstring": "::tensorflow::tstring",
    "resource": "::tensorflow::ResourceHandle",
    "variant": "::tensorflow::Variant",
    "complex64": "::tensorflow::complex64",
    "int64": "::int64_t",
    "uint64": "::uint64_t",
    "bool": "bool",
    "qint8": "::tensorflow::qint8",
    "quint8": "::tensorflow::quint8",
    "qint32": "::tensorflow::qint32",
    "bfloat16": "::tensorflow::bfloat16",
    "qint16": "::tensorflow::qint16",
    "quint16": "::tensorflow::quint16",
    "uint16": "::uint16_t",
    "complex128": "::tensorflow::complex128",
    "half": "Eigen::half",
    "float8_e5m2": "::tensorflow::float8_e5m2",
    "float8_e4m3fn": "::tensorflow::float8_e4m3fn",
    "float8_e4m3fnuz": "::tensorflow::float8_e4m3fnuz",
    "float8_e4m3b11fnuz": "::tensorflow::float8_e4m3b11fnuz",
    "float8_e5m2fnuz": "::tensorflow::float8_e5m2fnuz",
    "float4_e2m1fn": "::tensorflow::float4_e2m1fn",
    "int4": "::tensorflow::int4",
    "uint4": "::tensorflow::uint4",
    "int2": "::tensorflow::int2",
    "uint2": "::tensorflow::uint2",
}

# The types a mobile build keeps (register_types.h: `__ANDROID_TYPES_FULL__`, else the
# slim set); every other TF_CALL_<type>(m) expands to nothing there.
_ANDROID_FULL_TYPES = frozenset({"float", "int32", "string", "tstring", "int64", "bool", "qint8", "quint8", "qint32",
                                 "qint16", "quint16", "half"})
_MOBILE_SLIM_TYPES = frozenset({"float", "int32", "bool"})

# Group macros -> the macros they call, in order.
GROUP_MACROS: dict[str, tuple[str, ...]] = {
    "INTEGRAL_TYPES_NO_INT32": ("uint64", "int64", "uint32", "uint16", "int16", "uint8", "int8"),
    "INTEGRAL_TYPES": ("INTEGRAL_TYPES_NO_INT32", "int32"),
    "FLOAT_TYPES": ("half", "bfloat16", "float", "double"),
    "REAL_NUMBER_TYPES": ("INTEGRAL_TYPES", "FLOAT_TYPES"),
    "REAL_NUMBER_TYPES_NO_BFLOAT16": ("INTEGRAL_TYPES", "half", "float", "double"),
    "REAL_NUMBER_TYPES_NO_INT32": ("half", "bfloat16", "float", "double", "INTEGRAL_TYPES_NO_INT32"),
    "COMPLEX_TYPES": ("complex64", "complex128"),
    "NUMBER_TYPES": ("REAL_NUMBER_TYPES", "COMPLEX_TYPES"),
    "NUMBER_TYPES_NO_INT32": ("REAL_NUMBER_TYPES_NO_INT32", "COMPLEX_TYPES"),
    "POD_TYPES": ("NUMBER_TYPES", "bool"),
    "ALL_TYPES": ("POD_TYPES", "tstring", "resource", "variant"),
    "POD_STRING_TYPES": ("POD_TYPES", "tstring"),
    "GPU_NUMBER_TYPES": ("half", "bfloat16", "float", "double"),
    "GPU_ALL_TYPES": ("GPU_NUMBER_TYPES", "COMPLEX_TYPES", "bool"),
    "GPU_NUMBER_TYPES_NO_HALF": ("float", "double"),
    "QUANTIZED_TYPES": ("qint8", "quint8", "qint32"),
    "SAVE_RESTORE_TYPES": ("REAL_NUMBER_TYPES_NO_BFLOAT16", "COMPLEX_TYPES", "QUANTIZED_TYPES", "bool", "tstring"),
}

# C++ spellings (after dropping a leading `::`, `tensorflow::` or `std::`, and spaces) ->
# DataType, as DataTypeToEnum<T> maps them (types.h MATCH_TYPE_AND_ENUM and its `long`,
# `long long` specializations; the fundamental types behind the <cstdint> names are those of
# the LP64 platforms TF builds for).
_CPP_TYPE_NAMES: dict[str, str] = {
    "float": "DT_FLOAT", "double": "DT_DOUBLE",
    "int32": "DT_INT32", "int32_t": "DT_INT32", "int": "DT_INT32",
    "uint32": "DT_UINT32", "uint32_t": "DT_UINT32",
    "uint16": "DT_UINT16", "uint16_t": "DT_UINT16",
    "uint8": "DT_UINT8", "uint8_t": "DT_UINT8",
    "int16": "DT_INT16", "int16_t": "DT_INT16",
    "int8": "DT_INT8", "int8_t": "DT_INT8",
    "tstring": "DT_STRING",
    "complex64": "DT_COMPLEX64", "complex<float>": "DT_COMPLEX64",
    "complex128": "DT_COMPLEX128", "complex<double>": "DT_COMPLEX128",
    "int64": "DT_INT64", "int64_t": "DT_INT64", "long": "DT_INT64", "longlong": "DT_INT64",
    "unsignedint": "DT_UINT32", "unsignedlong": "DT_UINT64", "unsignedlonglong": "DT_UINT64",
    "short": "DT_INT16", "unsignedshort": "DT_UINT16", "signedchar": "DT_INT8", "unsignedchar": "DT_UINT8",
    "uint64": "DT_UINT64", "uint64_t": "DT_UINT64",
    "bool": "DT_BOOL",
    "qint8": "DT_QINT8", "quint8": "DT_QUINT8", "qint16": "DT_QINT16", "quint16": "DT_QUINT16",
    "qint32": "DT_QINT32",
    "Eigen::QInt8": "DT_QINT8", "Eigen::QUInt8": "DT_QUINT8", "Eigen::QInt16": "DT_QINT16",
    "Eigen::QUInt16": "DT_QUINT16", "Eigen::QInt32": "DT_QINT32",
    "bfloat16": "DT_BFLOAT16", "Eigen::bfloat16": "DT_BFLOAT16",
    "half": "DT_HALF", "Eigen::half": "DT_HALF",
    "ResourceHandle": "DT_RESOURCE", "Variant": "DT_VARIANT",
    "float8_e5m2": "DT_FLOAT8_E5M2", "float8_e4m3fn": "DT_FLOAT8_E4M3FN",
    "float8_e4m3fnuz": "DT_FLOAT8_E4M3FNUZ", "float8_e4m3b11fnuz": "DT_FLOAT8_E4M3B11FNUZ",
    "float8_e5m2fnuz": "DT_FLOAT8_E5M2FNUZ", "float4_e2m1fn": "DT_FLOAT4_E2M1FN",
    "int4": "DT_INT4", "uint4": "DT_UINT4", "int2": "DT_INT2", "uint2": "DT_UINT2",
}
_CPP_NAMESPACES = ("::", "tensorflow::", "std::", "tsl::", "ml_dtypes::")

# types.h: `const char* const DEVICE_CPU = "CPU";` and its siblings.
DEVICE_NAMES: dict[str, str] = {
    "DEVICE_DEFAULT": "DEFAULT", "DEVICE_CPU": "CPU", "DEVICE_GPU": "GPU", "DEVICE_TPU": "TPU",
    "DEVICE_TPU_SYSTEM": "TPU_SYSTEM",
}

# Platform defines that select register_types.h's type lists.
PLATFORM_DEFINES = ("IS_MOBILE_PLATFORM", "SUPPORT_SELECTIVE_REGISTRATION", "ANDROID_TEGRA", "__ANDROID_TYPES_FULL__")


def _enabled_types(defined: set[str]) -> frozenset[str]:
    if ("IS_MOBILE_PLATFORM" not in defined or "SUPPORT_SELECTIVE_REGISTRATION" in defined
            or "ANDROID_TEGRA" in defined):
        return frozenset(TYPE_MACROS)
    return _ANDROID_FULL_TYPES if "__ANDROID_TYPES_FULL__" in defined else _MOBILE_SLIM_TYPES


def tf_call_defines(defines: Iterable[str] = ()) -> list[str]:
    """`-D`-style definitions of every `TF_CALL_*` macro as register_types.h defines them
    for a build with `defines` (the `-D NAME[=V]` options): `TF_CALL_float(m)=m(float)`,
    `TF_CALL_NUMBER_TYPES(m)=TF_CALL_REAL_NUMBER_TYPES(m) TF_CALL_COMPLEX_TYPES(m)`, ..."""
    defined = {parse_define_option(d)[0].split("(", 1)[0] for d in defines}
    enabled = _enabled_types(defined)
    out = [f"TF_CALL_{name}(m)=" + (f"m({cpp})" if name in enabled else "") for name, cpp in TYPE_MACROS.items()]
    out += [f"TF_CALL_{name}(m)=" + " ".join(f"TF_CALL_{part}(m)" for part in parts)
            for name, parts in GROUP_MACROS.items()]
    return out


def datatype_of_cpp_type(spelling: str) -> int | None:
    """`::int32_t`, `tensorflow::bfloat16`, `std::complex<float>`, `Eigen::half` -> the
    DataType DataTypeToEnum gives it; None for a type TF has no DataType for."""
    text = spelling.replace(" ", "")
    changed = True
    while changed:
        changed = False
        for prefix in _CPP_NAMESPACES:
            if text.startswith(prefix):
                text, changed = text[len(prefix):], True
    name = _CPP_TYPE_NAMES.get(text)
    return None if name is None else types_pb2.DataType.Value(name)


def datatype_of_enum_name(spelling: str) -> int | None:
    """`DT_FLOAT`, `tensorflow::DT_FLOAT`, `::tensorflow::DataType::DT_FLOAT` -> DT_FLOAT;
    None for anything else (`DT_FLOAT_REF` is not a type a kernel constrains)."""
    name = spelling.replace(" ", "").rsplit("::", 1)[-1]
    if not name.startswith("DT_") or name.endswith("_REF") or name not in types_pb2.DataType.DESCRIPTOR.values_by_name:
        return None
    value = types_pb2.DataType.Value(name)
    return value if value != types_pb2.DT_INVALID else None
