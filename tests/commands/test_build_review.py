"""`opgen build --check` / `--diff` for review: on TensorFlow 2.21's registry (1908 ops), a
one-op change is a few lines of `--check` and a small, local diff that `git apply` takes from
the project root (each op's OpDef is serialized next to its function, wrapped to 88 columns)."""

from __future__ import annotations

import subprocess

import pytest

from opgen.cli import main
from opgen_runtime.proto import attr_value_pb2

pytestmark = pytest.mark.oracle


@pytest.fixture(scope="module")
def tf_project(tmp_path_factory):
    from oracle.tf_registry import tf_op_list

    root = tmp_path_factory.mktemp("tfproj")
    op_list = tf_op_list()
    (root / "ops").mkdir()
    (root / "ops" / "tf_ops.pb").write_bytes(op_list.SerializeToString(deterministic=True))
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops/tf_ops.pb"]\nout = "gen"\nformatter = "ruff"\n')
    return root, op_list


def test_one_op_change_on_tf_registry_is_small_and_applies(tf_project, monkeypatch, capsys):
    root, op_list = tf_project
    monkeypatch.chdir(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / "cache"))
    assert main(["build"]) == 0
    assert main(["build", "--check"]) == 0
    capsys.readouterr()
    changed = type(op_list)()
    changed.CopyFrom(op_list)
    mat_mul = next(op for op in changed.op if op.name == "MatMul")
    attr = next(a for a in mat_mul.attr if a.name == "transpose_a")
    attr.default_value.CopyFrom(attr_value_pb2.AttrValue(b=True))
    (root / "ops" / "tf_ops.pb").write_bytes(changed.SerializeToString(deterministic=True))

    assert main(["build", "--check"]) == 1
    said = capsys.readouterr()
    lines = said.out.splitlines() + said.err.splitlines()
    assert said.out.splitlines() == ["would rewrite gen/gen_tf_ops.py"]
    assert len(lines) <= 10, lines

    assert main(["build", "--check", "--diff"]) == 1
    diff = capsys.readouterr().out
    assert len(diff.splitlines()) <= 200, diff
    assert "+++ b/gen/gen_tf_ops.py" in diff and "+    transpose_a: bool = True," in diff
    r = subprocess.run(["git", "apply", "--check", "-"], input=diff, cwd=root, capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
    (root / "ops" / "tf_ops.pb").write_bytes(op_list.SerializeToString(deterministic=True))


def test_a_rebuild_after_one_op_changed_writes_what_a_clean_build_writes(tf_project, monkeypatch, capsys):
    """`opgen build` after one op changed puts that op's chunk into the module it wrote before
    (`Renderer.rerender`); a build from an empty cache finds nothing to change."""
    from opgen.render import build

    root, op_list = tf_project
    monkeypatch.chdir(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / "cache"))
    assert main(["build", "--quiet"]) == 0
    changed = type(op_list)()
    changed.CopyFrom(op_list)
    mat_mul = next(op for op in changed.op if op.name == "MatMul")
    mat_mul.summary = "Multiplies two matrices, at length."
    next(a for a in mat_mul.attr if a.name == "transpose_b").default_value.CopyFrom(attr_value_pb2.AttrValue(b=True))
    (root / "ops" / "tf_ops.pb").write_bytes(changed.SerializeToString(deterministic=True))
    rerendered = []
    rerender = build.Renderer.rerender

    def recording(self, *args, **kwargs):
        result = rerender(self, *args, **kwargs)
        rerendered.append(result is not None)
        return result

    with monkeypatch.context() as m:
        m.setattr(build.Renderer, "rerender", recording)
        assert main(["build", "--quiet"]) == 0
    assert rerendered == [True]
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / "empty-cache"))
    assert main(["build", "--check"]) == 0, capsys.readouterr()
    (root / "ops" / "tf_ops.pb").write_bytes(op_list.SerializeToString(deterministic=True))


@pytest.mark.parametrize("aligned", [True, False])
@pytest.mark.parametrize("changed_op", [1, 7])
def test_diff_of_a_snapshot_full_of_repeated_lines_applies(tmp_path, monkeypatch, capsys, changed_op, aligned):
    """A default changed in the last of 8 like ops changes API.md among lines repeated in
    every op's JSON (`{`, `],`): each hunk keeps its trailing context, so `git apply` takes
    the diff (it rejected one whose hunk ended without context as anchored at the file's end)
    and the tree it leaves is what `opgen build` writes; also as one hunk per changed window,
    as a window too big to align is diffed."""
    from opgen.outputs import diff_writer

    if not aligned:
        monkeypatch.setattr(diff_writer, "_ALIGN_LIMIT", 0)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "ops").mkdir()
    ops = "".join(f'REGISTER_OP("Op{i}").Input("x: float").Output("y: float").Attr("flag: bool = false");\n'
                  for i in range(8))
    (tmp_path / "ops" / "my_ops.cc").write_text(ops)
    (tmp_path / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\nout = "gen"\napi = "gen/API.md"\n')
    assert main(["build", "--quiet"]) == 0
    lines = ops.splitlines(keepends=True)
    lines[changed_op] = lines[changed_op].replace("bool = false", "bool = true")
    (tmp_path / "ops" / "my_ops.cc").write_text("".join(lines))
    capsys.readouterr()
    assert main(["build", "--diff"]) == 0  # prints the changes, writes nothing
    diff = capsys.readouterr().out
    assert "+++ b/gen/API.md" in diff and main(["build", "--check"]) == 1
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    r = subprocess.run(["git", "apply", "-"], input=diff, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert main(["build", "--check"]) == 0
