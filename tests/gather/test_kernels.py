"""Kernel registrations: REGISTER_KERNEL_BUILDER chains evaluated as KernelDefBuilder,
located errors (or warnings with the registration skipped, for readers), the device x
types summary, the cross-check against the declared ops and `opgen kernels`."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format

from opgen.cli import main
from opgen.proto import kernel_def_pb2
from opgen.spec.gather import GatherErrors, gather
from opgen.spec.kernel_summary import cross_check, device_types, runs_on
from opgen.spec.kernels import kernel_list
from opgen_runtime.proto import types_pb2

OPS = """
#include "tensorflow/core/framework/op.h"
REGISTER_OP("Sum").Input("x: T").Input("axis: Tidx").Output("y: T")
    .Attr("T: {float, double, int32}").Attr("Tidx: {int32} = DT_INT32").Attr("keep: bool = false");
REGISTER_OP("Fill").Input("v: T").Output("y: T").Attr("T: type").Attr("n: int");
"""

KERNELS = """
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
namespace tensorflow {
#define REGISTER(D, type)                                                                        \\
  REGISTER_KERNEL_BUILDER(Name("Sum").Device(D).TypeConstraint<type>("T")                       \\
                              .TypeConstraint<int32>("Tidx").HostMemory("axis"), SumOp<type>);
#define REGISTER_CPU(type) REGISTER(DEVICE_CPU, type)
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU) TF_CALL_int32(REGISTER_CPU)
#if GOOGLE_CUDA
#define REGISTER_GPU(type) REGISTER(DEVICE_GPU, type)
TF_CALL_float(REGISTER_GPU)
#endif
REGISTER_KERNEL_BUILDER(::tensorflow::register_kernel::Name("Fill").Device("CPU"), FillOp);
REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_GPU).TypeConstraint<std::complex<float>>("T")
                            .AttrConstraint<int64_t>("n", {1, 2}).Label("fast").Priority(-3), FillOp);
}
"""


# ops.cc declares TF's own Fill and Sum: their wrappers are wanted (docs/gathering.md, core ops)
CONFIG = '[tool.opgen]\ncore_ops = ["*"]\n'


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    (tmp_path / "ops.cc").write_text(OPS)
    (tmp_path / "kernels.cc").write_text(KERNELS)
    return tmp_path


def _registrations(sources, **kw):
    return gather([str(s) for s in sources], strict_kernels=True, **kw).kernels


def _kernels(project, **kw):
    return kernel_list(_registrations([project], **kw)).kernel


def test_kernels_as_kernel_def_builder_builds_them(project):
    kernels = _kernels(project, defines=["GOOGLE_CUDA=1"])
    assert [(k.op, k.device_type) for k in kernels] == [("Fill", "CPU"), ("Fill", "GPU"), ("Sum", "CPU"),
                                                        ("Sum", "CPU"), ("Sum", "CPU"), ("Sum", "GPU")]
    expected = text_format.Parse("""
        op: "Fill" device_type: "GPU" label: "fast" priority: -3
        constraint { name: "T" allowed_values { list { type: DT_COMPLEX64 } } }
        constraint { name: "n" allowed_values { list { i: [1, 2] } } }""", kernel_def_pb2.KernelDef())
    assert kernels[1] == expected
    assert kernels[2].host_memory_arg == ["axis"]
    assert [c.allowed_values.list.type[0] for c in kernels[5].constraint] == [types_pb2.DT_FLOAT, types_pb2.DT_INT32]
    assert not [k for k in _kernels(project) if k.device_type == "GPU" and k.op == "Sum"]


def test_mobile_platform_defines_shrink_tf_call_lists(project):
    kernels = _kernels(project, defines=["IS_MOBILE_PLATFORM"])
    assert [k.constraint[0].allowed_values.list.type[0] for k in kernels if k.op == "Sum"] == [
        types_pb2.DT_FLOAT, types_pb2.DT_INT32]  # TF_CALL_double is empty on mobile


def test_device_types_and_runs_on(project):
    op_list = gather([str(project)]).op_list
    sum_op = next(op for op in op_list.op if op.name == "Sum")
    fill_op = next(op for op in op_list.op if op.name == "Fill")
    kernels = _kernels(project, defines=["GOOGLE_CUDA=1"])
    sums = device_types([k for k in kernels if k.op == "Sum"], sum_op)
    assert sums == {"CPU": {"T": ("float32", "float64", "int32"), "Tidx": ("int32",)},
                    "GPU": {"T": ("float32",), "Tidx": ("int32",)}}
    assert runs_on(sums) == "CPU (T: float32, float64, int32; Tidx: int32), GPU (T: float32; Tidx: int32)"
    fills = device_types([k for k in kernels if k.op == "Fill"], fill_op)
    assert fills == {"CPU": {}}  # the GPU kernel is labelled: only nodes asking for it get it
    assert runs_on(fills) == "CPU"
    assert runs_on({"CPU": {"T": ("float32", "int32")}, "GPU": {"T": None}}) == "CPU (float32, int32), GPU (any)"


BAD = {
    "TypeConstraint<MyType>(\"T\")": "cannot tell which DataType the C++ type 'MyType' is",
    "TypeConstraint(\"T\", kTypes)": "cannot evaluate the type list 'kTypes' in TypeConstraint()",
    "Label(\"a\").Label(\"b\")": "Label() set a second time on the Sum kernel",
    "Frobnicate(1)": "unknown kernel builder method 'Frobnicate'",
    "HostMemry(\"x\")": "unknown kernel builder method 'HostMemry' (KernelDefBuilder has Device, TypeConstraint, "
                        "AttrConstraint, HostMemory, Label and Priority)\n  hint: did you mean 'HostMemory'?",
    "Priority(kPriority)": "cannot evaluate 'kPriority' in Priority()",
    "HostMemory(ArgName())": "cannot resolve 'ArgName()' in HostMemory()",
    "Priority(4294967296)": "4294967296 in Priority() does not fit in int32_t",
    "AttrConstraint(\"n\", 1.5)": "cannot evaluate '1.5' in AttrConstraint(): expected int, string or bool literals",
    "Label(u\"x\")": "u-prefixed string literal is not a narrow std::string",
}


@pytest.mark.parametrize("call", list(BAD))
def test_unevaluable_calls_are_located_errors_or_skipped_with_a_warning(tmp_path, call):
    source = tmp_path / "k.cc"
    source.write_text('REGISTER_KERNEL_BUILDER(Name("Ok").Device(DEVICE_CPU), OkOp);\n'
                      f'REGISTER_KERNEL_BUILDER(Name("Sum").Device(DEVICE_CPU).{call}, SumOp);\n')
    with pytest.raises(GatherErrors) as info:
        _registrations([source])
    text = info.value.format()
    assert f"{source}:2:" in text and BAD[call] in text and text.endswith("1 error in 1 file")
    lenient = gather([str(source)])
    assert [k.kernel_def.op for k in lenient.kernels] == ["Ok"]
    assert len(lenient.warnings) == 1 and lenient.warnings[0].startswith(f"{source}:2:")
    assert BAD[call] in lenient.warnings[0] and ": warning: " in lenient.warnings[0]
    assert lenient.warnings[0].endswith("\n  (kernel registration skipped)")


def test_kernel_without_device_or_builder_is_an_error(tmp_path):
    source = tmp_path / "k.cc"
    source.write_text('REGISTER_KERNEL_BUILDER(Name("A"), AOp);\nREGISTER_KERNEL_BUILDER(KernelDefBuilder("B").'
                      'Device(DEVICE_CPU), BOp);\nREGISTER_KERNEL_BUILDER(Name("C").Device(DEVICE_CPU));\n')
    with pytest.raises(GatherErrors) as info:
        _registrations([source])
    lines = info.value.format().splitlines()
    assert lines[0].startswith(f"{source}:1:1: error: the A kernel has no Device(...)")
    assert lines[1].startswith(f"{source}:2:25: error: REGISTER_KERNEL_BUILDER's first argument must be a Name(")
    assert lines[2].startswith(f"{source}:3:1: error: REGISTER_KERNEL_BUILDER expects a kernel builder and a kernel")


def test_cross_check_reports_kernels_tensorflow_would_reject(tmp_path, project):
    (project / "more.cc").write_text(
        'REGISTER_KERNEL_BUILDER(Name("Nope").Device(DEVICE_CPU), NopeOp);\n'
        'REGISTER_KERNEL_BUILDER(Name("Sum").Device(DEVICE_CPU).TypeConstraint<float>("U"), SumOp);\n'
        'REGISTER_KERNEL_BUILDER(Name("Sum").Device(DEVICE_CPU).TypeConstraint<bool>("T"), SumOp);\n'
        'REGISTER_KERNEL_BUILDER(Name("Sum").Device(DEVICE_CPU).TypeConstraint<float>("keep"), SumOp);\n'
        'REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_CPU).HostMemory("w").Label("w"), FillOp);\n'
        'REGISTER_KERNEL_BUILDER(Name("Fil").Device(DEVICE_CPU), FillOp);\n'
        # a second unlabelled float kernel of Sum: TF finds both for a float node
        'REGISTER_KERNEL_BUILDER(Name("Sum").Device(DEVICE_CPU).TypeConstraint<float>("T"), SumOp);\n'
        # the same unknown attr again (a TF_CALL_* list repeats one): one finding, counting it
        'REGISTER_KERNEL_BUILDER(Name("Sum").Device(DEVICE_CPU).TypeConstraint<double>("U"), SumOp);\n'
        # a misspelt attr: the hint names the op's attr it may mean
        'REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_CPU).TypeConstraint<float>("TT"), FillOp);\n')
    findings = [f.format() for f in cross_check(_registrations([project]), gather([str(project)]).op_list)]
    more = project / "more.cc"
    sum_float = f"{project / 'kernels.cc'}:9:15"  # TF_CALL_float's kernel
    assert findings == [
        (f"{more}:1:1: error: the CPU kernel of 'Nope': no REGISTER_OP in the sources declares 'Nope' (TensorFlow "
        "cannot use a kernel of an op it does not know)\n  hint: pass the sources (or an OpList file) that declare "
        "the op"),
        (f"{more}:2:78: error: the CPU kernel of 'Sum' constrains attr 'U', which 'Sum' does not have (its attrs: T, "
        "Tidx, keep) (and 1 more registrations): TensorFlow then fails every CPU kernel lookup of 'Sum', so each "
        "call of the op fails (kernel_def_util.cc KernelAttrsMatch: \"OpKernel 'Sum' has constraint on attr 'U' "
        "not in NodeDef\")\n  hint: constrain one of the op's attrs"),
        (f"{more}:3:77: error: the CPU kernel of 'Sum' registers bool for attr 'T', which 'Sum' does not allow "
        "(allowed: float32, float64, int32); no node can use it"),
        f"{more}:4:78: error: the CPU kernel of 'Sum' constrains attr 'keep' to types, but it is a 'bool' attr",
        (f"{more}:5:68: error: the CPU kernel of 'Fill' puts 'w' in host memory, but 'Fill' has no input or output "
        "named 'w' (TensorFlow fails when it creates the kernel)"),
        (f"{more}:6:1: error: the CPU kernel of 'Fil': no REGISTER_OP in the sources declares 'Fil' (TensorFlow "
        "cannot use a kernel of an op it does not know)\n  hint: did you mean 'Fill'? Otherwise pass the sources (or "
        "an OpList file) that declare the op"),
        (f"{more}:7:1: error: the CPU kernel of 'Sum' matches the same nodes as the one at {sum_float} (T: float32): "
         "TensorFlow fails every such call with 'Multiple OpKernel registrations match NodeDef at the same priority'"
         "\n  hint: register each type once (a TF_CALL_* list may already hold it), or give one a Priority() or "
         "Label()"),
        (f"{more}:9:79: error: the CPU kernel of 'Fill' constrains attr 'TT', which 'Fill' does not have (its attrs: "
         "T, n): TensorFlow then fails every CPU kernel lookup of 'Fill', so each call of the op fails "
         "(kernel_def_util.cc KernelAttrsMatch: \"OpKernel 'Fill' has constraint on attr 'TT' not in NodeDef\")\n"
         "  hint: did you mean 'T'?"),
    ]
    more.unlink()
    assert cross_check(_registrations([project], defines=["GOOGLE_CUDA=1"]), gather([str(project)]).op_list) == []


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_opgen_kernels_formats(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    code, out, err = _run(["kernels", ".", "-D", "GOOGLE_CUDA=1"], capsys)
    assert code == 0 and err == ""
    assert len(text_format.Parse(out, kernel_def_pb2.KernelList()).kernel) == 6
    code, out, _ = _run(["kernels", ".", "--format", "md"], capsys)
    assert code == 0
    assert ("## Sum\n\n| Device | T | Tidx | Host memory |\n|---|---|---|---|\n"
            "| CPU | float32, float64, int32 | int32 | axis |\n") in out
    assert "| GPU (label \"fast\") (priority -3) | complex64 |" in out
    code, out, _ = _run(["kernels", ".", "--format", "json"], capsys)
    assert code == 0 and '"device_type": "CPU"' in out
    assert _run(["kernels", ".", "--format", "pb", "-o", "k.pb"], capsys)[0] == 0
    assert len(kernel_def_pb2.KernelList.FromString((project / "k.pb").read_bytes()).kernel) == 5


def test_opgen_kernels_cross_check_and_errors(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    Path("odd.cc").write_text('REGISTER_KERNEL_BUILDER(Name("Nope").Device(DEVICE_CPU), NopeOp);\n')
    code, out, err = _run(["kernels", "."], capsys)
    assert code == 0 and out.count("kernel {") == 6
    assert err.splitlines() == [
        ("odd.cc:1:1: warning: the CPU kernel of 'Nope': no REGISTER_OP in the sources declares 'Nope' (TensorFlow "
        "cannot use a kernel of an op it does not know)"), ("  hint: pass the sources (or an OpList file) that "
        "declare the op"), "1 warning from the kernel cross-check"]
    code, out, _ = _run(["kernels", ".", "--check"], capsys)
    assert code == 1 and out == ""  # a check prints its findings only (on stderr)
    Path("odd.cc").write_text('REGISTER_KERNEL_BUILDER(Name("Nope").Device(DEVICE_CPU).TypeConstraint<X>("T"), N);\n')
    code, out, err = _run(["kernels", ".", "-o", "out.pbtxt"], capsys)
    assert code == 2 and out == "" and not Path("out.pbtxt").exists()
    assert err.startswith("odd.cc:1:72: error: cannot tell which DataType the C++ type 'X' is")


def test_kernels_check_reports_an_op_of_a_file_with_kernels_that_has_none(project, capsys, monkeypatch):
    """An op with no kernel, in a file (or layout: ops.cc + kernels.cc) where other ops have
    kernels, is a forgotten kernel: reported at its REGISTER_OP by `opgen kernels` (exit 1 with
    --check) and `opgen build`. Files whose ops have no kernel at all (TF's own ops, an
    op-only library) and ops read from an OpList file are not."""
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / "cache"))
    Path("ops.cc").write_text(OPS + 'REGISTER_OP("Forgotten").Output("y: float");\n')
    Path("only_ops.cc").write_text('REGISTER_OP("ElsewhereOp").Output("y: float");\n')
    Path("listed.pbtxt").write_text('op { name: "Listed" }\n')  # (no output: no shape warning)
    Path("more_kernels.cc").write_text('REGISTER_KERNEL_BUILDER(Name("Listed").Device(DEVICE_CPU), ListedOp);\n')
    expected = ("ops.cc:6:1: warning: op 'Forgotten' has no kernel in the sources, though other ops of its file "
                "have; TensorFlow fails running it ('No OpKernel was registered to support Op 'Forgotten'')")
    code, _, err = _run(["kernels", ".", "listed.pbtxt", "--check"], capsys)
    assert code == 1
    assert [line for line in err.splitlines() if ": warning: " in line] == [expected]
    code, out, _ = _run(["kernels", ".", "listed.pbtxt", "--format", "md"], capsys)
    assert "## Forgotten\n\nNo kernel is registered for this op in the sources.\n" in out
    assert "## ElsewhereOp\n\nNo kernel" in out and "## Listed\n\n| Device |" in out
    assert 'hint: register one: REGISTER_KERNEL_BUILDER(Name("Forgotten").Device(DEVICE_CPU)' in err
    Path("pyproject.toml").write_text(CONFIG + 'sources = [".", "listed.pbtxt"]\nout = "gen"\n')
    code, _, err = _run(["build"], capsys)
    assert code == 0
    assert [line for line in err.splitlines() if ": warning: " in line] == [expected]  # the same path
    assert ('or, when another library registers it, [tool.opgen] kernels_elsewhere = ["Forgotten"]'
            in err)
    # trial25 #5: an op whose kernel another library registers is said so once, in the project
    Path("pyproject.toml").write_text(CONFIG + 'sources = [".", "listed.pbtxt"]\nout = "gen"\n'
                                      'kernels_elsewhere = ["Forg*"]\n')
    assert _run(["kernels", ".", "listed.pbtxt", "--check"], capsys)[0] == 0
    code, _, err = _run(["build"], capsys)
    assert code == 0 and ": warning: " not in err
    Path("pyproject.toml").write_text(CONFIG + 'sources = [".", "listed.pbtxt"]\nout = "gen"\n')
    Path("kernels.cc").write_text(KERNELS + 'REGISTER_KERNEL_BUILDER(Name("Forgotten").Device(DEVICE_CPU), F);\n')
    assert _run(["kernels", ".", "listed.pbtxt", "--check"], capsys)[0] == 0


def test_kernels_check_reports_types_an_op_allows_that_no_kernel_accepts(project, capsys, monkeypatch):
    """trial30 #2: `T: {float, int32}` with a float kernel only: an int32 call fails at run time
    (TF's `No OpKernel was registered ... with these attrs`), so the cross-check says so at the
    attr, naming the types left out and the kernels there are. A kernel that leaves the attr
    unconstrained takes every type; labelled kernels serve no plain node; `kernels_elsewhere`
    (a GPU build or another library registers the rest) silences it."""
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / "cache"))
    for name in ("ops.cc", "kernels.cc"):
        Path(name).unlink()
    Path("ops.cc").write_text(
        'REGISTER_OP("Ident").Input("x: T").Output("y: T").Attr("T: {float, int32, int64}");\n'
        'REGISTER_OP("Any").Input("x: T").Output("y: T").Attr("T: {float, int32}");\n'
        'REGISTER_KERNEL_BUILDER(Name("Ident").Device(DEVICE_CPU).TypeConstraint<float>("T"), I);\n'
        'REGISTER_KERNEL_BUILDER(Name("Ident").Device(DEVICE_GPU).TypeConstraint<int32>("T").Label("x"), I);\n'
        'REGISTER_KERNEL_BUILDER(Name("Any").Device(DEVICE_CPU), A);\n')
    code, _, err = _run(["kernels", ".", "--check"], capsys)
    assert code == 1
    assert [line for line in err.splitlines() if line.startswith(("ops.cc", "  hint"))] == [
        ("ops.cc:1:51: warning: op 'Ident' allows int32, int64 for attr 'T', but none of its kernels accepts them "
         "(kernels: CPU (float32)): TensorFlow fails such a call ('No OpKernel was registered to support Op 'Ident' "
         "... with these attrs')"),
        ("  hint: register kernels for them, or leave them out of the attr's allowed types; GPU kernels behind "
         "`#if GOOGLE_CUDA` count with -D GOOGLE_CUDA=1; when another library registers them, [tool.opgen] "
         'kernels_elsewhere = ["Ident"]'),
    ]
    # `opgen build` counts them in one note (trial32 #4: a library of CPU-float kernels got a
    # warning per op), which --warnings-as-errors lets pass
    Path("pyproject.toml").write_text(CONFIG + 'sources = ["."]\nout = "gen"\n')
    code, _, err = _run(["build", "--warnings-as-errors"], capsys)
    assert code == 0 and ": warning: " not in err
    assert ("note: 1 op allows types that none of its kernels accept (Ident): a call with such a type fails; "
            "`opgen kernels` lists each, at its attr") in err
    Path("pyproject.toml").write_text(CONFIG + 'sources = ["."]\nout = "gen"\nkernels_elsewhere = ["Ident"]\n')
    assert _run(["kernels", ".", "--check"], capsys)[0] == 0
    assert "note: " not in _run(["build"], capsys)[2]


def test_kernels_markdown_says_when_no_kernel_can_run_an_op():
    """An op whose every kernel constrains a type it does not allow (or an attr it lacks) gets a
    sentence, not a table without rows."""
    from opgen.spec.kernel_summary import kernels_markdown
    from opgen_runtime.proto import op_def_pb2

    ops = text_format.Parse('op { name: "Narrow" attr { name: "T" type: "type" allowed_values { list { type: '
                            'DT_FLOAT } } } }', op_def_pb2.OpList())
    kernels = text_format.Parse('kernel { op: "Narrow" device_type: "CPU" constraint { name: "T" allowed_values '
                                '{ list { type: DT_DOUBLE } } } }', kernel_def_pb2.KernelList())
    assert kernels_markdown(kernels, ops) == ("# Kernels\n\n## Narrow\n\nNo kernel registered in the sources can "
                                              "run this op (the warnings of `opgen kernels` say why).\n")


def test_snapshot_lists_kernels_and_diff_needs_both_sides(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    (project / "pyproject.toml").write_text(
        CONFIG + 'sources = ["ops.cc", "kernels.cc"]\ndefines = ["GOOGLE_CUDA=1"]\n'
    )
    code, out, _ = _run(["api"], capsys)
    assert code == 0
    assert "- kernels: CPU (T: float32, float64, int32; Tidx: int32), GPU (T: float32; Tidx: int32)\n" in out
    assert "- kernels: CPU\n" in out  # Fill: one unconstrained CPU kernel (the GPU one is labelled)
    code, out, _ = _run(["api", "--format", "json", "-o", "old.json"], capsys)
    assert code == 0
    from opgen.apidiff.snapshot_format import from_json, to_json

    text = (project / "old.json").read_text()
    snapshot = from_json(text, "old.json")
    assert snapshot.ops["Sum"].kernels == {"CPU": {"T": ("float32", "float64", "int32"), "Tidx": ("int32",)},
                                           "GPU": {"T": ("float32",), "Tidx": ("int32",)}}
    assert to_json(snapshot) == text
    (project / "pyproject.toml").write_text(CONFIG + 'sources = ["ops.cc", "kernels.cc"]\n')
    code, out, _ = _run(["diff", "old.json"], capsys)
    assert code == 1 and "BREAKING kernel device_removed: no GPU kernel any more" in out
    # an OpList file knows no kernels: nothing to compare, nothing reported
    assert _run(["oplist", "ops.cc", "-o", "ops.pbtxt"], capsys)[0] == 0
    code, out, _ = _run(["diff", "ops.pbtxt", "old.json"], capsys)
    assert " kernel " not in out


def test_docstring_kernels_option(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / "cache"))
    (project / "scale.cc").write_text(
        'REGISTER_OP("Scale").Input("x: T").Output("y: T").Attr("T: {float, double, int32}").Doc("Scales x.");\n'
        '#define R(t) REGISTER_KERNEL_BUILDER(Name("Scale").Device(DEVICE_CPU).TypeConstraint<t>("T"), S<t>);\n'
        'TF_CALL_float(R) TF_CALL_double(R) TF_CALL_int32(R)\n'
        'REGISTER_KERNEL_BUILDER(Name("Scale").Device(DEVICE_GPU).TypeConstraint<float>("T"), S<float>);\n')
    config = '[tool.opgen]\nsources = ["scale.cc"]\nout = "gen"\n'
    (project / "pyproject.toml").write_text(config)
    assert _run(["build"], capsys)[0] == 0
    plain = (project / "gen" / "gen_scale.py").read_text()
    assert "Runs on" not in plain
    (project / "pyproject.toml").write_text(config + "docstring_kernels = true\n")
    assert _run(["build"], capsys)[0] == 0
    text = (project / "gen" / "gen_scale.py").read_text()
    assert "Scales x.\n\n    Runs on: CPU (float32, float64, int32), GPU (float32).\n\n    Args:" in text
    (project / "scale.cc").write_text((project / "scale.cc").read_text().replace("DEVICE_GPU", "DEVICE_TPU"))
    assert _run(["build"], capsys)[0] == 0  # the cached chunk is not reused: the kernels changed
    assert "Runs on: CPU (float32, float64, int32), TPU (float32)." in (project / "gen" / "gen_scale.py").read_text()
    # An op declared without .Doc() keeps TF's TODO summary, and its paragraph
    (project / "scale.cc").write_text((project / "scale.cc").read_text().replace('.Doc("Scales x.")', ""))
    assert _run(["build"], capsys)[0] == 0
    text = (project / "gen" / "gen_scale.py").read_text()
    assert '"""TODO: add doc.\n\n    Runs on: CPU (float32, float64, int32), TPU (float32).\n\n    Args:' in text
    (project / "pyproject.toml").write_text(config + "docstring_kernels = 1\n")
    code, _, err = _run(["build"], capsys)
    assert code == 2 and "[tool.opgen] docstring_kernels must be true or false" in err


def test_docstring_kernels_warns_when_the_sources_register_no_kernel(project, capsys, monkeypatch):
    """Kernels are read from the files ops are read from: kernels in a file outside `sources`
    would add nothing, silently; the build says where it looked and how to add them."""
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / "cache"))
    (project / "ops").mkdir()
    (project / "ops" / "scale.cc").write_text('REGISTER_OP("Scale").Input("x: float").Output("y: float");\n')
    (project / "kernels").mkdir()
    (project / "kernels" / "k.cc").write_text('REGISTER_KERNEL_BUILDER(Name("Scale").Device(DEVICE_CPU), S);\n')
    config = '[tool.opgen]\nout = "gen"\ndocstring_kernels = true\nsources = ["ops"]\n'
    (project / "pyproject.toml").write_text(config)
    code, _, err = _run(["build", "--quiet"], capsys)
    assert code == 0
    assert err.startswith("pyproject.toml:3:1: warning: [tool.opgen] docstring_kernels = true, but "
                          "the sources register no kernel (REGISTER_KERNEL_BUILDER), so no docstring gets its "
                          '"Runs on" paragraph. opgen reads kernels from the files it reads ops from: ops (1 C++ '
                          "source read)\n  hint: add the files or directories that register the kernels to "
                          "[tool.opgen] sources"), err
    (project / "pyproject.toml").write_text(config.replace('["ops"]', '["ops", "kernels"]'))
    code, _, err = _run(["build", "--quiet"], capsys)
    assert code == 0 and err == ""
    assert "Runs on: CPU." in (project / "gen" / "gen_scale.py").read_text()


def test_selective_registration_and_internal_ops(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    Path("internal.cc").write_text(
        'REGISTER_OP("_Hidden").Output("y: float");\n'
        'REGISTER_KERNEL_BUILDER(Name("_Hidden").Device(DEVICE_CPU), HiddenOp);\n'
        'REGISTER_SYSTEM_KERNEL_BUILDER(Name("Sum").Device(DEVICE_TPU), SumOp);\n')
    Path("allow.txt").write_text("Fill\n")
    code, out, err = _run(["kernels", "."], capsys)
    assert code == 0 and err == "" and '  op: "_Hidden"' in out  # declared: no cross-check finding
    kernels = [(k.kernel_def.op, k.kernel_def.device_type) for k in gather(["."], allow_file="allow.txt").kernels]
    assert kernels == [("Fill", "CPU"), ("Fill", "GPU"), ("Sum", "TPU")]  # a system kernel stays


def test_kernels_no_node_can_get_are_not_where_the_op_runs(project):
    op_list = gather([str(project)]).op_list
    sum_op = next(op for op in op_list.op if op.name == "Sum")

    def kernel(device, **constraints):
        k = kernel_def_pb2.KernelDef(op="Sum", device_type=device)
        for name, types in constraints.items():
            k.constraint.add(name=name).allowed_values.list.type.extend(types)
        return k

    kernels = [kernel("CPU", T=[types_pb2.DT_FLOAT, types_pb2.DT_BOOL]), kernel("GPU", U=[types_pb2.DT_FLOAT]),
               kernel("TPU", T=[types_pb2.DT_BOOL]), kernel("XLA", keep=[types_pb2.DT_FLOAT])]
    assert device_types(kernels, sum_op) == {"CPU": {"T": ("float32",)}}
    assert list(device_types(kernels, None)) == ["CPU", "GPU", "TPU", "XLA"]  # op unknown: taken as written


def test_build_warns_about_cross_check_findings_once_each(project, capsys, monkeypatch):
    """`opgen build` prints what `opgen kernels` reports, as located warnings, each once (a
    kernel in a header two sources include is read twice); kernels of `_` ops, which a build
    gathers without their REGISTER_OP, are left to `opgen kernels`."""
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / "cache"))
    (project / "pyproject.toml").write_text('[tool.opgen]\ncore_ops = ["*"]\nsources = ["."]\nout = "gen"\n')
    Path("bad_kernels.h").write_text(
        'REGISTER_KERNEL_BUILDER(Name("Sum").Device(DEVICE_CPU).TypeConstraint<bool>("T"), SumOp);\n')
    Path("a.cc").write_text('#include "bad_kernels.h"\n'
                            'REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_CPU).HostMemory("w").Label("w"), '
                            'FillOp);\n')
    Path("b.cc").write_text('#include "bad_kernels.h"\n')
    Path("internal.cc").write_text('REGISTER_OP("_Hidden").Output("y: float");\n'
                                   'REGISTER_KERNEL_BUILDER(Name("_Hidden").Device(DEVICE_CPU), HiddenOp);\n')
    expected = [
        ("a.cc:2:68: warning: the CPU kernel of 'Fill' puts 'w' in host memory, but 'Fill' has no input or output "
         "named 'w' (TensorFlow fails when it creates the kernel)"),
        ("bad_kernels.h:1:77: warning: the CPU kernel of 'Sum' registers bool for attr 'T', which 'Sum' does not "
         "allow (allowed: float32, float64, int32); no node can use it"),
    ]
    code, _, err = _run(["build"], capsys)
    assert code == 0
    assert [line for line in err.splitlines() if ": warning: " in line] == expected
    code, _, err = _run(["build", "--check", "--quiet"], capsys)  # warnings print under --quiet too
    assert (code, err.splitlines()) == (0, expected)
    code, _, err = _run(["kernels", "."], capsys)
    assert [line for line in err.splitlines() if ": warning: " in line] == expected  # the same findings, once each
