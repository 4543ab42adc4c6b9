"""Where the two sides of `opgen diff` come from: projects, spec trees, OpList files,
API snapshots, or a git revision (read with `git archive`, never touching the work tree)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import tarfile
import tempfile
from pathlib import Path

from opgen.apidiff.snapshot import Snapshot
from opgen.apidiff.snapshot_build import build_snapshot
from opgen.apidiff.snapshot_format import FORMAT_TAG, from_json
from opgen.config import Config, load_config
from opgen.errors import OpgenError


def gather_config(config: Config, sources: list[str] | None = None):
    """Gather the specs a configuration names (or `sources`, with its defines and helpers)."""
    from opgen.spec.gather import gather

    return gather(
        sources if sources is not None else [str(config.path(s)) for s in config.sources],
        defines=list(config.defines),
        include_dirs=[str(config.path(d)) for d in config.include_dirs],
        allow_file=str(config.path(config.allow)) if config.allow else None,
        include_internal=False,
        helpers=config.helpers,
    )


def project_snapshot(config: Config) -> Snapshot:
    """The snapshot of a configured project: its sources, through its override directory."""
    from opgen.overrides import load_overrides

    gathered = gather_config(config)
    overrides = config.path(config.overrides) if config.overrides else None
    if overrides is not None and not overrides.exists():
        overrides = None
    model = load_overrides(overrides, gathered.op_list, merge=config.merge_overrides)
    return build_snapshot(gathered, model, config)


def _is_snapshot_file(path: Path) -> bool:
    if path.suffix != ".json":
        return False
    head = path.read_text(encoding="utf-8", errors="replace")[:200]
    return FORMAT_TAG in head


def _spec_tree_snapshot(tree: Path, config: Config, display: str) -> Snapshot:
    """A bare directory of specs: its C++ and OpList files, overrides from `tree/overrides`.

    Locations read `<display>/<file>`: the directory as the user named it.
    """
    from opgen.overrides import load_overrides

    overrides_dir = tree / "overrides"
    from opgen.spec.gather import TRANSLATION_UNIT_SUFFIXES
    from opgen.spec.oplist_io import OPLIST_SUFFIXES

    files = sorted(p for p in tree.rglob("*") if p.is_file() and overrides_dir not in p.parents
                   and p.name.lower().endswith((*TRANSLATION_UNIT_SUFFIXES, *OPLIST_SUFFIXES)))
    tree_config = dataclasses.replace(config, root=tree, overrides=None, out=str(tree))
    gathered = gather_config(tree_config, [str(p) for p in files])
    model = load_overrides(overrides_dir if overrides_dir.is_dir() else None, gathered.op_list,
                           merge=config.merge_overrides)
    return build_snapshot(gathered, model, tree_config, display_prefix=display)


def load_side(spec: str, config: Config) -> Snapshot:
    """One side of a diff named on the command line (a path)."""
    path = Path(spec)
    if not path.exists():
        raise OpgenError(f"no such file or directory: {spec}",
                         hint="give a spec tree, an OpList file, an API snapshot (.json), "
                              "or use --git REV for a git revision")
    if path.is_dir():
        if (path / "pyproject.toml").is_file():
            return project_snapshot(load_config(path))
        return _spec_tree_snapshot(path, config, spec.rstrip("/"))
    if _is_snapshot_file(path):
        return from_json(path.read_text(encoding="utf-8"), spec)
    # a C++ source or an OpList file: gather reads both
    single = dataclasses.replace(config, root=path.parent)
    from opgen.overrides import load_overrides

    gathered = gather_config(single, [str(path)])
    return build_snapshot(gathered, load_overrides(None, gathered.op_list), single,
                          display_prefix=str(path.parent) if str(path.parent) != "." else "")


def _git(args: list[str], cwd: Path, what: str) -> bytes:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise OpgenError("git is not installed", hint="install git, or diff two paths instead") from None
    if proc.returncode != 0:
        message = proc.stderr.decode(errors="replace").strip().splitlines()
        raise OpgenError(f"{what}: {message[-1] if message else 'git failed'}")
    return proc.stdout


def git_revision_snapshot(rev: str, config: Config) -> Snapshot:
    """The project as committed at `rev`: `git archive` into a temporary directory.

    The work tree, index and HEAD are never touched. Locations are reported as if the
    files were in the work tree (relative to the project root).
    """
    top = Path(_git(["rev-parse", "--show-toplevel"], config.root, f"{config.root} is not in a git work tree")
               .decode().strip())
    prefix = os.path.relpath(config.root.resolve(), top.resolve())
    commit = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top, f"unknown git revision {rev!r}")
    with tempfile.TemporaryDirectory(prefix="opgen-diff-") as tmp:
        archive = Path(tmp) / "rev.tar"
        archive.write_bytes(_git(["archive", "--format=tar", commit.decode().strip()], top,
                                 f"cannot read revision {rev!r}"))
        tree = Path(tmp) / "tree"
        with tarfile.open(archive) as tar:
            tar.extractall(tree, filter="data")
        project = (tree / prefix).resolve()
        if not project.is_dir():
            raise OpgenError(f"{prefix} does not exist at revision {rev!r}")
        if (project / "pyproject.toml").is_file():
            rev_config = load_config(project)
        else:
            rev_config = dataclasses.replace(config, root=project)
        return project_snapshot(rev_config)
