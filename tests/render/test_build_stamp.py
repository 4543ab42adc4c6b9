"""The build stamp (`opgen.render.formatter.BuildStamp`): a build whose inputs are those of the
last build into the same tree, whose files are unchanged, renders nothing; one where only a few
ops changed renders their chunks into the old files (`Renderer.rerender`), byte for byte what a
clean build writes; anything else renders whole."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import REPO
from test_render_hypothesis import random_op  # the random OpDef corpus

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
    """The builds `Renderer.render` rendered whole ("render") or `Renderer.rerender` rendered
    into the old files ("rerender"), in order (the session's recorder patch still records)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls: list[str] = []
    render, rerender = build.Renderer.render, build.Renderer.rerender

    def counting_render(self, *args, **kwargs):
        calls.append("render")
        return render(self, *args, **kwargs)

    def counting_rerender(self, *args, **kwargs):
        result = rerender(self, *args, **kwargs)
        if result is not None:
            calls.append("rerender")
        return result

    monkeypatch.setattr(build.Renderer, "render", counting_render)
    monkeypatch.setattr(build.Renderer, "rerender", counting_rerender)
    return calls


def _build(out: Path, gathered: GatherResult, formatter: str = "ruff") -> build.RenderResult:
    opts = build.BuildOptions(out=out, templates=None, formatter=formatter, jobs=1, modules={}, root=REPO,
                              config_location=Location("pyproject.toml"))
    result = build.render_tree(gathered, ApiModel({}), opts)
    commit(out, compute_changes(out, result.files, result.hex_digests(), result.stale))  # as `opgen build`
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


def _clean(tmp_path: Path, gathered: GatherResult, formatter: str = "ruff") -> dict[str, bytes]:
    """What a build from nothing writes (a fresh output tree, no cache)."""
    opts = build.BuildOptions(out=tmp_path / "clean", templates=None, formatter=formatter, jobs=1, modules={},
                              root=REPO, config_location=Location("pyproject.toml"))
    return build.render_tree(gathered, ApiModel({}), opts, write_cache=False).files


def test_a_changed_op_is_rendered_into_the_old_file(tmp_path, renders):
    out = tmp_path / "out"
    _build(out, _gathered())
    changed = _build(out, _gathered(summary="Adds them, and says so at length."))
    assert renders == ["render", "rerender"]
    assert changed.files == _clean(tmp_path, _gathered(summary="Adds them, and says so at length."))
    assert b"says so at length" in (out / "gen_ops.py").read_bytes()
    _build(out, _gathered(summary="Adds them, and says so at length.", line=7))  # a moved REGISTER_OP: its location
    assert renders[-1] == "render"
    _build(out, _gathered(summary="Adds them, and says so at length.", line=7), formatter="black")  # another pack
    assert renders[-1] == "render"


def test_a_rerendered_file_is_written_without_reading_it_again(tmp_path, renders, monkeypatch):
    out = tmp_path / "out"
    first = _build(out, _gathered(summary="Adds one."))
    assert first.stale == frozenset()
    module = out / "gen_ops.py"
    read_bytes = Path.read_bytes

    def unread_module(path: Path) -> bytes:
        assert path != module, "the comparison read the module rerender knew to be changed"
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", unread_module)
    changed = _build(out, _gathered(summary="Adds two."))  # the same size: only `stale` tells it differs
    assert renders == ["render", "rerender"] and changed.stale == {"gen_ops.py"}
    assert changed.files == _clean(tmp_path, _gathered(summary="Adds two."))
    assert read_bytes(module) == changed.files["gen_ops.py"] and len(changed.files["gen_ops.py"]) == len(
        first.files["gen_ops.py"])


def test_a_file_changed_by_hand_is_rendered_again(tmp_path, renders):
    out = tmp_path / "out"
    first = _build(out, _gathered())
    module = out / "gen_ops.py"
    module.write_bytes(module.read_bytes() + b"# edited\n")
    again = _build(out, _gathered())
    assert renders == ["render", "render"] and again.files == first.files
    assert module.read_bytes() == first.files["gen_ops.py"]
    module.unlink()
    _build(out, _gathered())
    assert renders == ["render"] * 3 and module.read_bytes() == first.files["gen_ops.py"]


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


def _edits(ops: op_def_pb2.OpList) -> list[tuple[str, Callable[[op_def_pb2.OpList], None]]]:
    """Edits a rebuild meets, each on top of the ones before: docs, a default, a new attr, a
    new type attr (its summary changes: a whole render), several ops at once, the first and the
    last op, a chunk that shrinks, and one undone."""
    with_default = next(i for i, op in enumerate(ops.op) if any(a.HasField("default_value") for a in op.attr))

    def summary(i: int, text: str) -> Callable[[op_def_pb2.OpList], None]:
        return lambda ol: setattr(ol.op[i], "summary", text)

    def default(ol: op_def_pb2.OpList) -> None:
        attr = next(a for a in ol.op[with_default].attr if a.HasField("default_value"))
        attr.description = "A default that says more."

    def new_attr(ol: op_def_pb2.OpList) -> None:
        attr = ol.op[7].attr.add(name="new_flag", type="bool")
        attr.default_value.b = True

    def new_type_attr(ol: op_def_pb2.OpList) -> None:  # a new TypeVar: the summary changes
        ol.op[9].attr.add(name="T_extra", type="type")
        ol.op[9].input_arg.add(name="extra", type_attr="T_extra")

    def several(ol: op_def_pb2.OpList) -> None:
        for i in range(10, 60, 7):
            ol.op[i].description = f"Edited description #{i}."

    def shrink(ol: op_def_pb2.OpList) -> None:
        del ol.op[with_default].attr[:]

    return [("summary", summary(0, "A longer summary for the first op of the list.")), ("default", default),
            ("new attr", new_attr), ("new type attr", new_type_attr), ("several", several),
            ("last", summary(-1, "The last op, edited.")), ("shrink", shrink), ("undo", summary(0, ops.op[0].summary))]


@pytest.mark.oracle
def test_rebuilds_after_edits_write_what_a_clean_build_writes(tmp_path, renders):
    """Differential: TF ops (200 of the registry's), edited one step at a time; each rebuild
    (the few-ops path when it applies) gives exactly a clean build's files."""
    from oracle.tf_registry import tf_op_list

    ops = op_def_pb2.OpList(op=list(tf_op_list().op)[:200])
    out = tmp_path / "out"
    _build(out, GatherResult(ops, {}))
    paths = []
    for name, edit in _edits(ops):
        edit(ops)
        renders.clear()
        result = _build(out, GatherResult(ops, {}))
        paths.append((name, *renders))
        assert result.files == _clean(tmp_path, GatherResult(ops, {})), name
    assert paths == [("summary", "rerender"), ("default", "rerender"), ("new attr", "rerender"),
                     ("new type attr", "render"), ("several", "rerender"), ("last", "rerender"),
                     ("shrink", "rerender"), ("undo", "rerender")]


def test_a_serialized_oplist_splits_into_its_ops():
    ops = _gathered().op_list
    ops.op[0].attr.add(name="big", type="string").default_value.s = b"x" * 300  # a two-byte length
    serialized = ops.SerializeToString(deterministic=True)
    assert [bytes(e) for e in build._op_list_entries(serialized)] == [
        op.SerializeToString(deterministic=True) for op in ops.op]
    # a field OpList does not define (kept from an OpList file): no split, the caller serializes each op
    assert build._op_list_entries(serialized + b"\x12\x01x") == []
    assert build._op_list_entries(serialized[:-1]) == []


@given(st.integers(min_value=0, max_value=2**32))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_random_edits_rebuild_to_what_a_clean_build_writes(tmp_path_factory, seed):
    """Differential on the random OpDef corpus: ops replaced by others of the same name (a new
    summary: a whole render, mostly) or given new docs (the few-ops path), a few at a time; every
    rebuild writes exactly what a clean build writes."""
    rnd = random.Random(seed)
    tmp = tmp_path_factory.mktemp("stamp")
    ops = op_def_pb2.OpList(op=[random_op(rnd) for _ in range(16)])
    with pytest.MonkeyPatch.context() as m:
        m.setenv("XDG_CACHE_HOME", str(tmp / "cache"))
        _build(tmp / "out", GatherResult(ops, {}))
        for _ in range(4):
            for i in rnd.sample(range(len(ops.op)), rnd.randint(1, 3)):
                if rnd.random() < 0.5:
                    ops.op[i].description = random_op(rnd).description
                else:
                    new = random_op(rnd)
                    new.name = ops.op[i].name
                    ops.op[i].CopyFrom(new)
            result = _build(tmp / "out", GatherResult(ops, {}))
            assert result.files == _clean(tmp, GatherResult(ops, {}))
