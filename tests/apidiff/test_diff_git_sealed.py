"""`opgen diff --git REV` reads the revision alone (docs/api-review.md): its config only from a regular
file in the revision (never a parent directory of the temporary tree), no link leaving the
revision, a bounded amount of data, and neither `.gitattributes` export rules nor headers
outside the repository make an unchanged revision look changed."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from support.apidiff_cases import SPEC_V1, git, run_cli

from opgen.limits import MAX_FILE_BYTES

PYPROJECT = '[tool.opgen]\nsources = ["specs"]\n'


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A committed project as the cwd, and a temporary directory whose parent holds a
    pyproject.toml pointing at other sources: reading it would be the escape."""
    root = tmp_path / "repo"
    (root / "specs").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "specs" / "ops.cc").write_text(SPEC_V1)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "v1")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "evil.cc").write_text('#include "tensorflow/core/framework/op.h"\n'
                                                    'REGISTER_OP("Planted").Output("y: float");\n')
    (tmp_path / "tmp" / "inner").mkdir(parents=True)
    (tmp_path / "tmp" / "pyproject.toml").write_text(f'[tool.opgen]\nsources = ["{tmp_path / "elsewhere"}"]\n')
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp" / "inner"))
    monkeypatch.chdir(root)
    return root


def _commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def _assert_unchanged(capsys) -> None:
    code, out, err = run_cli(["diff", "--git", "HEAD", "--format", "json"], capsys)
    assert (code, json.loads(out)["changes"]) == (0, []), err


@pytest.mark.parametrize("kind", ["a directory", "missing.toml", "/etc/hostname"])
def test_config_that_is_a_directory_or_a_link_is_an_error(repo, capsys, kind):
    config = repo / "pyproject.toml"
    config.unlink()
    if kind == "a directory":
        config.mkdir()
        (config / "x").write_text("")
    else:
        os.symlink(kind, config)
    _commit(repo, f"config is {kind}")
    # the work tree keeps a good config: only the revision's is bad
    if config.is_dir():
        (config / "x").unlink()
        config.rmdir()
    else:
        config.unlink()
    config.write_text(PYPROJECT)
    code, out, err = run_cli(["diff", "--git", "HEAD"], capsys)
    assert (code, out) == (2, "")
    shown = kind if kind == "a directory" else "a symbolic link"
    assert err.startswith(f"HEAD:pyproject.toml: error: pyproject.toml is {shown} in the revision"), err


@pytest.mark.parametrize("target", ["/etc/hostname", "../../elsewhere/evil.cc", "../.."])
def test_links_out_of_the_revision_are_refused(repo, capsys, target):
    os.symlink(target, repo / "specs" / "evil.cc")
    _commit(repo, "a link out")
    code, out, err = run_cli(["diff", "--git", "HEAD"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"HEAD:specs/evil.cc: error: a symbolic link to {target!r}, outside the revision"), err


def test_links_inside_the_revision_are_kept(repo, capsys):
    (repo / "specs" / "real").mkdir()
    (repo / "specs" / "ops.cc").rename(repo / "specs" / "real" / "ops.cc")
    os.symlink("real/ops.cc", repo / "specs" / "ops.cc")
    (repo / "pyproject.toml").write_text('[tool.opgen]\nsources = ["specs/ops.cc"]\n')
    _commit(repo, "a link inside")
    _assert_unchanged(capsys)


def test_an_archive_bomb_is_refused_before_anything_is_read(repo, capsys):
    """One blob of opgen's per-file limit at 40 paths: 2.5 GB if unpacked."""
    blob = repo / "blob"
    with open(blob, "wb") as f:
        f.truncate(MAX_FILE_BYTES)
    oid = git(repo, "hash-object", "-w", str(blob)).strip()
    blob.unlink()
    for i in range(40):
        git(repo, "update-index", "--add", "--cacheinfo", f"100644,{oid},specs/bomb{i}.h")
    git(repo, "commit", "-q", "-m", "bomb")
    git(repo, "reset", "-q", "--hard")
    code, out, err = run_cli(["diff", "--git", "HEAD"], capsys)
    assert (code, out) == (2, "")
    assert "error: the files opgen diff --git reads from revision HEAD are more than" in err
    assert err.startswith("HEAD:specs/bomb"), err


def test_export_attributes_do_not_apply(repo, capsys):
    (repo / ".gitattributes").write_text("specs/ops.cc export-ignore\nspecs/*.cc export-subst\n")
    (repo / "specs" / "ops.cc").write_text(SPEC_V1.replace("Scales `x`.", "Scales `x` ($Format:%H$)."))
    _commit(repo, "export rules")
    _assert_unchanged(capsys)


def test_include_dirs_outside_the_repository(repo, tmp_path, capsys):
    """Not in any revision: read from the work tree when the work tree's config names them too."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "common.h").write_text('#define SCALE_DOC "Scales."\n')
    spec = repo / "specs" / "ops.cc"
    spec.write_text('#include "common.h"\n' + SPEC_V1.replace('.Doc(R"doc(\nScales `x`.\n)doc")', ".Doc(SCALE_DOC)"))
    (repo / "pyproject.toml").write_text(PYPROJECT + 'include_dirs = ["../shared"]\n')
    _commit(repo, "shared headers")
    code, out, err = run_cli(["diff", "--git", "HEAD", "--format", "json"], capsys)
    assert (code, json.loads(out)["changes"]) == (0, [])
    assert err.startswith("note: include directory ../shared is outside the git repository"), err
    # a revision may not make opgen read a directory the user's config does not name
    (repo / "pyproject.toml").write_text(PYPROJECT + f'include_dirs = ["{tmp_path / "elsewhere"}"]\n')
    _commit(repo, "names another directory")
    (repo / "pyproject.toml").write_text(PYPROJECT + 'include_dirs = ["../shared"]\n')
    code, out, err = run_cli(["diff", "--git", "HEAD"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("HEAD:pyproject.toml:3:17: error: [tool.opgen] include_dirs names"), err


def test_include_dirs_elsewhere_in_the_repository_come_from_the_revision(tmp_path, monkeypatch, capsys):
    root = tmp_path / "repo"
    project = root / "lib"
    (project / "specs").mkdir(parents=True)
    (root / "shared").mkdir()
    (root / "shared" / "common.h").write_text('#define SCALE_DOC "Scales."\n')
    (project / "pyproject.toml").write_text(PYPROJECT + 'include_dirs = ["../shared"]\n')
    (project / "specs" / "ops.cc").write_text(
        '#include "common.h"\n' + SPEC_V1.replace('.Doc(R"doc(\nScales `x`.\n)doc")', ".Doc(SCALE_DOC)"))
    git(root, "init", "-q")
    _commit(root, "v1")
    monkeypatch.chdir(project)
    _assert_unchanged(capsys)
    (root / "shared" / "common.h").write_text('#define SCALE_DOC "Scales more."\n')
    code, out, _ = run_cli(["diff", "--git", "HEAD", "--format", "json"], capsys)
    assert code == 0 and [c["rule"] for c in json.loads(out)["changes"]] == ["doc_changed"]
