"""Write-path failures of `opgen build` and the CLI's error boundary: a full or read-only disk
(a real tmpfs when this process may mount one, else an injected OSError), a failure after the
commit point, closed standard output, and internal errors.

Whatever fails, the previous tree stays as it was (or the interrupted build is completed by
the next one), no staging debris is left, and the message is located with exit status 2.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support.build_locks import wait_until_blocked
from support.paths import REPO

from opgen.cli import main
from opgen.commands import build as build_command
from opgen.outputs import tree_writer

_SMALL = 'REGISTER_OP("Small").Input("x: float").Output("y: float");\n'


def _project(tmp_path: Path, out: Path | None = None) -> Path:
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "specs" / "ops.cc").write_text(_SMALL)
    out_value = str(out) if out is not None else "gen"
    # the sources declare TF's own ops on purpose: keep them (docs/gathering.md, core ops)
    (root / "pyproject.toml").write_text(
        f'[tool.opgen]\ncore_ops = ["*"]\nsources = ["specs"]\nout = "{out_value}"\noverrides = ""\n'
    )
    return root


def _grow(root: Path) -> None:
    """Make the next build write much more (TF-like math and array ops)."""
    for name in ("math_ops.cc", "array_ops.cc", "common_macros.h"):
        shutil.copy(REPO / "op_specs" / name, root / "specs" / name)


def _tree(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}


def _debris(out: Path) -> list[str]:
    return sorted(
        p.name
        for p in out.iterdir()
        if p.name.startswith(
            (tree_writer.STAGING, tree_writer.JOURNAL, "." + tree_writer.JOURNAL, "." + tree_writer.MANIFEST)
        )
    )


def _build(root: Path, monkeypatch, capsys, *argv: str) -> tuple[int, str]:
    monkeypatch.chdir(root)
    status = main(["build", *argv])
    return status, capsys.readouterr().err


@pytest.fixture
def tmpfs(tmp_path):
    """A 256 KiB tmpfs (skipped when this process may not mount one)."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True, check=False
    )
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.decode().strip()}); the injected-OSError tests cover this")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_disk_full_on_tmpfs_keeps_the_old_tree(tmp_path, tmpfs, monkeypatch, capsys):
    out = tmpfs / "gen"
    root = _project(tmp_path, out)
    assert _build(root, monkeypatch, capsys)[0] == 0
    old = _tree(out)
    filler = tmpfs / "filler"
    with open(filler, "wb", buffering=0) as f:  # then free a few KiB: too little for the grown build
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
    os.truncate(filler, max(0, filler.stat().st_size - 8192))
    _grow(root)
    status, err = _build(root, monkeypatch, capsys)
    assert status == 2, err
    assert "no space left on device" in err and err.startswith(str(out)), err
    assert "Traceback" not in err
    assert _tree(out) == old and _debris(out) == []
    filler.unlink()
    assert _build(root, monkeypatch, capsys)[0] == 0
    assert "def mat_mul(" in (out / "gen_math_ops.py").read_text()


def test_read_only_tmpfs_keeps_the_old_tree(tmp_path, tmpfs, monkeypatch, capsys):
    out = tmpfs / "gen"
    root = _project(tmp_path, out)
    assert _build(root, monkeypatch, capsys)[0] == 0
    old = _tree(out)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    # up to date: a build (and --check) of a read-only tree passes, with no lock (trial33 #6)
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0 and "error" not in err, err
    assert _build(root, monkeypatch, capsys, "--check")[0] == 0
    _grow(root)
    status, err = _build(root, monkeypatch, capsys)
    assert status == 2 and "Read-only file system" in err and "Traceback" not in err, err
    assert _tree(out) == old and _debris(out) == []


def _fail_nth(monkeypatch, name: str, n: int, code: int | None, where: str, signum: int | None = None) -> None:
    """Make the n-th call of `os.<name>` whose first path argument contains `where` fail with
    `code`, or raise KeyboardInterrupt (Ctrl-C) when `code` is None, or there run opgen's
    handler of signal `signum` (which raises)."""
    real = getattr(os, name)
    calls = {"n": 0}

    def fake(path, *args, **kwargs):
        if where in str(path):
            calls["n"] += 1
            if calls["n"] == n:
                if signum is not None:
                    # opgen's handler, called as the signal's delivery calls it: a real
                    # os.kill runs it at a later bytecode, which may be inside a gc callback
                    # (hypothesis installs one) that swallows what it raises
                    handler = signal.getsignal(signum)
                    assert callable(handler), handler
                    handler(signum, None)
                if code is None:
                    raise KeyboardInterrupt
                raise OSError(code, os.strerror(code), str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, name, fake)


def _rebuild_failing(tmp_path: Path, monkeypatch, capsys, name: str, code: int | None,
                     target: str, signum: int | None = None) -> tuple[Path, dict[str, bytes], int, str]:
    """A project built once, grown, then built again with the 2nd `os.<name>` call on `target`
    failing (`_fail_nth`): (root, the first build's tree, the second's status and stderr)."""
    root = _project(tmp_path)
    assert _build(root, monkeypatch, capsys)[0] == 0
    old = _tree(root / "gen")
    _grow(root)
    with monkeypatch.context() as m:
        _fail_nth(m, name, 2, code, target, signum)
        status, err = _build(root, monkeypatch, capsys)
    return root, old, status, err


@pytest.mark.parametrize("name, target, complete", [("open", tree_writer.STAGING, False),
                                                    ("replace", tree_writer.STAGING, True)],
                         ids=["while_staging", "after_the_commit_point"])
def test_ctrl_c_leaves_the_old_tree_or_the_new_one_and_no_debris(tmp_path, monkeypatch, capsys, name, target,
                                                                 complete):
    """trial22 #1: Ctrl-C while staging leaves the previous tree and no staging files; after the
    journal (the commit point), the build is completed before the interrupt ends it."""
    root, old, status, err = _rebuild_failing(tmp_path, monkeypatch, capsys, name, None, target)
    out = root / "gen"
    done = " after the build completed" if complete else ""
    assert status == 130 and err.endswith(f"opgen: interrupted{done}\n") and "Traceback" not in err, err
    assert _debris(out) == [] and not tree_writer.interrupted(out)
    if complete:
        assert "def mat_mul(" in (out / "gen_math_ops.py").read_text()
        assert _build(root, monkeypatch, capsys, "--check")[0] == 0
    else:
        assert _tree(out) == old


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("name, target, complete", [("open", tree_writer.STAGING, False),
                                                    ("replace", tree_writer.STAGING, True)],
                         ids=["while_staging", "after_the_commit_point"])
def test_sigterm_leaves_the_tree_as_ctrl_c_does(tmp_path, monkeypatch, capsys, name, target, complete, signum):
    """trial33 #2: SIGTERM and SIGHUP (a cancelled CI job, `kill`, ninja passing a TERM on) left
    the staging, journal and lock as a SIGKILL does; now they end a build as Ctrl-C does, with
    the signal's exit status (128 + its number)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are installed from the main thread only")
    before = signal.getsignal(signum)
    root, old, status, err = _rebuild_failing(tmp_path, monkeypatch, capsys, name, None, target, signum)
    out = root / "gen"
    done = " after the build completed" if complete else ""
    assert status == 128 + signum, err
    assert err.endswith(f"opgen: terminated ({signal.Signals(signum).name}){done}\n") and "Traceback" not in err, err
    assert _debris(out) == [] and not tree_writer.interrupted(out)
    if complete:
        assert _build(root, monkeypatch, capsys, "--check")[0] == 0
    else:
        assert _tree(out) == old
    assert signal.getsignal(signum) == before  # (restored when the command returns)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EIO])
def test_injected_write_failure_while_staging_keeps_the_old_tree(tmp_path, monkeypatch, capsys, code):
    """Disk full / read-only / I/O error simulated (an OSError injected into the 2nd staged write)."""
    root, old, status, err = _rebuild_failing(tmp_path, monkeypatch, capsys, "open", code, tree_writer.STAGING)
    out = root / "gen"
    assert status == 2 and "Traceback" not in err, err
    assert err.startswith(f"gen/{tree_writer.STAGING}") and "the previous output is intact" in err, err
    assert _tree(out) == old and _debris(out) == []


def _manifest_files(out: Path) -> dict[str, str]:
    return json.loads((out / tree_writer.MANIFEST).read_bytes())["files"]


def _sha256s(out: Path) -> dict[str, str]:
    """The sha256 of every file of the tree but opgen's lock, manifest and journal, by relative path."""
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in out.rglob("*")
            if p.is_file() and not p.relative_to(out).parts[0].startswith(".opgen-")}


@pytest.mark.parametrize("nth, target", [(2, tree_writer.STAGING), (1, tree_writer.MANIFEST)])
def test_failure_after_the_commit_point_is_completed_by_the_next_build(tmp_path, monkeypatch, capsys, nth, target):
    """A write that fails after the journal (moving a staged file into place, or the manifest's
    rename: the manifest is not synced on its own, the journal records it and stays until the
    new manifest has replaced the old one) is completed, manifest included, by the next build."""
    root = _project(tmp_path)
    out = root / "gen"
    assert _build(root, monkeypatch, capsys)[0] == 0
    _grow(root)
    with monkeypatch.context() as m:
        _fail_nth(m, "replace", nth, errno.EIO, target)
        status, err = _build(root, monkeypatch, capsys)
    assert status == 2 and "the next `opgen build` completes it" in err and "Traceback" not in err, err
    assert tree_writer.interrupted(out)
    status, err = _build(root, monkeypatch, capsys, "--check")  # trial22 #2: the check says so
    assert f"opgen: a killed build of gen is pending ({tree_writer.JOURNAL} or {tree_writer.STAGING})" in err, err
    assert tree_writer.interrupted(out)
    if target == tree_writer.MANIFEST:  # every file was moved into place before the manifest
        assert "def mat_mul(" in (out / "gen_math_ops.py").read_text()
        assert "gen_math_ops.py" not in _manifest_files(out)
    status, err = _build(root, monkeypatch, capsys, "--quiet")
    assert status == 0 and "completed an interrupted build" in err, err
    assert _debris(out) == [] and "def mat_mul(" in (out / "gen_math_ops.py").read_text()
    assert _manifest_files(out) == _sha256s(out)
    assert _build(root, monkeypatch, capsys, "--check")[0] == 0


def _lock_held(lock: Path) -> bool:
    """Whether a build holds the output tree's lock file `lock` (flock: per open file, so
    this process's own build blocks this process's try too)."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@pytest.mark.parametrize("argv", [[], ["--check"], ["--diff"], ["--dry-run"]])
def test_a_build_compares_the_tree_once_and_under_the_lock_when_it_writes(tmp_path, monkeypatch, capsys, argv):
    """A writing build takes the lock before it compares the tree, so no other build can
    commit between its comparison and its commit, and compares once; a review compares once
    without the lock. The fresh clone's no-op build then records every file's sha256."""
    root = _clone(tmp_path, monkeypatch, capsys)
    out = root / "gen"
    held: list[bool] = []
    compare = build_command.compute_changes

    def counted(out_dir: Path, *args) -> tree_writer.Changes:
        held.append(_lock_held(out_dir / tree_writer.LOCK))
        return compare(out_dir, *args)

    monkeypatch.setattr(build_command, "compute_changes", counted)
    (root / "specs" / "ops.cc").write_text(_SMALL + 'REGISTER_OP("More").Output("z: float");\n')
    status, err = _build(root, monkeypatch, capsys, *argv)
    assert status == (1 if argv == ["--check"] else 0), err
    assert held == [not argv]
    if not argv:
        assert "More" in (out / "gen_ops.py").read_text() and _manifest_files(out) == _sha256s(out)
        held.clear()
        assert _build(root, monkeypatch, capsys)[0] == 0 and held == [True]


def test_a_stale_module_edited_below_its_header_is_deleted_as_in_a_fresh_clone(tmp_path, monkeypatch, capsys):
    """A note added below a module's "Do not edit." header does not make the module the user's: a
    fresh clone (no manifest) deletes it when stale, so a build with the manifest does too, as a
    build rewriting a module it still generates replaces such an edit."""
    root = _project(tmp_path)
    out = root / "gen"
    (root / "specs" / "extra.cc").write_text('REGISTER_OP("Extra").Output("y: float");\n')
    assert _build(root, monkeypatch, capsys)[0] == 0
    (out / "gen_extra.py").write_text((out / "gen_extra.py").read_text() + "# my note\n")
    (root / "specs" / "extra.cc").unlink()
    assert main(["build", "--check"]) == 1
    said = capsys.readouterr()
    assert "would delete gen/gen_extra.py" in said.out.splitlines() and "keep" not in said.err, said
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0 and "1 deleted" in err and "keep" not in err, err
    assert not (out / "gen_extra.py").exists() and _build(root, monkeypatch, capsys, "--check")[0] == 0


def test_a_stale_module_whose_header_is_gone_is_kept_said_once_and_the_users(tmp_path, monkeypatch, capsys):
    """A stale module opgen wrote whose header was replaced by hand is kept: `--check` says so
    and fails (trial37 #1: it said "up to date"), the build says so once and drops it from the
    manifest, and every later build and check leaves it alone and silent (trial13 #2: a later
    build deleted it)."""
    root = _project(tmp_path)
    out = root / "gen"
    (root / "specs" / "extra.cc").write_text('REGISTER_OP("Extra").Output("y: float");\n')
    assert _build(root, monkeypatch, capsys)[0] == 0
    mine = b'"""My own extra module."""\n' + (out / "gen_extra.py").read_bytes().partition(b'"""\n')[2]
    (out / "gen_extra.py").write_bytes(mine)
    (root / "specs" / "extra.cc").unlink()
    for argv in (["--check"], ["--dry-run"], ["--diff"]):
        assert main(["build", *argv]) == (1 if argv == ["--check"] else 0)
        err = capsys.readouterr().err
        assert "opgen: would keep gen/gen_extra.py: opgen generated it, but its header is gone" in err, err
    status, err = _build(root, monkeypatch, capsys)
    said = "opgen: keeping gen/gen_extra.py: opgen generated it, but its header is gone (changed by hand), so it is "
    assert status == 0 and said + "yours from now on" in err, err
    assert "gen_extra.py" not in _manifest_files(out)
    for argv in ([], ["--check"], []):
        status, err = _build(root, monkeypatch, capsys, *argv)
        assert status == 0 and "keep" not in err and (out / "gen_extra.py").read_bytes() == mine, err
    # a manifest that lists it still (a build of another checkout, before a `git checkout` brought
    # this file back): --check fails on the kept file alone, and a build settles it
    manifest = json.loads((out / tree_writer.MANIFEST).read_text())
    manifest["files"]["gen_extra.py"] = hashlib.sha256(b"what opgen wrote").hexdigest()
    (out / tree_writer.MANIFEST).write_text(json.dumps(manifest))
    assert main(["build", "--check"]) == 1
    said = capsys.readouterr()
    assert said.out == "" and said.err.splitlines()[-1] == (
        "opgen build: gen is up to date but for 1 stale file changed by hand, which `opgen build` would keep (above)")
    assert "opgen: keeping gen/gen_extra.py" in _build(root, monkeypatch, capsys)[1]
    assert _build(root, monkeypatch, capsys, "--check") == (0, "opgen build: gen is up to date (3 files)\n")
    (root / "specs" / "extra.cc").write_text('REGISTER_OP("Extra").Output("y: float");\n')  # yours: not replaced
    status, err = _build(root, monkeypatch, capsys)
    assert status == 2 and "output gen_extra.py exists and opgen did not write it" in err, err
    assert (out / "gen_extra.py").read_bytes() == mine


def test_a_gitignore_edited_by_hand_becomes_the_users_and_is_never_rewritten(tmp_path, monkeypatch, capsys):
    """A line added to the .gitignore opgen wrote survives every later build: the first one
    says (once) that opgen no longer maintains the file and drops it from the manifest; a
    deleted one is written again, and one as an older opgen wrote it is brought up to date."""
    root = _project(tmp_path)
    out = root / "gen"
    ignore = out / tree_writer.GITIGNORE
    assert _build(root, monkeypatch, capsys)[0] == 0
    edited = tree_writer.GITIGNORE_TEXT + b"*.pyc\n"
    ignore.write_bytes(edited)
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0 and err.startswith("gen/.gitignore: warning: this .gitignore was changed since opgen wrote "
                                          "it: it is yours from now on"), err
    assert "hint: keep .opgen-lock, .opgen-manifest.json, .opgen-journal.json, .opgen-staging/ in it" in err
    assert ignore.read_bytes() == edited and tree_writer.GITIGNORE not in _manifest_files(out)
    for argv in ([], ["--check"]):
        status, err = _build(root, monkeypatch, capsys, *argv)
        assert status == 0 and "warning" not in err and ignore.read_bytes() == edited, err
    assert main(["build", "--list-outputs"]) == 0 and "gen/.gitignore" not in capsys.readouterr().out
    ignore.unlink()
    assert _build(root, monkeypatch, capsys)[0] == 0 and ignore.read_bytes() == tree_writer.GITIGNORE_TEXT
    older = b"# an older opgen's words\n.opgen-lock\n"  # unchanged since opgen wrote it: still opgen's
    ignore.write_bytes(older)
    manifest = json.loads((out / tree_writer.MANIFEST).read_text())
    manifest["files"][tree_writer.GITIGNORE] = hashlib.sha256(older).hexdigest()
    (out / tree_writer.MANIFEST).write_text(json.dumps(manifest))
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0 and "warning" not in err and ignore.read_bytes() == tree_writer.GITIGNORE_TEXT, err


def test_a_failed_build_leaves_no_lock_nor_a_directory_it_created(tmp_path, monkeypatch, capsys):
    """The lock exists only while a build runs: a build refused for a hand-written file
    leaves the directory exactly as it was, a failed write into a new --out removes the
    directories it created, and a successful build leaves no lock either."""
    root = _project(tmp_path)
    out = root / "gen"
    out.mkdir()
    (out / "gen_ops.py").write_text("# hand-written\n")
    for argv in ([], ["--check"]):
        status, err = _build(root, monkeypatch, capsys, *argv)
        assert status == 2 and "opgen did not write it" in err, err
        assert os.listdir(out) == ["gen_ops.py"]
    shutil.rmtree(out)
    with monkeypatch.context() as m:
        _fail_nth(m, "open", 1, errno.ENOSPC, tree_writer.STAGING)
        status, err = _build(root, monkeypatch, capsys, "--out", "new/gen")
    assert status == 2 and "no space left on device" in err, err
    assert sorted(os.listdir(root)) == ["pyproject.toml", "specs"]
    assert _build(root, monkeypatch, capsys)[0] == 0
    assert tree_writer.LOCK not in os.listdir(out) and "gen_ops.py" in os.listdir(out)


def test_a_build_waiting_on_a_lock_its_holder_removes_locks_the_new_one(tmp_path):
    """A waiting build is granted the lock on a file the holder has removed (as every build
    does when done): it must then lock the file now at the path, held by a third build."""
    import fcntl

    root = _project(tmp_path)
    out = root / "gen"
    out.mkdir()
    with open(out / tree_writer.LOCK, "a+b") as first:
        fcntl.flock(first, fcntl.LOCK_EX)
        proc = subprocess.Popen([sys.executable, "-m", "opgen", "build"], cwd=root, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
        wait_until_blocked(out / tree_writer.LOCK, proc)
        os.unlink(out / tree_writer.LOCK)
        with open(out / tree_writer.LOCK, "a+b") as third:
            fcntl.flock(third, fcntl.LOCK_EX)
            fcntl.flock(first, fcntl.LOCK_UN)
            wait_until_blocked(out / tree_writer.LOCK, proc)  # now waiting on the third's lock
            assert not (out / "gen_ops.py").exists()
            fcntl.flock(third, fcntl.LOCK_UN)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and err.count("waiting for another opgen build") == 1, err
    assert (out / "gen_ops.py").exists() and not (out / tree_writer.LOCK).exists()


def test_planted_journal_outside_out_is_refused_and_touches_nothing(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path)
    out = root / "gen"
    assert _build(root, monkeypatch, capsys)[0] == 0
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (out / tree_writer.JOURNAL).write_text(
        '{"generator": "opgen", "write": {}, "delete": {"../../victim.txt": "x"}, "manifest": null}')
    status, err = _build(root, monkeypatch, capsys)
    assert status == 2 and "must stay inside --out" in err and f"delete gen/{tree_writer.JOURNAL}" in err, err
    assert victim.read_text() == "keep me\n"


def test_a_journal_missing_its_lists_says_so(tmp_path, monkeypatch, capsys):
    """trial15 #14: the message was a KeyError's text ('write')."""
    root = _project(tmp_path)
    out = root / "gen"
    assert _build(root, monkeypatch, capsys)[0] == 0
    (out / tree_writer.JOURNAL).write_text('{"generator": "opgen"}')
    status, err = _build(root, monkeypatch, capsys)
    assert status == 2 and "malformed journal: no 'write', 'delete', 'manifest'" in err, err


def test_lock_symlink_is_not_followed(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path)
    out = root / "gen"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (out / tree_writer.LOCK).symlink_to(victim)
    status, err = _build(root, monkeypatch, capsys)
    assert status == 2 and "is a symlink: delete it" in err, err
    assert victim.read_text() == "keep me\n"


@pytest.mark.parametrize("argv", [[], ["--check"], ["--diff"], ["--dry-run"]])
@pytest.mark.parametrize(("name", "said"), [
    (tree_writer.MANIFEST, "opgen's manifest .opgen-manifest.json is a symlink"),
    (tree_writer.JOURNAL, "opgen's build journal .opgen-journal.json is a symlink"),
    ("opgen_sourcemap.json", "output opgen_sourcemap.json is a symlink"),
])
def test_opgens_json_files_as_symlinks_are_refused_never_followed_nor_replaced(tmp_path, monkeypatch, capsys, argv,
                                                                                name, said):
    """The manifest was replaced by a regular file (its target left alone) while a symlinked
    output was refused: each of opgen's JSON files in --out is refused alike, located at it,
    by a build and by each way of reviewing one."""
    root = _project(tmp_path)
    out = root / "gen"
    assert _build(root, monkeypatch, capsys)[0] == 0
    (root / "specs" / "ops.cc").write_text(_SMALL + 'REGISTER_OP("More").Output("y: float");\n')
    victim = tmp_path / "victim.json"
    victim.write_text('{"generator": "opgen", "files": {}}\n')
    (out / name).unlink(missing_ok=True)
    (out / name).symlink_to(victim)
    status, err = _build(root, monkeypatch, capsys, *argv)
    assert status == 2 and f"gen/{name}: error: {said}\n  hint: remove gen/{name}" in err, err
    assert (out / name).is_symlink() and victim.read_text() == '{"generator": "opgen", "files": {}}\n'
    assert "More" not in (out / "gen_ops.py").read_text()
    (out / name).unlink()
    assert _build(root, monkeypatch, capsys)[0] == 0 and "More" in (out / "gen_ops.py").read_text()


def _opgen(args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f"{sys.executable} -m opgen {args}"], cwd=cwd, capture_output=True,
                          text=True, check=False, env={**os.environ, "PYTHONPATH": str(REPO)})


def test_closed_or_broken_stdout(tmp_path):
    root = _project(tmp_path)
    _grow(root)
    closed = _opgen("oplist >&-", root)
    assert closed.returncode == 2 and "Traceback" not in closed.stderr, closed.stderr
    assert closed.stderr.startswith("error: ") or ": error: " in closed.stderr, closed.stderr
    broken = subprocess.run(["bash", "-c", f"set -o pipefail; {sys.executable} -m opgen oplist | true"],
                            cwd=root, capture_output=True, text=True, check=False,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert broken.returncode == 2 and "Traceback" not in broken.stderr, broken.stderr
    assert "standard output was closed" in broken.stderr
    if os.path.exists("/dev/full"):  # a full disk under stdout: located at it (trial15 #14)
        full = _opgen("oplist > /dev/full", root)
        assert full.returncode == 2 and full.stderr.startswith("<stdout>: error: "), full.stderr


def test_internal_error_is_one_line_unless_debug(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path)
    monkeypatch.chdir(root)

    import opgen.commands.build

    def boom(settings):
        raise KeyError("bug")

    monkeypatch.setattr(opgen.commands.build, "run", boom)
    assert main(["build"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error, please report" in err and "Traceback" not in err, err
    assert main(["build", "--debug"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "internal error, please report" in err


# ---- a tree without a manifest (a fresh clone of the committed output) ------------------

def _clone(tmp_path: Path, monkeypatch, capsys) -> Path:
    """A project built once with modules gen_ops and gen_b (one per source file), whose output tree then lost
    its manifest, as a fresh clone of a committed `gen/` has none."""
    root = _project(tmp_path)
    (root / "specs" / "b.cc").write_text('REGISTER_OP("Bee").Output("y: float");\n')
    assert _build(root, monkeypatch, capsys)[0] == 0
    (root / "gen" / tree_writer.MANIFEST).unlink()
    assert sorted(_tree(root / "gen")) == [".gitignore", "gen_b.py", "gen_ops.py", "opgen_sourcemap.json"]
    return root


_HEADER = '"""Python wrappers.\n\nGenerated by opgen 0.1.0 from specs/x.cc. Do not edit.\n"""\n'


def test_fresh_clone_owns_only_what_the_source_map_lists_with_opgen_header(tmp_path, monkeypatch, capsys):
    """Without a manifest, a stale module is deleted only when the committed source map
    lists it and it carries opgen's header; planted files (with or without that header,
    listed or not) are never deleted or overwritten; the build then writes a manifest."""
    root = _clone(tmp_path, monkeypatch, capsys)
    out = root / "gen"
    planted = {"notes.txt": b"mine\n", "helper.py": _HEADER.encode() + b"x = 1\n",
               "gen_c.py": _HEADER.encode() + b"c = 1\n"}
    for name, data in planted.items():
        (out / name).write_bytes(data)
    (root / "specs" / "b.cc").unlink()  # gen_b goes stale: listed, opgen's header: opgen's
    (root / "specs" / "ops.cc").write_text(_SMALL + 'REGISTER_OP("More").Output("z: float");\n')
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0, err
    assert not (out / "gen_b.py").exists() and "More" in (out / "gen_ops.py").read_text()
    assert {name: (out / name).read_bytes() for name in planted} == planted
    assert tree_writer.MANIFEST in os.listdir(out)


def test_fresh_clone_keeps_a_listed_module_without_opgen_header(tmp_path, monkeypatch, capsys):
    """A module the source map lists but whose header is gone (rewritten by hand) is not
    opgen's to delete: kept when stale, and reported (by `--check` too, which fails) until a
    build leaves it out of the source map."""
    root = _clone(tmp_path, monkeypatch, capsys)
    hand = b"# my own bee module\n"
    (root / "gen" / "gen_b.py").write_bytes(hand)
    (root / "specs" / "b.cc").unlink()
    status, err = _build(root, monkeypatch, capsys, "--check")
    assert status == 1 and "opgen: would keep gen/gen_b.py" in err, err
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0, err
    assert (root / "gen" / "gen_b.py").read_bytes() == hand
    assert "opgen: keeping gen/gen_b.py" in err
    for argv in ([], ["--check"]):  # said once: the source map no longer lists it
        status, err = _build(root, monkeypatch, capsys, *argv)
        assert status == 0 and "keep" not in err and (root / "gen" / "gen_b.py").read_bytes() == hand, err


def test_fresh_clone_owns_a_listed_module_whose_header_lists_many_sources(tmp_path, monkeypatch, capsys):
    """A module of many sources, whose header's `Do not edit.` lies past the first 400 bytes,
    is opgen's in a fresh clone by its exact header: deleted when stale, not kept."""
    root = _project(tmp_path)
    with open(root / "pyproject.toml", "a") as f:
        f.write('[tool.opgen.modules]\n"Many*" = "gen_many"\n')
    names = [f"specs/a_rather_long_source_file_name_{i:02}.cc" for i in range(20)]
    for i, name in enumerate(names):
        (root / name).write_text(f'REGISTER_OP("Many{i}").Output("y: float");\n')
    assert _build(root, monkeypatch, capsys)[0] == 0
    assert "Do not edit." not in (root / "gen" / "gen_many.py").read_bytes()[:400].decode()
    (root / "gen" / tree_writer.MANIFEST).unlink()
    for name in names:
        (root / name).unlink()
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0 and "1 deleted" in err and "keep" not in err, err
    assert not (root / "gen" / "gen_many.py").exists()


@pytest.mark.parametrize("manifest", [False, True], ids=["fresh_clone", "with_manifest"])
def test_a_hand_written_file_where_a_new_output_goes_is_never_overwritten(tmp_path, monkeypatch, capsys, manifest):
    root = _clone(tmp_path, monkeypatch, capsys)
    if manifest:
        assert _build(root, monkeypatch, capsys)[0] == 0
    out = root / "gen"
    before = _tree(out)
    hand = b"# hand-written, not opgen's\n"
    (out / "gen_c.py").write_bytes(hand)
    (root / "specs" / "c.cc").write_text('REGISTER_OP("Sea").Output("y: float");\n')
    for argv in ([], ["--check"], ["--dry-run"]):
        status, err = _build(root, monkeypatch, capsys, *argv)
        assert status == 2, err
        assert err.startswith("gen/gen_c.py: error: output gen_c.py exists and opgen did not write it")
    assert (out / "gen_c.py").read_bytes() == hand
    assert {k: v for k, v in _tree(out).items() if k != "gen_c.py"} == before
    (out / "gen_c.py").unlink()  # moved away: the build goes through
    assert _build(root, monkeypatch, capsys)[0] == 0 and "Sea" in (out / "gen_c.py").read_text()


def test_fresh_clone_with_custom_templates_rewrites_the_listed_modules(tmp_path, monkeypatch, capsys):
    """Modules written through templates without opgen's header are still opgen's to
    rewrite in a fresh clone: the committed source map lists them."""
    root = _clone(tmp_path, monkeypatch, capsys)
    templates = root / "tpl"
    shutil.copytree(REPO / "templates", templates, ignore=shutil.ignore_patterns("__pycache__"))
    header = templates / "module_header.py.j2"
    header.write_text(header.read_text().replace("Generated by opgen", "Made by our generator"))
    assert _build(root, monkeypatch, capsys, "--templates", str(templates))[0] == 0
    (root / "gen" / tree_writer.MANIFEST).unlink()
    (root / "specs" / "ops.cc").write_text(_SMALL + 'REGISTER_OP("More").Output("z: float");\n')
    status, err = _build(root, monkeypatch, capsys, "--templates", str(templates))
    assert status == 0, err
    assert "More" in (root / "gen" / "gen_ops.py").read_text()


# ---- a branch switch: the git-ignored manifest records a build of another commit ------------

def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=cwd, check=True,
                   capture_output=True)


def _checked(root: Path, monkeypatch, capsys) -> tuple[int, list[str]]:
    monkeypatch.chdir(root)
    status = main(["build", "--check"])
    return status, capsys.readouterr().out.splitlines()


def _committed_tree(out: Path) -> dict[str, bytes]:
    """The output tree as git holds it: every file below `out` but opgen's git-ignored own."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.name.startswith(".opgen-")}


@pytest.mark.parametrize("split", [False, True], ids=["module", "split_module"])
def test_after_a_branch_switch_a_stale_module_goes_as_in_a_fresh_clone(tmp_path, monkeypatch, capsys, split):
    """trial37 #1: a build on tag v1, then `git checkout` back to the branch: the manifest (git-ignored)
    holds v1's hashes of the committed modules git changed since. A source renamed then leaves
    its old module stale, and opgen's header and the committed source map make it opgen's:
    `--check` says `would delete` it and fails, the build deletes it, `--check` then passes,
    exactly as in a fresh clone of the same commit. (The module was kept as changed by hand:
    the local `--check` passed, a fresh clone's failed, and a wheel built locally shipped it.)"""
    root = _project(tmp_path)
    out = root / "gen"
    if split:  # a package of parts: gen_quirk/__init__.py, _part1.py, _part2.py
        with open(root / "pyproject.toml", "a") as f:
            f.write("max_ops_per_module = 1\n")
    quirk = root / "specs" / "quirk.cc"
    v1 = 'REGISTER_OP("QuirkA").Output("y: float");\nREGISTER_OP("QuirkB").Output("y: float");\n'
    quirk.write_text(v1)
    _git(root, "init", "-q")
    for version, text in (("v1", v1), ("v2", v1.replace('.Output("y', '.Input("x: float").Output("y'))):
        quirk.write_text(text)
        assert _build(root, monkeypatch, capsys)[0] == 0
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", version)
        _git(root, "tag", version)
    _git(root, "checkout", "-q", "v1")
    assert _build(root, monkeypatch, capsys)[0] == 0  # writes the manifest alone
    _git(root, "checkout", "-q", "-")
    old = sorted(rel for rel in _committed_tree(out) if rel.startswith("gen_quirk"))
    assert old == (["gen_quirk/__init__.py", "gen_quirk/_part1.py", "gen_quirk/_part2.py"] if split
                   else ["gen_quirk.py"])
    changed = [rel for rel in old if hashlib.sha256((out / rel).read_bytes()).hexdigest() != _manifest_files(out)[rel]]
    assert changed and all("/" in rel for rel in old if rel not in changed)  # (a split's __init__ is alike)
    _git(root, "mv", "specs/quirk.cc", "specs/core.cc")
    _git(root, "commit", "-qm", "rename")
    _git(tmp_path, "clone", "-q", str(root), "fresh")
    fresh = tmp_path / "fresh"
    status, lines = _checked(root, monkeypatch, capsys)
    assert status == 1 and {f"would delete gen/{rel}" for rel in old} <= set(lines), lines
    assert _checked(fresh, monkeypatch, capsys) == (status, lines)
    for tree in (root, fresh):
        status, err = _build(tree, monkeypatch, capsys)
        assert status == 0 and f"{len(old)} deleted" in err and "keep" not in err, err
        assert _checked(tree, monkeypatch, capsys) == (0, [])
    assert _committed_tree(out) == _committed_tree(fresh / "gen")
    assert not any(rel.startswith("gen_quirk") for rel in _committed_tree(out))


# ---- a module no build of this tree wrote (git apply of --diff, a pull) ------------------

def _git_apply(root: Path, diff: str) -> None:
    subprocess.run(["git", "apply", "-"], input=diff, cwd=root, capture_output=True, text=True, check=True)


@pytest.mark.parametrize("manifest", [True, False], ids=["with_manifest", "fresh_clone"])
def test_a_stale_module_added_by_git_apply_is_reported_and_deleted(tmp_path, monkeypatch, capsys, manifest):
    """docs/build-integration.md's `opgen build --diff | git apply` adds a module the manifest does not
    list: opgen's by its name and exact header, so once its op is gone `--check` fails on
    it, `--diff` deletes it through `git apply`, and a build deletes it; also when no source
    map lists it any more (the tree an older opgen's build left, or a teammate's pull)."""
    root = _project(tmp_path)
    out = root / "gen"
    assert _build(root, monkeypatch, capsys)[0] == 0
    if not manifest:
        (out / tree_writer.MANIFEST).unlink()

    def add_by_git_apply() -> bytes:
        (root / "specs" / "new_ops.cc").write_text('REGISTER_OP("Fresh").Output("y: float");\n')
        assert main(["build", "--diff"]) == 0
        _git_apply(root, capsys.readouterr().out)
        (root / "specs" / "new_ops.cc").unlink()
        return (out / "gen_new_ops.py").read_bytes()

    add_by_git_apply()
    assert main(["build", "--check"]) == 1
    assert "would delete gen/gen_new_ops.py" in capsys.readouterr().out.splitlines()
    assert main(["build", "--diff"]) == 0
    diff = capsys.readouterr().out
    assert "--- a/gen/gen_new_ops.py\n+++ /dev/null\n" in diff, diff
    _git_apply(root, diff)
    assert not (out / "gen_new_ops.py").exists()
    assert _build(root, monkeypatch, capsys, "--check")[0] == 0

    add_by_git_apply()
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0 and "1 deleted" in err, err
    assert not (out / "gen_new_ops.py").exists()
    assert _build(root, monkeypatch, capsys, "--check")[0] == 0

    module = add_by_git_apply()
    assert _build(root, monkeypatch, capsys)[0] == 0
    (out / "gen_new_ops.py").write_bytes(module)  # the source map no longer lists it
    if not manifest:
        (out / tree_writer.MANIFEST).unlink()
    assert main(["build", "--check"]) == 1
    said = capsys.readouterr()
    assert said.out == "would delete gen/gen_new_ops.py\n", said
    assert "1 file of 4 in gen would change" in said.err, said.err
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0 and "1 deleted" in err and not (out / "gen_new_ops.py").exists(), err


def test_only_a_module_with_opgen_exact_header_naming_it_is_deleted_unlisted(tmp_path, monkeypatch, capsys):
    """Unlisted files are kept unless they open with the header opgen gives a module of
    their name: a copy under another name, a header reworded or moved down, a non-module
    name, a symlink, or a file in a subdirectory are never touched."""
    root = _project(tmp_path)
    out = root / "gen"
    (root / "specs" / "c.cc").write_text('REGISTER_OP("Sea").Output("y: float");\n')
    assert _build(root, monkeypatch, capsys)[0] == 0
    module = (out / "gen_c.py").read_bytes()
    (root / "specs" / "c.cc").unlink()
    assert _build(root, monkeypatch, capsys)[0] == 0 and not (out / "gen_c.py").exists()
    (out / "sub").mkdir()
    target = tmp_path / "target.py"
    target.write_bytes(module)
    planted = {
        "gen_d.py": module,  # header names module c
        "mine.py": b"# notes\n" + module,  # the header is not the file's opening
        "gen_e.py": module.replace(b"ops of c.", b"ops of e.").replace(b"Do not edit.", b"Edit freely."),
        "gen-c.py": module.replace(b"ops of c.", b"ops of gen-c."),  # not a module name
        "sub/gen_c.py": module,
        "gen_c.txt": module,
    }
    for name, data in planted.items():
        (out / name).write_bytes(data)
    (out / "gen_c.py").symlink_to(target)
    assert _build(root, monkeypatch, capsys, "--check")[0] == 0
    assert _build(root, monkeypatch, capsys)[0] == 0
    assert {name: (out / name).read_bytes() for name in planted} == planted
    assert (out / "gen_c.py").is_symlink() and target.read_bytes() == module


# ------------------------------------------------- what -o, --depfile, api and modules may name


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("argv", [
    ["build", "--depfile", "specs/ops.cc"],
    ["build", "--depfile", "pyproject.toml"],
    ["build", "--depfile", "gen/.opgen-manifest.json"],
    ["build", "--depfile", "gen/.gitignore"],
    ["build", "--depfile", "gen/opgen_sourcemap.json"],
    ["build", "--depfile", "gen/gen_ops.py"],
    ["build", "--depfile", "specs/../specs/ops.cc"],
    ["oplist", "-o", "specs/ops.cc"],
    ["oplist", "-o", "pyproject.toml"],
    ["oplist", "-o", "gen/gen_ops.py"],
    ["api", "-o", "gen/.opgen-manifest.json"],
    ["kernels", "-o", "specs/ops.cc"],
])
def test_written_files_never_replace_an_input_or_the_trees_own(tmp_path, monkeypatch, capsys, argv):
    root = _project(tmp_path)
    assert _build(root, monkeypatch, capsys)[0] == 0
    before = _snapshot(root)
    status = main(argv)
    err = capsys.readouterr().err
    assert status == 2 and f"{argv[2]}: error: {argv[1]} names a file" in err, err
    assert _snapshot(root) == before


@pytest.mark.parametrize("argv", [["kernels", "-o", "gen/gen_ops.py"], ["oplist", "-o", "gen/sub/gen_x.py"]])
def test_o_may_not_write_a_module_before_the_first_build(tmp_path, monkeypatch, capsys, argv):
    """No build has run: no manifest says which modules `gen/` will hold, but a Python file
    there is one the build may write (and would then refuse to replace). (Its directory
    exists: -o creates none.)"""
    root = _project(tmp_path)
    monkeypatch.chdir(root)
    Path(argv[2]).parent.mkdir(parents=True)
    before = _snapshot(root)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{argv[2]}: error: -o names a file opgen build writes in gen"), err
    assert _snapshot(root) == before


def test_specs_o_may_not_replace_its_oplist(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ops.pbtxt").write_text('op { name: "A" }\n')
    assert main(["specs", "ops.pbtxt", "-o", "ops.pbtxt"]) == 2
    assert "ops.pbtxt: error: -o names a file this command reads" in capsys.readouterr().err
    assert (tmp_path / "ops.pbtxt").read_text() == 'op { name: "A" }\n'


@pytest.mark.parametrize(
    "api", ["gen/.gitignore", "gen/.opgen-manifest.json", "gen/.opgen-lock", "gen/opgen_sourcemap.json"]
)
def test_api_may_not_name_a_file_the_tree_keeps(tmp_path, monkeypatch, capsys, api):
    root = _project(tmp_path)
    assert _build(root, monkeypatch, capsys)[0] == 0
    (root / "pyproject.toml").write_text((root / "pyproject.toml").read_text() + f'api = "{api}"\n')
    before = _snapshot(root)
    status, err = _build(root, monkeypatch, capsys)
    assert status == 2 and f"pyproject.toml:6:1: error: [tool.opgen] api = '{api}'" in err, err
    assert _snapshot(root) == before


@pytest.mark.parametrize("module", ["google", "opgen", "numpy", "tensorflow", "os", "json"])
def test_a_module_may_not_shadow_a_package_the_runtime_imports(tmp_path, monkeypatch, capsys, module):
    root = _project(tmp_path)
    (root / "pyproject.toml").write_text(
        (root / "pyproject.toml").read_text() + f'[tool.opgen.modules]\n"*" = "{module}"\n'
    )
    status, err = _build(root, monkeypatch, capsys)
    assert status == 2 and f"pyproject.toml:7:1: error: invalid module name '{module}': it would shadow" in err, err
    assert not (root / "gen").exists()


@pytest.mark.parametrize("project", ["proj[1]", "proj*x", "proj?"])
def test_glob_characters_in_the_project_directory_are_not_a_glob(tmp_path, monkeypatch, capsys, project):
    """Configured sources are made absolute below the project directory; only the entry's own
    glob characters glob, so a sibling the project's name would match as a glob is never read."""
    for sibling in ("proj1", "projAx", "projA"):
        (tmp_path / sibling / "specs").mkdir(parents=True)
        (tmp_path / sibling / "specs" / "ops.cc").write_text('REGISTER_OP("Sibling");\n')
    root = tmp_path / project
    (root / "specs").mkdir(parents=True)
    (root / "specs" / "ops.cc").write_text(_SMALL)
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs", "specs/*.cc"]\nout = "gen"\n')
    status, err = _build(root, monkeypatch, capsys)
    assert status == 0, err
    assert (
        "def small(" in (root / "gen" / "gen_ops.py").read_text()
        and "Sibling" not in (root / "gen" / "gen_ops.py").read_text()
    )
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["nothing/*.cc"]\n')
    status, err = _build(root, monkeypatch, capsys)
    assert (
        status == 2 and "pyproject.toml:2:12: error: [tool.opgen] sources entry 'nothing/*.cc' matches no files" in err
    ), err
