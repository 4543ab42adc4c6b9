"""The example op library `op_specs/`: real C++ that compiles against TF 2.21, whose
OpDefs equal TF's registry entries (apart from docs and the example's own custom ops), covers every grammar feature, and
which opgen's front end reads into exactly the OpList TF builds from it (docs included)."""

from __future__ import annotations

import pytest
from oracle.tf_library import library_op_list
from oracle.tf_registry import tf_op_list
from support.paths import REPO

from opgen.spec.gather import gather
from opgen_runtime.proto import op_def_pb2, types_pb2

OP_SPECS = REPO / "op_specs"
SOURCES = sorted(OP_SPECS.glob("*.cc"))


@pytest.fixture(scope="module")
def library() -> dict[str, op_def_pb2.OpDef]:
    """op_specs compiled with g++ and loaded by TF_LoadLibrary: TF's own OpDefs, with docs."""
    ops = library_op_list(SOURCES)
    names = [op.name for op in ops.op]
    assert len(names) == len(set(names))
    return {op.name: op for op in ops.op}


def without_docs(op: op_def_pb2.OpDef) -> op_def_pb2.OpDef:
    result = op_def_pb2.OpDef()
    result.CopyFrom(op)
    result.ClearField("summary")
    result.ClearField("description")
    for item in (*result.input_arg, *result.output_arg, *result.attr):
        item.ClearField("description")
    return result


@pytest.mark.oracle
def test_op_specs_equal_tf_registry_apart_from_docs(library):
    registry = {op.name: op for op in tf_op_list().op}
    assert len(library) >= 40
    custom = {op.name for op in gather([str(OP_SPECS / "custom_ops.cc")]).op_list.op}
    assert custom == {"OpgenExampleClamp", "OpgenExampleRunningSum"}  # the example's own ops
    for name, op in library.items():
        if name in custom:
            assert name not in registry
            continue
        assert name in registry, f"{name} is not an op of TF 2.21"
        assert without_docs(op) == registry[name], name


@pytest.mark.oracle
def test_op_specs_cover_every_grammar_feature(library):
    ops = list(library.values())
    args = [(op, arg) for op in ops for arg in (*op.input_arg, *op.output_arg)]
    attrs = [(op, attr) for op in ops for attr in op.attr]

    def ops_with(predicate, items):
        return sorted({op.name for op, item in items if predicate(item)})

    def type_named(type_name):
        return lambda attr: attr.type == type_name

    features = {
        "N * T": ops_with(lambda a: a.number_attr and a.type_attr, args),
        "type list": ops_with(lambda a: a.type_list_attr, args),
        "Ref": ops_with(lambda a: a.is_ref, args),
        "resource": ops_with(lambda a: a.type == types_pb2.DT_RESOURCE, args),
        "fixed type": ops_with(
            lambda a: a.type not in (0, types_pb2.DT_RESOURCE), args
        ),
        "full type": ops_with(lambda a: a.HasField("experimental_full_type"), args),
        "multi-output": sorted(op.name for op in ops if len(op.output_arg) > 1),
        "no output": sorted(op.name for op in ops if not op.output_arg),
        "type set": ops_with(
            lambda a: a.type == "type" and a.allowed_values.list.type, attrs
        ),
        "string set": ops_with(lambda a: a.allowed_values.list.s, attrs),
        "type default": ops_with(
            lambda a: a.type == "type" and a.HasField("default_value"), attrs
        ),
        "minimum": ops_with(lambda a: a.has_minimum and a.minimum > 1, attrs),
        ">= 0": ops_with(lambda a: a.has_minimum and a.minimum == 0, attrs),
        **{
            t: ops_with(type_named(t), attrs)
            for t in ("int", "float", "bool", "string", "shape", "tensor", "func")
        },
        **{
            t: ops_with(type_named(t), attrs)
            for t in ("list(int)", "list(type)", "list(shape)", "list(string)")
        },
        "deprecated": sorted(op.name for op in ops if op.HasField("deprecation")),
        "commutative": sorted(op.name for op in ops if op.is_commutative),
        "aggregate": sorted(op.name for op in ops if op.is_aggregate),
        "stateful": sorted(op.name for op in ops if op.is_stateful),
        "uninitialized input": sorted(
            op.name for op in ops if op.allows_uninitialized_input
        ),
        "distributed communication": sorted(
            op.name for op in ops if op.is_distributed_communication
        ),
    }
    # "float" attrs: none of TF's ops in the library has one; everything else must occur.
    missing = [
        feature
        for feature, names in features.items()
        if not names and feature != "float"
    ]
    assert not missing
    assert {
        "Split",
        "SplitV",
        "Unique",
        "IdentityN",
        "AddN",
        "Conv2D",
        "MirrorPad",
    } <= set(library)


@pytest.mark.oracle
def test_gathered_op_list_equals_compiled_library_with_docs(library):
    gathered = gather([str(OP_SPECS)]).op_list
    assert [op.name for op in gathered.op] == sorted(library, key=str.encode)
    for op in gathered.op:
        assert op == library[op.name], op.name


@pytest.mark.oracle
def test_defines_select_the_same_ops_in_both(tmp_path):
    array_ops = OP_SPECS / "array_ops.cc"
    defines = ["OPGEN_EXAMPLE_SKIP_FILL"]
    compiled = library_op_list([array_ops], defines=defines)
    gathered = gather([str(array_ops)], defines=defines).op_list
    assert "Fill" not in {op.name for op in compiled.op}
    assert {op.name: op for op in gathered.op} == {op.name: op for op in compiled.op}


def test_registrations_in_comments_are_not_ops():
    names = {op.name for op in gather([str(OP_SPECS)]).op_list.op}
    assert "Fill" in names
    assert not {"Minimum", "IdentityV9"} & names  # both appear only inside comments
