"""The C++ -> Python shape function translator (opgen/shape_translate) on single idioms:
what each becomes, what is refused (located, naming the construct), that the output is
black's layout and never pastes input text; and the runtime methods it calls
(tests/shapes/test_shape_translate_oracle.py compares whole functions with TF)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import black
import pytest
from support.paths import TESTS

from opgen.cli import main
from opgen.shape_translate import translate_lambda
from opgen.spec.cpp_lexer import SourceFile, tokenize
from opgen_runtime.shapes.context import InferenceContext, ShapeError, ShapeHandle


def _translate(body: str, header: str = "[](InferenceContext* c)"):
    return translate_lambda(tokenize(SourceFile("ops.cc", header + " {\n" + body + "\n}")), 0)


def _python(body: str, **kw) -> str:
    t = _translate(body, **kw)
    assert t.lines is not None, t.problem
    return "\n".join(t.lines)


def _black_stable(lines: tuple[str, ...]) -> bool:
    code = "def f(c):\n" + "\n".join(lines) + "\n"
    return black.format_str(code, mode=black.Mode()) == code


@pytest.mark.parametrize(("cpp", "python"), [
    (("ShapeHandle s; TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 3, &s));"
     " c->set_output(0, c->Matrix(c->Dim(s, 0), 2)); return OkStatus();"),
     "v_s = c.with_rank(c.input(0), 3)\nc.set_output(0, c.matrix(c.dim(v_s, 0), c.make_dim(2)))"),
    ("return shape_inference::UnchangedShape(c);", 'c.run_named("UnchangedShape")'),
    ("const auto* t = c->input_tensor(0); if (t == nullptr) return OkStatus(); return OkStatus();",
     "v_t = c.input_tensor(0)\nif v_t is None:\n    return"),
    ("c->set_output(0, c->input(0)); return Status::OK();", "c.set_output(0, c.input(0))"),
    ("c->set_output(0, c->Scalar()); return ::tensorflow::OkStatus();", "c.set_output(0, c.scalar())"),
    ("ShapeHandle a, b; TF_RETURN_IF_ERROR(c->MergePrefix(c->input(0), c->input(1), &a, &b)); return Status();",
     "v_a, v_b = c.merge_prefix(c.input(0), c.input(1))"),
    (("DimensionHandle d; TF_RETURN_IF_ERROR(c->Merge(c->Dim(c->input(0), 0), c->UnknownDim(), &d));"
     " return absl::OkStatus();"),
     "c.merge_dim(c.dim(c.input(0), 0), c.unknown_dim())"),  # d is never read: no local
    (("int64 n; TF_RETURN_IF_ERROR(c->GetAttr(\"n\", &n)); c->set_output(0, c->Vector(n / -2 % 3));"
     " return OkStatus();"),
     'v_n = c.attr_value("n", "int")\nc.set_output(0, c.vector(c.make_dim(c.truncmod(c.truncdiv(v_n, -2), 3))))'),
    ("for (int i = 0; i < 2; ++i) { if (i == 1) break; } return OkStatus();",
     "v_i = 0\nwhile v_i < 2:\n    if v_i == 1:\n        break\n    v_i += 1"),
    ("int x = 1 + 2 * (3 - 4); bool b = !(x < 2) && x != 0 || false; return OkStatus();",
     "v_x = 1 + 2 * (3 - 4)\nnot v_x < 2 and v_x != 0 or False"),
    ("bool b = (1 < 2) == (3 < 4); if (b) return OkStatus(); return OkStatus();",
     "v_b = (1 < 2) == (3 < 4)\nif v_b:\n    return"),
    (("if (c->Rank(c->input(0)) > 2) return errors::InvalidArgument(\"bad \\\"rank\\\"\", 2);"
     " return OkStatus();"),
     "if c.rank_value(c.input(0)) > 2:\n    raise c.invalid_argument('bad \"rank\"', str(2))"),
    ("if (true) {} else { return OkStatus(); } return OkStatus();", "if True:\n    pass\nelse:\n    return"),
    (('float a; TF_RETURN_IF_ERROR(c->GetAttr("a", &a)); if (a < 0.1f || a == -2.5 || a > 2)'
     ' return errors::InvalidArgument("bad ", a); return OkStatus();'),
     ('v_a = c.attr_value("a", "float")\nif v_a < 0.10000000149011612 or v_a == -2.5 or v_a > 2:\n'
     '    raise c.invalid_argument("bad ", c.float_text(v_a))')),
    (('DataType t; TF_RETURN_IF_ERROR(c->GetAttr("T", &t)); if (t != DataType::DT_HALF)'
     ' return errors::InvalidArgument(DataTypeString(t)); return OkStatus();'),
     'v_t = c.attr_value("T", "type")\nif v_t != 19:\n    raise c.invalid_argument(c.dtype_string(v_t))'),
    (('DataTypeVector ts; TF_RETURN_IF_ERROR(c->GetAttr("Tout", &ts)); c->set_output(0, c->Vector(ts.size()));'
     ' return OkStatus();'),
     'v_ts = []\nv_ts = c.attr_value("Tout", "list_type")\nc.set_output(0, c.vector(c.make_dim(len(v_ts))))'),
    (('std::vector<PartialTensorShape> s; TF_RETURN_IF_ERROR(c->GetAttr("s", &s)); if (s.empty()) return OkStatus();'
     ' ShapeHandle o; TF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(s[0], &o)); c->set_output(0, o);'
     ' return OkStatus();'),
     'v_s = []\nv_s = c.attr_value("s", "list_shape")\nif not v_s:\n    return\nv_o = v_s[0]\nc.set_output(0, v_o)'),
    ("return shape_inference::UnchangedShapeWithRankAtLeast(c, 2);",
     'c.run_named("UnchangedShapeWithRankAtLeast", 2)'),
    ("TF_RETURN_IF_ERROR(::tensorflow::shape_inference::BroadcastBinaryOpOutputShapeFn(c, 1)); return OkStatus();",
     'c.run_named("BroadcastBinaryOpOutputShapeFn", 1)'),
    (("ShapeHandle s; TF_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(c, c->input(0), c->input(1), true, &s));"
      " c->set_output(0, s); return OkStatus();"),
     ('v_s = c.run_named(\n    "BroadcastBinaryOpOutputShapeFnHelper", c.input(0), c.input(1), True\n)\n'
     "c.set_output(0, v_s)")),
    (("ShapeHandle s; TF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensorTreatScalarAsUnknownShape(1, &s));"
     " c->set_output(0, s); return OkStatus();"),
     "v_s = c.make_shape_from_shape_tensor(1, True)\nc.set_output(0, v_s)"),
    ("std::vector<int> v; if (!v.empty()) return OkStatus(); return OkStatus();",
     "v_v = []\nif bool(v_v):\n    return"),
    (('std::vector<ShapeHandle> xs; TF_RETURN_IF_ERROR(c->input("xs", &xs));'
      ' TF_RETURN_IF_ERROR(c->set_output("ys", xs)); return OkStatus();'),
     'v_xs = []\nv_xs = c.input_list("xs")\nc.set_output_list("ys", v_xs)'),
    # a switch as an if/elif/else chain (its value evaluated once), default last wherever it is
    (('int k; TF_RETURN_IF_ERROR(c->GetAttr("k", &k)); switch (k + 1) { case 0: c->set_output(0, c->Scalar());'
      " break; default: return errors::InvalidArgument(\"no\"); case 1: case 2: { c->set_output(0, c->Vector(k));"
      " break; } } return OkStatus();"),
     ('v_k = c.attr_value("k", "int32")\nv_switch = v_k + 1\nif v_switch == 0:\n    c.set_output(0, c.scalar())\n'
      "elif v_switch == 1 or v_switch == 2:\n    c.set_output(0, c.vector(c.make_dim(v_k)))\nelse:\n"
      '    raise c.invalid_argument("no")')),
    # a loop's break inside a case, an empty default
    (("for (int i = 0; i < 2; ++i) { switch (i) { case 1: for (;i < 5;) { break; } break; default: break; } }"
      " return OkStatus();"),
     "v_i = 0\nwhile v_i < 2:\n    if v_i == 1:\n        while v_i < 5:\n            break\n    v_i += 1"),
    (("int64_t n = std::max<int64_t>(c->Rank(c->input(0)), 1); c->set_output(0,"
      " c->Vector(std::min({n, 3L, 4L}) + std::abs(n))); return OkStatus();"),
     "v_n = max(c.rank_value(c.input(0)), 1)\nc.set_output(0, c.vector(c.make_dim(min(v_n, 3, 4) + abs(v_n))))"),
    (('std::vector<int> v; TF_RETURN_IF_ERROR(c->GetAttr("v", &v)); if (v.back() < 0)'
      ' return absl::InvalidArgumentError(absl::StrCat("last ", v.back(), " first ", v.front())); return OkStatus();'),
     ('v_v = []\nv_v = c.attr_value("v", "list_int32")\nif v_v[-1] < 0:\n'
      '    raise c.invalid_argument("last ", str(v_v[-1]), " first ", str(v_v[0]))')),
    # C++'s narrowing into an int32: of 64-bit values only (a Rank, a literal, a size() are 32-bit already)
    (('int64 m; TF_RETURN_IF_ERROR(c->GetAttr("m", &m)); int n = c->Value(c->Dim(c->input(0), 0));'
      " int r = c->Rank(c->input(0)) + 1; r += m; int64_t k = static_cast<int32>(m) + static_cast<int64>(r);"
      " std::vector<int> v; v.push_back(m); v.push_back(r); int s = v.size();"
      " c->set_output(0, c->Vector(n + k + v[0] + s)); return OkStatus();"),
     ('v_m = c.attr_value("m", "int")\nv_n = c.as_int32(c.dim_value(c.dim(c.input(0), 0)))\n'
      "v_r = c.rank_value(c.input(0)) + 1\nv_r = c.as_int32(v_r + v_m)\nv_k = c.as_int32(v_m) + v_r\nv_v = []\n"
      "v_v.append(c.as_int32(v_m))\nv_v.append(v_r)\nv_s = len(v_v)\n"
      "c.set_output(0, c.vector(c.make_dim(v_n + v_k + v_v[0] + v_s)))")),
    # a 32-bit template argument narrows; a 32-bit division by a divisor that may be -1 says its width
    (("int64_t p = c->Value(c->Dim(c->input(0), 0)); int r = c->Rank(c->input(0)); int a = std::min<int>(p, 100);"
      " int b = r / 2 + r / -1 + p / r; c->set_output(0, c->Vector(a + b)); return OkStatus();"),
     ("v_p = c.dim_value(c.dim(c.input(0), 0))\nv_r = c.rank_value(c.input(0))\nv_a = min(c.as_int32(v_p), 100)\n"
      "v_b = c.as_int32(\n    c.truncdiv(v_r, 2) + c.truncdiv(v_r, -1, 32) + c.truncdiv(v_p, v_r)\n)\n"
      "c.set_output(0, c.vector(c.make_dim(v_a + v_b)))")),
    # functional casts, as a braced std::max needs them (trial16 #6)
    (("int64_t p = c->Value(c->Dim(c->input(0), 0)); int64_t a = std::max({p, int64_t{-1}, int64_t(2)});"
      " int b = int(p); c->set_output(0, c->Vector(a + b)); return OkStatus();"),
     ("v_p = c.dim_value(c.dim(c.input(0), 0))\nv_a = max(v_p, -1, 2)\nv_b = c.as_int32(v_p)\n"
      "c.set_output(0, c.vector(c.make_dim(v_a + v_b)))")),
    # log lines and using-declarations decide nothing; debug checks assert; DimensionOrConstant is its value
    (('using ::tensorflow::errors::InvalidArgument; VLOG(2) << "in " << c->DebugString(c->input(0));'
      ' LOG(WARNING) << "x"; DCHECK(c->num_inputs() > 0); DCHECK_LT(c->Rank(c->input(0)), 4);'
      ' if (c->Rank(c->input(0)) == 0) return InvalidArgument("scalar");'
      " c->set_output(0, c->Vector(shape_inference::DimensionOrConstant(3))); return OkStatus();"),
     ("assert c.num_inputs > 0\nassert c.rank_value(c.input(0)) < 4\nif c.rank_value(c.input(0)) == 0:\n"
      '    raise c.invalid_argument("scalar")\nc.set_output(0, c.vector(c.make_dim(3)))')),
    # a static constant of a literal (or an earlier one): the same value on every call, a local is exact
    (("static const int kRank = 2; const static int64_t k2{kRank * 3}; c->set_output(0, c->Vector(k2));"
      " return OkStatus();"),
     "v_kRank = 2\nv_k2 = v_kRank * 3\nc.set_output(0, c.vector(c.make_dim(v_k2)))"),
    # ... a float literal too (translated before static locals were checked)
    ("static const float kEps = 0.5f; float e = kEps; return OkStatus();", "v_kEps = 0.5\nv_kEps"),
])
def test_idioms(cpp, python):
    assert _python(cpp) == textwrap.indent(python, "    ")


def test_output_is_black_layout_even_when_long():
    t = _translate('return errors::InvalidArgument("' + "x" * 60 + '", c->Rank(c->input(0)), "' + "y" * 40
                   + '", c->DebugString(c->input(1)));')
    assert t.lines is not None and len(t.lines) > 1 and _black_stable(t.lines)


def test_trailing_return_type_and_other_context_name():
    cpp = "ctx->set_output(0, ctx->input(0)); return absl::OkStatus();"
    header = "[](::tensorflow::shape_inference::InferenceContext* ctx) -> absl::Status"
    assert _python(cpp, header=header) == "    c.set_output(0, c.input(0))"


_STATIC_ONCE = "C++ initializes it once, on the first call"


@pytest.mark.parametrize(("cpp", "construct", "column"), [
    ("c->set_output(0, c->input_handle_shapes_and_types(0)); return OkStatus();",
     "c->input_handle_shapes_and_types", 21),
    # `auto*` is a declaration: the refusal names its initializer, not `auto`
    ("auto* h = c->input_handle_shapes_and_types(0); return OkStatus();", "c->input_handle_shapes_and_types", 14),
    ("auto* s = c->input(0); return OkStatus();", "auto* of a shape", 7),
    ("auto* t; return OkStatus();", "auto* without initializer", 7),
    ("c->WithRank(c->input(0), 2, &s); return OkStatus();", "an ignored status of c->WithRank", 4),
    ("if (true) continue; return OkStatus();", "continue outside a loop", 11),
    ("float f = 0.1; return OkStatus();", "a double that float may round", 7),
    ("float f = 1; if (f < c->Rank(c->input(0))) return OkStatus(); return OkStatus();",
     "comparing a float with an int", 20),
    ("return shape_inference::UnchangedShapeWithRank(c);", "UnchangedShapeWithRank with these arguments", 8),
    ("return shape_inference::UnchangedShapeWithRank(c, 1, 2);", "UnchangedShapeWithRank with these arguments", 8),
    (("ShapeHandle s; TF_RETURN_IF_ERROR(BroadcastBinaryOpOutputShapeFnHelper(c, c->input(0), c->input(1), false, &s));"
      " return OkStatus();"), "BroadcastBinaryOpOutputShapeFnHelper with incompatible_shape_error other than true", 35),
    ("return errors::Unimplemented(\"no\");", "errors::Unimplemented", 8),
    ("c->set_output(0, outer); return OkStatus();", "outer", 18),
    ("ShapeHandle s; ShapeHandle s; return OkStatus();", "redeclared name s", 28),
    ("c->set_output(0, c->Vector(1.5)); return OkStatus();", "a double used as a dimension", 21),
    ("c->set_output(0, c->Vector(0x1p3)); return OkStatus();", "the number 0x1p3", 28),
    ("c->set_output(0, c->Vector(c->input(0))); return OkStatus();", "a shape used as a dimension", 21),
    ("return ReduceShape(c);", "ReduceShape", 8),
    ("int \u00e9 = 1; return OkStatus();", "\u00e9", 5),
    ("int x = (1 < 2) < 3; return OkStatus();", "comparing a bool with an int", 17),
    ("absl::Status s = c->Merge(c->input(0), c->input(1), &m); if (!s.ok()) return OkStatus(); return s;",
     "a Status kept in a variable, not returned by the next statement", 14),
    ("switch (1) { case 1: c->set_output(0, c->Scalar()); case 2: break; } return OkStatus();",
     "a switch case that runs on into the next one", 53),
    ("switch (1) { case 1: if (true) break; c->set_output(0, c->Scalar()); break; } return OkStatus();",
     "a break before the end of its switch case", 32),
    ("switch (1) { case 1: break; c->set_output(0, c->Scalar()); } return OkStatus();",
     "code after the break that ends a switch case", 29),
    ("switch (1) { default: break; } return OkStatus();", "a switch without a case", 1),
    ("switch (c->input(0)) { case 1: break; } return OkStatus();", "a switch over a shape", 1),
    ("break; return OkStatus();", "break outside a loop or switch", 1),
    ("std::vector<int> v; int n = std::max(v.size(), 1); return OkStatus();", "std::max of a size_t (a size())", 29),
    ("int n = std::max<size_t>(1, 2); return OkStatus();", "std::max of a type other than a signed integer", 9),
    ("int n = std::max(1, 2, 3); return OkStatus();", "std::max of 3 arguments", 9),
    ("float f = 1.0f; int n = std::max(f, 2); return OkStatus();", "std::max of a float and an int", 25),
    ("int n = max(1, 2); return OkStatus();", "max", 9),
    ("return absl::InvalidArgumentError(3);", "an int in an error message", 35),
    ("float a = 0.5f; float f = a * 3; return OkStatus();", "floating-point arithmetic (`*` of a float)", 29),
    ('LOG(FATAL) << "no"; return OkStatus();', "LOG(FATAL), which aborts", 1),
    # unqualified without a using-declaration of TF's: some other function of that name
    ('return InvalidArgument("no");', "InvalidArgument", 8),
    # a static local is initialized once, on the first call: translated only for a constant expression
    ("static int n = 0; ++n; c->set_output(0, c->Vector(n)); return OkStatus();",
     f"a static local that is not a constant: {_STATIC_ONCE}", 1),
    ("static const int r = c->Rank(c->input(0)); return OkStatus();",
     f"a static local initialized by `c->Rank(c->input(0))`, not a constant: {_STATIC_ONCE}", 22),
    ("int m = 2; constexpr static int r(m); return OkStatus();",
     f"a static local initialized by `m`, not a constant: {_STATIC_ONCE}", 35),
    # the `k` read is the local of the second block, not the first block's static constant
    ("{ static const int k = 1; } { int k = c->Rank(c->input(0)); static const int j = k; } return OkStatus();",
     f"a static local initialized by `k`, not a constant: {_STATIC_ONCE}", 82),
    ("static const int r; return OkStatus();", f"a static local without an initializer: {_STATIC_ONCE}", 18),
])
def test_refusals_are_located_and_name_the_construct(cpp, construct, column):
    t = _translate(cpp)
    assert t.lines is None
    assert t.problem == f"shape function not translated: {construct}"
    assert (t.location.line, t.location.col) == (2, column)


@pytest.mark.parametrize(("cpp", "construct", "where", "hint"), [
    # a misspelt method as a statement: the method is named, not the context before it
    ("c->set_outptu(0, c->input(0));\nreturn OkStatus();", "c->set_outptu", (2, 4),
     "'set_outptu' is not a method of InferenceContext: did you mean 'set_output', 'output'?"),
    ("c->set_output(0, c->inptu(0)); return OkStatus();", "c->inptu", (2, 21),
     "'inptu' is not a method of InferenceContext: did you mean 'input'?"),
    ("TF_RETURN_IF_ERROR(c->WithRnak(c->input(0), 2, &s)); return OkStatus();", "c->WithRnak", (2, 23),
     "'WithRnak' is not a method of InferenceContext: did you mean 'WithRank', 'WithRankAtMost', 'WithRankAtLeast'?"),
    # a real method opgen does not translate: no hint, the name is right
    ("c->set_output_handle_shapes_and_types(0, {});\nreturn OkStatus();", "c->set_output_handle_shapes_and_types",
     (2, 4), None),
    # a `;` left out at a line's end: expected right after the statement, not at the next line
    ("c->set_output(0, c->input(0))\nreturn OkStatus();", "expected ';' before 'return'", (2, 30),
     "add ';' after ')'"),
    ("ShapeHandle s = c->input(0)\nc->set_output(0, s); return OkStatus();", "expected ';' before 'c'", (2, 28),
     "add ';' after ')'"),
    # a lambda on one line whose last statement lacks its `;`: before the block's `}`
    ("c->set_output(0, c->input(0)) }", "expected ';' before '}'", (2, 30), "add ';' after ')'"),
])
def test_mistakes_in_the_cpp_are_located_with_a_hint(cpp, construct, where, hint):
    t = _translate(cpp)
    assert (t.lines, t.problem, (t.location.line, t.location.col), t.hint) == (
        None, f"shape function not translated: {construct}", where, hint)


def test_translated_methods_are_inference_context_methods():
    from opgen.shape_translate.parser import _CONTEXT_METHODS, _STATUS_METHODS, _VALUE_METHODS

    assert {*_VALUE_METHODS, *_STATUS_METHODS} <= _CONTEXT_METHODS


def test_build_warning_carries_the_hint(tmp_path, capsys):
    (tmp_path / "ops.cc").write_text(textwrap.dedent("""\
        #include "tensorflow/core/framework/op.h"
        REGISTER_OP("Blend").Input("a: float").Output("y: float")
            .SetShapeFn([](shape_inference::InferenceContext* c) {
              c->set_outptu(0, c->input(0));
              return OkStatus();
            });
        """))
    assert main(["oplist", str(tmp_path / "ops.cc")]) == 0
    assert capsys.readouterr().err == (
        f"{tmp_path / 'ops.cc'}:4:10: warning: shape function not translated: c->set_outptu (op Blend: unknown "
        "output shapes without TensorFlow)\n"
        "  hint: 'set_outptu' is not a method of InferenceContext: did you mean 'set_output', 'output'?\n")


def test_build_warns_of_a_constant_index_past_the_ops_arguments(tmp_path, capsys):
    """TF reads `inputs_[idx]` unchecked and `outputs_.at(idx)` aborts the process: a constant
    index past a fixed argument count is found at build time, in a helper function too, at
    the index; a list argument's count is not known then, so its indices are not checked."""
    (tmp_path / "ops.cc").write_text(textwrap.dedent("""\
        #include "tensorflow/core/framework/op.h"
        Status Second(shape_inference::InferenceContext* c) {
          c->set_output(1, c->output(0));
          return OkStatus();
        }
        REGISTER_OP("Two").Input("x: float").Output("y: float").Output("z: float")
            .SetShapeFn([](shape_inference::InferenceContext* c) {
              c->set_output(0, c->input(0));
              c->set_output(2, c->input(1));
              return Second(c);
            });
        REGISTER_OP("One").Input("x: float").Output("y: float").SetShapeFn(Second);
        REGISTER_OP("Many").Input("x: N * float").Attr("N: int").Output("y: N * float")
            .SetShapeFn([](shape_inference::InferenceContext* c) {
              c->set_output(3, c->input(3));
              return OkStatus();
            });
        """))
    assert main(["oplist", str(tmp_path / "ops.cc")]) == 0
    path = tmp_path / "ops.cc"
    hint = "  hint: the op's {0}s are numbered from 0 in declaration order; fix the index, or declare the {0} with "
    assert capsys.readouterr().err == (  # in source order
        f"{path}:3:17: warning: the shape function of op One sets output 1, but the op has 1 output(s) (y): "
        "TensorFlow aborts the process when it runs it, and opgen's runtime raises ValueError\n"
        + hint.format("output") + '.Output("name: type")\n'
        f"{path}:9:21: warning: the shape function of op Two sets output 2, but the op has 2 output(s) (y, z): "
        "TensorFlow aborts the process when it runs it, and opgen's runtime raises ValueError\n"
        + hint.format("output") + '.Output("name: type")\n'
        f"{path}:9:27: warning: the shape function of op Two reads input 1, but the op has 1 input(s) (x): "
        "TensorFlow reads out of bounds when it runs it, and opgen's runtime raises ValueError\n"
        + hint.format("input") + '.Input("name: type")\n'
    )


def test_build_warns_of_an_attr_the_op_does_not_declare(tmp_path, capsys):
    """GetAttr of a name the op lacks fails TF's shape inference (NotFound): found at build time, at the name."""
    (tmp_path / "ops.cc").write_text(textwrap.dedent("""\
        #include "tensorflow/core/framework/op.h"
        REGISTER_OP("Typo").Input("x: float").Output("y: float").Attr("axis: int = 0")
            .SetShapeFn([](shape_inference::InferenceContext* c) {
              int64_t axis;
              TF_RETURN_IF_ERROR(c->GetAttr("axsi", &axis));
              std::string name = "axis";
              TF_RETURN_IF_ERROR(c->GetAttr(name, &axis));
              c->set_output(0, c->input(0));
              return OkStatus();
            });
        """))
    assert main(["oplist", str(tmp_path / "ops.cc")]) == 0
    assert capsys.readouterr().err == (
        f"{tmp_path / 'ops.cc'}:5:37: warning: the shape function of op Typo reads attr 'axsi', which the op does "
        "not declare: TensorFlow's shape inference fails there (NotFoundError: No attr named 'axsi'), and opgen's "
        "runtime raises ValueError\n  hint: did you mean 'axis'?\n")


def _load(path: Path, name: str):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_project_functions_are_found_however_named_and_wherever_defined(tmp_path, capsys, monkeypatch):
    """C++ calls the project's function: one named like TF's common function in its own
    namespace (or its unit's own), one passed as `&Fn`, one defined in another source file;
    none gets the runtime's built-in of its name. A function defined in two files, or named like
    a built-in and defined in none opgen reads, is a warning at the SetShapeFn (unknown shapes),
    never a guess; another function opgen does not read is the library's own (quiet, `named`)."""
    from opgen_runtime import Graph

    (tmp_path / "shapes.h").write_text("Status Other(shape_inference::InferenceContext* c);\n")
    (tmp_path / "other.cc").write_text(textwrap.dedent("""\
        #include "shapes.h"
        Status Other(shape_inference::InferenceContext* c) { c->set_output(0, c->Vector(7)); return OkStatus(); }
        Status Twice(shape_inference::InferenceContext* c) { c->set_output(0, c->Scalar()); return OkStatus(); }
        """))
    (tmp_path / "ops.cc").write_text(textwrap.dedent("""\
        #include "tensorflow/core/framework/op.h"
        #include "shapes.h"
        namespace mine {
        Status UnchangedShape(shape_inference::InferenceContext* c) {
          c->set_output(0, c->Vector(42));
          return OkStatus();
        }
        }  // namespace mine
        Status Twice(shape_inference::InferenceContext* c);
        Status Nowhere(shape_inference::InferenceContext* c);
        namespace lost { Status UnchangedShape(shape_inference::InferenceContext* c); }
        REGISTER_OP("Mine").Output("y: float").SetShapeFn(mine::UnchangedShape);
        REGISTER_OP("AddressOf").Output("y: float").SetShapeFn(&mine::UnchangedShape);
        REGISTER_OP("FromOther").Output("y: float").SetShapeFn(Other);
        REGISTER_OP("FromTwo").Output("y: float").SetShapeFn(Twice);
        REGISTER_OP("FromNone").Output("y: float").SetShapeFn(Nowhere);
        REGISTER_OP("Lost").Output("y: float").SetShapeFn(lost::UnchangedShape);
        """))
    (tmp_path / "twice.cc").write_text(
        "Status Twice(shape_inference::InferenceContext* c) { c->set_output(0, c->Vector(1)); return OkStatus(); }\n")
    monkeypatch.chdir(tmp_path)
    sources = [str(tmp_path / name) for name in ("ops.cc", "other.cc", "twice.cc")]
    assert main(["build", *sources, "--out", str(tmp_path / "gen")]) == 0
    ops = tmp_path / "ops.cc"
    port = "give the runtime a Python port: opgen_runtime.register_shape_fn (docs/shape-functions.md)"
    assert capsys.readouterr().err.split("\n", 2)[:2] == [
        (f"{ops}:15:54: warning: shape function 'Twice' is defined in 2 files ({tmp_path / 'other.cc'}, "
        f"{tmp_path / 'twice.cc'}): which one the library links is not known (op FromTwo: unknown output shapes "
        "without TensorFlow)"), f"  hint: leave the others out of the sources, or {port}"]
    assert main(["oplist", "--report-shapes", *sources]) == 0
    report = capsys.readouterr()
    assert "Nowhere" not in report.err
    lost = (f"{ops}:17:51: shape function 'lost::UnchangedShape' is the project's, and defined in none of the "
            "sources opgen reads")
    assert report.err.count(lost.replace(": shape", ": warning: shape", 1)) == 1, report.err
    assert report.out.splitlines()[:6] == [
        "AddressOf\tfunction, translated",
        "FromNone\tnamed, not built in (unknown shapes without TensorFlow)",
        "FromOther\tfunction, translated",
        (f"FromTwo\tfunction, not translated\t{ops}:15:54: shape function 'Twice' is defined in 2 files "
        f"({tmp_path / 'other.cc'}, {tmp_path / 'twice.cc'}): which one the library links is not known"),
        f"Lost\tfunction, not translated\t{lost}",
        "Mine\tfunction, translated",
    ]
    module = _load(tmp_path / "gen" / "gen_ops.py", "project_functions_under_test")
    with Graph().as_default():
        assert module.mine().shape.as_list() == [42]
        assert module.address_of().shape.as_list() == [42]
        assert module.from_other().shape.as_list() == [7]
        assert module.from_two().shape.dims is None
        assert module.from_none().shape.dims is None
        assert module.lost().shape.dims is None


def test_the_docs_python_shape_function_runs(tmp_path, monkeypatch):
    """docs/shape-functions.md's `register_shape_fn` example, on the op it describes."""
    from generated import gen_array_ops
    from opgen_runtime import Graph
    from opgen_runtime.shapes import inference

    doc = (Path(__file__).resolve().parents[2] / "docs" / "shape-functions.md").read_text()
    example = doc.split("## A shape function in Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "ops.cc").write_text(
        '#include "tensorflow/core/framework/op.h"\n'
        "REGISTER_OP(\"MyPool\").Input(\"x: float\").Output(\"y: float\")"
        "\n    .Attr(\"padding: {'SAME', 'VALID'} = 'SAME'\").Attr(\"k: int = 2\");\n")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "ops.cc", "--out", "gen"]) == 0
    module = _load(tmp_path / "gen" / "gen_ops.py", "docs_python_shape_fn_under_test")
    try:
        exec(compile(example, "shape-functions.md", "exec"), {})
        with Graph().as_default():
            x = gen_array_ops.placeholder("float32", shape=[8, 5])
            assert module.my_pool(x, padding="VALID", k=3).shape.as_list() == [8, 3]
            assert module.my_pool(x).shape.as_list() == [8, 5]
            with pytest.raises(ValueError, match=r"^width 2 is less than k for '\{\{node MyPool_2\}\} = MyPool"):
                module.my_pool(gen_array_ops.placeholder("float32", shape=[8, 2]), padding="VALID", k=3)
            with pytest.raises(ValueError, match=r"^Shape must be rank 2 but is rank 1 for"):
                module.my_pool(gen_array_ops.placeholder("float32", shape=[8]))
    finally:
        inference._user_fns.pop("MyPool", None)
        inference._callbacks.pop("MyPool", None)


def test_what_cpp_leaves_undefined_is_a_value_error_naming_the_node(tmp_path, monkeypatch):
    """trial15 #9: a translated division by a zero dimension (SIGFPE in TF) or a dimension past
    the rank (an out-of-bounds read) raises ValueError naming the node, not ZeroDivisionError."""
    from generated import gen_array_ops
    from opgen_runtime import Graph

    (tmp_path / "ops.cc").write_text(
        'REGISTER_OP("PerRow").Input("x: float").Output("y: float").SetShapeFn([](InferenceContext* c) {\n'
        "  int64_t rows = c->Value(c->Dim(c->input(0), 0)); c->set_output(0, c->Vector(12 / rows));\n"
        "  return OkStatus(); });\n"
        'REGISTER_OP("ThirdDim").Input("x: float").Output("y: float").SetShapeFn([](InferenceContext* c) {\n'
        "  c->set_output(0, c->Vector(c->Dim(c->input(0), 2))); return OkStatus(); });\n"
        'REGISTER_OP("Negated").Output("y: float").Attr("m: int").SetShapeFn([](InferenceContext* c) {\n'
        '  int32 m; TF_RETURN_IF_ERROR(c->GetAttr("m", &m)); c->set_output(0, c->Vector(m / -1)); return OkStatus(); '
        "});\n")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "ops.cc", "--out", "gen"]) == 0
    module = _load(tmp_path / "gen" / "gen_ops.py", "undefined_in_cpp_under_test")
    with Graph().as_default():
        assert module.per_row(gen_array_ops.placeholder("float32", shape=[4, 3])).shape.as_list() == [3]
        with pytest.raises(ValueError, match=r"^The shape function of PerRow makes a division by zero \(TensorFlow's "
                           r"process dies of SIGFPE\) for '\{\{node PerRow_1\}\} = PerRow\[\]\(Placeholder_1\)' "
                           r"with input shapes: \[0,3\]\.$"):
            module.per_row(gen_array_ops.placeholder("float32", shape=[0, 3]))
        with pytest.raises(ValueError, match=r"^The shape function of ThirdDim makes an index past the end"):
            module.third_dim(gen_array_ops.placeholder("float32", shape=[2, 3]))
        assert module.third_dim(gen_array_ops.placeholder("float32", shape=[2, 3, 5])).shape.as_list() == [5]
        # INT32_MIN / -1 traps as a division by zero does (trial16 #2)
        assert module.negated(m=-7).shape.as_list() == [7]
        with pytest.raises(ValueError, match=r"^The shape function of Negated makes a division that overflows, "
                           r"-2147483648 / -1 overflows 32 bits \(TensorFlow's process dies of SIGFPE\)"):
            module.negated(m=-(2**31))


def _translate_source(source: str):
    """The first lambda of a source that also defines project functions."""
    tokens = tokenize(SourceFile("ops.cc", textwrap.dedent(source)))
    start = next(i for i, t in enumerate(tokens) if t[1] == "[" and tokens[i + 1][1] == "]")
    return translate_lambda(tokens, start)


def test_project_function_with_parameters_becomes_a_nested_function():
    t = _translate_source("""\
        Status Ranked(InferenceContext* ctx, int i, const std::string& what) {
          if (ctx->Rank(ctx->input(i)) == 0) return errors::InvalidArgument(what);
          return Both(ctx);
        }
        Status Both(InferenceContext* c) { c->set_output(0, c->input(0)); return OkStatus(); }
        auto fn = [](InferenceContext* c) { return Ranked(c, 1, "x"); };
        """)
    assert t.lines is not None, t.problem
    assert t.lines == (
        "    def f_Both(c: _api_types.InferenceContext) -> None:", "        c.set_output(0, c.input(0))", "",
        "    def f_Ranked(c: _api_types.InferenceContext, v_i: Any, v_what: Any) -> None:",
        "        if c.rank_value(c.input(v_i)) == 0:",
        "            raise c.invalid_argument(v_what)", "        f_Both(c)", "",
        '    f_Ranked(c, 1, "x")')
    assert _black_stable(t.lines)


def test_project_function_argument_is_narrowed_into_its_int32_parameter():
    t = _translate_source("""\
        Status F(InferenceContext* c, int n, int64_t w) { c->set_output(0, c->Vector(n + w)); return OkStatus(); }
        auto fn = [](InferenceContext* c) { int64_t m; TF_RETURN_IF_ERROR(c->GetAttr("m", &m)); return F(c, m, m); };
        """)
    assert t.lines is not None, t.problem
    assert t.lines[-2:] == ('    v_m = c.attr_value("m", "int")', "    f_F(c, c.as_int32(v_m), v_m)")


def test_project_function_called_by_its_qualified_name():
    """trial12 #6: `util::RequireMatrix(c, 0)` calls the unit's `RequireMatrix` in namespace
    `util`, as the unqualified name would."""
    t = _translate_source("""\
        namespace util {
        Status RequireMatrix(InferenceContext* c, int i) {
          ShapeHandle s;
          return c->WithRank(c->input(i), 2, &s);
        }
        }  // namespace util
        auto fn = [](InferenceContext* c) {
          TF_RETURN_IF_ERROR(::util::RequireMatrix(c, 0));
          return util::RequireMatrix(c, 1);
        };
        """)
    assert t.lines is not None, t.problem
    assert "    def f_RequireMatrix(c: _api_types.InferenceContext, v_i: Any) -> None:" in t.lines
    assert t.lines[-2:] == ("    f_RequireMatrix(c, 0)", "    f_RequireMatrix(c, 1)")


@pytest.mark.parametrize(("source", "construct", "line"), [
    ("Status R(InferenceContext* c) { return R(c); }\nauto f = [](InferenceContext* c) { return R(c); };",
     "a recursive call of R", 1),
    (("Status R(InferenceContext* c, int* out) { return OkStatus(); }\n"
     "auto f = [](InferenceContext* c) { return R(c, nullptr); };"), "a parameter of this type", 1),
    (("Status R(InferenceContext* c, int n) { return OkStatus(); }\n"
     "auto f = [](InferenceContext* c) { return R(c); };"), "R with 0 arguments after the context", 2),
])
def test_project_function_refusals(source, construct, line):
    t = _translate_source(source)
    assert t.problem == f"shape function not translated: {construct}"
    assert t.location.line == line


def test_function_templates_are_translated_per_instantiation(tmp_path, capsys, monkeypatch):
    """trial35 #2: `SetShapeFn(F<k2>)` names a function template of the unit (declared before
    the op, defined after it, as custom-op's apply_deformation_ops.cc does): each distinct
    instantiation is translated with the template's non-type parameters bound to its arguments
    (enumerators, literals, constants, defaults of an earlier declaration) as locals; an
    explicit specialization is translated for its arguments; a template of another source is
    instantiated with the arguments resolved where the SetShapeFn stands.
    (tests/shapes/test_shape_translate_oracle.py compares such ops with TF's.)"""
    from opgen_runtime import Graph, constant

    (tmp_path / "shapes.h").write_text(textwrap.dedent("""\
        namespace mine {
        enum Dims { kTwo = 2, kThree };
        template <int N> Status Elsewhere(shape_inference::InferenceContext* c);
        }  // namespace mine
        """))
    (tmp_path / "other.cc").write_text(textwrap.dedent("""\
        #include "shapes.h"
        namespace mine {
        template <int N> Status Elsewhere(shape_inference::InferenceContext* c) {
          c->set_output(0, c->Vector(N * 10));
          return OkStatus();
        }
        template Status Elsewhere<kThree>(shape_inference::InferenceContext* c);
        }  // namespace mine
        """))
    (tmp_path / "ops.cc").write_text(textwrap.dedent("""\
        #include "tensorflow/core/framework/op.h"
        #include "shapes.h"
        namespace mine {
        constexpr int kExtra = 1;
        template <Dims d, bool kSquare = false> Status Rank(shape_inference::InferenceContext* c);
        template <> Status Rank<kThree, true>(shape_inference::InferenceContext* c);
        REGISTER_OP("Two").Input("x: float").Output("y: float").SetShapeFn(Rank<kTwo>);
        REGISTER_OP("TwoToo").Input("x: float").Output("y: float").SetShapeFn(&mine::Rank<Dims::kTwo, false>);
        REGISTER_OP("Three").Input("x: float").Output("y: float").SetShapeFn(Rank<kThree>);
        REGISTER_OP("MySquare").Input("x: float").Output("y: float").SetShapeFn(Rank<kTwo, true>);
        REGISTER_OP("Special").Input("x: float").Output("y: float").SetShapeFn(Rank<kThree, true>);
        REGISTER_OP("Other").Output("y: float").SetShapeFn(Elsewhere<kThree>);
        template <Dims d, bool kSquare> Status Rank(shape_inference::InferenceContext* c) {
          shape_inference::ShapeHandle s;
          TF_RETURN_IF_ERROR(c->WithRank(c->input(0), d + kExtra - 1, &s));
          c->set_output(0, kSquare ? c->Matrix(d, d) : s);
          return OkStatus();
        }
        template <> Status Rank<kThree, true>(shape_inference::InferenceContext* c) {
          c->set_output(0, c->Scalar());
          return OkStatus();
        }
        }  // namespace mine
        """))
    monkeypatch.chdir(tmp_path)
    assert main(["build", "ops.cc", "other.cc", "--out", "gen"]) == 0
    assert capsys.readouterr().err.count("warning") == 0
    assert main(["oplist", "--report-shapes", "ops.cc", "other.cc"]) == 0
    assert capsys.readouterr().out.splitlines()[:6] == [
        f"{op}\tfunction, translated" for op in ("MySquare", "Other", "Special", "Three", "Two", "TwoToo")]
    module = _load(tmp_path / "gen" / "gen_ops.py", "function_templates_under_test")
    text = (tmp_path / "gen" / "gen_ops.py").read_text()
    assert text.count("def _shape_fn_") == 5  # Two and TwoToo: one instantiation
    assert "    v_d = 2\n    v_kSquare = False\n    k_kExtra = 1\n" in text
    assert "    v_N = 3\n    c.set_output(0, c.vector(c.make_dim(v_N * 10)))\n" in text
    with Graph().as_default():
        assert module.two(constant([[1.0, 2.0]])).shape.as_list() == [1, 2]
        assert module.two_too(constant([[1.0, 2.0]])).shape.as_list() == [1, 2]
        with pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
            module.three(constant([[1.0, 2.0]]))
        assert module.my_square(constant([[1.0, 2.0]])).shape.as_list() == [2, 2]
        assert module.special(constant([[1.0, 2.0]])).shape.as_list() == []
        assert module.other().shape.as_list() == [30]


@pytest.mark.parametrize(("source", "construct", "where"), [
    ("template <typename T> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<int>);",
     "a function template with a type parameter", (1, 11)),
    ("template <int N, class T> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<1, int>);",
     "a function template with a type parameter", (1, 18)),
    ("template <template <int> class T> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<G>);",
     "a function template with a template template parameter", (1, 11)),
    ("template <int... Ns> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<1, 2>);",
     "a function template with a parameter pack", (1, 11)),
    ("template <float X> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<1>);",
     "a template parameter of a type opgen does not bind: `float X`", (1, 11)),
    ("template <int N> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<kNowhere>);",
     ("the template argument kNowhere, which names no constant opgen reads (an enumerator, a const variable of the "
     "translation unit)"), (2, 7)),
    ("template <int N> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<sizeof(int)>);",
     "the template argument `sizeof(int)`, which opgen does not compute", (2, 7)),
    ("template <int N> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<3000000000>);",
     "the template argument 3000000000 for `int N`: of another type, or out of its range", (2, 7)),
    ("template <int N> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<1, 2>);",
     "F<...> with 2 template arguments for 1 parameter", (2, 6)),
    ("int kMutable = 2;\ntemplate <int N> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<kMutable>);",
     "the constant kMutable: a variable, not const", (3, 7)),
    ("const int kBig = 1 << 3;\ntemplate <int N> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<kBig>);",
     "the constant kBig: `1 << 3`, which opgen does not compute", (3, 7)),
    (("namespace a { enum { k = 1 }; }\nnamespace b { enum { k = 2 }; }\nusing namespace a;\nusing namespace b;\n"
     "template <int N> Status F(InferenceContext* c) { return OkStatus(); }\nREG(F<k>);"),
     "the template argument k, which may name a::k or b::k", (6, 7)),
    (("template <int N> Status F(InferenceContext* c) { c->set_output(0, c->Vector(N)); return G<N>(c); }\n"
     "REG(F<1>);"), "a call of the function template G", (1, 89)),
    (("template <int N> Status F(InferenceContext* c) { int N2 = N; unsigned u = 0; return OkStatus(); }\n"
     "REG(F<1>);"), "unsigned, an unsigned type narrower than 64 bits", (1, 62)),
])
def test_function_template_refusals_are_located_with_their_reason(tmp_path, capsys, source, construct, where):
    """A function template opgen does not instantiate, or an argument it does not resolve, is
    the usual located warning naming why: never the silent `named, not built in` of a function
    no source defines (trial35 #2)."""
    (tmp_path / "ops.cc").write_text(
        "#include \"tensorflow/core/framework/op.h\"\nusing shape_inference::InferenceContext;\n"
        "#define REG(...) REGISTER_OP(\"Op\").Output(\"y: float\").SetShapeFn(__VA_ARGS__)\n" + source + "\n")
    assert main(["oplist", "--report-shapes", str(tmp_path / "ops.cc")]) == 0
    out, err = capsys.readouterr()
    line, col = where
    assert err.splitlines()[0] == (f"{tmp_path / 'ops.cc'}:{line + 3}:{col}: warning: shape function not translated: "
                                   f"{construct} (op Op: unknown output shapes without TensorFlow)")
    assert out.splitlines()[0] == f"Op\tfunction, not translated\t{tmp_path / 'ops.cc'}:{line + 3}:{col}: {construct}"


def test_unit_constants_in_a_shape_function():
    """Enumerators and const variables of the unit read in a shape function have their values
    (as locals `k_<name>`; a constant index is checked against the op's arguments as a literal
    is); a name is looked up from where it is written, as C++ does: another namespace's
    constant of that name is not the one meant (refused by name)."""
    t = _translate_source("""\
        namespace ops {
        enum Inputs { kData, kIndices = kData + 2, kLast };
        enum class Mode { kA = -3 };
        constexpr int64_t kScale = -(4 * 2);
        static const bool kOn = true;
        const std::string kWhat = "x";
        auto fn = [](InferenceContext* c) {
          if (kOn && static_cast<int>(Mode::kA) < kScale) return errors::InvalidArgument(kWhat);
          c->set_output(kLast, c->Vector(ops::kIndices * kScale));
          return OkStatus();
        };
        }  // namespace ops
        """)
    assert t.lines is not None, t.problem
    assert t.lines[:5] == ("    k_kOn = True", "    k_kA = -3", "    k_kScale = -8", '    k_kWhat = "x"',
                           "    k_kLast = 3")
    assert [(use, index) for use, index, _ in t.indices] == [("sets output", 3)]
    hidden = _translate_source("""\
        namespace a { enum { kHidden = 1 }; }
        namespace b {
        auto fn = [](InferenceContext* c) { c->set_output(0, c->Vector(kHidden)); return OkStatus(); };
        }
        """)
    assert hidden.problem == "shape function not translated: kHidden"


def test_a_units_braces_are_walked_once(tmp_path, monkeypatch):
    """The constants a shape function reads (an enumerator of a class, of an `enum class`, a
    const variable) and an enum-typed template parameter are found where the unit's one
    `Namespaces` says they stand: gathering walks a unit's braces once, for its chains, its
    file-scope checks and its shape functions alike."""
    from opgen.spec import cpp_namespaces
    from opgen.spec.gather import gather

    walked: list[int] = []
    walk = cpp_namespaces.Namespaces._walk

    def counted(self):
        walked.append(len(self.tokens))
        walk(self)

    monkeypatch.setattr(cpp_namespaces.Namespaces, "_walk", counted)
    (tmp_path / "ops.cc").write_text(textwrap.dedent("""\
        #include "tensorflow/core/framework/op.h"
        using shape_inference::InferenceContext;
        namespace ops {
        struct Dims { enum Kind { k2 = 2, k3 }; };
        enum class Rank { kScalar, kVector };
        constexpr int kBase = 10;
        template <Dims::Kind d = Dims::k3> Status F(InferenceContext* c) {
          c->set_output(0, c->Vector(d + kBase + static_cast<int>(Rank::kVector)));
          return OkStatus();
        }
        }  // namespace ops
        REGISTER_OP("Thirteen").Output("y: float").SetShapeFn(ops::F<ops::Dims::k2>);
        REGISTER_OP("Fourteen").Output("y: float").SetShapeFn(ops::F<>);
        """))
    sources = gather([str(tmp_path / "ops.cc")]).sources
    assert len(walked) == 1
    lines = {name: "\n".join(source.shape_fn_python or ()) for name, source in sources.items()}
    assert "v_d = 2" in lines["Thirteen"] and "v_d = 3" in lines["Fourteen"], lines
    assert "k_kBase = 10" in lines["Thirteen"] and "k_kVector = 1" in lines["Thirteen"], lines


def test_static_constants_of_template_parameters_and_unit_constants(tmp_path, capsys, monkeypatch):
    """A static constant initialized by a constant expression of the template's parameters and
    the unit's constants (custom-op's `static const int kTensorRank = spatial_dims + 1;`) has
    the same value on every call: translated as a local. One of a runtime value is refused."""
    from opgen_runtime import Graph

    (tmp_path / "ops.cc").write_text(textwrap.dedent("""\
        #include "tensorflow/core/framework/op.h"
        using shape_inference::InferenceContext;
        constexpr int kExtra = 1;
        template <int N> Status F(InferenceContext* c) {
          static constexpr int kRank = N + kExtra;
          static const int kTwice = kRank * 2;
          c->set_output(0, c->Vector(kTwice));
          return OkStatus();
        }
        template <int N> Status G(InferenceContext* c) {
          static const int kRank = c->Rank(c->input(0)) + N;
          return OkStatus();
        }
        REGISTER_OP("Six").Output("y: float").SetShapeFn(F<2>);
        REGISTER_OP("Ranked").Input("x: float").SetShapeFn(G<1>);
        """))
    monkeypatch.chdir(tmp_path)
    assert main(["build", "ops.cc", "--out", "gen"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        "ops.cc:11:28: warning: shape function not translated: a static local initialized by "
        f"`c->Rank(c->input(0)) + N`, not a constant: {_STATIC_ONCE} (op Ranked: unknown output shapes without "
        "TensorFlow)")
    text = (tmp_path / "gen" / "gen_ops.py").read_text()
    assert "    v_N = 2\n    k_kExtra = 1\n    v_kRank = v_N + k_kExtra\n    v_kTwice = v_kRank * 2\n" in text
    module = _load(tmp_path / "gen" / "gen_ops.py", "static_constants_under_test")
    with Graph().as_default():
        assert module.six().shape.as_list() == [6]


def test_long_conditional_is_split_as_black_does():
    t = _translate("ShapeHandle out = c->RankKnown(c->input(0)) ? c->UnknownShapeOfRank(c->Rank(c->input(0)))"
                   " : c->UnknownShape(); c->set_output(0, out); return OkStatus();")
    assert t.lines is not None and t.lines[0] == "    v_out = (" and _black_stable(t.lines)


def test_long_conditions_split_at_and_or_as_black_and_ruff_do(tmp_path):
    """A long `if`/`else if`/`for` condition or assigned value with `&&`/`||` goes into black's
    parentheses, on one line or one operand per line, across name lengths around every line-length boundary; a long one
    black would split at a bracket instead (one `&&` before a final call) is refused."""
    ranks = ("c->RankKnown(c->input(0)) && c->RankKnown(c->input(1)) && "
             "c->Rank(c->input(0)) == c->Rank(c->input(1)) || c->RankKnown(c->input(2)) && (x > 1 || x < 0)")
    sources = [_python(f"int x = 1; if ({ranks}) {{ c->set_output(0, c->input(0)); }} return OkStatus();")]
    for width in range(30, 60):
        n = "x" * width
        for body in (
            (f"int {n} = 1; if ({n} > 1) {{ return OkStatus(); }} else if ({n} > 1 && {n} < 9 || {n} != 4) "
            "{ return OkStatus(); } return OkStatus();"),
            f"for (int {n} = 1; {n} > 1 && {n} < 9 && {n} != 4; ++{n}) {{ }} return OkStatus();",
            f"int {n} = 1; if ({n} > 1 && {n} != 4) {{ return OkStatus(); }} return OkStatus();",
            (f"int {n} = 1; bool ok = {n} > 1 && c->RankKnown(c->input(0)) || {n} == 4;"
             " if (ok) { return OkStatus(); } return OkStatus();"),
        ):
            sources.append(_python(body))
    split = [s for s in sources if "(\n" in s]
    assert len(split) > len(sources) // 2
    assert split[0].splitlines()[1:4] == ["    if (", "        c.rank_known(c.input(0))",
                                          "        and c.rank_known(c.input(1))"]
    for i, source in enumerate(sources):
        code = f"def f(c):\n{source}\n"
        assert black.format_str(code, mode=black.Mode()) == code, code
        (tmp_path / f"s{i}.py").write_text(code)
    proc = subprocess.run([sys.executable, "-m", "ruff", "format", "--isolated", "--check", "--diff", str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    refused = _translate("if (c->Rank(c->input(0)) > 2222222222 && c->RankKnown(c->input(1123456789)) == "
                         "c->RankKnown(c->input(1))) { return OkStatus(); } return OkStatus();")
    assert refused.problem is not None and "longer than 88 columns" in refused.problem


def test_common_functions_with_arguments_exist_in_the_runtime():
    from opgen.shape_translate.parser import _COMMON_WITH_ARGS
    from opgen_runtime.shapes.fns.common import WITH_ARGS

    assert set(_COMMON_WITH_ARGS) == set(WITH_ARGS)


def test_lambda_with_captures_is_refused():
    t = translate_lambda(tokenize(SourceFile("ops.cc", "[&](InferenceContext* c) { return OkStatus(); }")), 0)
    assert t.problem == "shape function not translated: a lambda with captures"


def test_input_text_never_pasted():
    """A hostile string literal is decoded and re-printed; names are renamed (`v_`)."""
    t = _translate('int __import__ = 0; return errors::InvalidArgument("\\"); import os; (\\"", __import__);')
    code = "\n".join(t.lines)
    assert "raise c.invalid_argument(" in code and "'\"); import os; (\"'" in code
    assert "v___import__" in code and " __import__" not in code.replace("v___import__", "")
    compile("def f(c):\n" + code, "<t>", "exec")


# the runtime methods translated code calls (TF's InferenceContext semantics)
def test_cpp_integer_arithmetic():
    assert [InferenceContext.truncdiv(a, b) for a, b in ((7, 2), (-7, 2), (7, -2), (-7, -2))] == [3, -3, -3, 3]
    assert [InferenceContext.truncmod(a, b) for a, b in ((7, 2), (-7, 2), (7, -2), (-7, -2))] == [1, -1, 1, -1]


def test_dimension_rules():
    ctx = InferenceContext.__new__(InferenceContext)
    assert ctx.make_dim(-1) is None and ctx.make_dim(4) == 4
    assert InferenceContext.num_elements(ShapeHandle([None, 0])) == 0
    assert InferenceContext.num_elements(ShapeHandle([None, 2])) is None
    assert InferenceContext.divide(6, None, True) is None and InferenceContext.divide(None, 1, True) is None
    with pytest.raises(ShapeError, match="Divisor must be positive but is -1"):
        InferenceContext.divide(6, -1, False)
    assert InferenceContext.rank_value(ShapeHandle(None)) == -1 and InferenceContext.dim_value(None) == -1


def test_replace_dim_bounds_and_unknown_rank_of_minus_one():
    ctx = InferenceContext.__new__(InferenceContext)
    with pytest.raises(ShapeError, match="Out of range dim_index -3 for shape with 2 dimensions"):
        ctx.replace_dim(ShapeHandle([1, 2]), -3, 5)
    assert ctx.replace_dim(ShapeHandle([1, 2]), -1, 5).dims == (1, 5)
    assert ctx.unknown_shape_of_rank(-1).dims is None


def test_report_shapes(tmp_path, capsys):
    """Each op's kind, and the share of all ops that get a shape function without TensorFlow,
    with what the others lack: a named function the runtime has not built in counts against it
    (trial35 #3: `1 of 1 translated (100.0%)` was printed while 2 of 3 ops had none)."""
    (tmp_path / "ops.cc").write_text(textwrap.dedent("""\
        #include "tensorflow/core/framework/op.h"
        namespace tensorflow {
        Status Shared(shape_inference::InferenceContext* c) { c->set_output(0, c->input(0)); return OkStatus(); }
        REGISTER_OP("A").Input("x: float").Output("y: float").SetShapeFn(Shared);
        REGISTER_OP("B").Output("y: float").SetShapeFn([](shape_inference::InferenceContext* c) {
          return c->input_tensor(0) == nullptr ? OkStatus() : OkStatus();
        });
        REGISTER_OP("C").Output("y: float").SetShapeFn(shape_inference::ScalarShape);
        REGISTER_OP("D").Output("y: float");
        REGISTER_OP("E").Output("y: float").SetShapeFn(LibraryOwn);
        }
        """))
    assert main(["oplist", str(tmp_path / "ops.cc"), "--report-shapes"]) == 0
    out = capsys.readouterr().out
    path = tmp_path / "ops.cc"
    assert out == (
        "A\tfunction, translated\n"
        f"B\tlambda, not translated\t{path}:6:13: c->input_tensor\n"
        "C\tnamed, built in\nD\tnone\nE\tnamed, not built in (unknown shapes without TensorFlow)\n"
        "lambdas: 0 of 1 translated (0.0%)\n"
        "project functions: 1 of 1 translated (100.0%)\n"
        "shape functions without TensorFlow: 2 of 5 ops (40.0%): 1 translated, 1 built in, 0 TF ports\n"
        "without one: 3 ops: 1 not translated, 1 named but not built in, 1 none\n"
    )
    assert main(["oplist", str(tmp_path / "ops.cc"), "--report-shapes", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "ops": [{"op": "A", "kind": "function, translated", "problem": None},
                {"op": "B", "kind": "lambda, not translated", "problem": f"{path}:6:13: c->input_tensor"},
                {"op": "C", "kind": "named, built in", "problem": None}, {"op": "D", "kind": "none", "problem": None},
                {"op": "E", "kind": "named, not built in (unknown shapes without TensorFlow)", "problem": None}],
        "totals": {"lambdas": {"translated": 0, "of": 1}, "project_functions": {"translated": 1, "of": 1},
                   "ops": {"of": 5, "with_shape_fn": 2, "translated": 1, "built_in": 1, "tf_ports": 0,
                           "not_translated": 1, "not_built_in": 1, "none": 1}},
    }


def test_every_translation_of_the_test_library_is_black_layout_and_compiles():
    from opgen.spec.gather import scan_cpp_file
    from opgen.spec.preprocessor import Preprocessor

    source = TESTS / "data" / "shape_translate_ops" / "shape_ops.cc"
    scanned = scan_cpp_file(str(source), Preprocessor(), {})
    translated = [t for t in scanned.translations.values() if t.lines is not None]
    assert len(translated) == len(scanned.translations) - 3 >= 45  # StHandleData, StUnsignedInt, StOverloadUnresolved
    for t in translated:
        assert _black_stable(t.lines)
        compile("def f(c):\n" + "\n".join(t.lines), "<t>", "exec")


def test_float_and_dtype_text():
    """StrCat of a float (absl's six digits) and DataTypeString, as errors print them."""
    assert [InferenceContext.float_text(v) for v in (0.5, 1e-7, 123456789.0, -2.5, 3.0)] == [
        "0.5", "1e-07", "1.23457e+08", "-2.5", "3"]
    assert InferenceContext.dtype_string(7) == "string" and InferenceContext.dtype_string(101) == "float_ref"


def test_named_arg_ranges_follow_the_op_def():
    """TF's NameRangesForNode: a list arg spans its number attr's count; an unknown name is TF's error."""
    from types import SimpleNamespace

    from opgen_runtime.proto import attr_value_pb2, op_def_pb2

    op_def = op_def_pb2.OpDef(name="Op")
    op_def.input_arg.add(name="a", type=1)
    op_def.input_arg.add(name="xs", type=1, number_attr="N")
    op_def.output_arg.add(name="ys", type=1, number_attr="N")
    ctx = InferenceContext.__new__(InferenceContext)
    ctx.op = SimpleNamespace(_op_def=op_def, _attrs={"N": attr_value_pb2.AttrValue(i=2)})
    ctx._inputs = [ShapeHandle([1]), ShapeHandle([2]), ShapeHandle([3])]
    ctx._outputs = [ShapeHandle(None)] * 2
    assert [s.dims for s in ctx.input_list("xs")] == [(2,), (3,)]
    with pytest.raises(ShapeError, match=r"^Unknown input name: b$"):
        ctx.input_list("b")
    with pytest.raises(ShapeError, match=r"^Must provide exactly 2 shapes\.$"):
        ctx.set_output_list("ys", [ShapeHandle([1])])


def test_build_from_an_op_list_says_its_custom_ops_lose_their_shape_functions(tmp_path, capsys, monkeypatch):
    """An OpList holds no shape functions: a build from one warns, once per file at its first
    such op, that its custom ops with outputs get unknown shapes without TensorFlow (a build
    from the C++ would translate them); TF's own ops (ported by the runtime) are not named."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    Path("ops.pbtxt").write_text(
        'op { name: "Add" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "y" type: DT_FLOAT }\n'
        '  output_arg { name: "z" type: DT_FLOAT } }\n'
        + "".join(f'op {{ name: "My{i}" output_arg {{ name: "y" type: DT_FLOAT }} }}\n' for i in range(7))
        + 'op { name: "MySink" }\n')
    assert main(["build", "ops.pbtxt", "--out", "gen"]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[:2] == [
        ("ops.pbtxt:3:1: warning: 7 ops of this OpList have no shape function without TensorFlow (an OpList file holds "
        "none): 'My0', 'My1', 'My2', 'My3', 'My4' and 2 more; the embedded runtime gives their outputs unknown shapes"),
        ("  hint: build from the C++ sources that declare them (opgen translates their SetShapeFn), or register one "
        "with opgen_runtime.register_shape_fn (docs/runtime.md)"),
    ]
    assert "warning" not in "\n".join(err.splitlines()[2:])


def test_report_and_warning_name_the_tf_ops_the_runtime_has_no_port_of(tmp_path, capsys, monkeypatch):
    """trial10 #11: for an OpList's TF ops, `--report-shapes` says `TF port` where the runtime
    runs its port of TF's shape function (Add), and `none` where it has none (Bitcast), which
    the build's warning then names: its outputs get unknown shapes without TensorFlow."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    Path("ops.pbtxt").write_text(
        'op { name: "Add" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "y" type: DT_FLOAT }\n'
        '  output_arg { name: "z" type: DT_FLOAT } }\n'
        'op { name: "Bitcast" input_arg { name: "input" type: DT_FLOAT }\n'
        '  output_arg { name: "output" type: DT_INT32 } }\n')
    assert main(["oplist", "ops.pbtxt", "--report-shapes"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Add\tTF port", "Bitcast\tnone", "lambdas: none", "project functions: none",
        "shape functions without TensorFlow: 1 of 2 ops (50.0%): 0 translated, 0 built in, 1 TF ports",
        "without one: 1 op: 0 not translated, 0 named but not built in, 1 none"]
    assert main(["build", "ops.pbtxt", "--out", "gen"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        "ops.pbtxt:3:1: warning: 1 op of this OpList has no shape function without TensorFlow (an OpList file holds "
        "none): 'Bitcast'; the embedded runtime gives their outputs unknown shapes")


def test_nesting_past_python_s_recursion_is_refused_not_a_crash():
    """Deep expressions, blocks and project-function chains are left untranslated (located),
    and a chain of thousands of functions is read in linear time (one index of definitions)."""
    deep = _translate("c->set_output(0, c->Vector(" + "(" * 1200 + "1" + ")" * 1200 + ")); return OkStatus();")
    assert deep.problem == ("shape function not translated: code nested too deeply (expressions, blocks or "
                            "function calls)")
    blocks = _translate("{" * 600 + "}" * 600 + " return OkStatus();")
    assert blocks.problem is not None and "nested too deeply" in blocks.problem
    chain = "".join(f"Status F{i}(InferenceContext* c) {{ return F{i + 1}(c); }}\n" for i in range(3000))
    source = chain + "Status F3000(InferenceContext* c) { c->set_output(0, c->Scalar()); return OkStatus(); }\n"
    tokens = tokenize(SourceFile("ops.cc", source))
    from opgen.spec.gather import shape_fn_definitions

    definitions = shape_fn_definitions(tokens)
    assert len(definitions) == 3001
    assert definitions["F0"].problem == ("shape function not translated: project functions calling each other "
                                         "more than 32 deep")
    assert definitions["F2990"].lines is not None  # ten calls from the end: translated


def test_with_value_and_with_rank_follow_tf():
    """trial12 #1, #2 (TF's shape_inference.cc WithValue, WithRank*): WithValue(unknown, -1)
    keeps the dim unknown (no -1 dim to spread); a rank past int32 is TF's InvalidArgument,
    never a 2**31-dim shape."""
    ctx = InferenceContext.__new__(InferenceContext)
    assert ctx.with_value(None, -1) is None and ctx.with_value(None, 4) == 4 and ctx.with_value(3, 3) == 3
    with pytest.raises(ShapeError, match=r"^Dimension must be -1 but is 3$"):
        ctx.with_value(3, -1)
    unknown = ShapeHandle(None)
    for method in (ctx.with_rank, ctx.with_rank_at_least, ctx.with_rank_at_most):
        with pytest.raises(ShapeError, match=r"^Rank cannot exceed kint32max$"):
            method(unknown, 2**31)
    assert ctx.with_rank(unknown, 2).dims == (None, None) and ctx.with_rank(unknown, -1).dims is None


def test_size_comparisons_are_unsigned_as_in_cpp():
    """trial12 #4: `size()` is a size_t. C++ compares an int with it as unsigned, so an
    unknown rank (-1) is never below it and `size() - 1` of an empty list is huge; the
    translation compares as C++ does (`c.as_size_t`), and a cast to a signed type ends it."""
    code = _python('std::vector<int64_t> dims; TF_RETURN_IF_ERROR(c->GetAttr("dims", &dims));'
                   ' if (c->Rank(c->input(0)) < dims.size()) return errors::InvalidArgument("rank");'
                   ' if (dims.size() - 1 > 2) return errors::InvalidArgument("many");'
                   ' if (static_cast<int64_t>(dims.size()) - 1 > 2) return errors::InvalidArgument("n");'
                   ' c->set_output(0, c->Vector(dims.size() - 1)); return OkStatus();')
    assert "if c.as_size_t(c.rank_value(c.input(0))) < len(v_dims):" in code
    assert "if c.as_size_t(len(v_dims) - 1) > 2:" in code and "if len(v_dims) - 1 > 2:" in code
    assert "c.vector(c.make_dim(len(v_dims) - 1))" in code  # converted back to int64: -1, unknown
    assert InferenceContext.as_size_t(-1) == 2**64 - 1 and InferenceContext.as_size_t(3) == 3


def test_size_t_locals_wrap_as_in_cpp():
    """trial31 #1: a local of a 64-bit unsigned type is held as the int64 with its bits: a
    comparison with it is unsigned, arithmetic that may leave int64's range wraps back into it
    (`c.as_int64`, C++'s modulo 2**64). (Against TF: StSizeTLocal in the oracle test.)"""
    code = _python("size_t n = 0; n = n - 1; c->set_output(0, c->Vector(n > 5 ? 1 : 2));"
                   " unsigned long long m = 3; m -= 4; --m; std::size_t k = m * 2; auto s = k;"
                   " for (uint64_t i = 0; i < k; ++i) {} if (-s > 0) return OkStatus(); return OkStatus();")
    assert code.split("\n") == [
        "    v_n = 0", "    v_n = c.as_int64(v_n - 1)",
        "    c.set_output(0, c.vector(c.make_dim(1 if c.as_size_t(v_n) > 5 else 2)))",
        "    v_m = 3", "    v_m = c.as_int64(v_m - 4)", "    v_m = c.as_int64(v_m - 1)",
        "    v_k = c.as_int64(v_m * 2)", "    v_s = v_k", "    v_i = 0",
        "    while c.as_size_t(v_i) < c.as_size_t(v_k):", "        pass", "        v_i = c.as_int64(v_i + 1)",
        "    if c.as_size_t(-v_s) > 0:", "        return",
    ]
    assert InferenceContext.as_int64(2**64) == 0 and InferenceContext.as_int64(2**63) == -(2**63)
    assert InferenceContext.as_int64(-1) == -1


@pytest.mark.parametrize(("cpp", "construct", "column"), [
    ("unsigned u = 0; u -= 1; return OkStatus();", "unsigned", 1),
    ("unsigned int u = 0; return OkStatus();", "unsigned", 1),  # (named as one word)
    ("uint32_t u = 0; return OkStatus();", "uint32_t", 1),
    ("std::vector<uint16> u; return OkStatus();", "uint16", 13),
    ("int64_t n = static_cast<uint32>(-1); return OkStatus();", "uint32", 25),
    ("int64_t n = uint8_t(300); return OkStatus();", "uint8_t", 13),
    ("unsigned short int u = 1; return OkStatus();", "unsigned short", 1),
    ("unsigned char u = 1; return OkStatus();", "unsigned char", 1),
])
def test_narrower_unsigned_types_are_refused(cpp, construct, column):
    """trial31 #1: unsigned arithmetic narrower than 64 bits (modulo 2**32, an int operand
    converted to unsigned, uint8/16 promoted to int) is not modelled: refused, never signed."""
    t = _translate(cpp)
    assert t.problem == f"shape function not translated: {construct}, an unsigned type narrower than 64 bits"
    assert (t.location.line, t.location.col) == (2, column)
    assert t.hint == "its arithmetic wraps modulo 2**32 or promotes to int; name size_t or int64_t"


def test_integer_types_of_several_keywords():
    """`unsigned long long` and `long int` are 64 bits (LP64); `short` is still refused."""
    assert _python("unsigned long long int n = 0; --n; long int k = n; return OkStatus();").split("\n") == [
        "    v_n = 0", "    v_n = c.as_int64(v_n - 1)", "    v_n"]  # (k unread: its value alone)
    assert _translate("short s = 1; return OkStatus();").problem == (
        "shape function not translated: `short` in `short s = 1; return OkStatus();`")


def test_size_t_out_parameter_and_division_are_refused():
    """TF's methods write an int64_t, not a size_t; dividing one is not modelled."""
    t = _translate('size_t n; TF_RETURN_IF_ERROR(c->GetAttr("n", &n)); return OkStatus();')
    assert t.problem == "shape function not translated: &n of an unsigned type"
    t = _translate("size_t n = 4; int64_t h = n / 2; return OkStatus();")
    assert t.problem == "shape function not translated: dividing a size_t (a size() or an unsigned local)"


def test_a_refusal_at_a_bare_token_quotes_its_line():
    """trial11 F4, trial12 #6: a reason that is a lone `.` or `;` quotes its source line (its
    comment left out)."""
    t = _translate("std::vector<int64_t> dims;\n  dims.reserve(2);  // room\n  return OkStatus();")
    assert t.problem == "shape function not translated: `.` in `dims.reserve(2);`"


def test_a_statement_too_long_only_for_its_nesting_says_so():
    """trial31 #2: deeply nested `if`s make a short statement too long through indentation
    alone (Python's indentation: 4 columns a block); the reason names the nesting, not the
    statement, and a statement too long at any depth keeps the usual reason."""
    ifs = "".join(f"if (c->Rank(c->input(0)) != {100 + k}) {{\n" for k in range(30))
    t = _translate(ifs + "c->set_output(0, c->input(0));\n" + "}\n" * 30 + "return OkStatus();")
    assert t.problem == ("shape function not translated: a statement nested 13 blocks deep: its Python "
                         "translation's indentation (4 columns a block) makes it longer than 88 columns")
    assert t.hint == ("nest fewer blocks: return early instead (if (...) return ...;), or move inner blocks "
                      "into a function")
    assert t.location.line == 15  # the 14th if, 13 blocks in: the first line too long
    ok = _translate(ifs[: ifs.index("if", 1) * 12] + "c->set_output(0, c->input(0));\n" + "}\n" * 12
                    + "return OkStatus();")
    assert ok.lines is not None  # 12 levels still fit
    long_sum = "int64_t r = " + " + ".join(["c->Rank(c->input(0))"] * 6) + ";"
    t = _translate("if (c->Rank(c->input(0)) == 2) {\n" + long_sum + "\n}\nreturn OkStatus();")
    assert t.problem == "shape function not translated: a statement whose Python translation is longer than 88 columns"


@pytest.mark.parametrize(("cpp", "python"), [
    # initialized (`=`, `(a)`), const, assigned, of a conditional: each a list of its own; a call's is one already
    (('std::vector<int64_t> a; TF_RETURN_IF_ERROR(c->GetAttr("a", &a)); std::vector<int64_t> b = a, d(a);'
      " const std::vector<int64_t> k = a; std::vector<int64_t> e; e = a.empty() ? b : a; b.push_back(1);"
      " e[0] = 2; d = b; c->set_output(0, c->Matrix(k[0] + e[0], d[0])); return OkStatus();"),
     ('v_a = []\nv_a = c.attr_value("a", "list_int")\nv_b = list(v_a)\nv_d = list(v_a)\nv_k = list(v_a)\n'
      "v_e = []\nv_e = list(v_b if not v_a else v_a)\nv_b.append(1)\nv_e[0] = 2\nv_d = list(v_b)\n"
      "c.set_output(0, c.matrix(c.make_dim(v_k[0] + v_e[0]), c.make_dim(v_d[0])))")),
    # a copy nothing reads: its value only, as for any local
    ("std::vector<ShapeHandle> a; std::vector<ShapeHandle> b = a; return OkStatus();", "v_a = []\nv_a"),
])
def test_a_vector_copy_is_a_list_of_its_own(cpp, python):
    """trial38 #1: `std::vector<T> b = a;` (and `b = a;`, a const copy) was `v_b = v_a`, one list
    for both names, so `b[0] = ...` or `b.push_back(...)` changed `a` too."""
    assert _python(cpp) == textwrap.indent(python, "    ")


def test_a_vector_by_value_parameter_is_the_function_s_own_copy():
    """trial38 #1: a vector passed to a by-value parameter is copied (the function's writes stay
    in it); one passed to a const reference is not (nothing writes through it)."""
    t = _translate_source("""\
        Status Bump(InferenceContext* c, std::vector<DimensionHandle> dims, const std::vector<DimensionHandle>& all,
                    std::vector<int32> sizes) {
          dims[0] = c->MakeDim(99);
          sizes.push_back(1);
          c->set_output(0, c->MakeShape(all));
          return OkStatus();
        }
        auto fn = [](InferenceContext* c) {
          std::vector<DimensionHandle> dims;
          dims.push_back(c->Dim(c->input(0), 0));
          std::vector<int> sizes(2);
          return Bump(c, dims, dims, sizes);
        };
        """)
    assert t.lines is not None, t.problem
    assert t.lines[-1] == "    f_Bump(c, list(v_dims), v_dims, list(v_sizes))"


def test_a_const_reference_to_a_local_is_another_name_of_it():
    """trial38 #2: `const int64_t& r = n; n = 5;` read `r` as 1 (a copy); it is `n` itself, so
    it reads later writes (of any type: a handle, a vector; a reference to a reference; `(x)`,
    `{x}`), while one bound to a temporary keeps its value, as does a copy declared beside it."""
    cpp = ("ShapeHandle x = c->input(0); int64 n = c->Rank(x); const int64_t& r = n; const auto& q = r;"
           " const ShapeHandle& s(x); const int64_t& t{(n)}; std::vector<int64_t> v; const std::vector<int64_t>& w = v;"
           " const int64_t& sum = n + 1, copy = n; n = 3; x = c->Scalar(); v.push_back(n);"
           " c->set_output(0, c->Matrix(r + q + t, sum + copy + w.size())); c->set_output(1, s); return OkStatus();")
    assert _python(cpp) == textwrap.indent(
        "v_x = c.input(0)\nv_n = c.rank_value(v_x)\nv_v = []\nv_sum = v_n + 1\nv_copy = v_n\nv_n = 3\n"
        "v_x = c.scalar()\nv_v.append(v_n)\nc.set_output(\n    0,\n    c.matrix(\n"
        "        c.make_dim(v_n + v_n + v_n),\n        c.make_dim(c.as_int64(v_sum + v_copy + len(v_v))),\n"
        "    ),\n)\nc.set_output(1, v_x)", "    ")


_OTHER_TYPE = ("a const reference to n, a local whose C++ type opgen does not know to be the reference's: C++ "
               "binds it to the local itself, or to a converted copy")
_MAY_NAME = "which may be an element or a local: the reference reads what later writes store there"


@pytest.mark.parametrize(("cpp", "construct", "column"), [
    # another C++ type: C++ binds a converted copy (`long` is int64_t on Linux, not on macOS)
    ("int n = 1; const int64_t& r = n; return OkStatus();", _OTHER_TYPE, 27),
    ("int64_t n = 1; const long& r = n; return OkStatus();", _OTHER_TYPE, 28),
    # an element, or one of several locals: what it names may be written later
    ("std::vector<int64_t> v(2); const int64_t& r = v[0]; return OkStatus();",
     f"a const reference to `v[0]`, {_MAY_NAME}", 43),
    ("std::vector<int64_t> v(2); const auto& r = v.back(); return OkStatus();",
     f"a const reference to `v.back()`, {_MAY_NAME}", 40),
    ("int64_t a = 1, b = 2; const int64_t& r = std::max(a, b); return OkStatus();",
     f"a const reference to `std::max(a, b)`, {_MAY_NAME}", 38),
    ("int64_t a = 1, b = 2; const int64_t& r = (a > 0 ? a : b); return OkStatus();",
     f"a const reference to `a > 0 ? a : b`, {_MAY_NAME}", 38),
    # a range-for's list is the vector when the loop starts: a change in the body is refused
    ("std::vector<int64_t> v(2); for (auto x : v) { v[1] = x; } return OkStatus();",
     "a change to v inside a range-for over it", 47),
    (('std::vector<ShapeHandle> s; for (const auto& x : s) { TF_RETURN_IF_ERROR(c->input("xs", &s)); }'
      " return OkStatus();"), "a change to s inside a range-for over it", 90),
])
def test_references_whose_target_may_change_unseen_are_refused(cpp, construct, column):
    """trial38 #2: a reference opgen cannot make another name of its local is refused, located."""
    t = _translate(cpp)
    assert (t.lines, t.problem) == (None, f"shape function not translated: {construct}")
    assert (t.location.line, t.location.col) == (2, column)


_EXPECT = """\
    Status Expect(InferenceContext* c, int64_t rank) {
      ShapeHandle unused;
      return c->WithRank(c->input(0), rank, &unused);
    }
    Status Expect(InferenceContext* c, bool scalar_ok) {
      ShapeHandle unused;
      return c->WithRankAtMost(c->input(0), scalar_ok ? 0 : 1, &unused);
    }
    Status Expect(InferenceContext* c, const std::string& what, int n = 2);
    Status Expect(InferenceContext* c, const std::string& what, int n) { return OkStatus(); }
    """


def test_an_overloaded_function_is_the_overload_cpp_calls():
    """trial38 #3: `Expect(c, true)` called the first `Expect`, of an int64_t; C++ calls the one of
    a bool. The overload taken is the only one of that many arguments, or the only one whose
    parameters are the arguments' C++ types (a local's, a literal's, a cast's, a bool's); each
    overload is its own nested function."""
    t = _translate_source(_EXPECT + """\
    auto fn = [](InferenceContext* c) {
      int64 two = 2;
      TF_RETURN_IF_ERROR(Expect(c, true));
      TF_RETURN_IF_ERROR(Expect(c, two));
      TF_RETURN_IF_ERROR(Expect(c, static_cast<int64_t>(3)));
      TF_RETURN_IF_ERROR(Expect(c, c->Rank(c->input(0)) > 1));
      return Expect(c, "x", 3);
    };
    """)
    assert t.lines is not None, t.problem
    assert [line for line in t.lines if line.startswith("    def ")] == [
        "    def f_Expect_2(c: _api_types.InferenceContext, v_scalar_ok: Any) -> None:",
        "    def f_Expect_1(c: _api_types.InferenceContext, v_rank: Any) -> None:",
        "    def f_Expect_3(c: _api_types.InferenceContext, v_what: Any, v_n: Any) -> None:"]
    assert t.lines[-6:] == (
        "    v_two = 2", "    f_Expect_2(c, True)", "    f_Expect_1(c, v_two)", "    f_Expect_1(c, 3)",
        "    f_Expect_2(c, c.rank_value(c.input(0)) > 1)", '    f_Expect_3(c, "x", 3)')


def _overloaded(first_line: int) -> str:
    """The refusal of a call of `_EXPECT`'s Expect, its first line at `first_line`."""
    return ("a call of Expect, which is overloaded (Expect(InferenceContext* c, int64_t rank) at line "
            f"{first_line}, Expect(InferenceContext* c, bool scalar_ok) at line {first_line + 4}, "
            "Expect(InferenceContext* c, const std::string& what, int n) at line "
            f"{first_line + 9}): opgen picks an overload only when one has exactly the arguments' C++ types")


@pytest.mark.parametrize("call", [
    "int64_t n = 1; return Expect(c, n + 1);",  # an int64_t, but opgen does not compute an expression's C++ type
    "int n = 1; return Expect(c, n);",  # an int: no overload of exactly its type
])
def test_an_overload_opgen_cannot_tell_is_refused_naming_the_overloads(call):
    t = _translate_source(_EXPECT + "auto fn = [](InferenceContext* c) { " + call + " };\n")
    assert (t.lines, t.problem) == (None, f"shape function not translated: {_overloaded(1)}")
    assert t.hint == ("give the overloads different names, or pass arguments of the types of one "
                      "(static_cast<int64_t>(...), a local of that type)")
    assert (t.location.line, t.location.col) == (11, call.index("Expect") + 37)


@pytest.mark.parametrize(("source", "construct", "line"), [
    # a function template of the name may be what C++ calls
    (("Status F(InferenceContext* c, int64_t n) { return OkStatus(); }\n"
      "template <typename T> Status F(InferenceContext* c, T n) { return OkStatus(); }\n"
      "auto f = [](InferenceContext* c) { return F(c, true); };"),
     ("a call of F, which is overloaded (F(InferenceContext* c, int64_t n) at line 1, F(InferenceContext* c, T n) "
      "at line 2): opgen picks an overload only when one has exactly the arguments' C++ types"), 3),
    # functions of two namespaces (whichever their signatures): which one C++'s lookup finds is not modelled
    (("namespace a { Status F(InferenceContext* c, int n) { return OkStatus(); } }\n"
      "namespace b { namespace { Status F(InferenceContext* c, bool k) { return OkStatus(); } } }\n"
      "auto f = [](InferenceContext* c) { return a::F(c, true); };"),
     "F, a function of 2 namespaces (a, b): opgen does not tell which one the call names", 3),
    (("Status F(InferenceContext* c) { return OkStatus(); }\n"
      "namespace b { Status F(InferenceContext* c) { return OkStatus(); } }\n"
      "auto f = [](InferenceContext* c) { return F(c); };"),
     "F, a function of 2 namespaces (the global namespace, b): opgen does not tell which one the call names", 3),
    # two definitions of one signature in one namespace (a class's member): not told apart
    (("struct S { static Status F(InferenceContext* c) { return OkStatus(); } };\n"
      "Status F(InferenceContext* c) { return OkStatus(); }\nauto f = [](InferenceContext* c) { return F(c); };"),
     "F, defined 2 times: opgen does not tell which one the call names", 3),
    (("Status F(InferenceContext* c, int n = 2) { return OkStatus(); }\n"
      "auto f = [](InferenceContext* c) { return F(c); };"), "a parameter with a default argument", 1),
])
def test_project_function_overload_refusals(source, construct, line):
    t = _translate_source(source)
    assert (t.lines, t.problem) == (None, f"shape function not translated: {construct}")
    assert t.location.line == line


def test_report_shapes_lists_the_copy_reference_and_overload_refusals(tmp_path, capsys):
    """The refusals of trial38 #1-#3 are warnings at their constructs and `--report-shapes` lines."""
    (tmp_path / "ops.cc").write_text("#include \"tensorflow/core/framework/op.h\"\nnamespace tensorflow {\n"
                                     + textwrap.dedent(_EXPECT) + textwrap.dedent("""\
        REGISTER_OP("Over").Input("x: float").SetShapeFn([](shape_inference::InferenceContext* c) {
          return Expect(c, 1 + 1);
        });
        REGISTER_OP("Ref").Output("y: float").SetShapeFn([](shape_inference::InferenceContext* c) {
          std::vector<int64_t> v(2);
          const int64_t& r = v[0];
          return OkStatus();
        });
        REGISTER_OP("Loop").Output("y: float").SetShapeFn([](shape_inference::InferenceContext* c) {
          std::vector<int64_t> v(2);
          for (int64_t x : v) v.push_back(x);
          return OkStatus();
        });
        }  // namespace tensorflow
        """))
    assert main(["oplist", "--report-shapes", str(tmp_path / "ops.cc")]) == 0
    out, err = capsys.readouterr()
    where = tmp_path / "ops.cc"
    over = _overloaded(3)
    ref = f"a const reference to `v[0]`, {_MAY_NAME}"
    assert out.splitlines()[:3] == [
        f"Loop\tlambda, not translated\t{where}:23:23: a change to v inside a range-for over it",
        f"Over\tlambda, not translated\t{where}:14:10: {over}",
        f"Ref\tlambda, not translated\t{where}:18:18: {ref}"]
    assert f"{where}:18:18: warning: shape function not translated: {ref} (op Ref: " in err


@pytest.mark.parametrize(("cpp", "python"), [
    # a for loop's `continue` runs its step first (the while loop would skip it), then tests again
    (("int n = 0; for (int i = 0; i < 5; i += 2) { if (i == 2) continue; ++n; }"
      " c->set_output(0, c->Vector(n)); return OkStatus();"),
     ("v_n = 0\nv_i = 0\nwhile v_i < 5:\n    if v_i == 2:\n        v_i += 2\n        continue\n    v_n += 1\n"
     "    v_i += 2\nc.set_output(0, c.vector(c.make_dim(v_n)))")),
    # the innermost loop's step; none for a loop without one, nor for a range-for (Python's own for)
    (("int n = 0; std::vector<int64_t> v(3); for (int64_t x : v) { for (int j = 0; j < 2;) { ++j; if (j == x)"
      " { continue; } n++; } if (x) continue; } c->set_output(0, c->Vector(n)); return OkStatus();"),
     ("v_n = 0\nv_v = [0] * 3\nfor v_x in list(v_v):\n    v_j = 0\n    while v_j < 2:\n        v_j += 1\n"
     "        if v_j == v_x:\n            continue\n        v_n += 1\n    if v_x != 0:\n        continue\n"
     "c.set_output(0, c.vector(c.make_dim(v_n)))")),
    # from a switch (an if/elif chain) inside the loop: it ends its case as `break` would
    (("int n = 0; for (int i = 0; i < 3; i++) { switch (i) { case 1: continue; default: n += 2; } n++; }"
      " c->set_output(0, c->Vector(n)); return OkStatus();"),
     ("v_n = 0\nv_i = 0\nwhile v_i < 3:\n    if v_i == 1:\n        v_i += 1\n        continue\n    else:\n"
     "        v_n += 2\n    v_n += 1\n    v_i += 1\nc.set_output(0, c.vector(c.make_dim(v_n)))")),
])
def test_continue_runs_a_for_loop_s_step_first(cpp, python):
    """trial38 #7: `continue` was refused; a `for (init; cond; step)` is a Python while loop, so
    its `continue` is the step and then `continue`."""
    assert _python(cpp) == textwrap.indent(python, "    ")


@pytest.mark.parametrize(("cpp", "python"), [
    # `{a, b}` and `= {a, b}`: the items, converted (an int32's narrowed); `{n}` is one item
    (("std::vector<DimensionHandle> d{c->Dim(c->input(0), 0)}; std::vector<int32> a = {1, c->Rank(c->input(0)) * n};"
      " std::vector<int64_t> b{3}; std::vector<bool> f{true, b[0]};"
      " c->set_output(0, c->Matrix(d[0], f[1] ? a[1] : b[0])); return OkStatus();"),
     ("v_d = [c.dim(c.input(0), 0)]\nv_a = [1, c.as_int32(c.rank_value(c.input(0)) * v_n)]\nv_b = [3]\n"
      "v_f = [True, v_b[0] != 0]\nc.set_output(0, c.matrix(v_d[0], c.make_dim(v_a[1] if v_f[1] else v_b[0])))")),
    # `{v}` of a vector is its copy; `{}`, `= {}` empty; `v = {...}` its new items (a trailing comma too)
    (("std::vector<int64_t> a{n}; std::vector<int64_t> b{a}, e = {}, f{}; b[0] = 2; a = {b[0], 4,};"
      " c->set_output(0, c->Matrix(a[1], b[0])); c->set_output(1, c->Matrix(e.size(), f.size()));"
      " return OkStatus();"),
     ("v_a = [v_n]\nv_b = list(v_a)\nv_e = []\nv_f = []\nv_b[0] = 2\nv_a = [v_b[0], 4]\n"
      "c.set_output(0, c.matrix(c.make_dim(v_a[1]), c.make_dim(v_b[0])))\n"
      "c.set_output(1, c.matrix(c.make_dim(len(v_e)), c.make_dim(len(v_f))))")),
    # a const reference to a braced list is bound to a temporary: a copy
    ("const std::vector<int64_t>& r = {1, n}; c->set_output(0, c->Vector(r[1])); return OkStatus();",
     "v_r = [1, v_n]\nc.set_output(0, c.vector(c.make_dim(v_r[1])))"),
])
def test_brace_initialized_vectors(cpp, python):
    """trial38 #7: `std::vector<T> v{a, b}` was refused at its `,`."""
    assert _python("int64_t n = 2; " + cpp) == textwrap.indent("v_n = 2\n" + python, "    ")


@pytest.mark.parametrize(("cpp", "construct", "column"), [
    ("std::vector<DimensionHandle> d{1}; return OkStatus();", "an int used as a dim", 30),
    ("static const std::vector<int> v{1}; return OkStatus();", f"a static vector: {_STATIC_ONCE}", 31),
    ("std::vector<int> v = {1 2}; return OkStatus();", "`2` in `std::vector<int> v = {1 2}; return OkStatus();`", 25),
])
def test_brace_initialized_vector_refusals(cpp, construct, column):
    t = _translate(cpp)
    assert (t.problem, t.location.col) == (f"shape function not translated: {construct}", column)


@pytest.mark.parametrize(("cpp", "python"), [
    # checked by the next statement: TF_RETURN_IF_ERROR of its call (braced, in a nested block too)
    (("ShapeHandle x; Status s = c->WithRank(c->input(0), 2, &x); if (!s.ok()) return s;"
      " if (true) { ::tensorflow::Status t = c->Merge(x, c->input(1), &x); if (!t.ok()) { return t; } }"
      " absl::Status u = c->WithRankAtMost(x, 3, &x); TF_RETURN_IF_ERROR(u); c->set_output(0, x);"
      " return OkStatus();"),
     ("v_x = c.with_rank(c.input(0), 2)\nif True:\n    v_x = c.merge(v_x, c.input(1))\n"
     "v_x = c.with_rank_at_most(v_x, 3)\nc.set_output(0, v_x)")),
    # returned by the next statement: `return` of its call
    ("ShapeHandle m; absl::Status s = c->Merge(c->input(0), c->input(1), &m); return s;",
     "c.merge(c.input(0), c.input(1))"),
])
def test_a_status_returned_by_the_next_statement(cpp, python):
    """trial38 #7: `Status s = c->WithRank(...); if (!s.ok()) return s;` was refused."""
    assert _python(cpp) == textwrap.indent(python, "    ")


_NOT_RETURNED = "a Status kept in a variable, not returned by the next statement"


@pytest.mark.parametrize(("cpp", "construct", "column"), [
    # an error handled (TF's WithRank sets its out-param to nullptr on failure): not modelled
    (("Status s = c->WithRank(c->input(0), 2, &x); if (!s.ok()) { c->set_output(0, c->UnknownShape()); }"
     " return OkStatus();"), _NOT_RETURNED, 8),
    ("Status s; return OkStatus();", _NOT_RETURNED, 8),
    ("Status s = c->WithRank(c->input(0), 2, &x), t = s; return t;", _NOT_RETURNED, 8),
    (("Status s = c->WithRank(c->input(0), 2, &x); TF_RETURN_IF_ERROR(s); if (true) { s = OkStatus(); }"
     " return OkStatus();"), "a Status kept in a variable and read again after the statement returning its error",
     80),
])
def test_a_status_variable_used_otherwise_is_refused(cpp, construct, column):
    t = _translate("ShapeHandle x; " + cpp)
    assert (t.problem, t.location.col) == (f"shape function not translated: {construct}", column + 15)


def test_a_value_initialized_number_is_zero():
    """`int64_t n{};` is 0 (C++ value-initialization); it was left unset, as `int64_t n;` is."""
    cpp = ("int64_t n{}; bool b{}; float f{}; if (b || f > 0) return OkStatus(); c->set_output(0, c->Vector(n));"
           " return OkStatus();")
    assert _python(cpp) == textwrap.indent(
        "v_n = 0\nv_b = False\nv_f = 0.0\nif v_b or v_f > 0:\n    return\nc.set_output(0, c.vector(c.make_dim(v_n)))",
        "    ")
