"""Where the two sides of `opgen diff` come from: projects, spec trees, OpList files,
API snapshots, or a git revision (read with `git archive`, never touching the work tree)."""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from opgen.apidiff.snapshot import Snapshot
from opgen.apidiff.snapshot_build import build_snapshot
from opgen.apidiff.snapshot_format import FORMAT_TAG, from_json, from_markdown
from opgen.config import Config, load_config
from opgen.errors import Location, OpgenError, OpgenErrors, report
from opgen.limits import read_input_bytes, read_text_file
from opgen.module_groups import module_rule


def gather_config(config: Config, sources: list[str] | None = None, warn: Callable[[str], None] = report):
    """Gather the specs a configuration names (or `sources`, with its defines and helpers);
    its warnings go to `warn` (as for every command that gathers: `gather`)."""
    from opgen.spec.gather import gather

    return gather(
        sources if sources is not None else [str(config.path(s)) for s in config.sources],
        defines=list(config.defines),
        include_dirs=[str(config.path(d)) for d in config.include_dirs],
        allow_file=str(config.path(config.allow)) if config.allow else None,
        include_internal=False,
        helpers=config.helpers,
        strict_includes=config.strict_includes,
        warn=warn,
        undefines=list(config.undefines),
        strict_defines=config.strict_defines,
        core_ops=config.core_ops,
    )


def project_snapshot(config: Config, shown_root: Path | None = None, warn: Callable[[str], None] = report) -> Snapshot:
    """The snapshot of a configured project: its sources, through its override directory.

    Locations are relative to the cwd, as if the project were at `shown_root` (default: its root).
    """
    from opgen.overrides import load_overrides

    gathered = gather_config(config, warn=warn)
    overrides = config.path(config.overrides) if config.overrides else None
    if overrides is not None and not overrides.exists():
        overrides = None
    model = load_overrides(overrides, gathered.op_list, merge=config.merge_overrides)
    return build_snapshot(gathered, model, config, shown_root=shown_root or config.root)


def _is_snapshot_file(path: Path) -> bool:
    if path.suffix != ".json":
        return False
    head = read_input_bytes(path)[:200].decode("utf-8", "replace")
    return FORMAT_TAG in head


def _spec_tree_snapshot(tree: Path, config: Config) -> Snapshot:
    """A bare directory of specs: its C++ and OpList files, overrides from `tree/overrides`."""
    from opgen.overrides import load_overrides
    from opgen.spec.gather import TRANSLATION_UNIT_SUFFIXES
    from opgen.spec.oplist_io import OPLIST_SUFFIXES

    overrides_dir = tree / "overrides"
    files = sorted(p for p in tree.rglob("*") if p.is_file() and overrides_dir not in p.parents
                   and p.name.lower().endswith((*TRANSLATION_UNIT_SUFFIXES, *OPLIST_SUFFIXES)))
    tree_config = dataclasses.replace(config, root=tree, overrides=None, out=str(tree))
    gathered = gather_config(tree_config, [str(p) for p in files])
    model = load_overrides(overrides_dir if overrides_dir.is_dir() else None, gathered.op_list,
                           merge=config.merge_overrides)
    return build_snapshot(gathered, model, tree_config, shown_root=tree)


def load_side(spec: str, config: Config) -> Snapshot:
    """One side of a diff named on the command line (a path)."""
    path = Path(spec)
    if not path.exists():
        raise OpgenError(f"no such file or directory: {spec}",
                         hint="give a spec tree, a project, an OpList file, an API snapshot (.md or .json), "
                              "or use --git REV for a git revision")
    if path.is_dir():
        if (path / "pyproject.toml").is_file():
            return project_snapshot(load_config(path))
        return _spec_tree_snapshot(path, config)
    if path.suffix.lower() == ".md":  # never C++: the committed Markdown snapshot or an error
        return from_markdown(read_text_file(path, "API snapshot"), spec)
    if _is_snapshot_file(path):
        return from_json(read_text_file(path, "API snapshot"), spec)
    # a C++ source or an OpList file: gather reads both
    from opgen.overrides import load_overrides

    single = dataclasses.replace(config, root=path.parent)
    gathered = gather_config(single, [str(path)])
    snapshot = build_snapshot(gathered, load_overrides(None, gathered.op_list), single, shown_root=path.parent)
    snapshot.modules_from_file_name = frozenset(
        op.name for op in gathered.op_list.op if module_rule(op.name, config.modules) is None)
    return snapshot


def _git(args: list[str], cwd: Path, what: str) -> bytes:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise OpgenError("git is not installed", hint="install git, or diff two paths instead") from None
    if proc.returncode != 0:
        message = proc.stderr.decode(errors="replace").strip().splitlines()
        raise OpgenError(f"{what}: {message[-1] if message else 'git failed'}")
    return proc.stdout


def _git_exists(top: Path, rev: str, path: str) -> bool:
    proc = subprocess.run(["git", "cat-file", "-e", f"{rev}:{path}"], cwd=top, capture_output=True, check=False)
    return proc.returncode == 0


def _extract(top: Path, commit: str, paths: list[str], dest: Path) -> None:
    """`git archive` the given repository paths of `commit` into `dest` (never the work tree)."""
    data = _git(["archive", "--format=tar", commit, "--", *paths], top, f"cannot read revision {commit}")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")


def _read_paths(config: Config) -> list[str] | None:
    """The top-level entries of a project that gathering and overrides read; None = all of it.

    Only these are extracted from a revision, so diffing against a big repository's history
    stays fast. Headers must lie under a source or include directory, as for `opgen build`.
    """
    entries = {"pyproject.toml"}
    for value in (*config.sources, *config.include_dirs, config.overrides, config.allow):
        if not value:
            continue
        parts = PurePosixPath(value.replace(os.sep, "/")).parts
        if not parts or PurePosixPath(value).is_absolute() or ".." in parts or set(parts[0]) & set("*?["):
            return None
        entries.add(parts[0])
    return sorted(entries)


def _at_revision(error: OpgenError, project: Path, rev: str) -> OpgenError:
    """Rewrite locations inside the extracted tree as `REV:path` (what the user can look up)."""
    if isinstance(error, OpgenErrors):
        return OpgenErrors([_at_revision(e, project, rev) for e in error.errors])
    loc = error.location
    if loc is not None:
        try:
            rel = Path(loc.path).resolve().relative_to(project).as_posix()
            loc = Location(f"{rev}:{rel}", loc.line, loc.col)
        except ValueError:
            pass
    return OpgenError(error.message if error.location else f"at git revision {rev}: {error.message}", loc, error.hint)


def git_revision_snapshot(rev: str, config: Config) -> Snapshot:
    """The project as committed at `rev`: `git archive` into a temporary directory.

    The work tree, index and HEAD are never touched. Locations are shown as if the files
    were in the work tree (relative to the cwd); errors inside the revision read `REV:path`.
    """
    top = Path(_git(["rev-parse", "--show-toplevel"], config.root, f"{config.root} is not in a git work tree")
               .decode().strip()).resolve()
    prefix = PurePosixPath(os.path.relpath(config.root.resolve(), top)).as_posix()
    commit = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top,
                  f"unknown git revision {rev!r}").decode().strip()

    def repo_path(rel: str) -> str:
        return rel if prefix == "." else f"{prefix}/{rel}"

    with tempfile.TemporaryDirectory(prefix="opgen-diff-") as tmp:
        tree = Path(tmp)
        project = (tree / prefix).resolve()
        project.mkdir(parents=True, exist_ok=True)
        try:
            if _git_exists(top, commit, repo_path("pyproject.toml")):
                _extract(top, commit, [repo_path("pyproject.toml")], tree)
                rev_config = load_config(project)
            else:
                rev_config = dataclasses.replace(config, root=project)
            wanted = _read_paths(rev_config)
            if wanted is None:
                paths = [prefix]
            else:
                paths = [repo_path(p) for p in wanted if _git_exists(top, commit, repo_path(p))]
            if paths:
                _extract(top, commit, paths, tree)
            extracted = (f"{project}{os.sep}", f"{os.path.realpath(project)}{os.sep}")

            def warn(text: str) -> None:  # located `REV:path` like its errors
                report(text.replace(extracted[0], f"{rev}:").replace(extracted[1], f"{rev}:"))

            return project_snapshot(rev_config, shown_root=config.root, warn=warn)
        except OpgenError as e:
            raise _at_revision(e, project, rev) from None
