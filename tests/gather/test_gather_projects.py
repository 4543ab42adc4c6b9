"""Fake custom-op projects laid out like public ones (tests/gather_projects/), gathered
with no flags at all: headers of dependencies, of sibling projects and generated ones are
missing, headers are included from the project root, op names are built by macros and
parenthesised, docs are raw strings in multi-line macros, and variadic macros use GNU
comma elision and __VA_OPT__. The same sources compiled with g++ (given what the compiler
needs: -I for the project root, the sibling checkout and `_build_deps/`, stand-ins for
dependency checkouts and build outputs) and loaded into TF give the same OpList, docs
included.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from oracle.tf_library import library_op_list
from support.paths import TESTS

from opgen.cli import main
from opgen.spec.gather import gather
from opgen.spec.oplist_io import dump_op_list

PROJECTS = TESTS / "gather_projects"
VISION = PROJECTS / "vision_ops"
VISION_SOURCES = sorted(p for p in (VISION / "vision_ops" / "cc" / "ops").iterdir() if p.suffix in (".cc", ".c++"))
COMPILER_INCLUDES = [VISION, PROJECTS, PROJECTS / "_build_deps"]


@pytest.mark.oracle
def test_project_gathered_without_flags_equals_compiled_library():
    compiled = library_op_list(VISION_SOURCES, include_dirs=COMPILER_INCLUDES)
    gathered = gather([str(VISION)]).op_list
    assert [op.name for op in gathered.op] == sorted((op.name for op in compiled.op), key=str.encode)
    assert {op.name for op in gathered.op} == {"Vision>FindBoxes", "Vision>OcrText", "VisionResize"}
    by_name = {op.name: op for op in compiled.op}
    for op in gathered.op:
        assert op == by_name[op.name], op.name
    find = by_name["Vision>FindBoxes"]
    assert [a.description for a in (*find.input_arg, *find.output_arg, *find.attr)] == [
        "the images, NHWC. \\", "one row per box. \\", "", "at most this many boxes."]


def test_missing_includes_are_warned_once_per_header(monkeypatch, capsys, tmp_path):
    """One warning per header, at its first #include, naming every other place that
    includes it (a header included by two translation units counts once)."""
    monkeypatch.chdir(VISION)
    assert main(["oplist", ".", "-o", str(tmp_path / "ops.pbtxt")]) == 0
    at = "vision_ops/cc/ops/"
    searched = "(searched: vision_ops/cc/ops, vision_ops/cc, vision_ops, .)"
    common = [
        f'{at}image_ops.cc:8:10: warning: cannot find include file "common_lib/status_macros.h" {searched}; skipped',
        _skip_hint("common_lib/status_macros.h"),
        (f'{at}image_ops.cc:9:10: warning: cannot find include file "vision_ops/cc/proto/config.pb.h" {searched}; '
         "skipped"),
        _skip_hint("vision_ops/cc/proto/config.pb.h"),
    ]
    assert capsys.readouterr().err.splitlines() == [
        (f'{at}image_ops.cc:6:10: warning: cannot find include file "re2/re2.h" {searched}; '
         f"also included at {at}op_macros.h:8:10, {at}text_ops.c++:2:10; skipped"),
        _skip_hint("re2/re2.h"),
        (f'{at}image_ops.cc:7:10: warning: cannot find include file "grpcpp/grpcpp.h" {searched}; '
         f"also included at {at}text_ops.c++:3:10; skipped"),
        _skip_hint("grpcpp/grpcpp.h"),
        *common,
    ]
    assert "Vision>FindBoxes" in (tmp_path / "ops.pbtxt").read_text()
    # other libraries' headers listed in [tool.opgen] external_includes are skipped without a word
    warnings: list[str] = []
    gather(["."], external_includes=["re2/*", "grpc*/*.h"], warn=warnings.append)
    assert "\n".join(warnings).splitlines() == common


def _add_dir(target: str) -> str:
    """The fix of a missing include spelled with a path no directory of the project holds."""
    return (f"add the directory holding {target.split('/')[0]}/ with -I DIR (DIR such that DIR/{target} exists) "
            "or [tool.opgen] include_dirs")


def _skip_hint(target: str) -> str:
    return (f"  hint: {_add_dir(target)}; or skip another library's header silently: [tool.opgen] "
            f'external_includes = ["{target.split("/")[0]}/*"]')


def test_strict_includes_makes_each_missing_header_one_error(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(VISION)
    out = tmp_path / "ops.pbtxt"
    assert main(["oplist", ".", "--strict-includes", "-o", str(out)]) == 2
    at = "vision_ops/cc/ops/image_ops.cc"
    searched = "(searched: vision_ops/cc/ops, vision_ops/cc, vision_ops, .)"
    targets = ["re2/re2.h", "grpcpp/grpcpp.h", "common_lib/status_macros.h", "vision_ops/cc/proto/config.pb.h"]
    assert capsys.readouterr().err.splitlines() == [
        *(f'{at}:{line}:10: error: cannot find include file "{target}" {searched}; {_add_dir(target)}'
          for line, target in enumerate(targets, 6)),
        "4 errors in 1 file",
    ]
    assert not out.exists()


def test_strict_includes_config_key_and_include_dirs(tmp_path, monkeypatch, capsys):
    """`strict_includes = true` in [tool.opgen] is --strict-includes; with the include
    directories the compiler gets, strict gathering succeeds and gives the same ops."""
    (tmp_path / "pyproject.toml").write_text("[tool.opgen]\nstrict_includes = true\n")
    monkeypatch.chdir(tmp_path)
    assert main(["oplist", str(VISION), "-o", str(tmp_path / "strict.pbtxt")]) == 2
    assert capsys.readouterr().err.endswith("4 errors in 1 file\n")
    include_flags = [f"-I{d}" for d in (PROJECTS, PROJECTS / "_build_deps")]
    assert main(["oplist", str(VISION), *include_flags, "-o", str(tmp_path / "strict.pbtxt")]) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "strict.pbtxt").read_bytes() == dump_op_list(gather([str(VISION)]).op_list, "pbtxt")
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nstrict_includes = "yes"\n')
    assert main(["oplist", str(VISION)]) == 2
    assert "[tool.opgen] strict_includes must be true or false" in capsys.readouterr().err


_FEATURE_OPS = """#include "feature_config.h"
#if HAVE_FANCY_OP && !defined(NOPE) && GOOGLE_CUDA == 0 && __GNUC__ + 1
REGISTER_OP("Fancy").Output("y: float");
#elif defined(LEGACY) && LEGACY > 2
REGISTER_OP("Legacy");
#endif
#if FEATURE_LEVEL >= 2
REGISTER_OP("Level2");
#endif
REGISTER_OP("Plain");
"""


def _feature_project(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "pyproject.toml").write_text("[tool.opgen]\n")
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "feature_ops.cc").write_text(_FEATURE_OPS)
    (tmp_path / "deps").mkdir()
    (tmp_path / "deps" / "feature_config.h").write_text("#define HAVE_FANCY_OP 1\n#define FEATURE_LEVEL 3\n")
    return tmp_path / "ops" / "feature_ops.cc", tmp_path / "deps"


def test_if_name_a_missing_include_may_define_is_warned(monkeypatch, capsys, tmp_path):
    """A macro only tested in #if/#elif reads as 0 when the header defining it is missing:
    a located warning naming the include (not for names `defined` tests, the build's
    configuration macros or the compiler's reserved names); --strict-includes: an error."""
    _src, _ = _feature_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["oplist", "ops", "-o", "ops.pbtxt"]) == 0
    hint = ('  hint: likely cause: "feature_config.h" (ops/feature_ops.cc:1:10) was not found and may define '
            "'{}'; add -I deps (it holds feature_config.h) or [tool.opgen] include_dirs")
    assert capsys.readouterr().err.splitlines() == [
        'ops/feature_ops.cc:1:10: warning: cannot find include file "feature_config.h" (searched: ops, .); skipped',
        "ops/feature_ops.cc:2:5: warning: 'HAVE_FANCY_OP' is not defined and reads as 0 in #if",
        hint.format("HAVE_FANCY_OP"),
        # (`defined(LEGACY)` says LEGACY is optional, not the missing header's: its skip is a note)
        "ops/feature_ops.cc:4:15: note: 'LEGACY' is not defined, so this conditional skips 1 registration",
        "  hint: -D LEGACY=3 (or what the build passes), or [tool.opgen] defines",
        "ops/feature_ops.cc:7:5: warning: 'FEATURE_LEVEL' is not defined and reads as 0 in #if",
        hint.format("FEATURE_LEVEL"),
    ]
    assert main(["oplist", "ops", "--strict-includes", "-o", "strict.pbtxt"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "ops/feature_ops.cc:2:5: error: 'HAVE_FANCY_OP' is not defined and reads as 0 in #if" in err
    assert "ops/feature_ops.cc:7:5: error: 'FEATURE_LEVEL' is not defined and reads as 0 in #if" in err
    assert err[-1] == "3 errors in 1 file, 1 warning" and not (tmp_path / "strict.pbtxt").exists()


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_if_names_with_the_header_found_match_gxx(monkeypatch, capsys, tmp_path):
    """Differential: with the header's directory given, no warning, and the ops g++ -E keeps."""
    src, deps = _feature_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    ours = [op.name for op in gather([str(src)], include_dirs=[str(deps)]).op_list.op]
    assert capsys.readouterr().err == ""
    expanded = subprocess.run(["g++", "-E", "-P", "-x", "c++", "-std=c++17", f"-I{deps}", str(src)],
                              capture_output=True, text=True, check=True).stdout
    (tmp_path / "gxx.cc").write_text(expanded)
    assert ours == [op.name for op in gather([str(tmp_path / "gxx.cc")]).op_list.op] == ["Fancy", "Level2", "Plain"]
    assert [op.name for op in gather([str(src)]).op_list.op] == ["Plain"]  # the header missing: read as 0
