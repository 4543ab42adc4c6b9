"""The chunk cache pack (`opgen.render.formatter.ChunkFormatter.save_pack`/`load_pack`) and
the forked rendering of big batches (`opgen.render.build.Renderer._render_ops`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import REPO

from opgen.errors import Location
from opgen.model import OpSource
from opgen.overrides.apidef import ApiModel
from opgen.render import build, emit
from opgen.render.formatter import ChunkFormatter
from opgen_runtime.proto import op_def_pb2

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


def _ops(n: int, bad: tuple[int, ...] | list[int] = ()) -> list[op_def_pb2.OpDef]:
    ops = []
    for i in range(n):
        op = op_def_pb2.OpDef(name=f"Op{i:03d}")
        op.input_arg.add(name="x", type=1)
        op.output_arg.add(name="y", type=1)
        if i in bad:
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
    assert parallel[1] == []
    assert [rendered[0].op_name for rendered in parallel[0] if rendered] == [op.name for op in ops]


@pytest.mark.parametrize("jobs", [1, 3])
def test_rendering_errors_of_all_ops_point_at_each_op(jobs):
    """Every op in error is reported, located at its op, whichever process rendered it (this
    one, a worker, the last worker), and the other ops are rendered."""
    bad = [0, 1, 299]
    ops = _ops(300, bad)
    sources = {op.name: OpSource(Location("ops.pbtxt", i + 1)) for i, op in enumerate(ops)}
    rendered, errors = _renderer(jobs)._render_ops(ops, sources)
    assert [e.location for e in errors] == [Location("ops.pbtxt", i + 1) for i in bad]
    assert all(f"Op{i:03d}" in str(e) for i, e in zip(bad, errors))
    assert [i for i, item in enumerate(rendered) if item is None] == bad


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


# ------------------------------------------------------------- a cache nobody may trust


def _cli_project(tmp_path: Path, monkeypatch) -> Path:
    import shutil

    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    shutil.copy(REPO / "op_specs" / "math_ops.cc", root / "specs")
    shutil.copy(REPO / "op_specs" / "common_macros.h", root / "specs")
    (root / "pyproject.toml").write_text(
        '[tool.opgen]\ncore_ops = ["*"]\nsources = ["specs"]\nout = "gen"\noverrides = ""\n'
    )
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(root)
    return root


PAYLOAD = b'import os; os.system("touch PWNED")\n'


@pytest.mark.parametrize("attack", ["text", "swap", "forged"])
def test_a_poisoned_chunk_cache_never_reaches_a_module(tmp_path, monkeypatch, capsys, attack):
    """Chunk text altered in the pack (`text`), entries' digests swapped under the index's seal (`swap`), or a pack
    written whole by someone without this user's cache key (`forged`, e.g. a CI cache restored
    from another job): every such chunk is rendered again, and the module is what a clean
    build writes."""
    import marshal

    from opgen.cli import main

    root = _cli_project(tmp_path, monkeypatch)
    assert main(["build"]) == 0
    clean = (root / "gen" / "gen_math_ops.py").read_bytes()
    [index_path] = (tmp_path / "cache" / "opgen" / "format").glob("*.marshal")
    [text_path] = (tmp_path / "cache" / "opgen" / "format").glob("*.text")
    sealed = index_path.read_bytes()
    seal, (form, generation, index) = sealed[:32], marshal.loads(sealed[32:])
    if attack == "text":  # the same length, so every offset still fits
        data = text_path.read_bytes()
        text_path.write_bytes(b"".join(PAYLOAD.ljust(end - start, b"#")[:end - start] if end - start >= len(PAYLOAD)
                                       else data[start:end] for _, start, end, _ in sorted(index.values(),
                                                                                          key=lambda e: e[1])))
    elif attack == "swap":  # under the old seal
        keys = sorted(index)
        digests = [index[k][3] for k in keys]
        index = {k: (*index[k][:3], digests[(i + 1) % len(keys)]) for i, k in enumerate(keys)}
        index_path.write_bytes(seal + marshal.dumps((form, generation, index)))
    else:
        import hashlib

        index = {k: (summary, 0, len(PAYLOAD), hashlib.sha256(PAYLOAD).digest()) for k, (summary, *_) in index.items()}
        index_path.write_bytes(marshal.dumps((form, generation, index)))
        text_path.write_bytes(PAYLOAD)
    (root / "gen" / "gen_math_ops.py").unlink()
    assert main(["build"]) == 0
    assert (root / "gen" / "gen_math_ops.py").read_bytes() == clean
    assert not (root / "PWNED").exists()
    capsys.readouterr()


def test_cache_files_are_never_read_or_appended_through_a_symlink(tmp_path):
    """A symlink planted where the pack's index or text is: the index behind it is not read
    (no chunks), and an append does not write through the text link into its target."""
    fmt = _formatter(tmp_path)
    fmt.save_pack(PACK, _entries(3))
    [text] = _texts(tmp_path)
    index = fmt._pack_path(PACK)
    elsewhere = tmp_path / "elsewhere.marshal"
    index.rename(elsewhere)
    index.symlink_to(elsewhere)
    assert fmt.load_pack(PACK).index == {}
    index.unlink()
    elsewhere.rename(index)
    base = fmt.load_pack(PACK)
    assert base.index
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    text.unlink()
    text.symlink_to(victim)
    fmt.save_pack(PACK, {**_entries(3), "op:new": (("New", 1), b"x = 1\n")}, base=base)
    assert victim.read_bytes() == b"precious\n"


@pytest.mark.parametrize("beside", [True, False], ids=["beside-templates", "templates-folder-read-only"])
def test_poisoned_oplist_and_template_caches_are_not_trusted(tmp_path, monkeypatch, capsys, beside):
    """The parsed-OpList cache (validated once, then trusted) and Jinja's compiled-template
    cache (Jinja unpickles it) are sealed like chunks: a file put there by anyone else is a
    miss, never an op that skipped validation nor code that runs. The shipped templates'
    compiled code is kept beside them (`__pycache__`), or under the opgen cache when that
    folder cannot be made."""
    import pickle
    import shutil

    from opgen.cli import main

    shipped = tmp_path / "shipped"
    shutil.copytree(emit.shipped_templates_dir(), shipped, ignore=shutil.ignore_patterns("__pycache__"))
    if not beside:
        (shipped / "__pycache__").write_text("a file where the folder would go\n")
    monkeypatch.setattr(emit, "shipped_templates_dir", lambda: shipped)
    root = _cli_project(tmp_path, monkeypatch)
    (root / "specs" / "ops.pbtxt").write_text('op { name: "Listed" }\n')
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs", "specs/ops.pbtxt"]\nout = "gen"\n')
    assert main(["build"]) == 0
    cache = tmp_path / "cache" / "opgen"
    [cached_oplist] = (cache / "oplists").iterdir()
    bad = op_def_pb2.OpList()
    bad.op.add(name="Bad name\nimport os")
    payload = bad.SerializeToString()
    cached_oplist.write_bytes(cached_oplist.read_bytes()[:32] + b"\x01\x00\x00\x00\x01\x00\x00\x00" + payload)

    class Boom:
        def __reduce__(self):
            return (open, (str(root / "PWNED"), "w"))

    compiled = shipped / "__pycache__" if beside else cache / "jinja"
    assert not (cache / "jinja").exists() if beside else (shipped / "__pycache__").is_file()
    assert list(compiled.iterdir())
    for template in compiled.iterdir():
        template.write_bytes(template.read_bytes()[:32] + b"j2" + pickle.dumps(Boom()))
    (root / "gen" / "gen_ops.py").unlink()
    assert main(["build"]) == 0
    assert "def listed(" in (root / "gen" / "gen_ops.py").read_text()
    assert not (root / "PWNED").exists()
    capsys.readouterr()


def _age(path: Path, days: float) -> None:
    import os
    import time

    then = time.time() - days * 24 * 3600
    os.utime(path, (then, then), follow_symlinks=False)


def test_a_build_trims_cache_entries_unread_for_30_days_once_a_day(tmp_path, monkeypatch, capsys):
    """The cache only grew (1.2 GB of chunk packs of deleted output directories on a
    developer's machine): a build removes the entries of `format/`, `oplists/` and `jinja/`
    no build has read or written for `CACHE_KEEP_DAYS` days, at most once a day; an entry a
    build reads is marked used (its time moved to now once a day old), so a project rebuilt
    without changes keeps its pack; a symlink in the cache is never followed."""
    from opgen.cli import main
    from opgen.fsutil import CACHE_KEEP_DAYS

    root = _cli_project(tmp_path, monkeypatch)
    assert main(["build"]) == 0
    cache = tmp_path / "cache" / "opgen"
    own = sorted((cache / "format").iterdir())
    assert own  # this project's pack, stamp and text
    stale = cache / "format" / "0123abcd.marshal"
    stale.write_bytes(b"a pack of an output directory deleted long ago")
    stale_oplist = cache / "oplists" / "0123abcd"
    stale_oplist.parent.mkdir(exist_ok=True)
    stale_oplist.write_bytes(b"an OpList of a past revision")
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    _age(victim, CACHE_KEEP_DAYS + 5)
    link = cache / "format" / "link.marshal"
    link.symlink_to(victim)
    _age(link, CACHE_KEEP_DAYS + 5)
    for path in [stale, stale_oplist, *own]:
        _age(path, CACHE_KEEP_DAYS + 1)
    _age(cache / "trimmed", 2)  # the first build trimmed: the next runs two days later
    (root / "gen" / "gen_math_ops.py").unlink()  # the build reads its pack, and renders nothing
    assert main(["build"]) == 0
    assert "trimmed" not in capsys.readouterr().err
    assert not stale.exists() and not stale_oplist.exists()  # unread for 31 days: trimmed
    assert all(path.exists() for path in own)  # read by the build: marked used, kept
    assert link.is_symlink() and victim.read_bytes() == b"precious\n"  # neither followed nor removed

    # once a day: a second build the same day trims nothing, even what is a year old
    stale.write_bytes(b"another")
    _age(stale, 365)
    assert main(["build"]) == 0
    assert stale.exists()
    _age(cache / "trimmed", 1)  # a day later
    assert main(["build"]) == 0
    assert not stale.exists()
    capsys.readouterr()


def test_check_diff_and_dry_run_never_trim_the_cache(tmp_path, monkeypatch, capsys):
    """`--dry-run` writes nothing at all, and `--check`/`--diff` only compare: none of them
    removes a cache entry."""
    from opgen.cli import main

    _cli_project(tmp_path, monkeypatch)
    assert main(["build"]) == 0
    cache = tmp_path / "cache" / "opgen"
    _age(cache / "trimmed", 2)
    stale = cache / "format" / "0123abcd.marshal"
    stale.write_bytes(b"old")
    _age(stale, 365)
    for flags in (["--check"], ["--diff"], ["--dry-run"]):
        assert main(["build", *flags]) == 0
    assert stale.exists()
    capsys.readouterr()


def test_the_trim_keeps_the_cache_within_its_size_least_recently_used_out_first(tmp_path, monkeypatch, capsys):
    """trial33 #4: throwaway output directories (CI scratch, test folders) leave a pack each,
    all used within 30 days: beyond `CACHE_MAX_BYTES` the trim removes the least recently used
    entries until the cache fits, and keeps the newest (this build's)."""
    from opgen import fsutil
    from opgen.cli import main

    root = _cli_project(tmp_path, monkeypatch)
    assert main(["build"]) == 0
    cache = tmp_path / "cache" / "opgen"
    own = [p for name in ("format", "oplists", "jinja") if (cache / name).is_dir() for p in (cache / name).iterdir()]
    old = []
    for i in range(6):  # 6 packs of 1 KiB, used 10 down to 5 days ago
        pack = cache / "format" / f"scratch{i}.marshal"
        pack.write_bytes(b"x" * 1024)
        _age(pack, 10 - i)
        old.append(pack)
    monkeypatch.setattr(fsutil, "CACHE_MAX_BYTES", sum(p.stat().st_size for p in own) + 2 * 1024)
    _age(cache / "trimmed", 2)
    (root / "gen" / "gen_math_ops.py").unlink()  # the build reads (so marks) its pack
    assert main(["build"]) == 0
    assert [p.exists() for p in old] == [False, False, False, False, True, True]
    assert all(path.exists() for path in own)
    capsys.readouterr()
