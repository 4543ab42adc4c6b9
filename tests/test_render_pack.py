"""The chunk cache pack (`opgen.render.formatter.ChunkFormatter.save_pack`/`load_pack`) and
the forked rendering of big batches (`opgen.render.build.Renderer._render_ops`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.apidef import ApiModel
from opgen.errors import Location, OpgenError
from opgen.proto import op_def_pb2
from opgen.render import build, emit
from opgen.render.formatter import ChunkFormatter
from opgen.spec.model import OpSource

PACK = "/some/out\0ruff"


def _formatter(tmp_path: Path) -> ChunkFormatter:
    return ChunkFormatter("ruff", 1, cache_dir=tmp_path)


def _texts(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "format").glob("*.text"))


def _entries(n: int, tag: str = "") -> dict[str, tuple[object, bytes]]:
    """Chunks keyed by content, as the renderer keys them."""
    return {f"op:{tag}{i}": ((f"Op{i}", i), f"def op{i}():  # {tag} é\n    pass\n".encode()) for i in range(n)}


def test_pack_round_trip_keeps_summaries_and_utf8_text(tmp_path):
    fmt = _formatter(tmp_path)
    entries = _entries(5)
    fmt.save_pack(PACK, entries)
    pack = fmt.load_pack(PACK)
    assert {key: pack.get(key) for key in entries} == entries
    assert pack.get("op:missing") is None


def test_small_change_appends_to_the_text_file(tmp_path):
    """A changed chunk is appended (the text file only grows, under the same name); the old
    chunks keep their offsets, the dropped one is no longer in the index."""
    fmt = _formatter(tmp_path)
    entries = _entries(10)
    fmt.save_pack(PACK, entries)
    [text] = _texts(tmp_path)
    before = text.read_bytes()
    changed = {**entries, "op:new": (("New", 99), b"def new():\n    pass\n")}
    del changed["op:3"]
    fmt.save_pack(PACK, changed, base=fmt.load_pack(PACK))
    assert _texts(tmp_path) == [text]
    assert text.read_bytes() == before + b"def new():\n    pass\n"
    pack = fmt.load_pack(PACK)
    assert {key: pack.get(key) for key in changed} == changed
    assert pack.get("op:3") is None


def test_pack_is_rewritten_once_dropped_text_outweighs_live_text(tmp_path):
    fmt = _formatter(tmp_path)
    fmt.save_pack(PACK, _entries(10, "old, longer"))
    [old_text] = _texts(tmp_path)
    entries = _entries(10, "new")  # every chunk changed: the old text is all dropped
    fmt.save_pack(PACK, entries, base=fmt.load_pack(PACK))
    [new_text] = _texts(tmp_path)
    assert new_text != old_text  # a new generation; the old one is removed
    assert new_text.read_bytes() == b"".join(text for _, text in entries.values())
    pack = fmt.load_pack(PACK)
    assert {key: pack.get(key) for key in entries} == entries


def test_pack_whose_text_is_gone_or_short_loads_empty(tmp_path):
    """An index pointing at removed or truncated text (a concurrent build rewrote the pack, or
    a crash) gives no chunks, never wrong ones; the next save starts a new text file."""
    fmt = _formatter(tmp_path)
    fmt.save_pack(PACK, _entries(4))
    [text] = _texts(tmp_path)
    text.write_bytes(text.read_bytes()[:-1])
    assert fmt.load_pack(PACK).index == {}
    base = fmt.load_pack(PACK)
    text.unlink()
    fmt.save_pack(PACK, _entries(4), base=base)
    pack = fmt.load_pack(PACK)
    assert pack.get("op:2") == _entries(4)["op:2"]


def test_append_to_a_removed_text_file_starts_a_new_one(tmp_path):
    """A build whose loaded pack was rewritten meanwhile by another one does not recreate the
    removed text file under its old name (its offsets would point at the wrong text)."""
    fmt = _formatter(tmp_path)
    fmt.save_pack(PACK, _entries(10))
    base = fmt.load_pack(PACK)
    [text] = _texts(tmp_path)
    text.unlink()
    entries = {**_entries(10), "op:new": (("New", 1), b"x = 1\n")}
    fmt.save_pack(PACK, entries, base=base)
    assert not text.exists()
    pack = fmt.load_pack(PACK)
    assert {key: pack.get(key) for key in entries} == entries


def test_old_pack_format_is_ignored(tmp_path):
    import marshal

    fmt = _formatter(tmp_path)
    path = fmt._pack_path(PACK)
    path.parent.mkdir(parents=True)
    path.write_bytes(marshal.dumps(("def f(): pass\n", {"op:1": (None, 0, 14)})))
    assert fmt.load_pack(PACK).index == {}


def _ops(n: int, bad: int | None = None) -> list[op_def_pb2.OpDef]:
    ops = []
    for i in range(n):
        op = op_def_pb2.OpDef(name=f"Op{i:03d}")
        op.input_arg.add(name="x", type=1)
        op.output_arg.add(name="y", type=1)
        if i == bad:
            op.input_arg[0].name = "bad name"
        ops.append(op)
    return ops


def _renderer(jobs: int) -> build.Renderer:
    return build.Renderer(emit.Templates.load(None), ChunkFormatter("ruff", jobs), ApiModel({}), Path("."))


def test_forked_rendering_matches_rendering_in_process():
    ops = _ops(300)
    parallel = _renderer(3)._render_ops(ops, {})
    serial = _renderer(1)._render_ops(ops, {})
    assert parallel == serial
    assert [summary.op_name for summary, *_ in parallel] == [op.name for op in ops]


@pytest.mark.parametrize("bad", [0, 1, 299])  # rendered by this process, by a worker, by the last worker
def test_forked_rendering_error_points_at_the_op(bad):
    ops = _ops(300, bad)
    sources = {op.name: OpSource(Location("ops.pbtxt", i + 1)) for i, op in enumerate(ops)}
    with pytest.raises(OpgenError) as info:
        _renderer(3)._render_ops(ops, sources)
    assert info.value.location == Location("ops.pbtxt", bad + 1)
    assert f"Op{bad:03d}" in str(info.value)


def test_builds_appending_to_one_pack_meanwhile_each_record_their_own_offsets(tmp_path):
    """Two builds load the same pack, then each appends its new chunk: the index written last
    points at its own chunk (after the other build's), never at the other's text."""
    fmt = _formatter(tmp_path)
    entries = _entries(10)
    fmt.save_pack(PACK, entries)
    first, second = fmt.load_pack(PACK), fmt.load_pack(PACK)
    fmt.save_pack(PACK, {**entries, "op:a": (("A", 1), b"a = 1\n")}, base=first)
    mine = {**entries, "op:b": (("B", 2), b"b = 22\n")}
    fmt.save_pack(PACK, mine, base=second)
    [text] = _texts(tmp_path)
    assert text.read_bytes().endswith(b"a = 1\nb = 22\n")
    pack = fmt.load_pack(PACK)
    assert {key: pack.get(key) for key in mine} == mine
    assert pack.get("op:a") is None
