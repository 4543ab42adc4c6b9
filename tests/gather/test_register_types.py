"""opgen's built-in TF_CALL_* table equals what the TF wheel's own `register_types.h`
expands to, for each platform define that changes it (the header is read with opgen's
preprocessor; no TensorFlow import)."""

from __future__ import annotations

import re

import pytest
from oracle.cxx_build import CxxBuildError, tf_install

from opgen.spec.cpp_lexer import TEXT
from opgen.spec.preprocessor import Preprocessor
from opgen.spec.register_types import (
    DEVICE_NAMES,
    GROUP_MACROS,
    PLATFORM_DEFINES,
    TYPE_MACROS,
    datatype_of_cpp_type,
    datatype_of_enum_name,
    tf_call_defines,
)
from opgen_runtime.proto import types_pb2

PLATFORMS = [
    (),
    ("IS_MOBILE_PLATFORM",),
    ("IS_MOBILE_PLATFORM", "__ANDROID_TYPES_FULL__"),
    ("IS_MOBILE_PLATFORM", "SUPPORT_SELECTIVE_REGISTRATION"),
    ("IS_MOBILE_PLATFORM", "ANDROID_TEGRA"),
]
MACROS = [*TYPE_MACROS, *GROUP_MACROS]


def _header_text() -> str:
    try:
        path = tf_install().include_dir / "tensorflow/core/framework/register_types.h"
    except CxxBuildError as e:
        pytest.skip(str(e))
    return path.read_text()


def _expansions(tmp_path, prelude: str, defines) -> dict[str, list[str]]:
    """Each TF_CALL_<name>(m) applied to a probe macro: the C++ types it calls m with."""
    probe = "#define OPGEN_PROBE(t) [ t ]\n" + "".join(f"OPGEN_AT_{m} TF_CALL_{m}(OPGEN_PROBE) ;\n" for m in MACROS)
    source = tmp_path / "probe.cc"
    source.write_text(prelude + "\n" + probe)
    tokens = [t[TEXT] for t in Preprocessor(defines).run(str(source))]
    tokens = tokens[tokens.index("OPGEN_AT_" + MACROS[0]):]
    out: dict[str, list[str]] = {}
    current = None
    for text in tokens:
        if text.startswith("OPGEN_AT_"):
            current, types, piece = text[len("OPGEN_AT_"):], [], []
            out[current] = types
        elif text == "[":
            piece = []
        elif text == "]":
            types.append("".join(piece))
        elif text != ";":
            piece.append(text)
    return out


@pytest.mark.oracle
def test_every_tf_call_macro_of_the_header_is_in_the_table():
    defined = set(re.findall(r"^#define TF_CALL_(\w+)\(m\)", _header_text(), re.MULTILINE))
    assert defined == set(MACROS)


@pytest.mark.oracle
@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: "+".join(p) or "default")
def test_table_expands_like_register_types_h(tmp_path, platform):
    theirs = _expansions(tmp_path, _header_text(), platform)
    ours = _expansions(tmp_path, "", [*tf_call_defines(platform), *platform])
    assert ours == theirs
    full = not platform or platform[-1] in ("SUPPORT_SELECTIVE_REGISTRATION", "ANDROID_TEGRA")
    assert len(theirs["ALL_TYPES"]) == (18 if full else len(theirs["ALL_TYPES"]))
    assert full or len(theirs["ALL_TYPES"]) < 18


def test_platform_defines_select_the_lists():
    assert set(PLATFORM_DEFINES) >= {d for p in PLATFORMS for d in p}
    full = dict(d.split("=", 1) for d in tf_call_defines())
    slim = dict(d.split("=", 1) for d in tf_call_defines(["IS_MOBILE_PLATFORM"]))
    assert full["TF_CALL_double(m)"] == "m(double)" and slim["TF_CALL_double(m)"] == ""
    assert slim["TF_CALL_float(m)"] == "m(float)"


def test_every_table_type_has_a_datatype():
    for name, cpp in TYPE_MACROS.items():
        dt = datatype_of_cpp_type(cpp)
        expected = "DT_STRING" if name in ("string", "tstring") else f"DT_{name.upper()}"
        assert dt == types_pb2.DataType.Value(expected), name
    assert datatype_of_cpp_type("std::complex<float>") == types_pb2.DT_COMPLEX64
    assert datatype_of_cpp_type("tensorflow::int64") == types_pb2.DT_INT64
    assert datatype_of_cpp_type("Eigen::QUInt8") == types_pb2.DT_QUINT8
    assert datatype_of_cpp_type("MyType") is None
    assert datatype_of_enum_name("::tensorflow::DT_HALF") == types_pb2.DT_HALF
    assert datatype_of_enum_name("DT_FLOAT_REF") is None and datatype_of_enum_name("DT_INVALID") is None


@pytest.mark.oracle
def test_cpp_types_map_like_types_h():
    """Every `MATCH_TYPE_AND_ENUM(TYPE, ENUM)` of the wheel's types.h (DataTypeToEnum)."""
    header = (tf_install().include_dir / "tensorflow/core/framework/types.h").read_text()
    pairs = re.findall(r"^MATCH_TYPE_AND_ENUM\(([\w:]+), (DT_\w+)\);", header, re.MULTILINE)
    assert len(pairs) >= 30
    for cpp, enum in pairs:
        assert datatype_of_cpp_type(cpp) == types_pb2.DataType.Value(enum), cpp
    for cpp in re.findall(r"^struct DataTypeToEnum<([\w ]+)> \{", header, re.MULTILINE):
        assert datatype_of_cpp_type(cpp) is not None, cpp  # long, unsigned long, long long, ...
    assert datatype_of_cpp_type("unsigned long long") == types_pb2.DT_UINT64
    assert datatype_of_cpp_type("unsigned char") == types_pb2.DT_UINT8
    devices = dict(re.findall(r"extern const char\* const (DEVICE_\w+);\s*// \"(\w+)\"", header))
    assert devices == DEVICE_NAMES
