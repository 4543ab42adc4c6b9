"""Our protos are TF's wire/text format under opgen's own package, and load across the protobuf range."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from oracle.tf_registry import tf_op_list_bytes
from support.paths import REPO

from opgen.proto import (
    api_def_pb2,
    kernel_def_pb2,
    op_gen_overrides_pb2,
)
from opgen_runtime.proto import (
    attr_value_pb2,
    full_type_pb2,
    function_pb2,
    graph_debug_info_pb2,
    graph_pb2,
    node_def_pb2,
    op_def_pb2,
    resource_handle_pb2,
    tensor_pb2,
    tensor_shape_pb2,
    types_pb2,
    versions_pb2,
)

OURS_TO_TF = {
    types_pb2: "tensorflow.core.framework.types_pb2",
    tensor_shape_pb2: "tensorflow.core.framework.tensor_shape_pb2",
    resource_handle_pb2: "tensorflow.core.framework.resource_handle_pb2",
    tensor_pb2: "tensorflow.core.framework.tensor_pb2",
    attr_value_pb2: "tensorflow.core.framework.attr_value_pb2",
    full_type_pb2: "tensorflow.core.framework.full_type_pb2",
    op_def_pb2: "tensorflow.core.framework.op_def_pb2",
    node_def_pb2: "tensorflow.core.framework.node_def_pb2",
    function_pb2: "tensorflow.core.framework.function_pb2",
    versions_pb2: "tensorflow.core.framework.versions_pb2",
    graph_pb2: "tensorflow.core.framework.graph_pb2",
    graph_debug_info_pb2: "tensorflow.core.framework.graph_debug_info_pb2",
    api_def_pb2: "tensorflow.core.framework.api_def_pb2",
    kernel_def_pb2: "tensorflow.core.framework.kernel_def_pb2",
}


def _shape(desc):
    """Everything that decides wire and text format: names, numbers, types, labels, enums."""
    fields = []
    for f in desc.fields:
        target = f.message_type.name if f.message_type else (f.enum_type.name if f.enum_type else "")
        is_map = bool(f.message_type and f.message_type.GetOptions().map_entry)
        fields.append((f.name, f.number, f.type, f.is_repeated, is_map, f.has_presence, target))
    nested = sorted((n.name, _shape(n)) for n in desc.nested_types)
    enums = sorted((e.name, tuple((v.name, v.number) for v in e.values)) for e in desc.enum_types)
    oneofs = sorted((o.name, tuple(f.name for f in o.fields)) for o in desc.oneofs)
    return (tuple(sorted(fields)), tuple(nested), tuple(enums), tuple(oneofs))


def _file_shape(file_desc):
    messages = sorted((n, _shape(m)) for n, m in file_desc.message_types_by_name.items())
    enums = sorted((n, tuple((v.name, v.number) for v in e.values)) for n, e in file_desc.enum_types_by_name.items())
    return messages, enums


def test_our_package_is_not_tensorflows():
    assert op_def_pb2.OpDef.DESCRIPTOR.full_name == "opgen.OpDef"
    assert op_gen_overrides_pb2.OpGenOverride.DESCRIPTOR.full_name == "opgen.OpGenOverride"


@pytest.mark.oracle
@pytest.mark.parametrize("ours", list(OURS_TO_TF), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_descriptors_match_tensorflow(tf, ours):
    theirs = importlib.import_module(OURS_TO_TF[ours])
    assert _file_shape(ours.DESCRIPTOR) == _file_shape(theirs.DESCRIPTOR)


@pytest.mark.oracle
def test_wire_and_text_round_trip_with_tensorflow(tf):
    from google.protobuf import text_format
    from tensorflow.core.framework import op_def_pb2 as tf_op_def_pb2

    tf_ops = tf_op_def_pb2.OpList()
    tf_ops.ParseFromString(tf_op_list_bytes())
    ours = op_def_pb2.OpList.FromString(tf_ops.SerializeToString())
    assert len(ours.op) > 1500
    assert ours.SerializeToString(deterministic=True) == tf_ops.SerializeToString(deterministic=True)
    text = text_format.MessageToString(tf_ops)
    assert text_format.MessageToString(text_format.Parse(text, op_def_pb2.OpList())) == text


@pytest.mark.oracle
def test_kernel_list_round_trips_with_tensorflow(tf):
    """TF's own registry of kernels (every KernelDef of the wheel) reads and writes back
    byte for byte and text for text."""
    from google.protobuf import text_format
    from tensorflow.python.framework import kernels

    tf_kernels = kernels.get_all_registered_kernels()
    ours = kernel_def_pb2.KernelList.FromString(tf_kernels.SerializeToString())
    assert len(ours.kernel) > 1000
    assert any(k.host_memory_arg for k in ours.kernel) and any(k.label for k in ours.kernel)
    assert any(k.priority for k in ours.kernel)
    assert ours.SerializeToString(deterministic=True) == tf_kernels.SerializeToString(deterministic=True)
    text = text_format.MessageToString(tf_kernels)
    assert text_format.MessageToString(text_format.Parse(text, kernel_def_pb2.KernelList())) == text


PROTOBUF_RANGE_ENDS = ["6.31.1", "7.36.2"]


@pytest.mark.parametrize("version", PROTOBUF_RANGE_ENDS)
def test_committed_pb2_load_at_both_ends_of_protobuf_range(version, tmp_path):
    """The committed gencode must load on every runtime we declare (protobuf>=6.31.1,<8)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "opgen" / f"protobuf-{version}"
    if not (cache / "google" / "protobuf").is_dir():
        tmp = cache.with_name(cache.name + f".tmp{os.getpid()}")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(tmp),
                        f"protobuf=={version}"], check=True)
        tmp.rename(cache)
    code = (
        "import google.protobuf as p, sys;"
        f"assert p.__version__ == {version!r}, p.__version__;"
        "import opgen_runtime.proto.graph_pb2, opgen.proto.api_def_pb2, opgen.proto.op_gen_overrides_pb2, "
        "opgen.proto.kernel_def_pb2;"
        "from opgen_runtime.proto import op_def_pb2;"
        "o = op_def_pb2.OpDef(name='X'); assert op_def_pb2.OpDef.FromString(o.SerializeToString()).name == 'X'"
    )
    env = dict(os.environ, PYTHONPATH=f"{cache}{os.pathsep}{REPO}")
    proc = subprocess.run([sys.executable, "-S", "-W", "error", "-c", code], env=env, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
