"""What gathering skips, and says so once (tests/gather_projects/, projects written for these
tests, each compiled with g++ against the TF wheel as the oracle):

- switch_ops: registrations behind `#if SWITCH_OPS_WITH_TF` (a macro the project's build
  defines) are a located note per conditional naming the -D that brings them back;
  --strict-defines makes them errors; with the -D the ops equal the library compiled with it.
- core_op_clash: a registration of a TensorFlow core op name (ApplyAdam) is a located
  warning and left out, as TF leaves it out of the loaded library; `core_ops` keeps it.
- platform_ops: g++'s predefined macros (`__linux__`, `__GNUC__`, ...) hold without flags.
- shared_header_ops: a shared header's `#if` warning is printed once, blaming only the
  missing include every file that includes it misses.
- own_shape_fns: a shape function the sources declare is never an unknown one.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from oracle.cxx_build import compile_op_library
from oracle.tf_library import library_op_list
from support.paths import TESTS

from opgen.cli import main
from opgen.spec.gather import GatherErrors, gather
from opgen.spec.oplist_io import load_op_list_file
from opgen.spec.predefined import GXX_X86_64_LINUX

PROJECTS = TESTS / "gather_projects"
SWITCH = PROJECTS / "switch_ops"
SWITCH_SOURCES = sorted((SWITCH / "switch_ops" / "cc").glob("*.cc"))
SHARED = PROJECTS / "shared_header_ops"
CLASH = PROJECTS / "core_op_clash"
PLATFORM = PROJECTS / "platform_ops"
OWN_SHAPES = PROJECTS / "own_shape_fns"


def _oplist(args: list[str], capsys, out: Path) -> tuple[int, list[str], list[str]]:
    """`opgen oplist` -> (exit status, stderr lines, names of the ops written)."""
    code = main(["oplist", *args, "-o", str(out)])
    err = capsys.readouterr().err.splitlines()
    names = [op.name for op in load_op_list_file(str(out)).op] if code == 0 else []
    return code, err, names


def _assert_equals_compiled(gathered, compiled) -> None:
    by_name = {op.name: op for op in compiled.op}
    assert [op.name for op in gathered.op] == sorted(by_name, key=str.encode)
    for op in gathered.op:
        assert op == by_name[op.name], op.name


# --------------------------------------------------------------------------- switch_ops

SWITCH_HINT = "  hint: -D SWITCH_OPS_WITH_TF=1, or [tool.opgen] defines"


def test_registrations_behind_an_undefined_project_macro_are_one_note_per_conditional(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(SWITCH)
    code, err, names = _oplist(["."], capsys, tmp_path / "ops.pbtxt")
    at = "switch_ops/cc/"
    assert code == 0 and names == ["SwitchPlain"]
    assert err == [
        f"{at}array_ops.cc:6:13: note: 'SWITCH_OPS_WITH_TF' is not defined, so this conditional skips 1 registration",
        SWITCH_HINT,
        f"{at}tensor_ops.cc:9:5: note: 'SWITCH_OPS_WITH_TF' is not defined, so this conditional skips 3 registrations",
        SWITCH_HINT,
    ]
    code, err, names = _oplist([".", "-D", "SWITCH_OPS_WITH_TF=1"], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and names == ["SwitchConcat", "SwitchPlain", "SwitchScale", "SwitchShift"]
    assert err == [(f"{at}tensor_ops.cc:12:8: note: 'SWITCH_OPS_EXPERIMENTAL' is not defined, so this conditional "
                   "skips 1 registration"), "  hint: -D SWITCH_OPS_EXPERIMENTAL=1, or [tool.opgen] defines"]


def test_strict_defines_makes_each_skipping_conditional_an_error(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(SWITCH)
    out = tmp_path / "ops.pbtxt"
    assert main(["oplist", ".", "--strict-defines", "-o", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        ("switch_ops/cc/array_ops.cc:6:13: error: 'SWITCH_OPS_WITH_TF' is not defined, so this conditional skips "
        "1 registration"), SWITCH_HINT,
        ("switch_ops/cc/tensor_ops.cc:9:5: error: 'SWITCH_OPS_WITH_TF' is not defined, so this conditional skips "
        "3 registrations"), SWITCH_HINT,
        "2 errors in 2 files",
    ]
    assert not out.exists()
    # the config key, and the defines that bring every op back
    (tmp_path / "pyproject.toml").write_text(
        '[tool.opgen]\nstrict_defines = true\ndefines = ["SWITCH_OPS_WITH_TF=1", "SWITCH_OPS_EXPERIMENTAL"]\n')
    monkeypatch.chdir(tmp_path)
    assert main(["oplist", str(SWITCH), "-o", str(out)]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.oracle
@pytest.mark.parametrize(
    "defines", [(), ("SWITCH_OPS_WITH_TF=1",), ("SWITCH_OPS_WITH_TF=1", "SWITCH_OPS_EXPERIMENTAL")]
)
def test_switch_ops_equal_the_library_compiled_with_the_same_defines(defines, capsys):
    compiled = library_op_list(SWITCH_SOURCES, defines=defines, include_dirs=[SWITCH])
    _assert_equals_compiled(gather([str(SWITCH)], defines=defines).op_list, compiled)


def test_a_big_project_gets_one_line_per_macro_for_the_rest(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.opgen]\n")
    for i in range(6):
        (tmp_path / f"op{i}.cc").write_text(
            f'#if BIG_WITH_TF\nREGISTER_OP("Big{i}");\nREGISTER_OP("Big{i}x");\n#endif\n'
        )
    warnings: list[str] = []
    with pytest.raises(Exception, match="no op registered"):
        gather([str(tmp_path)], warn=warnings.append, require_ops=True)
    warnings = []
    (tmp_path / "plain.cc").write_text('REGISTER_OP("BigPlain");\n')
    gather([str(tmp_path)], warn=warnings.append)
    lines = "\n".join(warnings).splitlines()
    assert [line.split(": note: ")[0] for line in lines if ": note: " in line] == [
        str(tmp_path / f"op{i}.cc:1:5") for i in range(3)]
    assert lines[-1] == (f"note: 'BIG_WITH_TF' is not defined: 3 more conditionals skip 6 more registrations "
                         f"(first at {tmp_path / 'op3.cc'}:1:5)")


def test_only_macros_that_decide_are_named(tmp_path):
    """`!defined(X)` with X undefined does not skip anything; the compiler's macros (_WIN32) are
    not named, a platform macro (PLATFORM_WINDOWS) and a build configuration macro (GOOGLE_CUDA)
    are named as what they are, the build opgen reads for, not a forgotten -D; an #elif after a
    taken branch is not blamed on what decided that branch."""
    src = tmp_path / "ops.cc"
    src.write_text("#if HAVE_A && !defined(NO_B)\nREGISTER_OP(\"A\");\n#elif HAVE_C\nREGISTER_OP(\"C\");\n#endif\n"
                   "#if GOOGLE_CUDA || defined(_WIN32) || defined(PLATFORM_WINDOWS)\nREGISTER_OP(\"Gpu\");\n#endif\n"
                   "#ifndef SKIP_D\nREGISTER_OP(\"OpD\");\n#else\nREGISTER_OP(\"OpE\");\n#endif\n")
    warnings: list[str] = []
    gather([str(src)], warn=warnings.append)
    notes = ["'HAVE_A' is not defined", "'HAVE_C' is not defined",
             ("'GOOGLE_CUDA' and 'PLATFORM_WINDOWS' are not defined ('GOOGLE_CUDA' is a build configuration macro; "
              "'PLATFORM_WINDOWS' is a platform macro: opgen reads for a CPU build on Linux)"),
             "'SKIP_D' is not defined"]
    assert [w.split(": note: ")[1].split(",")[0] for w in warnings] == notes
    warnings = []
    gather([str(src)], defines=["HAVE_A"], warn=warnings.append)
    # HAVE_C's #elif is skipped because the #if was taken; #ifndef SKIP_D was taken, so its #else is not
    assert [w.split(": note: ")[1].split(",")[0] for w in warnings] == notes[2:]


def test_macros_that_decide_together_are_named_together(tmp_path):
    """`#if HAVE_X && HAVE_Y` with neither defined: defining one alone compiles nothing, so the
    hint names both -D, not one or the other."""
    src = tmp_path / "ops.cc"
    src.write_text('REGISTER_OP("Plain");\n#if HAVE_X && HAVE_Y\nREGISTER_OP("Both");\n#endif\n'
                   '#if HAVE_X || HAVE_Y\nREGISTER_OP("Either");\n#endif\n')
    warnings: list[str] = []
    gather([str(src)], warn=warnings.append)
    assert warnings == [
        (f"{src}:2:5: note: 'HAVE_X' and 'HAVE_Y' are not defined, so this conditional skips 1 registration\n"
        "  hint: -D HAVE_X=1 -D HAVE_Y=1, or [tool.opgen] defines"),
        (f"{src}:5:5: note: 'HAVE_X' and 'HAVE_Y' are not defined, so this conditional skips 1 registration\n"
        "  hint: -D HAVE_X=1 or -D HAVE_Y=1, or [tool.opgen] defines"),
    ]


def test_a_macro_decides_through_defined_from_a_macro_and_unsigned_arithmetic(tmp_path):
    """`#define HAS_GPU defined(MYPROJ_GPU)` then `#if HAS_GPU` names MYPROJ_GPU at the use
    (trial31 #2), and `#if MYPROJ_LEVEL - 1u < 5u`, skipped because 0 - 1u wraps around,
    names MYPROJ_LEVEL (trial31 #1: read as signed, its registration was kept)."""
    src = tmp_path / "ops.cc"
    src.write_text('#define HAS_GPU defined(MYPROJ_GPU)\n#if HAS_GPU\nREGISTER_OP("Gpu");\n#endif\n'
                   '#if MYPROJ_LEVEL - 1u < 5u\nREGISTER_OP("Level");\n#endif\n'
                   '#if 0 && MYPROJ_NEVER / 0\n#else\nREGISTER_OP("Plain");\n#endif\n')
    warnings: list[str] = []
    result = gather([str(src)], warn=warnings.append)
    assert [op.name for op in result.op_list.op] == ["Plain"]
    assert [w.split("\n")[0] for w in warnings] == [
        f"{src}:2:5: note: 'MYPROJ_GPU' is not defined, so this conditional skips 1 registration",
        f"{src}:5:5: note: 'MYPROJ_LEVEL' is not defined, so this conditional skips 1 registration"]
    result = gather([str(src)], defines=["MYPROJ_GPU", "MYPROJ_LEVEL"], warn=warnings.append)
    assert [op.name for op in result.op_list.op] == ["Gpu", "Level", "Plain"]


GPU_OPS = """#include "tensorflow/core/framework/op.h"
namespace tensorflow {
REGISTER_OP("CpuScale").Input("x: float").Output("y: float");
#if GOOGLE_CUDA
REGISTER_OP("GpuScale").Input("x: float").Output("y: float");
REGISTER_OP("GpuShift").Input("x: float").Output("y: float");
#endif
#ifndef GOOGLE_CUDA
#elif GPU_OPS_EXPERIMENTAL
REGISTER_OP("GpuExperimental").Input("x: float").Output("y: float");
#endif
}
"""
CONFIGURATION = "a build configuration macro: opgen reads for a build without it"
GPU_NOTE = [
    (f"ops/gpu_ops.cc:4:5: note: 'GOOGLE_CUDA' is not defined ({CONFIGURATION}), so this conditional skips "
     "2 registrations"),
    "  hint: -D GOOGLE_CUDA=1, or [tool.opgen] defines",
]


def _gpu_project(root: Path) -> None:
    (root / "ops").mkdir()
    (root / "ops" / "gpu_ops.cc").write_text(GPU_OPS)
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\n')


def test_registrations_behind_a_build_configuration_macro_are_a_note_naming_the_define(monkeypatch, capsys, tmp_path):
    """A GPU-only op (`#if GOOGLE_CUDA`) is left out of the build opgen reads for, and
    `opgen build` says so, with the -D that brings it back (the GPU branch's own project
    switch is then noted)."""
    _gpu_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--check", "--diff"]) == 1  # prints the modules, writes nothing
    captured = capsys.readouterr()
    assert "def cpu_scale(" in captured.out and "def gpu_scale(" not in captured.out
    assert captured.err.splitlines()[:2] == GPU_NOTE
    code, err, names = _oplist(["-D", "GOOGLE_CUDA=1"], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and names == ["CpuScale", "GpuScale", "GpuShift"]
    assert err == [("ops/gpu_ops.cc:9:7: note: 'GPU_OPS_EXPERIMENTAL' is not defined, so this conditional skips "
                    "1 registration"), "  hint: -D GPU_OPS_EXPERIMENTAL=1, or [tool.opgen] defines"]


def test_a_build_configuration_macro_is_one_note_and_never_an_error(monkeypatch, capsys, tmp_path):
    """TF's own sources hold many `#if GOOGLE_CUDA`/`#ifdef INTEL_MKL` groups: one note per
    macro, at its first conditional, counting the rest, also with --strict-defines (which is
    for a project's forgotten switches: a build without these is the one opgen reads for). A
    group that needs one and a project switch is such a group too; one that a project switch
    alone would compile is the project's."""
    _gpu_project(tmp_path)
    for i in range(3):
        (tmp_path / "ops" / f"mkl_{i}.cc").write_text(
            f'#ifdef INTEL_MKL\nREGISTER_OP("_Mkl{i}");\nREGISTER_OP("_Mkl{i}x");\n#endif\n')
    (tmp_path / "ops" / "mixed.cc").write_text(
        '#ifndef TENSORFLOW_USE_ROCM\n#else\nREGISTER_OP("Rocm");\n#endif\n'
        '#if GOOGLE_CUDA && PROJECT_GPU\nREGISTER_OP("ProjectGpu");\n#endif\n'
        '#if GOOGLE_CUDA || PROJECT_ANY\nREGISTER_OP("ProjectAny");\n#endif\n')
    monkeypatch.chdir(tmp_path)
    code, err, names = _oplist(["--strict-defines"], capsys, tmp_path / "ops.pbtxt")
    assert code == 2
    assert err == [
        *GPU_NOTE,
        (f"ops/mixed.cc:1:9: note: 'TENSORFLOW_USE_ROCM' is not defined ({CONFIGURATION}), so this conditional skips "
        "1 registration"),
        "  hint: -D TENSORFLOW_USE_ROCM=1, or [tool.opgen] defines",
        ("ops/mixed.cc:5:5: note: 'GOOGLE_CUDA' and 'PROJECT_GPU' are not defined ('GOOGLE_CUDA' is a build "
        "configuration macro: opgen reads for a build without it), so this conditional skips 1 registration"),
        "  hint: -D GOOGLE_CUDA=1 -D PROJECT_GPU=1, or [tool.opgen] defines",
        ("ops/mixed.cc:8:5: error: 'GOOGLE_CUDA' and 'PROJECT_ANY' are not defined, so this conditional skips "
         "1 registration"),
        "  hint: -D GOOGLE_CUDA=1 or -D PROJECT_ANY=1, or [tool.opgen] defines",
        (f"ops/mkl_0.cc:1:8: note: 'INTEL_MKL' is not defined ({CONFIGURATION}), so this conditional and 2 more skip "
        "6 registrations"),
        "  hint: -D INTEL_MKL=1, or [tool.opgen] defines",
        "1 error in 1 file, 4 warnings",
    ]
    (tmp_path / "ops" / "mixed.cc").unlink()
    code, err, names = _oplist(["--strict-defines"], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and names == ["CpuScale"] and len(err) == 4


def test_a_platform_macro_skipping_registrations_is_one_note_and_never_an_error(monkeypatch, capsys, tmp_path):
    """`#ifdef EIGEN_USE_GPU` around a registration (a platform macro: opgen reads for a CPU
    build on Linux) was a silent skip: now a note per macro like a build configuration
    macro's, naming which kind each macro is when kinds mix, never an error."""
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "gpu.cc").write_text(
        '#ifdef EIGEN_USE_GPU\nREGISTER_OP("EigenGpu");\n#endif\n'
        '#if EIGEN_USE_GPU\nREGISTER_OP("EigenGpu2");\n#endif\n'
        '#if GOOGLE_CUDA && CUDA_VERSION\nREGISTER_OP("Cuda");\n#endif\n'
        '#if PROJECT_GPU && CUDA_VERSION\nREGISTER_OP("ProjectCuda");\n#endif\n'
        'REGISTER_OP("Cpu");\n')
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\n')
    monkeypatch.chdir(tmp_path)
    code, err, names = _oplist(["--strict-defines"], capsys, tmp_path / "ops.pbtxt")
    platform = "a platform macro: opgen reads for a CPU build on Linux"
    assert code == 0 and names == ["Cpu"]
    assert err == [
        (f"ops/gpu.cc:1:8: note: 'EIGEN_USE_GPU' is not defined ({platform}), so this conditional and 1 more skip "
         "2 registrations"),
        "  hint: -D EIGEN_USE_GPU=1, or [tool.opgen] defines",
        ("ops/gpu.cc:7:5: note: 'GOOGLE_CUDA' and 'CUDA_VERSION' are not defined ('GOOGLE_CUDA' is a build "
         "configuration macro; 'CUDA_VERSION' is a platform macro: opgen reads for a CPU build on Linux), so this "
         "conditional skips 1 registration"),
        "  hint: -D GOOGLE_CUDA=1 -D CUDA_VERSION=1, or [tool.opgen] defines",
        ("ops/gpu.cc:10:5: note: 'PROJECT_GPU' and 'CUDA_VERSION' are not defined ('CUDA_VERSION' is a platform "
         "macro: opgen reads for a CPU build on Linux), so this conditional skips 1 registration"),
        "  hint: -D PROJECT_GPU=1 -D CUDA_VERSION=1, or [tool.opgen] defines",
    ]


# --------------------------------------------------------------------------- core_op_clash

CLASH_WARNING = [
    ("ops/optimizer_ops.cc:6:1: warning: 'ApplyAdam' is a TensorFlow core op: TensorFlow keeps its own definition "
    "and ignores this registration when it loads the library; left out"),
    ("  hint: give the op a name of its own, or list it in [tool.opgen] core_ops to generate a wrapper for "
    "TensorFlow's op"),
]


@pytest.mark.oracle
def test_a_core_op_name_is_left_out_as_tf_leaves_it_out_of_the_loaded_library(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(CLASH)
    code, err, names = _oplist(["."], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and err == CLASH_WARNING and names == ["ClashMomentum"]
    # TF: the library loads, its OpList lacks ApplyAdam, and TF's own ApplyAdam stays.
    library = compile_op_library(CLASH / "ops" / "optimizer_ops.cc", "libcore_op_clash.so")
    assert main(["oplist", "--from-library", str(library), "-o", str(tmp_path / "tf.pbtxt")]) == 0
    assert load_op_list_file(str(tmp_path / "tf.pbtxt")) == load_op_list_file(str(tmp_path / "ops.pbtxt"))
    from oracle.tf_registry import tf_op_list

    tf_adam = next(op for op in tf_op_list().op if op.name == "ApplyAdam")
    assert [a.name for a in tf_adam.input_arg][:3] == ["var", "m", "v"]


def test_build_leaves_core_ops_out_unless_core_ops_keeps_them(monkeypatch, capsys, tmp_path):
    shutil.copytree(CLASH, tmp_path / "clash")
    monkeypatch.chdir(tmp_path / "clash")
    assert main(["build", "--check", "--diff"]) == 1  # prints the modules, writes nothing
    captured = capsys.readouterr()
    assert "def clash_momentum(" in captured.out and "def apply_adam(" not in captured.out
    assert captured.err.splitlines()[:2] == list(CLASH_WARNING)  # (paths below the working directory: relative)
    Path("pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\ncore_ops = ["Apply*"]\n')
    assert main(["build", "--check", "--diff"]) == 1
    captured = capsys.readouterr()
    assert "def apply_adam(" in captured.out and "core op" not in captured.err


# --------------------------------------------------------------------------- platform_ops

@pytest.mark.oracle
def test_ops_under_the_compilers_predefined_macros_equal_the_compiled_library(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(PLATFORM)
    code, err, names = _oplist(["."], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and err == []
    assert names == ["PlatformExceptions", "PlatformGnu64", "PlatformLinux"]
    compiled = library_op_list([PLATFORM / "ops" / "platform_ops.cc"])
    _assert_equals_compiled(gather([str(PLATFORM)]).op_list, compiled)
    # -U takes one away (quietly: it is the compiler's), -D brings another platform's
    code, err, names = _oplist([".", "-U", "__linux__", "-D", "__APPLE__"], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and err == [] and names == ["PlatformExceptions", "PlatformGnu64", "PlatformOther"]


def test_undefines_config_key_and_bad_names(tmp_path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nundefines = ["__linux__", "__x86_64__"]\n')
    monkeypatch.chdir(tmp_path)
    code, _err, names = _oplist([str(PLATFORM / "ops")], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and names == ["PlatformExceptions", "PlatformGnu64"]
    assert main(["oplist", str(PLATFORM / "ops"), "-U", "1X"]) == 2
    assert "-U '1X': macro names must be identifiers" in capsys.readouterr().err
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nundefines = ["A B"]\n')
    assert main(["oplist", str(PLATFORM / "ops")]) == 2
    assert "pyproject.toml:2:14: error: [tool.opgen] undefines entry 'A B'" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_predefined_macros_are_gxx_ones():
    """Each predefined macro has g++ -std=c++17's value (the version macros only for the
    GCC 12 they were taken from)."""
    text = subprocess.run(["g++", "-x", "c++", "-std=c++17", "-dM", "-E", "-"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, check=True).stdout
    gxx = {}
    for line in text.splitlines():
        _, name, value = [*line.split(" ", 2), ""][:3]
        gxx[name] = value
    version_macros = {"__GNUC__", "__GNUC_MINOR__", "__GNUC_PATCHLEVEL__", "__GNUG__", "__VERSION__",
                      "__GXX_ABI_VERSION"}
    same_compiler = gxx.get("__GNUC__") == GXX_X86_64_LINUX["__GNUC__"]
    for name, value in GXX_X86_64_LINUX.items():
        if same_compiler or name not in version_macros:
            assert gxx.get(name) == value, name


# --------------------------------------------------------------------------- shared_header_ops

@pytest.mark.oracle
def test_a_shared_headers_if_warning_is_printed_once_blaming_only_what_applies(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(SHARED)
    code, err, names = _oplist(["."], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and names == ["SharedA", "SharedB", "SharedC"]
    searched = "(searched: ops, .)"
    # (the build's include directory is in the project: the hint names it)
    add_deps = "  hint: add -I _deps (it holds deps/{}_dep.h) or [tool.opgen] include_dirs"
    assert err == [
        f'ops/a_ops.cc:2:10: warning: cannot find include file "deps/a_dep.h" {searched}; skipped',
        add_deps.format("a"),
        f'ops/shared.h:3:10: warning: cannot find include file "gen/build_flags.h" {searched}; skipped',
        "ops/shared.h:4:5: warning: 'SHARED_FAST_PATH' is not defined and reads as 0 in #if",
        ('  hint: likely cause: "gen/build_flags.h" (ops/shared.h:3:10) was not found and may define '
        "'SHARED_FAST_PATH'; add -I _deps (it holds gen/build_flags.h) or [tool.opgen] include_dirs"),
        f'ops/b_ops.cc:2:10: warning: cannot find include file "deps/b_dep.h" {searched}; skipped',
        add_deps.format("b"),
        f'ops/c_ops.cc:2:10: warning: cannot find include file "deps/c_dep.h" {searched}; skipped',
        add_deps.format("c"),
    ]
    # with the include directory the build gives: no warning, the library's ops and docs
    sources = sorted((SHARED / "ops").glob("*.cc"))
    compiled = library_op_list(sources, include_dirs=[SHARED / "_deps"])
    gathered = gather([str(SHARED)], include_dirs=[str(SHARED / "_deps")])
    assert capsys.readouterr().err == ""
    _assert_equals_compiled(gathered.op_list, compiled)
    assert {op.summary for op in compiled.op} == {"Runs the fast path."}


# --------------------------------------------------------------------------- own_shape_fns

@pytest.mark.oracle
def test_shape_functions_the_sources_declare_are_not_unknown(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(OWN_SHAPES)
    code, err, names = _oplist(["."], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and err == [] and names == ["OwnIdentity", "OwnReduceMax", "OwnReduceSum"]
    compiled = library_op_list([OWN_SHAPES / "ops" / "reduce_ops.cc"])
    _assert_equals_compiled(gather([str(OWN_SHAPES)]).op_list, compiled)


def test_a_build_of_core_op_names_only_says_why_nothing_is_left(tmp_path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\n')
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "a.cc").write_text('REGISTER_OP("MatMul").Output("y: float");\n')
    monkeypatch.chdir(tmp_path)
    assert main(["build"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[2:] == [("ops: error: no op left: the 1 op registered is a TensorFlow core op, "
                        "which TensorFlow ignores in a library"),
                       "  hint: give the ops names of their own, or list them in [tool.opgen] core_ops",
                       "1 error in 1 file, 1 warning"]
    assert not (tmp_path / "generated").exists()


def test_a_build_of_internal_ops_only_is_an_error_not_an_empty_tree(tmp_path, monkeypatch, capsys):
    """trial15 #6: every op renamed `_X` must not build 0 modules and delete the generated ones."""
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\nout = "gen"\n')
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "a.cc").write_text('REGISTER_OP("MyOp").Output("y: float");\n')
    monkeypatch.chdir(tmp_path)
    assert main(["build", "-q"]) == 0 and (tmp_path / "gen" / "gen_a.py").exists()
    (tmp_path / "ops" / "a.cc").write_text('REGISTER_OP("_MyOp").Output("y: float");\n')
    capsys.readouterr()
    assert main(["build"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        ("ops: error: no op left: the 1 op registered is internal (named with a leading `_`), which opgen leaves "
         "out unless asked"),
        ("  hint: give the ops public names, or pass --include-internal ([tool.opgen] include_internal = true: they "
         "get hidden, `_`-prefixed functions)"),
        "1 error in 1 file"]
    assert (tmp_path / "gen" / "gen_a.py").exists()
    assert main(["build", "-q", "--include-internal"]) == 0


_PROJECT_MACROS = """#define FW_REGISTER_UNARY(name) \\
  REGISTER_OP("Fw" #name).Input("x: float").Output("y: float")
"""


def test_a_file_scope_call_of_an_undefined_project_macro_is_never_silent(tmp_path, monkeypatch):
    """`FW_REGISTER_UNRAY(Softplus);` (a typo of the file's own macro) is an error, as in g++;
    with the macros' header missing, each unexpanded call at file scope is a warning naming
    it. TF's own macros (whose headers opgen skips) and calls inside functions say nothing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fw").mkdir()
    (tmp_path / "fw" / "register.h").write_text(_PROJECT_MACROS)
    common = ('#include "tensorflow/core/framework/op.h"\nnamespace tensorflow {\n'
              'REGISTER_OP_GRADIENT("FwGelu", GeluGrad);\nTF_CALL_float(FW_REGISTER_UNARY);\n'
              'void F() { FW_NOT_A_MACRO(1); }\n')
    (tmp_path / "ops.cc").write_text('#include "fw/register.h"\n' + common
                                     + "FW_REGISTER_UNARY(Gelu);\nFW_REGISTER_UNRAY(Softplus);\n}\n")
    with pytest.raises(GatherErrors) as raised:
        gather(["ops.cc"])
    assert [e.format() for e in raised.value.errors] == [
        ("ops.cc:8:1: error: 'FW_REGISTER_UNRAY(...)' calls 'FW_REGISTER_UNRAY', which is not defined: whatever it "
        "registers is missing\n  hint: did you mean 'FW_REGISTER_UNARY'? (a macro of this file or its headers; g++ "
        "rejects this line)")]
    (tmp_path / "ops.cc").write_text('#include "fw/register.h"\n' + common + "FW_REGISTER_UNARY(Gelu);\n}\n")
    warnings: list[str] = []
    assert [op.name for op in gather(["ops.cc"], warn=warnings.append).op_list.op] == ["FwGelu", "Fwfloat"]
    assert warnings == []
    (tmp_path / "fw" / "register.h").unlink()
    assert [op.name for op in gather(["ops.cc"], warn=warnings.append).op_list.op] == []
    assert warnings[1:] == [
        ("ops.cc:5:15: warning: 'FW_REGISTER_UNARY(...)' calls 'FW_REGISTER_UNARY', which is not defined: whatever it "
        'registers is missing\n  hint: likely cause: "fw/register.h" (ops.cc:1:10) was not found and may define '
        "'FW_REGISTER_UNARY'; add the directory holding fw/ with -I DIR (DIR such that DIR/fw/register.h exists) or "
        "[tool.opgen] include_dirs"),
        ("ops.cc: warning: no op registered in 1 source file\n  hint: opgen reads REGISTER_OP(...) chains (also "
        "through macros it can expand); check the sources, -D defines and include directories")]


def test_a_macro_undefined_with_dash_u_skips_without_a_note(tmp_path):
    """trial33 #5: `-U MYPROJ_EXPERIMENTAL` says the macro is off on purpose: its conditionals
    skip their registrations without a note (nor an error under strict_defines), so do those
    needing it with another (`&&`); another macro's are still noted."""
    src = tmp_path / "ops.cc"
    src.write_text('#ifdef MYPROJ_EXPERIMENTAL\nREGISTER_OP("Exp");\n#endif\n'
                   '#if MYPROJ_EXPERIMENTAL && MYPROJ_OTHER\nREGISTER_OP("Both");\n#endif\n'
                   '#ifdef MYPROJ_OTHER\nREGISTER_OP("Other");\n#endif\nREGISTER_OP("Plain");\n')
    warnings: list[str] = []
    result = gather([str(src)], undefines=["MYPROJ_EXPERIMENTAL"], warn=warnings.append)
    assert [op.name for op in result.op_list.op] == ["Plain"]
    assert [w.split(": note: ")[1].split(",")[0] for w in warnings] == ["'MYPROJ_OTHER' is not defined"]


def test_a_macro_compared_with_a_number_decides_with_a_value_that_compiles_the_group(tmp_path):
    """trial35 #1: `#if TF_VERSION_INTEGER >= 2000` around a registration skipped it silently,
    because defining the macro as 1 changes nothing: the values tried are also those the
    condition compares with, and the hint names one that compiles the group."""
    src = tmp_path / "ops.cc"
    src.write_text('#if TF_VERSION_INTEGER >= 2000\nREGISTER_OP("MyNew");\n#endif\n'
                   '#if MYPROJ_LEVEL > 3\nREGISTER_OP("MyLevel");\n#endif\n'
                   '#if MYPROJ_MAJOR == 2 && MYPROJ_MINOR >= 4\nREGISTER_OP("MyPair");\n#endif\n'
                   '#if MYPROJ_MODE == 3 || 1\n#else\nREGISTER_OP("MyNever");\n#endif\n'
                   'REGISTER_OP("MyPlain");\n')
    warnings: list[str] = []
    result = gather([str(src)], warn=warnings.append)
    assert [op.name for op in result.op_list.op] == ["MyPlain"]
    values = " (or what the build passes), or [tool.opgen] defines"
    assert warnings == [
        (f"{src}:1:5: note: 'TF_VERSION_INTEGER' is not defined, so this conditional skips 1 registration\n"
         f"  hint: -D TF_VERSION_INTEGER=2000{values}"),
        (f"{src}:4:5: note: 'MYPROJ_LEVEL' is not defined, so this conditional skips 1 registration\n"
         f"  hint: -D MYPROJ_LEVEL=4{values}"),
        (f"{src}:7:5: note: 'MYPROJ_MAJOR' and 'MYPROJ_MINOR' are not defined, so this conditional skips "
         f"1 registration\n  hint: -D MYPROJ_MAJOR=2 -D MYPROJ_MINOR=4{values}")]
    warnings.clear()
    result = gather([str(src)], defines=["TF_VERSION_INTEGER=2210", "MYPROJ_LEVEL=4", "MYPROJ_MAJOR=2",
                                         "MYPROJ_MINOR=4"], warn=warnings.append)
    assert [op.name for op in result.op_list.op] == ["MyLevel", "MyNew", "MyPair", "MyPlain"] and warnings == []


# --------------------------------------------------------------------------- a #define an #if chose

TFRA_UTILS = """#pragma once
#define CONCAT_TRIPLE_STRING(X, Y, Z) (#X #Y #Z)
#if TF_VERSION_INTEGER >= 2000
#define PREFIX_OP_NAME(N) CONCAT_TRIPLE_STRING(TFRA, >, N)
#else
#define PREFIX_OP_NAME(N) CONCAT_TRIPLE_STRING(Tfr, a, N)
#endif
#if TF_VERSION_INTEGER >= 2100
#define TFOkStatus OkStatus()
#else
#define TFOkStatus Status::OK()
#endif
"""
TFRA_OPS = """#include "tensorflow/core/framework/op.h"
#include "utils/utils.h"
namespace tensorflow {
REGISTER_OP(PREFIX_OP_NAME(TableFind)).Input("x: float").Output("y: float")
    .SetShapeFn([](shape_inference::InferenceContext* c) { c->set_output(0, c->input(0)); return TFOkStatus; });
REGISTER_OP(PREFIX_OP_NAME(TableSize)).Output("size: int64");
}
"""
TFRA_NOTE = [
    ("ops/table_ops.cc:4:1: note: 'TF_VERSION_INTEGER' is not defined, so `#if TF_VERSION_INTEGER >= 2000` "
     "(utils/utils.h:3:5) chose the #define of 'PREFIX_OP_NAME' that names op 'TfraTableFind' here (and 1 more "
     "registration)"),
    ("  hint: pass what the build defines: -D TF_VERSION_INTEGER=VALUE, or [tool.opgen] defines; -U "
     "TF_VERSION_INTEGER ([tool.opgen] undefines) if the build leaves it undefined"),
]


def _tfra_project(root: Path) -> None:
    (root / "utils").mkdir()
    (root / "utils" / "utils.h").write_text(TFRA_UTILS)
    (root / "ops").mkdir()
    (root / "ops" / "table_ops.cc").write_text(TFRA_OPS)
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\n')


def test_an_op_name_from_a_define_an_if_on_an_undefined_macro_chose_is_one_note(monkeypatch, capsys, tmp_path):
    """trial35 #1 (tensorflow/recommenders-addons' utils.h): without the -D its build passes,
    `#if TF_VERSION_INTEGER >= 2000` takes the #else (as g++ does), whose PREFIX_OP_NAME names
    every op `Tfra...`, not `TFRA>...`: one note per macro, at the first registration, counting
    the others; an error with --strict-defines; nothing with the -D, or with -U (left
    undefined on purpose). TFOkStatus, chosen the same way, is only a shape function's code."""
    _tfra_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, err, names = _oplist([], capsys, tmp_path / "ops.pbtxt")
    assert code == 0 and names == ["TfraTableFind", "TfraTableSize"]
    assert err == TFRA_NOTE
    out = tmp_path / "strict.pbtxt"
    assert main(["oplist", "--strict-defines", "-o", str(out)]) == 2 and not out.exists()
    assert capsys.readouterr().err.splitlines() == [TFRA_NOTE[0].replace(": note: ", ": error: "), TFRA_NOTE[1],
                                                    "1 error in 1 file"]
    code, err, names = _oplist(["--strict-defines", "-D", "TF_VERSION_INTEGER=2210"], capsys, out)
    assert code == 0 and err == [] and names == ["TFRA>TableFind", "TFRA>TableSize"]
    code, err, names = _oplist(["--strict-defines", "-U", "TF_VERSION_INTEGER"], capsys, out)
    assert code == 0 and err == [] and names == ["TfraTableFind", "TfraTableSize"]


def test_a_chosen_define_no_registration_text_expands_says_nothing(tmp_path):
    """Only a registration's text counts: a chosen macro used elsewhere, or only in a shape
    function's code, is no note; nor is an include guard or a default (`#ifndef X` then
    `#define X`), nor a #define outside any conditional."""
    (tmp_path / "names.h").write_text(
        '#ifndef NAMES_H_\n#define NAMES_H_\n#ifndef MYPROJ_PREFIX\n#define MYPROJ_PREFIX "My"\n#endif\n'
        '#define MYPROJ_TYPE "float"\n#endif\n')
    (tmp_path / "ops.cc").write_text(
        TFRA_UTILS + '#include "names.h"\nint F() { return sizeof(PREFIX_OP_NAME(Unused)); }\n'
        'REGISTER_OP(MYPROJ_PREFIX "Plain").Input("x: " MYPROJ_TYPE)\n'
        '    .SetShapeFn([](InferenceContext* c) { return TFOkStatus; });\n')
    warnings: list[str] = []
    result = gather([str(tmp_path)], strict_defines=True, warn=warnings.append)
    assert [op.name for op in result.op_list.op] == ["MyPlain"] and warnings == []


def test_a_spec_or_a_header_an_if_chose_is_noted_and_a_build_configuration_macro_never_errs(tmp_path):
    """An attr's text from a chosen #define is noted too, and so is a #define in a header an #if
    of the including file chose; a build configuration macro's choice (`#if GOOGLE_CUDA`) is a
    note, also with strict_defines, as its skipped registrations are."""
    (tmp_path / "v1.h").write_text('#define MYPROJ_NAME(N) "V1" #N\n')
    (tmp_path / "v2.h").write_text('#define MYPROJ_NAME(N) "V2" #N\n')
    src = tmp_path / "ops.cc"
    src.write_text('#if MYPROJ_KIND == 2\n#define KIND_ATTR "kind: int = 2"\n#else\n#define KIND_ATTR "kind: int = 1"\n'
                   '#endif\n#ifdef MYPROJ_V2\n#include "v2.h"\n#else\n#include "v1.h"\n#endif\n'
                   '#if GOOGLE_CUDA\n#define DEVICE "Gpu"\n#else\n#define DEVICE "Cpu"\n#endif\n'
                   'REGISTER_OP("MyKind").Attr(KIND_ATTR);\nREGISTER_OP(MYPROJ_NAME(Named));\n'
                   'REGISTER_OP(DEVICE "Op");\n')
    warnings: list[str] = []
    with pytest.raises(GatherErrors) as raised:
        gather([str(src)], strict_defines=True, warn=warnings.append)
    assert [e.format().split("\n")[0] for e in raised.value.errors] == [
        (f"{src}:16:1: error: 'MYPROJ_KIND' is not defined, so `#if MYPROJ_KIND == 2` ({src}:1:5) chose the #define "
         "of 'KIND_ATTR' that the registration of op 'MyKind' expands here"),
        (f"{src}:17:1: error: 'MYPROJ_V2' is not defined, so `#ifdef MYPROJ_V2` ({src}:6:8) chose the #define of "
         "'MYPROJ_NAME' that names op 'V1Named' here")]
    notes = [w for w in raised.value.warnings if ": note: " in w]
    assert [w.split("\n")[0] for w in notes] == [
        (f"{src}:18:1: note: 'GOOGLE_CUDA' is not defined (a build configuration macro: opgen reads for a build "
         f"without it), so `#if GOOGLE_CUDA` ({src}:11:5) chose the #define of 'DEVICE' that names op 'CpuOp' here")]
    result = gather([str(src)], strict_defines=True, defines=["MYPROJ_KIND=2", "MYPROJ_V2", "GOOGLE_CUDA=0"],
                    warn=warnings.append)
    assert [op.name for op in result.op_list.op] == ["CpuOp", "MyKind", "V2Named"] and warnings == []


def test_a_choice_after_a_missing_include_is_its_warning_not_a_note(tmp_path):
    """After a missing include, the #if's undefined name is already a warning naming the include
    (which may define it): the choice's note would say less, and is not printed."""
    src = tmp_path / "ops.cc"
    src.write_text('#include "gen/version.h"\n' + TFRA_UTILS + 'REGISTER_OP(PREFIX_OP_NAME(TableFind));\n')
    warnings: list[str] = []
    gather([str(src)], strict_defines=True, warn=warnings.append)
    undefined = "warning: 'TF_VERSION_INTEGER' is not defined and reads as 0 in #if"
    assert [w.split("\n")[0].split(": ", 1)[1] for w in warnings] == [
        f'warning: cannot find include file "gen/version.h" (searched: {tmp_path}); skipped',
        undefined, undefined]  # (TFRA_UTILS's two #if lines)


def test_a_build_configuration_choice_of_a_spec_says_nothing(tmp_path):
    """TF's `#if defined(IS_MOBILE_PLATFORM)` around a type list (the example library's
    math_ops.cc) picks the spec of the build opgen reads for: no note on every build."""
    src = tmp_path / "ops.cc"
    src.write_text('#if defined(IS_MOBILE_PLATFORM)\n#define ADD_TYPES "T: {float}"\n#else\n'
                   '#define ADD_TYPES "T: {float, int32}"\n#endif\n'
                   'REGISTER_OP("MyAdd").Input("x: T").Output("y: T").Attr(ADD_TYPES);\n')
    warnings: list[str] = []
    result = gather([str(src)], strict_defines=True, warn=warnings.append)
    assert [op.name for op in result.op_list.op] == ["MyAdd"] and warnings == []
