"""Every registration form is read or reported: ops registered through TF Lite's shim
(`REGISTER_TF_OP_SHIM`, as tensorflow-text registers 15 of its ops) are read as TF builds them,
and any other registration-like macro opgen cannot read is a located warning.

The oracle: tests/gather_projects/shim_text (laid out like tensorflow-text) compiled against
the wheel's own `tensorflow/lite/kernels/shim/tf_op_shim.h` and loaded into TF.
"""

from __future__ import annotations

import re

import pytest
from oracle.tf_library import library_op_list
from support.paths import TESTS

from opgen.cli import main
from opgen.spec.gather import GatherErrors, gather

PROJECTS = TESTS / "gather_projects"
SHIM_TEXT = PROJECTS / "shim_text"
SHIM_OPS = ["ShimText>ByteSplitWithOffsets", "ShimText>RoundRobinTrim", "ShimTextNgrams"]


@pytest.mark.oracle
def test_shim_ops_equal_the_compiled_library():
    sources = sorted((SHIM_TEXT / "shim_text" / "core" / "ops").glob("*.cc"))
    compiled = library_op_list([*sources, PROJECTS / "_build_deps" / "tflite_shim_runtime.cc"],
                               include_dirs=[SHIM_TEXT], own_names=SHIM_OPS)
    gathered = gather([str(SHIM_TEXT)]).op_list
    assert sorted(op.name for op in compiled.op) == sorted([*SHIM_OPS, "ShimTextCaseFold"])
    by_name = {op.name: op for op in compiled.op}
    assert [op.name for op in gathered.op] == sorted(by_name, key=str.encode)
    for op in gathered.op:
        assert op == by_name[op.name], op.name
    # kDoc is the op's Doc(), indented as tensorflow-text writes it (so its arg lines are not TF's `name: ...`)
    split = by_name["ShimText>ByteSplitWithOffsets"]
    assert split.summary == "  Splits a string into bytes." and "input_values: the strings" in split.description


def test_shim_ops_are_located_at_their_macro_and_spec_strings():
    result = gather([str(SHIM_TEXT)])
    ops_dir = SHIM_TEXT / "shim_text" / "core" / "ops"
    trim = result.sources["ShimText>RoundRobinTrim"]
    assert str(trim.location) == f"{ops_dir / 'trimmer_ops.cc'}:9:1"
    template = SHIM_TEXT / "shim_text" / "core" / "kernels" / "trimmer_kernel_template.h"
    parts = dict(trim.parts)
    assert str(parts["attr N"]) == f"{template}:50:11" and str(parts["input input_values"]).startswith(
        f"{template}:55:"
    )
    assert trim.shape_fn == "RoundRobinTrimInstance::ShapeInference"


def test_a_bad_spec_string_is_an_error_where_it_is_written(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.cc").write_text(_shim_op("Bad", inputs='"x: T"'))
    with pytest.raises(GatherErrors) as e:
        gather([str(tmp_path / "a.cc")])
    [error] = e.value.errors
    assert str(error.location) == f"{tmp_path / 'a.cc'}:8:54"  # the string in Inputs()
    assert error.message == "Reference to unknown attr 'T' from Input(\"x: T\") for Op Bad"  # TF's message


def test_selective_registration_applies_to_shim_ops(tmp_path):
    allow = tmp_path / "allow.txt"
    allow.write_text("ShimTextNgrams\n")
    assert [op.name for op in gather([str(SHIM_TEXT)], allow_file=str(allow)).op_list.op] == ["ShimTextNgrams"]


def _shim_op(name: str, inputs: str = '"x: float"', outputs: str = '{"y: float"}', attrs: str = "{}") -> str:
    return f"""#include "tensorflow/lite/kernels/shim/tf_op_shim.h"
template <tflite::shim::Runtime Rt>
class {name}Op : public tflite::shim::OpKernelShim<{name}Op, Rt> {{
 public:
  static constexpr char kOpName[] = "{name}";
  static constexpr char kDoc[] = "";
  static const char* OpName() {{ return kOpName; }}
  static std::vector<std::string> Inputs() {{ return {{{inputs}}}; }}
  static std::vector<std::string> Outputs() {{ return {outputs}; }}
  static std::vector<std::string> Attrs() {{ return {attrs}; }}
}};
using {name}Kernel = tflite::shim::TfOpKernel<{name}Op>;
REGISTER_TF_OP_SHIM({name}Kernel);
"""


def _gathered(tmp_path, text: str) -> tuple[str, list[str]]:
    """The warnings (as printed) and op names of gathering `text` as `a.cc`."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.cc").write_text(text)
    warnings: list[str] = []
    result = gather(["a.cc"], warn=warnings.append)
    return "\n".join(warnings), [op.name for op in result.op_list.op]


PLAIN = 'REGISTER_OP("Plain").Output("y: float");\n'


@pytest.mark.parametrize("name, shim, reason", [
    ("computed list", _shim_op("Computed").replace('{ return {"y: float"}; }',
                                                   '{ std::vector<std::string> v{"y: float"}; return v; }'),
     "ComputedOp::Outputs() is not `{ return ...; }`"),
    ("outputs defined elsewhere", _shim_op("Elsewhere").replace(' { return {"y: float"}; }', ";"),
     "no definition of ElsewhereOp::Outputs() was found"),
    ("a name nothing defines", _shim_op("Unknown", attrs="{kMissing}"),
     "in UnknownOp::Attrs(): cannot resolve 'kMissing' in Attr()"),
    ("a kernel class that is not a shim kernel",
     ("class NotAShim : public tensorflow::OpKernel {};\nREGISTER_TF_OP_SHIM(NotAShim);\n"),
     "'NotAShim' is not a tflite::shim::TfOpKernel"),
    ("a template-dependent spec", _shim_op("Dependent", attrs="{absl::StrCat(\"T: \", TypeName<float>())}"),
     "'TypeName < float > ( )' in DependentOp::Attrs() is not a string opgen can evaluate"),
])
def test_an_unreadable_shim_op_is_a_located_warning_and_skipped(tmp_path, monkeypatch, name, shim, reason):
    monkeypatch.chdir(tmp_path)
    err, names = _gathered(tmp_path, shim + PLAIN)
    line = shim.count("\n")
    assert names == ["Plain"], err
    first = err.splitlines()[0]
    assert first.startswith(f"a.cc:{line}:1: warning: cannot read the op REGISTER_TF_OP_SHIM registers here: "), err
    assert reason in first and first.endswith("; the op is skipped"), err
    if "Op::" in reason:  # a problem inside the class is also located where it stands
        assert re.search(r" \(a\.cc:\d+:\d+\); the op is skipped\Z", first), first


def test_a_shim_kernel_from_a_missing_header_names_the_header(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err, names = _gathered(tmp_path, '#include "my_text/kernels/split_kernel.h"\nREGISTER_TF_OP_SHIM(SplitKernel);\n'
                           + PLAIN)
    assert names == ["Plain"]
    assert "a.cc:2:1: warning: cannot read the op REGISTER_TF_OP_SHIM registers here: 'SplitKernel' is not a" in err
    assert ('hint: likely cause: "my_text/kernels/split_kernel.h" (a.cc:1:10) was not found and may define '
            "'SplitKernel'") in err


UNREAD = """REGISTER_MY_OP("Hidden");
namespace ns {
REGISTER_CUSTOM_OPS(a, b);
REGISTER_MY_OP("Twice");
}  // namespace ns
REGISTER_RESOURCE_HANDLE_OP(MyResource);
static bool registered = TFLITE_REGISTER_OP_V2("Static");
void Local() { REGISTER_LOCAL_OP(x); }
struct S { void f() { REGISTER_MEMBER_OP(x); } };
REGISTER_OP_GRADIENT("Plain", PlainGrad);
REGISTER_OP_NO_GRADIENT("Plain");
REGISTER_XLA_OP(Name("Plain"), PlainXlaOp);
REGISTER_OPERATOR(x);
"""


def test_registration_like_macros_opgen_cannot_read_are_located_warnings(tmp_path, monkeypatch, capsys):
    """Also on the command line: exit 0, the op list without them, the warnings on stderr."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.cc").write_text(UNREAD + PLAIN)
    monkeypatch.chdir(tmp_path)
    assert main(["oplist", "a.cc", "-o", "ops.pbtxt"]) == 0
    err = capsys.readouterr().err
    assert 'name: "Plain"' in (tmp_path / "ops.pbtxt").read_text()
    warnings = [line for line in err.splitlines() if not line.startswith(" ")]
    assert warnings == [
        f"a.cc:{line}:{col}: warning: '{macro}(...)' looks like a registration through the macro '{macro}', which is "
        "not defined: opgen cannot read what it registers"
        for line, col, macro in [(1, 1, "REGISTER_MY_OP"), (3, 1, "REGISTER_CUSTOM_OPS"),
                                 (6, 1, "REGISTER_RESOURCE_HANDLE_OP"), (7, 26, "TFLITE_REGISTER_OP_V2")]]
    assert "hint: define 'REGISTER_MY_OP', or include the header that defines it" in err


def test_a_defined_registration_macro_is_read_not_reported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _gathered(tmp_path, '#define REGISTER_MY_OP(name) REGISTER_OP(name).Output("y: float")\n'
                     'REGISTER_MY_OP("Mine");\n') == ("", ["Mine"])


def test_a_chain_through_an_undefined_macro_stays_one_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(GatherErrors) as e:
        _gathered(tmp_path, 'REGISTER_MY_OP("Q").Output("y: float");\n' + PLAIN)
    assert e.value.warnings == []
    [error] = e.value.errors
    assert error.format().startswith("a.cc:1:1: error: 'REGISTER_MY_OP(...).Output(...)' looks like an op registration")


def test_kernels_name_their_shim_op_through_the_kernel_class():
    """`REGISTER_KERNEL_BUILDER(Name(Kernel::OpName())...)`, as tensorflow-text registers its kernels."""
    warnings: list[str] = []
    result = gather([str(SHIM_TEXT)], strict_kernels=True, warn=warnings.append)
    # the shim's ShapeInference(ShapeInferenceContext*) is not translated (docs/shape-functions.md)
    assert [w for w in warnings if "shape function not translated" not in w] == []
    assert result.kernels is not None
    assert [(k.kernel_def.op, k.kernel_def.device_type, [c.name for c in k.kernel_def.constraint])
            for k in result.kernels] == [("ShimText>ByteSplitWithOffsets", "CPU", []),
                                         ("ShimText>RoundRobinTrim", "CPU", ["T", "Tsplits"])]


def test_a_kernel_naming_an_unreadable_shim_class_is_a_located_kernel_warning(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err, names = _gathered(tmp_path, PLAIN + "REGISTER_KERNEL_BUILDER(Name(MissingKernel::OpName())"
                           ".Device(DEVICE_CPU), MissingKernel);\n")
    assert names == ["Plain"]
    assert err.startswith("a.cc:2:30: warning: cannot read the op 'MissingKernel :: OpName ( )' names: 'MissingKernel' "
                          "is not a tflite::shim::TfOpKernel"), err
    assert err.endswith("(kernel registration skipped)")


def test_hostile_shim_registrations_are_warnings_in_linear_time(tmp_path, monkeypatch):
    """Cycles, a base-class tree of 3^16 paths, and malformed arguments: each a warning; every
    class is looked at once (the tree would never end otherwise)."""
    tree = "".join(f"class C{i} : public C{i + 1}, public C{i + 1}, C{i + 1} {{}};\n" for i in range(16))
    text = (tree + "class C16 {};\nusing Self = Self;\nclass A : public B {};\nclass B : public A {};\n"
            "REGISTER_TF_OP_SHIM(C0);\nREGISTER_TF_OP_SHIM(Self);\nREGISTER_TF_OP_SHIM(A);\n"
            "REGISTER_TF_OP_SHIM();\nREGISTER_TF_OP_SHIM(1);\nREGISTER_TF_OP_SHIM(TfOpKernel<>);\n" + PLAIN)
    monkeypatch.chdir(tmp_path)
    err, names = _gathered(tmp_path, text)
    assert names == ["Plain"]
    reasons = [line.split("registers here: ", 1)[1] for line in err.splitlines() if "warning:" in line]
    not_a_kernel = "is not a tflite::shim::TfOpKernel (no alias of one, nor a class deriving from one, is defined)"
    assert reasons == [
        f"'C0' {not_a_kernel}; the op is skipped",
        "'Self' leads back to itself (a.cc:18:14); the op is skipped",  # where the alias names itself
        f"'A' {not_a_kernel}; the op is skipped",
        "REGISTER_TF_OP_SHIM takes one kernel class, got 0 arguments; the op is skipped",
        "'1' is not a class name; the op is skipped",
        "TfOpKernel's first template argument is not a class name; the op is skipped",
    ]
