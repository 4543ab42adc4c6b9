"""The build stamp (`opgen.render.formatter.BuildStamp`): a build whose inputs are those of the
last build into the same tree, whose files are unchanged, renders nothing; anything else renders."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import REPO

from opgen.errors import Location
from opgen.model import GatherResult, OpSource
from opgen.outputs.tree_writer import commit, compute_changes
from opgen.overrides.apidef import ApiModel
from opgen.render import build
from opgen_runtime.proto import op_def_pb2


def _gathered(summary: str = "Adds.", line: int = 1) -> GatherResult:
    ops = op_def_pb2.OpList()
    add = ops.op.add(name="AddThem", summary=summary)
    add.input_arg.add(name="x", type=1)
    add.output_arg.add(name="y", type=1)
    ops.op.add(name="Print")  # a reserved name: its warning comes with every build
    return GatherResult(ops, {op.name: OpSource(Location("specs/ops.cc", line + i)) for i, op in enumerate(ops.op)})


@pytest.fixture
def renders(monkeypatch, tmp_path):
    """How many times `Renderer.render` ran (the session's recorder patch still records)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = []
    render = build.Renderer.render

    def counting(self, *args, **kwargs):
        calls.append(args[0].keys())
        return render(self, *args, **kwargs)

    monkeypatch.setattr(build.Renderer, "render", counting)
    return calls


def _build(out: Path, gathered: GatherResult, formatter: str = "ruff") -> build.RenderResult:
    opts = build.BuildOptions(out=out, templates=None, formatter=formatter, jobs=1, modules={}, root=REPO,
                              config_location=Location("pyproject.toml"))
    result = build.render_tree(gathered, ApiModel({}), opts)
    commit(out, compute_changes(out, result.files))
    return result


def test_same_inputs_render_nothing_and_give_the_same_files(tmp_path, renders, capsys):
    out = tmp_path / "out"
    first = _build(out, _gathered())
    assert len(renders) == 1 and "gets no Python function" in capsys.readouterr().err
    again = _build(out, _gathered())
    assert len(renders) == 1  # the stamp matched: nothing rendered
    assert again.files == first.files and again.modules == first.modules and again.ops == 2
    assert again.formatted == 0
    assert "gets no Python function" in capsys.readouterr().err  # warned again, as every build does


def test_a_changed_input_renders(tmp_path, renders):
    out = tmp_path / "out"
    _build(out, _gathered())
    changed = _build(out, _gathered(summary="Adds them."))
    assert len(renders) == 2
    assert b"Adds them." in changed.files["gen_ops.py"]
    _build(out, _gathered(summary="Adds them.", line=7))  # a moved REGISTER_OP: its warning's location
    assert len(renders) == 3
    _build(out, _gathered(summary="Adds them.", line=7), formatter="black")  # another formatter
    assert len(renders) == 4


def test_a_file_changed_by_hand_is_rendered_again(tmp_path, renders):
    out = tmp_path / "out"
    first = _build(out, _gathered())
    module = out / "gen_ops.py"
    module.write_bytes(module.read_bytes() + b"# edited\n")
    again = _build(out, _gathered())
    assert len(renders) == 2 and again.files == first.files
    assert module.read_bytes() == first.files["gen_ops.py"]
    module.unlink()
    _build(out, _gathered())
    assert len(renders) == 3 and module.read_bytes() == first.files["gen_ops.py"]


def test_a_stamp_not_sealed_by_this_user_is_ignored(tmp_path, renders):
    out = tmp_path / "out"
    _build(out, _gathered())
    [stamp] = (tmp_path / "cache" / "opgen" / "format").glob("*.stamp")
    data = bytearray(stamp.read_bytes())
    data[-1] ^= 1
    stamp.write_bytes(bytes(data))
    _build(out, _gathered())
    assert len(renders) == 2


def test_a_symlink_in_place_of_an_output_is_not_read(tmp_path, renders):
    out = tmp_path / "out"
    first = _build(out, _gathered())
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_bytes(first.files["gen_ops.py"])
    (out / "gen_ops.py").unlink()
    (out / "gen_ops.py").symlink_to(elsewhere)
    with pytest.raises(Exception, match="symlink"):  # the comparison refuses it, as without a stamp
        _build(out, _gathered())
    assert len(renders) == 2
