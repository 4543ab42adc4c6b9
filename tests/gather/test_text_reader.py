"""The text OpList reader (`opgen.spec.text_reader`) against protobuf's `text_format.Parse`:
the same message for every valid text (TF's registry, generated OpLists printed every way
`MessageToString` prints them and re-spaced with comments, hand-made odd forms), and for
invalid text the error protobuf reports, at the same line and column."""

from __future__ import annotations

import contextlib
import math
import re
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from google.protobuf import text_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle.tf_registry import tf_op_list

from opgen import parallel
from opgen.errors import OpgenError, plain_proto_names
from opgen.spec import oplist_io
from opgen.spec.oplist_io import load_op_list_with_lines
from opgen.spec.text_reader import Unread, read_text_message
from opgen_runtime.proto import attr_value_pb2, op_def_pb2, tensor_shape_pb2


def protobuf(text: str) -> op_def_pb2.OpList:
    return text_format.Parse(text, op_def_pb2.OpList())


def ours(text: str) -> op_def_pb2.OpList:
    op_list = op_def_pb2.OpList()
    read_text_message(text, op_list)
    return op_list


def same(a: op_def_pb2.OpList, b: op_def_pb2.OpList) -> bool:
    """Equal messages (compared on the wire: a NaN float is not equal to itself)."""
    return a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)


@pytest.mark.oracle
def test_tf_registry_as_text_reads_like_protobuf():
    ops = tf_op_list()
    for as_utf8 in (False, True):
        text = text_format.MessageToString(ops, as_utf8=as_utf8)
        assert same(ours(text), ops) and same(protobuf(text), ops)
    one_line = text_format.MessageToString(ops, as_one_line=True, pointy_brackets=True,
                                           use_short_repeated_primitives=True)
    assert same(ours(one_line), ops)


ODD_FORMS = [
    # `:` before a message, `<>` delimiters, `,` and `;` after fields, no spaces
    'op: { name: "A", is_stateful: true; } op <name:"B">',
    'op{name:"A"input_arg{name:"x"type:DT_FLOAT}}',
    # list syntax, for messages and scalars, empty lists
    'op: [{ name: "A" }, < name: "B" >] op []',
    'op { name: "A" attr { name: "T" type: "list(type)" default_value { list { type: [DT_FLOAT, 3, DT_INT32] } } } }',
    'op { name: "A" attr { name: "s" type: "list(string)" default_value { list { s: [] } } } }',
    'op { name: "A" attr { name: "s" type: "list(int)" default_value { list { i: [1, -2 , 0x10] } } } }',
    # comments everywhere, blank lines, tabs, CR
    '# header\nop { # after bracket\n\tname: # before value\n "A" # after value\n}\r\n# trailer',
    'op {\n  name:\n  "A"\n}\n\n\n',
    # strings: escapes, single quotes, adjacent strings on several lines with comments between
    r'''op { name: "A" summary: "tab\there \"q\" \'s\' \\ \101\x41\u00e9\U0001F600 \n" description: 'it''s' }''',
    'op { name: "A" summary: "one" \n "two" # c\n \'three\' }',
    r'op { name: "A" attr { name: "s" type: "string" default_value { s: "\377\000\x7f" } } }',
    'op { name: "A" summary: "é ünïcode ☃" }',
    r'op { name: "\q" }',  # an unknown escape: text_format keeps it
    'op { name: "A" summary: "has # hash and } brace" }',
    # numbers: hex, octal, signs, floats in every form text_format takes
    'op { name: "A" attr { name: "i" type: "int" has_minimum: t minimum: -0x7fffffffffffffff } }',
    'op { name: "A" attr { name: "i" type: "int" default_value { i: 017 } } }',
    'op { name: "A" attr { name: "f" type: "float" default_value { f: 1e5 } } }',
    'op { name: "A" attr { name: "f" type: "float" default_value { f: -inf } } }',
    'op { name: "A" attr { name: "f" type: "float" default_value { f: nan } } }',
    'op { name: "A" attr { name: "f" type: "float" default_value { f: 1.5f } } }',
    'op { name: "A" attr { name: "f" type: "float" default_value { f: .5 } } }',
    'op { name: "A" attr { name: "f" type: "float" default_value { f: -0.0 } } }',
    'op { name: "A" attr { name: "f" type: "float" default_value { f: Infinity } } }',
    'op { name: "A" attr { name: "f" type: "list(float)" default_value { list { f: [1, -1E-3, inff] } } } }',
    'op { name: "A" is_stateful: True is_commutative: 1 is_aggregate: False allows_uninitialized_input: 0 }',
    'op { name: "A" is_stateful: f }',
    # enums by name and by number, known or not
    'op { name: "A" input_arg { name: "x" type: 1 } output_arg { name: "y" type: 0x13 } }',
    'op { name: "A" output_arg { name: "y" type: 12345 } }',
    # maps (NameAttrList.attr), repeated keys (the last wins), nested messages
    ('op { name: "A" attr { name: "f" type: "func" default_value { func { name: "g" attr { key: "k" value { i: 1 } }'
    ' attr { key: "k" value { s: "x" } } attr { key: "j" } } } } }'),
    ('op { name: "A" attr { name: "s" type: "shape" default_value { shape { dim { size: -1 } dim { size: 3 '
    'name: "n" } } } } }'),
    ('op { name: "A" attr { name: "t" type: "tensor" default_value { tensor { dtype: DT_FLOAT tensor_shape { } '
    'float_val: 1 float_val: [2, 3] tensor_content: "\\001\\002" } } } }'),
    'op { name: "A" deprecation { version: 3 explanation: "use B" } }',
    ('op { name: "A" output_arg { name: "y" type: DT_FLOAT experimental_full_type { type_id: TFT_PRODUCT args { '
    'type_id: TFT_TENSOR args { type_id: TFT_FLOAT } } s: "x" } } }'),
    # fields set to their default first can be set again (proto3, no presence)
    'op { name: "" name: "A" is_stateful: false is_stateful: true }',
    # a separator on its own line after a top-level field (text_format takes one after any field)
    'op {\n  name: "A"\n}\n,\nop {\n  name: "B"\n}\n;\n',
    'op {\n  name: "A"\n}\n,',
    # several ops on a line, an op over several lines, empty text
    'op { name: "A" } op { name: "B" }\nop {\nname: "C"\n}',
    '',
    '  \n# only a comment',
    # floats beyond float32 (protobuf's own rounding: read by text_format.Parse)
    'op { name: "A" attr { name: "f" type: "float" default_value { f: 1e39 } } }',
    'op { name: "A" attr { name: "f" type: "float" default_value { f: 1e-50 } } }',
]


@pytest.mark.parametrize("text", ODD_FORMS)
def test_odd_forms_read_like_protobuf(text, tmp_path):
    expected = protobuf(text)
    try:
        got = ours(text)
    except Unread:  # what the reader leaves to text_format.Parse: read through load_op_list_with_lines
        path = tmp_path / "ops.pbtxt"
        path.write_text(text, encoding="utf-8")
        got = _read_unvalidated(path)
    assert same(got, expected)


def _read_unvalidated(path):
    """load_op_list_with_lines's message, validation errors aside (the odd forms are not all
    ops TF could register)."""
    try:
        return load_op_list_with_lines(path)[0]
    except OpgenError as e:
        assert "cannot parse" not in str(e)
        return protobuf(path.read_text(encoding="utf-8"))


def test_op_lines_and_list_syntax(tmp_path):
    path = tmp_path / "ops.pbtxt"
    path.write_text('# c\nop {\n  name: "A"\n}\n\n  op { name: "B" } op {\n name: "C" }\n', encoding="utf-8")
    assert load_op_list_with_lines(path)[1] == [2, 6, 6]
    path.write_text('op: [{ name: "A" }, { name: "B" }]\n', encoding="utf-8")
    assert load_op_list_with_lines(path)[1] == [0, 0]


BAD = [
    'op { name: "A" is_stateful: maybe }',
    'op {\n  name: "A"\n  is_stateful: maybe\n}\n',
    'op { name: "A" ',
    'op { name: "A" }}',
    'op { name: "A" >',
    'op < name: "A" }',
    'op { nam: "A" }',
    'op { name "A" }',
    'op { name: A }',
    'op { name: "A }',
    'op { name: "A" "B }',
    'op { name: "\\xff" }',
    'op { name: "A" name: "B" }',
    'op { name: "A" deprecation { } deprecation { } }',
    'op { name: "A" attr { name: "a" default_value { s: "x" i: 1 } } }',
    'op { name: "A" attr { name: "a" default_value { i: 1 i: 2 } } }',
    'op { name: "A" attr { name: "a" has_minimum: true has_minimum: true } }',
    'op { name: "A" attr { name: "a" minimum: 99999999999999999999 } }',
    'op { name: "A" input_arg { name: "x" type: DT_NOPE } }',
    'op { name: "A" input_arg { name: "x" type: 1.5 } }',
    'op { name: "A" attr { name: "f" default_value { f: 1x } } }',
    'op { name: "A" attr { name: "f" default_value { f: 012 } } }',
    'op { name: "A", , }',
    'op { , name: "A" }',
    'op: [{ name: "A" } { name: "B" }]',
    'op { name: "A" attr { name: "a" default_value { list { i: [1, 2,] } } } }',
    'op { name: "A" attr { name: "a" default_value { list { i: [1 2] } } } }',
    'op { name: [ "A" ] }',
    'op { name: "A" input_arg: "x" }',
    'op { [ext.field]: 1 }',
    'foo { }',
    'op { name: "A" }\n\n   op { name: "B" bad: 1 }',
    'op { name: "A" } @',
    'op {\n  name: "A"\n  summary: "x"\n  # comment }\n',
    'op { name: "A" summary: "x" # }\n',
    '\ufeffop { name: "A" }',
    'op {\n' + '  input_arg { name: "x" type: DT_FLOAT }\n' * 50 + '  input_arg { name: "y" type: DT_NOPE }\n}\n',
    'op {\n  name: "A"\n}\n,\n,\n',
    'op {\n  name: "A"\n}\n,\nop {\n  name: "B"\n  bad: 1\n}\n',
]


@pytest.mark.parametrize("text", BAD)
def test_errors_are_protobufs_at_its_line_and_column(text, tmp_path):
    with pytest.raises(text_format.ParseError) as expected:
        protobuf(text)
    path = tmp_path / "bad.pbtxt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(OpgenError) as got:
        load_op_list_with_lines(path)
    assert got.value.format().splitlines()[0] == located(path, expected.value)


def located(path, error: text_format.ParseError) -> str:
    """The first line opgen reports for protobuf's `error` in `path` (types named without opgen's
    proto package, `plain_proto_names`)."""
    message = " ".join(plain_proto_names(re.sub(r"^\d+:\d+ : ", "", str(error))).split())
    return f"{path}:{error.GetLine()}:{error.GetColumn()}: error: cannot parse text OpList: {message}"


# Generated OpLists: every field kind an OpList holds, with values text_format must escape or
# spell specially.
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8) | st.sampled_from(
    ["", "x", 'q"uo\'te', "back\\slash", "#hash", "}{<>[]", "\n\t\r", "é☃"])
_int64 = st.integers(-(2**63), 2**63 - 1)
_float = st.floats(width=32, allow_nan=False) | st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan])
_dtype = st.sampled_from([0, 1, 3, 9, 20, 101, 12345])


def _shape(draw):
    return tensor_shape_pb2.TensorShapeProto(
        unknown_rank=draw(st.booleans()),
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=draw(_int64), name=draw(_text))
             for _ in range(draw(st.integers(0, 2)))])


@st.composite
def _attr_value(draw, depth=0):
    kind = draw(st.sampled_from(["s", "i", "f", "b", "type", "shape", "list", "func", "none"]))
    value = attr_value_pb2.AttrValue()
    if kind == "s":
        value.s = draw(st.binary(max_size=6))
    elif kind == "i":
        value.i = draw(_int64)
    elif kind == "f":
        value.f = draw(_float)
    elif kind == "b":
        value.b = draw(st.booleans())
    elif kind == "type":
        value.type = draw(_dtype)
    elif kind == "shape":
        value.shape.CopyFrom(_shape(draw))
    elif kind == "list":
        value.list.s.extend(draw(st.lists(st.binary(max_size=4), max_size=2)))
        value.list.i.extend(draw(st.lists(_int64, max_size=2)))
        value.list.f.extend(draw(st.lists(_float, max_size=2)))
        value.list.b.extend(draw(st.lists(st.booleans(), max_size=2)))
        value.list.type.extend(draw(st.lists(_dtype, max_size=2)))
        value.list.shape.extend([_shape(draw) for _ in range(draw(st.integers(0, 1)))])
    elif kind == "func":
        value.func.name = draw(_text)
        if depth < 2:
            for key in draw(st.lists(_text, max_size=2)):
                value.func.attr[key].CopyFrom(draw(_attr_value(depth + 1)))
    return value


@st.composite
def _op_lists(draw):
    op_list = op_def_pb2.OpList()
    for _ in range(draw(st.integers(0, 3))):
        op = op_list.op.add(name=draw(_text), summary=draw(_text), is_stateful=draw(st.booleans()))
        for args in (op.input_arg, op.output_arg):
            for _ in range(draw(st.integers(0, 2))):
                arg = args.add(name=draw(_text), type=draw(_dtype), type_attr=draw(_text),
                               is_ref=draw(st.booleans()))
                if draw(st.booleans()):
                    arg.experimental_full_type.type_id = draw(st.sampled_from([0, 1, 10000]))
                    arg.experimental_full_type.args.add(type_id=3, i=draw(_int64))
        for _ in range(draw(st.integers(0, 2))):
            attr = op.attr.add(name=draw(_text), type=draw(_text), has_minimum=draw(st.booleans()),
                               minimum=draw(_int64))
            if draw(st.booleans()):
                attr.default_value.CopyFrom(draw(_attr_value()))
            if draw(st.booleans()):
                attr.allowed_values.CopyFrom(draw(_attr_value()))
        if draw(st.booleans()):
            op.deprecation.version = draw(st.integers(-(2**31), 2**31 - 1))
            op.deprecation.explanation = draw(_text)
    return op_list


# Between two tokens: what text_format skips.
_GAPS = [" ", "\n", "\t", "\n\n  ", " # a comment\n", "\r\n"]
_TOKENS = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"']+""")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_op_lists(), st.fixed_dictionaries({
    "as_utf8": st.booleans(), "as_one_line": st.booleans(), "pointy_brackets": st.booleans(),
    "use_short_repeated_primitives": st.booleans(), "use_index_order": st.booleans(),
}), st.lists(st.sampled_from(_GAPS), min_size=1), st.booleans())
def test_generated_op_lists_read_like_protobuf(op_list, options, gaps, respace):
    text = text_format.MessageToString(op_list, **options)
    if respace:  # the same tokens with other whitespace and comments between them
        tokens = _TOKENS.findall(text)
        text = "".join(tok + gaps[i % len(gaps)] for i, tok in enumerate(tokens))
    expected = protobuf(text)
    assert same(expected, op_list)
    assert same(ours(text), expected)


_EDITS = list("{}<>[]:,;\"'#\\ \nx0-.é")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_op_lists(), st.booleans(), st.data())
def test_edited_op_lists_fail_or_read_like_protobuf(op_list, one_line, data):
    """One character deleted, replaced or inserted: protobuf's error at its line and column,
    or its message."""
    text = text_format.MessageToString(op_list, as_one_line=one_line)
    at = data.draw(st.integers(0, len(text)))
    edit = data.draw(st.sampled_from(["delete", "replace", "insert"]))
    char = data.draw(st.sampled_from(_EDITS))
    text = text[:at] + (char if edit != "delete" else "") + text[at + (edit != "insert"):]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ops.pbtxt"
        path.write_text(text, encoding="utf-8")
        try:
            expected = protobuf(text)
        except text_format.ParseError as e:
            with pytest.raises(OpgenError) as got:
                load_op_list_with_lines(path)
            assert got.value.format().splitlines()[0] == located(path, e)
            return
        try:
            assert same(ours(text), expected)
        except Unread:
            assert same(_read_unvalidated(path), expected)


@contextlib.contextmanager
def _in_pieces(pieces: int, fork: bool = False):
    """Text OpLists of any size read in `pieces` pieces (`oplist_io._read_text_in_shares`),
    by forked workers or, without `fork`, one after the other in this process."""
    with mock.patch.object(oplist_io, "_SHARED_TEXT_BYTES", 1), \
            mock.patch.object(oplist_io, "cores", return_value=pieces), \
            mock.patch.object(oplist_io, "can_fork", return_value=True), \
            mock.patch.object(parallel, "can_fork", return_value=fork):
        yield


def _parsed(text: str) -> tuple[bytes, list[int], list[tuple[int, str]] | None]:
    op_list, lines, problems = oplist_io._parse_op_list("ops.pbtxt", text.encode(), ".pbtxt")
    return op_list.SerializeToString(deterministic=True), lines, problems


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_op_lists(), st.integers(2, 5), st.lists(st.sampled_from(_GAPS), min_size=1), st.booleans())
def test_a_text_read_in_pieces_is_the_whole_text_read(op_list, pieces, gaps, respace):
    """The same OpList, entry lines and validation problems, cut wherever the pieces fall."""
    text = text_format.MessageToString(op_list)
    if respace:  # other whitespace and comments: a cut may fall in none of them
        tokens = _TOKENS.findall(text)
        text = "".join(tok + gaps[i % len(gaps)] for i, tok in enumerate(tokens))
    whole = _parsed(text)
    with _in_pieces(pieces):
        assert _parsed(text) == whole


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_op_lists(), st.integers(2, 5), st.data())
def test_an_edited_text_read_in_pieces_fails_or_reads_as_a_whole(op_list, pieces, data):
    """One character deleted, replaced or inserted: the error reading the whole text gives
    (where a piece cannot be read alone, the whole text is read), or its OpList."""
    text = text_format.MessageToString(op_list)
    at = data.draw(st.integers(0, len(text)))
    edit = data.draw(st.sampled_from(["delete", "replace", "insert"]))
    char = data.draw(st.sampled_from(_EDITS))
    text = text[:at] + (char if edit != "delete" else "") + text[at + (edit != "insert"):]
    try:
        whole: object = _parsed(text)
    except OpgenError as e:
        whole = e.format()
    with _in_pieces(pieces):
        try:
            assert _parsed(text) == whole
        except OpgenError as e:
            assert e.format() == whole


def test_one_job_reads_a_big_text_alone():
    text = 'op {\n  name: "A"\n}\n' * 4
    with _in_pieces(3, fork=True), mock.patch.object(oplist_io, "in_shares", side_effect=AssertionError("forked")):
        op_list, lines, problems = oplist_io._parse_op_list("ops.pbtxt", text.encode(), ".pbtxt", jobs=1)
    assert [op.name for op in op_list.op] == ["A"] * 4 and lines == [1, 4, 7, 10] and problems == []


@pytest.mark.oracle
def test_a_big_text_op_list_is_read_by_forked_workers_as_a_whole(tmp_path):
    """TF's registry as text (1.4 MB), read in three pieces by forked workers: the
    OpList, lines and problems of the whole; a bad op in the last piece is located as ever."""
    ops = tf_op_list()
    text = text_format.MessageToString(ops)
    piece = 1 << 18
    assert len(text) > 3 * piece
    whole = _parsed(text)
    assert whole[0] == ops.SerializeToString(deterministic=True)
    path = tmp_path / "ops.pbtxt"
    bad = text[:-40] + text[-40:].replace("}", "} op { name: \"lower\" }", 1)
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(OpgenError) as expected:
        load_op_list_with_lines(path)
    with _in_pieces(3, fork=True), mock.patch.object(oplist_io, "_SHARED_TEXT_BYTES", piece):
        assert _parsed(text) == whole
        with pytest.raises(OpgenError) as got:
            load_op_list_with_lines(path)
    assert got.value.format() == expected.value.format() and "Invalid name: lower" in expected.value.format()
