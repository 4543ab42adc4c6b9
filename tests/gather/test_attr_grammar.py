"""Attr spec grammar (`op_def_builder.cc` FinalizeAttr) and attr-value text (ParseAttrValue, CEscape,
SummarizeAttrValue): expected values are TF 2.21's, as verified by the oracle tests."""

from __future__ import annotations

import math

import pytest

from opgen.spec.attr_grammar import (
    NUMBER_TYPES,
    QUANTIZED_TYPES,
    REAL_NUMBER_TYPES,
    SpecError,
    field_offset,
    finalize_attr,
)
from opgen.tf_text.attr_text import parse_attr_value, summarize_attr_value, summarize_op_def
from opgen.tf_text.proto_text import ParseError, c_escape, c_unescape, parse_proto_text
from opgen_runtime.proto import attr_value_pb2, op_def_pb2


def attr(spec: str):
    op = op_def_pb2.OpDef(name="Op")
    error = finalize_attr(spec, op)
    return op.attr[0], error


def test_type_set_keeps_order_and_duplicates():
    a, err = attr("T: {int32, int32, numbertype}")
    assert err is None and a.type == "type"
    assert list(a.allowed_values.list.type) == [3, 3, *NUMBER_TYPES]


def test_compound_types_in_enum_order():
    assert len(NUMBER_TYPES) == 19 and len(REAL_NUMBER_TYPES) == 12 and QUANTIZED_TYPES == (11, 12, 13, 15, 16)
    a, _ = attr("T: realnumbertype")
    assert tuple(a.allowed_values.list.type) == REAL_NUMBER_TYPES
    a, _ = attr("T: {realnumerictype}")  # only accepted inside braces
    assert tuple(a.allowed_values.list.type) == REAL_NUMBER_TYPES
    a, _ = attr("Y: {numbertype, string}")
    assert len(a.allowed_values.list.type) == 20


def test_string_set_and_list_types():
    a, err = attr("s: {'a', \"b\\n\", 'c',}")
    assert err is None and a.type == "string" and list(a.allowed_values.list.s) == [b"a", b"b\n", b"c"]
    a, _ = attr("l: list({'a', 'b'})")
    assert a.type == "list(string)"
    a, _ = attr("l: list(numbertype) >= 2")
    assert a.type == "list(type)" and a.has_minimum and a.minimum == 2


def test_minimum_and_default_forms():
    a, err = attr("n: int >= -3 = 1")
    assert err is None and (a.minimum, a.default_value.i) == (-3, 1)
    a, err = attr("n: int>=1=5")
    assert err is None and (a.minimum, a.default_value.i) == (1, 5)
    a, err = attr("x : int")
    assert err is None and a.name == "x"
    a, err = attr("x: list (int) = []")
    assert err is None and a.default_value.HasField("list") and not a.default_value.list.i


# `at`: where in the spec the part the error is about starts (the first word the message quotes)
@pytest.mark.parametrize("spec,message,at", [
    ("x: int32", "Extra '32' unparsed at the end", 6),
    ("x: integer", "Extra 'eger' unparsed at the end", 6),
    ("x: {Float}", "Trouble parsing type string at 'Float}'", 4),
    ("x: {int32 float}", "Expected , or } after types in list, not: 'float}'", 10),
    ("x int", "Trouble parsing '<name>:'", None),
    (" x: int", "Trouble parsing '<name>:'", None),
    ("T: realnumerictype", "Trouble parsing type string at 'realnumerictype'", 3),
    ("T: realnumberictype", "Expected to see a compound type, saw: realnumberictype", 3),
    ("T: {float8_e4m3fn}", "Unrecognized type string 'float8'", 4),
    ("x: any", "Trouble parsing type string at ''", 6),
    ("x: anything", "Trouble parsing type string at 'thing'", 6),
    ("x: float >= 2", "Extra '>= 2' unparsed at the end", 9),
    ("x: int >= +1", "Could not parse integer lower limit after '>=', found ' +1' instead", 10),
    ("x: int = 5 >= 1", "Could not parse default value '5 >= 1'", 9),
    ("T: type = int32", "Could not parse default value 'int32'", 10),
    ("x: list(int", "Expected ) to close 'list(', not: ''", 11),
    ("x: {'a\\q'}", 'Trouble unescaping "a\\q", got error: Unknown escape sequence: \\q', 4),
])
def test_errors(spec, message, at):
    _, err = attr(spec)
    assert err == SpecError(f'{message} from Attr("{spec}") for Op Op', at)


def test_default_value_and_name_are_located():
    assert field_offset("mode: {'a', 'b'} = 'c'", "default_value") == 19
    assert field_offset("n: int >= 2", "default_value") is None
    assert field_offset("n: int", "name") == 0


@pytest.mark.parametrize(
    "attr_type,text,expected",
    [
        ("int", "3", "i: 3"),
        ("int", "1 2", "i: 1"),
        ("int", "+5", "i: 5"),
        ("int", "1 # c", "i: 1"),
        ("float", ".5", "f: 0.5"),
        ("float", "Infinity", "f: inf"),
        ("bool", "True", "b: true"),
        ("type", "DT_HALF", "type: DT_HALF"),
        ("type", "3", "type: DT_INT32"),
        ("type", "999", "type: 999"),
        ("string", "'x' y", 's: "x"'),
        ("list(int)", "[1] i: [2]", "list { i: 1 i: 2 }"),
        ("shape", "{}", "shape { }"),
        ("shape", "{ dim { size: 1 } dim_x }", "shape { dim { size: 1 } }"),
        ("float", "1e50", "f: inf"),
        ("float", "1e-50", "f: 0.0"),
        (
            "func",
            '{ name: "f" attr { key: "T" value { type: DT_FLOAT } } }',
            'func { name: "f" attr { key: "T" value { type: DT_FLOAT } } }',
        ),
    ],
)
def test_parse_attr_value_accepts(attr_type, text, expected):
    from google.protobuf import text_format

    value = parse_attr_value(attr_type, text)
    assert value is not None
    assert text_format.MessageToString(value, as_one_line=True) == expected


@pytest.mark.parametrize("attr_type,text", [
    ("int", "1,"), ("int", "0x10"), ("int", "00"), ("int", "1.0"), ("int", ""), ("float", "1f"),
    ("bool", "t"), ("bool", "FALSE"), ("string", "abc"), ("string", '"a" "b"'), ("type", "int32"),
    ("list(int)", "7"), ("list(int)", "[1,]"), ("list(type)", "[DT_INT32 , DT_HALF]"),
    ("shape", "[2,3]"), ("int", "1 s: 'x'"),
    ("int", "007"), ("float", "1e"), ("float", "+-1"), ("type", "2147483648"), ("list(int)", "[1, 2] # c"),
    ("func", '{ name: "f" attr { key: "a" } }'), ("int", "9223372036854775808"),
])
def test_parse_attr_value_rejects(attr_type, text):
    assert parse_attr_value(attr_type, text) is None


def test_float_defaults_are_float32():
    value = parse_attr_value("float", "0.1")
    assert value is not None and value.f == pytest.approx(0.1, rel=1e-7)
    assert math.isnan(parse_attr_value("float", "nan").f)  # type: ignore[union-attr]


def test_c_escape_round_trip_and_errors():
    data = bytes(range(256))
    assert c_unescape(c_escape(data).encode()) == data
    assert c_escape(b'a\n"\'\\\x01') == 'a\\n\\"\\\'\\\\\\001'
    assert c_unescape(b"\\x41\\101\\u00e9") == b"AA\xc3\xa9"
    with pytest.raises(ParseError, match=r"Unknown escape sequence: \\q"):
        c_unescape(b"\\q")
    with pytest.raises(ParseError, match="exceeds 0xff"):
        c_unescape(b"\\777")


def test_summaries():
    assert summarize_attr_value(attr_value_pb2.AttrValue(f=1234567.0)) == "1234567"
    assert summarize_attr_value(attr_value_pb2.AttrValue(f=0.1)) == "0.1"
    shape = attr_value_pb2.AttrValue()
    shape.shape.dim.add(size=-1)
    shape.shape.dim.add(size=3)
    assert summarize_attr_value(shape) == "[?,3]"
    lst = attr_value_pb2.AttrValue()
    lst.list.type.extend([1, 19])
    assert summarize_attr_value(lst) == "[DT_FLOAT, DT_HALF]"
    assert summarize_attr_value(attr_value_pb2.AttrValue(s=b"x" * 100)) == '"xxxxxxxxxx...xxxxxxxxxx"'
    op = op_def_pb2.OpDef(name="Foo", is_stateful=True)
    op.input_arg.add(name="a", type_attr="T", number_attr="N", is_ref=True)
    op.output_arg.add(name="y", type=1)
    t = op.attr.add(name="T", type="type")
    t.default_value.type = 1
    assert summarize_op_def(op) == ("Op<name=Foo; signature=a:Ref(N*T) -> y:float; "
                                    "attr=T:type,default=DT_FLOAT; is_stateful=true>")


@pytest.mark.parametrize("text", [
    "{}", "{ }", "{ dim { size: 1 } }", "{dim{size:-1}dim{size:0}}", "{\n dim {\n size: 5\n }\n}\n",
    "{ dim { size: 9223372036854775807 } }", "{ dim { size: -9223372036854775808 } }",
    "{ dim { size: 9223372036854775808 } }", "{ dim { size: 00 } }", "{ dim { size: -0 } }", "{ dim {} }",
    "{ dim { size: 2 name: 'x' } }", "{ unknown_rank: true }", "{ dim { size: 1 } } junk", "{ d im { size: 1 } }",
    "{ dim { size: 1 2 } }", "{ dim { size:- 1 } }", "{ dim { size: 1 } # c\n }", "{ dim < size: 1 > }",
    "{ dim: { size: 1 } }", "{ dim { size:\x1c1 } }", "{ dim {\xa0size: 1 } }", "{ dim { size: 1 }\x1f}",
])
def test_shape_defaults_read_as_the_general_parser_reads_them(text):
    """The string-method reading of `{ dim { size: N } ... }` shapes (any rank at C speed) gives
    what TF's proto_text parser (`parse_proto_text`) gives, and leaves every other text to it."""
    general = attr_value_pb2.AttrValue()
    expected = general if parse_proto_text(f"shape: {text}", general) else None
    value = parse_attr_value("shape", text)
    assert value == expected
    if expected is not None:
        assert value.HasField("shape")  # type: ignore[union-attr]
