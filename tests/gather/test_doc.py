"""Doc() parsing (`op_def_builder.cc` FinalizeDoc), TF 2.21 results."""

from __future__ import annotations

from opgen.spec.doc import DocProblem, finalize_doc, is_name_line
from opgen_runtime.proto import op_def_pb2


def doc_op(text: str) -> tuple[op_def_pb2.OpDef, DocProblem | None]:
    op = op_def_pb2.OpDef(name="Op")
    op.input_arg.add(name="x")
    op.output_arg.add(name="y")
    op.attr.add(name="T")
    return op, finalize_doc(text, op)


def test_verified_example():
    op, err = doc_op("\n\nSummary line.   \n\n\nDescription para 1.\n  indented line\n\nPara 2.\n\n\n"
                     "x: The input.\n  continued more\n    deeper\n\n  after blank\n"
                     "y:= Output without type.\nT : spaced colon name\n")
    assert err is None
    assert op.summary == "Summary line."
    assert op.description == "Description para 1.\n  indented line\n\nPara 2."
    assert op.input_arg[0].description == "The input.\ncontinued more\n  deeper\n\nafter blank"
    assert op.output_arg[0].description == "= Output without type."
    assert op.attr[0].description == "spaced colon name"


def test_name_line_pitfalls():
    _, err = doc_op("Sum.\n\nNote: a remark")
    assert err == DocProblem("No matching input/output/attr for name 'Note' from Doc() for Op Op", "Note", 2)
    assert is_name_line("Returns: x") and not is_name_line("Desc with word: colon")
    assert not is_name_line("  x: indented")


def test_problem_names_the_other_entries():
    """The names the Doc's other entries give, before and after the unmatched one (TF stops
    there), for the hint: not the unmatched name, nor description or continuation lines."""
    _, err = doc_op("x: summary\n\nT: in the description? no: the first entry\nx: in.\n  y: continued\n"
                    "window: stale.\ny: out.\nwindow: again\n")
    assert err is not None and (err.name, err.line) == ("window", 5)
    assert err.documented == frozenset({"T", "x", "y"})


def test_summary_can_look_like_an_entry_and_empty_first_line():
    op, err = doc_op("x: first line\nx: \nEND")
    assert err is None and op.summary == "x: first line"
    assert op.input_arg[0].description == "\nEND"


def test_tabs_do_not_count_as_indent_and_later_entry_wins():
    op, err = doc_op("S\nx: a\n\tb\n  c\nx: again")
    assert err is None and op.input_arg[0].description == "again"
    op, _ = doc_op("S\nx: a\n\tb\n  c")
    assert op.input_arg[0].description == "a\n\tb\n  c"


def test_empty_doc():
    op, err = doc_op("")
    assert err is None and not op.summary and not op.description
