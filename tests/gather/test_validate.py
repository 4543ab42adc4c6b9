"""ValidateOpDef / ValidateAttrValue / AttrValueHasType (`op_def_util.cc`)."""

from __future__ import annotations

import pytest

from opgen.spec.validate import (
    attr_value_has_type,
    validate_attr_value,
    validate_op_def,
)
from opgen_runtime.proto import attr_value_pb2, op_def_pb2


def op(**kw) -> op_def_pb2.OpDef:
    return op_def_pb2.OpDef(name="Foo", **kw)


def message(op_def) -> str:
    problem = validate_op_def(op_def)
    assert problem is not None
    return problem.message.split("; in OpDef: ")[0]


@pytest.mark.parametrize("name,ok", [("Foo", True), ("_anything goes", True), ("_", True), ("A_34", True),
                                     ("Ns>Op", True), ("foo", False), ("", False), ("Ns>op", False)])
def test_op_names(name, ok):
    assert (validate_op_def(op_def_pb2.OpDef(name=name)) is None) == ok


def test_attr_checks_in_order():
    o = op()
    o.attr.add(name="float", type="int")
    assert message(o) == "Attr can't have name float that matches a data type"
    o = op()
    o.attr.add(name="a", type="list(int")
    assert message(o) == "'list(' is missing ')' in attr a's type list(int"
    o = op()
    o.attr.add(name="a", type="ints")
    assert message(o) == "Extra 's' at the end of attr a's type ints"
    o = op()
    o.attr.add(name="a", type="any")
    assert message(o) == "Unrecognized type 'any' in attr 'a'"
    o = op()
    o.attr.add(name="a", type="float", has_minimum=True)
    assert message(o) == "Attr 'a' has minimum for unsupported type float"
    o = op()
    o.attr.add(name="a", type="int", minimum=3)
    assert message(o) == "Attr 'a' with has_minimum = false but minimum 3 not equal to default of 0"
    o = op()
    a = o.attr.add(name="T", type="type")
    a.allowed_values.list.s.append(b"x")
    assert validate_op_def(o).message == ("AttrValue had value with type 'list(string)' when 'list(type)' expected"
                                          "\n\t for attr 'T' in Op 'Foo'")


def test_defaults():
    o = op()
    a = o.attr.add(name="x", type="int", has_minimum=True, minimum=2)
    a.default_value.i = 1
    assert validate_op_def(o).message == "Value for attr 'x' of 1 must be at least minimum 2\n\t in Op 'Foo'"
    a = op_def_pb2.OpDef.AttrDef(name="s", type="string")
    a.allowed_values.list.s.extend([b"a", b"b"])
    assert validate_attr_value(attr_value_pb2.AttrValue(s=b"c"), a) == (
        'Value for attr \'s\' of "c" is not in the list of allowed values: "a", "b"')
    t = op_def_pb2.OpDef.AttrDef(name="T", type="type")
    t.allowed_values.list.type.extend([1, 19])
    assert validate_attr_value(attr_value_pb2.AttrValue(type=3), t) == (
        "Value for attr 'T' of int32 is not in the list of allowed values: float, half")
    i = op_def_pb2.OpDef.AttrDef(name="i", type="int")
    i.allowed_values.list.i.append(1)
    assert validate_attr_value(attr_value_pb2.AttrValue(i=1), i) == (
        "Support for allowed_values not implemented for type int")


@pytest.mark.parametrize("value,attr_type,expected", [
    (attr_value_pb2.AttrValue(i=1), "float", "AttrValue had value with type 'int' when 'float' expected"),
    (attr_value_pb2.AttrValue(i=1), "list(int)", "AttrValue had value with type 'int' when 'list(int)' expected"),
    (attr_value_pb2.AttrValue(), "int", "AttrValue missing value with expected type 'int'"),
    (attr_value_pb2.AttrValue(), "list(int)", None),
    (attr_value_pb2.AttrValue(type=999), "type", "AttrValue has invalid DataType enum: 999"),
    (attr_value_pb2.AttrValue(type=101), "type", "AttrValue must not have reference type value of float_ref"),
    (attr_value_pb2.AttrValue(type=0), "type", "AttrValue has invalid DataType"),
    (attr_value_pb2.AttrValue(placeholder="x"), "int", "AttrValue had value with unexpected type 'placeholder'"),
])
def test_attr_value_has_type(value, attr_type, expected):
    assert attr_value_has_type(value, attr_type) == expected


def test_args():
    o = op()
    o.input_arg.add(name="a", number_attr="N", type=1)
    assert message(o) == "No attr with name 'N' for input 'a'"
    o.attr.add(name="N", type="int")
    assert message(o) == "Attr 'N' used as length for input 'a' must have minimum"
    o = op()
    o.output_arg.add(name="y")
    assert message(o) == "Missing type for output 'y'"
    o = op()
    o.input_arg.add(name="a", type=1, type_attr="T")
    assert message(o) == "Exactly one of type, type_attr, type_list_attr must be set for input 'a'"
    o = op()
    o.input_arg.add(name="a", type=101)
    assert message(o) == "Illegal use of ref type 'float_ref'. Use 'Ref(type)' instead for input 'a'"
    problem = validate_op_def(o)
    assert (problem.part, problem.index) == ("input", 0)


def test_text_oplist_errors_point_at_the_field_they_name(tmp_path):
    """A text OpList's entry TF rejects: located at the field whose value is the first name the
    message quotes that the entry holds (else at the entry), each entry within its own lines."""
    from opgen.errors import OpgenErrors
    from opgen.spec.oplist_io import load_op_list_with_lines

    path = tmp_path / "ops.pbtxt"
    path.write_text('op {\n  name: "A"\n  input_arg { name: "x" type_attr: "T" }\n}\n'
                    'op {\n  name: "B"\n  attr { name: "T" type: "type" }\n'
                    '  input_arg { name: "y" number_attr: "N" type_attr: "T" }\n}\n'
                    'op { name: "bad name" }\n')
    with pytest.raises(OpgenErrors) as caught:
        load_op_list_with_lines(path)
    where = [(e.location.line, e.location.col) for e in caught.value.errors]
    # A: `type_attr: "T"` (not B's attr T below); B: `number_attr: "N"`; the name: not quoted as written
    assert where == [(3, 25), (8, 25), (10, 1)], [e.format() for e in caught.value.errors]
