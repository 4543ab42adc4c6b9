"""Review without churn: a comment added to an op, kernel or override file changes no committed
output (`opgen build --check` passes, `opgen diff` reports nothing), on the example project and
on a project with its kernels in a file of their own; a real change after such comments is
still located by `opgen diff` at the line that changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.paths import REPO

from opgen.cli import main

OPS = """\
#include "tensorflow/core/framework/op.h"
REGISTER_OP("Scale")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("factor: float = 2.0");
"""
KERNELS = """\
#include "tensorflow/core/framework/op_kernel.h"
REGISTER_KERNEL_BUILDER(Name("Scale").Device(DEVICE_CPU).TypeConstraint<float>("T"), ScaleOp<float>);
REGISTER_KERNEL_BUILDER(Name("Scale").Device(DEVICE_GPU).TypeConstraint<float>("T"), ScaleOp<float>);
"""


def _insert_comment(path: Path, before_line: int) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    comment = "# a reviewer's note\n" if path.suffix == ".pbtxt" else "// a reviewer's note\n"
    path.write_text("".join([*lines[:before_line - 1], comment, *lines[before_line - 1:]]), encoding="utf-8")


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if text in line)


def _check_and_diff_are_quiet(root: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(root)
    assert main(["build", "--check"]) == 0, capsys.readouterr()
    capsys.readouterr()
    assert main(["diff", "generated/API.md", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["changes"] == []


def _committed(out: Path) -> dict[Path, bytes]:
    """The output tree without opgen's uncommitted bookkeeping (`.opgen-*`, git-ignored)."""
    return {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and not p.name.startswith(".opgen-")}


@pytest.fixture
def example_copy(tmp_path):
    """The example project (op_specs/, overrides/, templates/, its committed generated/)."""
    root = tmp_path / "example"
    for name in ("op_specs", "overrides", "templates", "generated"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns(".opgen-*"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def test_comments_in_the_example_project_change_no_committed_file(example_copy, monkeypatch, capsys):
    monkeypatch.chdir(example_copy)
    assert main(["build", "--check"]) == 0, capsys.readouterr()  # the committed tree is current
    ops = example_copy / "op_specs"
    _insert_comment(ops / "array_ops.cc", 1)
    _insert_comment(ops / "math_ops.cc", _line_of(ops / "math_ops.cc", "REGISTER_OP("))
    _insert_comment(ops / "custom_ops.cc", _line_of(ops / "custom_ops.cc", "#define REGISTER_CLAMP"))
    _insert_comment(ops / "custom_ops.cc", _line_of(ops / "custom_ops.cc", "TF_CALL_int32(REGISTER_RUNNING_SUM)"))
    _insert_comment(ops / "custom_ops.cc", 1)
    _insert_comment(example_copy / "overrides" / "array_ops.pbtxt", 1)
    before = _committed(example_copy / "generated")
    _check_and_diff_are_quiet(example_copy, monkeypatch, capsys)
    assert main(["build"]) == 0
    assert _committed(example_copy / "generated") == before


def test_comments_in_op_and_kernel_files_change_no_committed_file(tmp_path, monkeypatch, capsys):
    root = tmp_path / "project"
    (root / "cc").mkdir(parents=True)
    (root / "cc" / "scale_ops.cc").write_text(OPS)
    (root / "cc" / "scale_kernels.cc").write_text(KERNELS)
    (root / "overrides").mkdir()
    (root / "overrides" / "scale.pbtxt").write_text('op {\n  name: "Scale"\n  alias: "Rescale"\n}\n')
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["cc"]\noverrides = "overrides"\n'
                                         'out = "generated"\napi = "generated/API.md"\n')
    monkeypatch.chdir(root)
    assert main(["build"]) == 0
    assert "GPU" in (root / "generated" / "API.md").read_text()  # the kernels are part of the snapshot
    ops, kernels = root / "cc" / "scale_ops.cc", root / "cc" / "scale_kernels.cc"
    _insert_comment(ops, 2)
    _insert_comment(ops, 5)
    _insert_comment(kernels, 2)
    _insert_comment(root / "overrides" / "scale.pbtxt", 1)
    _check_and_diff_are_quiet(root, monkeypatch, capsys)

    # a real change: located at the line that changed, in the commented sources
    ops.write_text(ops.read_text().replace("factor: float = 2.0", "factor: float = 3.0"))
    kernels.write_text(
        kernels.read_text().replace(  # int32 on CPU now, no GPU kernel any more
            'Device(DEVICE_GPU).TypeConstraint<float>("T"), ScaleOp<float>',
            'Device(DEVICE_CPU).TypeConstraint<int32>("T"), ScaleOp<int>',
        )
    )
    assert main(["build", "--check"]) == 1
    capsys.readouterr()
    assert main(["diff", "generated/API.md", "--format", "json", "--allow-breaking"]) == 0
    where = {c["rule"]: c["location"] for c in json.loads(capsys.readouterr().out)["changes"]}
    attr_line = _line_of(ops, "factor: float = 3.0")
    assert where["default_changed"] == f"cc/scale_ops.cc:{attr_line}:6"
    assert where["param_default_changed"] == f"cc/scale_ops.cc:{attr_line}:6"
    assert where["device_removed"] == f"cc/scale_ops.cc:{_line_of(ops, 'REGISTER_OP')}:1"
    # the first kernel accepting the new type (trial37 #6: not the device's first kernel)
    assert where["types_widened"] == f"cc/scale_kernels.cc:{_line_of(kernels, 'TypeConstraint<int32>')}:1"


@pytest.mark.parametrize("subdir", ["op_specs", "generated", "overrides/api_def"])
def test_a_build_from_a_subdirectory_writes_the_same_bytes(example_copy, monkeypatch, capsys, subdir):
    """trial13 #1: module headers and the source map name sources relative to the project
    root, not the working directory: `opgen build --check` passes from any folder of the
    project, and a build there rewrites nothing."""
    before = _committed(example_copy / "generated")
    monkeypatch.chdir(example_copy / subdir)
    assert main(["build", "--check"]) == 0, capsys.readouterr()
    assert main(["build"]) == 0
    assert _committed(example_copy / "generated") == before


def test_display_path_follows_the_working_directory(tmp_path, monkeypatch):
    """One relative path names another file from another working directory: the cached
    display path is per working directory."""
    from opgen.render.build import display_path

    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    assert display_path("a.cc", tmp_path) == "a.cc"
    monkeypatch.chdir(tmp_path / "sub")
    assert display_path("a.cc", tmp_path) == "sub/a.cc"
