"""OpRegistry semantics (`op.cc` OpRegistry): first registration wins, TF's texts,
deferred registration, Export order, the OpList-backed registry."""

from __future__ import annotations

import pytest

from opgen.errors import Location, OpgenError, OpgenErrors
from opgen.model import OpSource
from opgen.registry import OpListRegistry, OpRegistry
from opgen_runtime.proto import op_def_pb2


def src(line: int) -> OpSource:
    return OpSource(Location("ops.cc", line, 1))


def test_first_registration_wins():
    reg = OpRegistry()
    reg.register(op_def_pb2.OpDef(name="Foo", summary="first"), src(1))
    with pytest.raises(OpgenError) as e:
        reg.register(op_def_pb2.OpDef(name="Foo", summary="second"), src(9))
    assert e.value.format() == "ops.cc:9:1: error: Op with name Foo"
    assert reg.lookup("Foo").summary == "first" and reg.sources["Foo"] == src(1)


def test_export_sorted_bytewise_and_internal_ops():
    reg = OpRegistry()
    for i, name in enumerate(["lower", "_Hidden", "Zeta", "Alpha"]):
        reg.register(op_def_pb2.OpDef(name=name), src(i))
    assert [op.name for op in reg.export().op] == ["Alpha", "Zeta", "lower"]
    assert [op.name for op in reg.export(include_internal=True).op] == ["Alpha", "Zeta", "_Hidden", "lower"]


def test_lookup_not_found_text():
    with pytest.raises(OpgenError) as e:
        OpRegistry().lookup("Nope")
    assert e.value.message.startswith("Op type not registered 'Nope' in binary running on ")
    assert "Make sure the Op and Kernel are registered in the binary running in this process." in e.value.message


def test_deferred_registration_stops_at_first_error_and_keeps_queue():
    reg = OpRegistry()
    reg.register(op_def_pb2.OpDef(name="A"), src(1))
    reg.defer_registrations()
    calls = []

    def factory(name):
        def make():
            calls.append(name)
            return op_def_pb2.OpDef(name=name)
        return make

    for i, name in enumerate(["B", "A", "C"]):
        reg.defer(factory(name), src(10 + i))
    assert "B" not in reg
    with pytest.raises(OpgenError, match="Op with name A"):
        reg.process_registrations()
    assert calls == ["B", "A"] and "C" not in reg
    reg.process_registrations()  # already initialized: nothing happens
    assert "C" not in reg
    reg.defer_registrations()
    with pytest.raises(OpgenErrors):  # the implicit processing re-runs the whole kept queue
        reg.export()
    assert "C" in reg


def test_op_list_registry_later_duplicates_overwrite():
    ol = op_def_pb2.OpList(op=[op_def_pb2.OpDef(name="X", summary="1"), op_def_pb2.OpDef(name="X", summary="2"),
                               op_def_pb2.OpDef(name="_Y")])
    reg = OpListRegistry(ol)
    assert reg.lookup("X").summary == "2"
    assert [op.name for op in reg.export().op] == ["X"]
    with pytest.raises(OpgenError, match="Op type not registered 'Z'"):
        reg.lookup("Z")
