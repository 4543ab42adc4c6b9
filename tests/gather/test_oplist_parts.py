"""Where each part (and field) of a text OpList's op is written (`opgen.spec.oplist_parts`),
in every form protobuf's text format takes."""

from __future__ import annotations

from google.protobuf import text_format

from opgen.spec.oplist_parts import op_list_part_locations
from opgen_runtime.proto import op_def_pb2


def _located(text: str) -> dict[str, dict[str, str]]:
    text_format.Parse(text, op_def_pb2.OpList())  # the scan is made on text that parsed
    return {op: {key: f"{loc.line}:{loc.col}" for key, loc in parts}
            for op, parts in op_list_part_locations(text, "ops.pbtxt").items()}


def test_multi_line_entries_locate_each_part_and_field():
    text = """\
op {
  name: "MatMul"  # { a comment's brace }
  input_arg {
    name: "a"
    description: "A matrix { not a brace } \\" quoted."
    type_attr: "T"
  }
  output_arg { name: "product" type_attr: "T" }
  attr {
    name: "transpose_a"
    type: "bool"
    default_value {
      b: false
    }
  }
  attr {
    name: "T"
    type: "type"
    allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } }
  }
  summary: "Multiplies "
    "matrices."
  is_stateful: true
  deprecation { version: 9 explanation: "use X" }
}
"""
    assert _located(text) == {"MatMul": {
        "input a": "3:3", "input a name": "4:5", "doc input a": "5:5", "input a type_attr": "6:5",
        "output product": "8:3", "output product name": "8:16", "output product type_attr": "8:32",
        "attr transpose_a": "9:3", "attr transpose_a name": "10:5", "attr transpose_a type": "11:5",
        "attr transpose_a default_value": "13:7",  # at its value: the line that changes with it
        "attr T": "16:3", "attr T name": "17:5", "attr T type": "18:5", "attr T allowed_values": "19:5",
        "doc": "21:3", "doc summary": "21:3", "flag is_stateful": "23:3", "deprecation": "24:3"}}


def test_list_syntax_angle_brackets_and_repeated_names():
    """`op: [...]` and `attr: [...]` lists (an element at its bracket), `<>` delimiters, `;`/`,`
    separators; of two entries of one op name, the first."""
    text = """op: [{ name: "X" attr: [{name: "N"; type: "int", has_minimum: true minimum: 1}] },
  { name: "Y" input_arg < name: "y" type: DT_INT32 > }]
op { name: "X" attr { name: "M" type: "int" } }
"""
    assert _located(text) == {
        "X": {"attr N": "1:25", "attr N name": "1:26", "attr N type": "1:37", "attr N has_minimum": "1:50",
              "attr N minimum": "1:68"},
        "Y": {"input y": "2:15", "input y name": "2:27", "input y type": "2:37"}}


def test_a_list_default_is_located_at_its_first_element():
    """A default written as a `[...]` list is located at its first element, as each element of
    a list stands where it is written (`attr: [{...}]` at its `{`; an override file's
    `alias: ["a", "b"]` at each string): the value that changes, on its own line when the
    list spans several. An empty list has no element: its default is located at the field."""
    text = """op {
  name: "Pad"
  attr { name: "pads" type: "list(int)" default_value { list { i: [1, 2] } } }
  attr {
    name: "dims"
    type: "list(int)"
    default_value {
      list {
        i: [
          3,
          4
        ]
      }
    }
  }
  attr { name: "none" type: "list(int)" default_value { list { i: [] } } }
}
"""
    located = _located(text)["Pad"]
    assert located["attr pads default_value"] == "3:68"
    assert located["attr dims default_value"] == "10:11"
    assert located["attr none default_value"] == "16:41"


def test_names_are_read_as_protobuf_reads_them():
    """An op's and an arg's `name` are the strings protobuf reads: adjacent strings joined,
    escapes resolved (`\\x4d` is `M`)."""
    text = r"""op { name: "Mat" 'Mul' input_arg { name: "\x61" type: DT_FLOAT } }
"""
    assert _located(text) == {"MatMul": {"input a": "1:24", "input a name": "1:36", "input a type": "1:49"}}
