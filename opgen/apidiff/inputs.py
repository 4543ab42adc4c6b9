"""Where the two sides of `opgen diff` come from: projects, spec trees, OpList files,
API snapshots, or a git revision (its blobs read into a temporary tree, never touching the
work tree)."""

from __future__ import annotations

import dataclasses
import difflib
import os
import posixpath
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from opgen.apidiff.snapshot import Snapshot
from opgen.apidiff.snapshot_build import build_snapshot
from opgen.apidiff.snapshot_format import FORMAT_TAG, from_json, from_markdown
from opgen.config import Config, check_default_sources, load_config
from opgen.errors import Location, OpgenError, OpgenErrors, opgen_command, printable_path, report
from opgen.limits import MAX_FILE_BYTES, MAX_REVISION_BYTES, read_input_bytes, read_text_file
from opgen.module_groups import module_rule
from opgen.settings import SpecInput, option_defaults

if TYPE_CHECKING:
    from opgen.model import GatherResult


def gather_config(
    config: Config, sources: list[str] | None = None, warn: Callable[[str], None] = report
) -> GatherResult:
    """Gather the specs a configuration names (or `sources`, with its defines and helpers);
    its warnings go to `warn` (as for every command that gathers: `gather`). The ops of text
    OpList files are located part by part (`_with_oplist_parts`), as C++ registrations are."""
    return _with_oplist_parts(SpecInput.from_config(config, sources).gather(warn=warn))


def _with_oplist_parts(gathered: GatherResult) -> GatherResult:
    """`gathered` with each op of a text OpList file given the locations of its parts and
    their fields (`opgen.spec.oplist_parts`: `attr T`, `attr T default_value`, ...), so a diff
    locates a change at the field that changed, not at the op's `op {` line. Only a diff asks
    (a build reads OpLists without this scan)."""
    from opgen.spec.oplist_io import BINARY_SUFFIXES, JSON_SUFFIXES
    from opgen.spec.oplist_parts import op_list_part_locations

    files: dict[str, dict[str, tuple[tuple[str, Location], ...]]] = {}
    sources = dict(gathered.sources)
    for name, source in gathered.sources.items():
        path = source.location.path
        if not source.from_op_list or Path(path).suffix.lower() in BINARY_SUFFIXES + JSON_SUFFIXES:
            continue
        if path not in files:  # (the file parsed when it was gathered)
            files[path] = op_list_part_locations(read_text_file(path, "OpList file"), path)
        parts = files[path].get(name)
        if parts:
            sources[name] = dataclasses.replace(source, parts=parts)
    return dataclasses.replace(gathered, sources=sources)


def project_snapshot(config: Config, warn: Callable[[str], None] = report) -> Snapshot:
    """The snapshot of a configured project: its sources, through its override directory.

    Locations are relative to the cwd.
    """
    from opgen.overrides.load import load_overrides

    check_default_sources(config, f"name both sides ({opgen_command('diff OLD NEW')})")
    gathered = gather_config(config, warn=warn)
    model = load_overrides(option_defaults(config).get("overrides"), gathered.op_list, merge=config.merge_overrides)
    return build_snapshot(gathered, model, config, shown_root=config.root)


def _is_snapshot_file(path: Path) -> bool:
    if path.suffix != ".json":
        return False
    head = read_input_bytes(path)[:200].decode("utf-8", "replace")
    return FORMAT_TAG in head


def _spec_tree_snapshot(tree: Path, config: Config) -> Snapshot:
    """A bare directory of specs: its C++ and OpList files, overrides from `tree/overrides`."""
    from opgen.overrides.load import load_overrides
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


def named_project(spec: str) -> Config | None:
    """The configuration of the project `spec` names (a directory with a pyproject.toml), else None."""
    return load_config(Path(spec)) if (Path(spec) / "pyproject.toml").is_file() else None


def stands_for_project(spec: str | None) -> bool:
    """Whether a diff side is the project's API: the project itself (no path, or a directory
    with a pyproject.toml) or an API snapshot file (what `opgen build` keeps of it)."""
    if spec is None:
        return True
    path = Path(spec)
    if path.is_dir():
        return named_project(spec) is not None
    return path.suffix.lower() == ".md" or (path.is_file() and _is_snapshot_file(path))


def load_side(spec: str, config: Config, project_overrides: bool = False) -> Snapshot:
    """One side of a diff named on the command line (a path). A C++ or OpList file takes the
    project's overrides with `project_overrides` (the other side is the project's API: a dump
    of its ops, `oplist --from-library`, then has the same Python API), passing over those of
    ops the file lacks."""
    path = Path(spec)
    if not path.exists():
        raise OpgenError("no such file or directory", Location(spec),
                         hint="give a spec tree, a project, an OpList file, an API snapshot (.md or .json), "
                              "or use --git REV for a git revision")
    if path.is_dir():
        project = named_project(spec)
        return project_snapshot(project) if project else _spec_tree_snapshot(path, config)
    if path.suffix.lower() == ".md":  # never C++: the committed Markdown snapshot or an error
        return from_markdown(read_text_file(path, "API snapshot"), spec)
    if _is_snapshot_file(path):
        return from_json(read_text_file(path, "API snapshot"), spec)
    # a C++ source or an OpList file: gather reads both
    from opgen.overrides.load import load_overrides

    single = dataclasses.replace(config, root=path.parent)
    gathered = gather_config(single, [str(path)])
    overrides = config.path(config.overrides) if config.overrides and project_overrides else None
    model = load_overrides(overrides if overrides is not None and overrides.exists() else None, gathered.op_list,
                           merge=config.merge_overrides, known_ops_only=True)
    snapshot = build_snapshot(gathered, model, single, shown_root=path.parent)
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


@dataclasses.dataclass(frozen=True)
class _TreeEntry:
    mode: str  # 100644/100755 file, 120000 symbolic link, 160000 submodule
    oid: str
    size: int  # 0 for a submodule
    path: str  # from the repository's top


_MAX_LINK_TARGET = 4096  # PATH_MAX: a committed link's blob is its target


class _Revision:
    """A revision's files, read as blobs (`git ls-tree` + `git cat-file --batch`), never with
    `git archive`: `.gitattributes` export-ignore / export-subst must not change what is
    compared, and nothing is unpacked that was not checked first (regular files within
    opgen's size limits; symbolic links only to paths inside the revision)."""

    def __init__(self, top: Path, commit: str, rev: str, tree: Path):
        self.top, self.commit, self.rev, self.tree = top, commit, rev, tree
        self.written = 0

    def entries(self, paths: list[str] | None) -> list[_TreeEntry]:
        """The files at or below `paths` (repository paths; None: the whole revision)."""
        spec = ["--", *paths] if paths is not None else []
        out = _git(["--literal-pathspecs", "ls-tree", "-r", "-z", "-l", "--full-tree", self.commit, *spec], self.top,
                   f"cannot read revision {self.rev}")
        entries = []
        for record in out.decode("utf-8", "surrogateescape").split("\0"):
            if not record:
                continue
            head, _, path = record.partition("\t")
            mode, _, oid, size = head.split()
            entries.append(_TreeEntry(mode, oid, int(size) if size.isdigit() else 0, path))
        return entries

    def where(self, path: str) -> Location:
        return Location(str(self.tree / path))  # shown as REV:path (`_at_revision`)

    def _target(self, path: str) -> Path:
        parts = PurePosixPath(path).parts
        if not parts or any(p in ("", ".", "..", ".git") for p in parts):  # git fsck refuses these too
            raise OpgenError(f"the revision has a path opgen will not write: {path!r}",
                             Location(path, revision=self.rev))
        return self.tree.joinpath(*parts)

    def extract(self, entries: list[_TreeEntry]) -> None:
        """Write `entries` under the temporary tree, and what their links point to; located
        errors for what is refused."""
        done: set[str] = set()
        while entries:
            links: list[tuple[Path, str]] = []
            targets: list[str] = []
            blobs: list[_TreeEntry] = []
            for e in entries:
                done.add(e.path)
                if e.mode == "160000":
                    report(f"{self.rev}:{printable_path(e.path)}: warning: a git submodule: opgen diff --git does "
                           "not read submodules")
                elif e.mode == "120000":
                    target, inside = self._link_target(e)
                    links.append((self._target(e.path), target))
                    targets.append(inside)
                else:
                    self._count(e)
                    blobs.append(e)
            self._write_blobs(blobs)
            for path, target in links:
                path.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(target, path)
            # a link's target may lie outside the paths asked for: read it too (each path once)
            wanted = sorted(t for t in set(targets) if t != "." and t not in done)
            entries = [e for e in self.entries(wanted) if e.path not in done] if wanted else []

    def _count(self, e: _TreeEntry) -> None:
        if e.size > MAX_FILE_BYTES:
            raise OpgenError(f"{e.size} bytes, more than opgen's limit of {MAX_FILE_BYTES} for one file",
                             self.where(e.path), hint="keep big files out of the source and include directories")
        self.written += e.size
        if self.written > MAX_REVISION_BYTES:
            raise OpgenError(f"the files opgen diff --git reads from revision {self.rev} are more than "
                             f"{MAX_REVISION_BYTES} bytes together (opgen's limit)", self.where(e.path),
                             hint="name the sources and include directories in [tool.opgen] precisely, so "
                                  "fewer files are read")

    def _link_target(self, e: _TreeEntry) -> tuple[str, str]:
        """A committed link's target, when it stays inside the revision, and that target as a
        repository path."""
        if e.size > _MAX_LINK_TARGET:
            raise OpgenError("a symbolic link with an oversized target", self.where(e.path))
        target = _git(["cat-file", "blob", e.oid], self.top, f"cannot read revision {self.rev}").decode(
            "utf-8", "surrogateescape")
        inside = posixpath.normpath(posixpath.join(posixpath.dirname(e.path), target))
        if posixpath.isabs(target) or inside == ".." or inside.startswith("../") or "\0" in target:
            raise OpgenError(f"a symbolic link to {target!r}, outside the revision: opgen diff --git reads the "
                             "revision alone", self.where(e.path),
                             hint="commit the file itself, or a link to a path inside the repository")
        return target, inside

    def _write_blobs(self, blobs: list[_TreeEntry]) -> None:
        """Stream each blob from one `git cat-file --batch` into its file (a blob at several
        paths is read once)."""
        first: dict[str, Path] = {}
        proc = subprocess.Popen(["git", "cat-file", "--batch"], cwd=self.top, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            for e in blobs:
                dest = self._target(e.path)
                dest.parent.mkdir(parents=True, exist_ok=True)
                if e.oid in first:
                    shutil.copyfile(first[e.oid], dest, follow_symlinks=False)
                    continue
                proc.stdin.write(f"{e.oid}\n".encode())
                proc.stdin.flush()
                header = proc.stdout.readline().split()
                if len(header) != 3 or header[1] != b"blob" or int(header[2]) != e.size:
                    raise OpgenError(f"cannot read revision {self.rev}: git cat-file gave {header!r}",
                                     self.where(e.path))
                fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
                with os.fdopen(fd, "wb") as f:
                    left = e.size
                    while left:
                        chunk = proc.stdout.read(min(left, 1 << 20))
                        if not chunk:
                            raise OpgenError(f"cannot read revision {self.rev}: git cat-file ended early",
                                             self.where(e.path))
                        f.write(chunk)
                        left -= len(chunk)
                proc.stdout.read(1)  # the newline after each object
                first[e.oid] = dest
        finally:
            proc.stdin.close()
            proc.stdout.close()
            proc.wait()


_GLOB = set("*?[")


def _repo_paths(config: Config, prefix: str) -> dict[str, list[tuple[tuple[str | int, ...], str]]]:
    """What gathering and overrides read, as repository paths: {repo path: [(config key, value)]}
    (a glob reads from its literal directory part; the whole revision is "."). A value outside
    the repository is listed under ".." (`_outside`)."""
    out: dict[str, list[tuple[tuple[str | int, ...], str]]] = {
        posixpath.normpath(posixpath.join(prefix, "pyproject.toml")): []}
    values: list[tuple[tuple[str | int, ...], str]] = [
        *((("sources", i), v) for i, v in enumerate(config.sources)),
        *((("include_dirs", i), v) for i, v in enumerate(config.include_dirs)),
        *(((key,), v) for key, v in (("overrides", config.overrides), ("allow", config.allow)) if v)]
    for key, value in values:
        literal: list[str] = []
        for part in PurePosixPath(value.replace(os.sep, "/")).parts:
            if set(part) & _GLOB:
                break
            literal.append(part)
        joined = posixpath.normpath(posixpath.join(prefix, *literal)) if literal else posixpath.normpath(prefix)
        outside = PurePosixPath(value).is_absolute() or joined == ".." or joined.startswith("../")
        out.setdefault(".." if outside else joined, []).append((key, value))
    return out


def _outside(rev_config: Config, values: list[tuple[tuple[str | int, ...], str]], work: Config, rev: str) -> Config:
    """The revision's config with its include directories outside the repository read from the
    work tree, where the only copy of an unversioned directory lives: allowed for a directory
    the work tree's own config also includes (so a revision cannot make opgen read anything the
    user's config does not), noted on stderr. Any other path outside the repository is an error."""
    vouched = {work.path(d).resolve() for d in work.include_dirs}
    include_dirs = list(rev_config.include_dirs)
    for key, value in values:
        real = (Path(value) if Path(value).is_absolute() else work.root / value).resolve()
        if key[0] != "include_dirs" or real not in vouched:
            raise OpgenError(f"[tool.opgen] {key[0]} names {value!r}, outside the git repository: opgen diff --git "
                             "reads the revision alone", rev_config.where(*key),
                             hint="keep sources, overrides and allow lists in the repository (include directories "
                                  "outside it are read from the work tree when the work tree's config names them too)")
        include_dirs[int(key[1])] = str(real)
        report(f"note: include directory {printable_path(value)} is outside the git repository, so no revision "
               f"has it: opgen diff --git {rev} reads its headers from the work tree ({printable_path(real)})")
    return dataclasses.replace(rev_config, include_dirs=tuple(include_dirs))


def _in_revision(loc: Location, project: Path, tree: Path, rev: str) -> Location:
    """A location inside the extracted tree as a file of the revision (`REV:path`, what the
    user can look up): relative to the project, or to the repository's top for files outside
    the project."""
    path = Path(os.path.normpath(Path.cwd().resolve() / loc.path))  # a snapshot's are relative to the resolved cwd
    for base in (project, tree):
        if path == base or base in path.parents:
            return Location(path.relative_to(base).as_posix(), loc.line, loc.col, revision=rev)
    return loc


def _at_revision(error: OpgenError, project: Path, tree: Path, rev: str) -> OpgenError:
    """`error` with its location inside the extracted tree as a file of the revision."""
    if isinstance(error, OpgenErrors):
        return OpgenErrors([_at_revision(e, project, tree, rev) for e in error.errors])
    loc = error.location and _in_revision(error.location, project, tree, rev)
    return OpgenError(error.message if error.location else f"at git revision {rev}: {error.message}", loc, error.hint)


def work_tree_top(where: Path) -> Path:
    """The top of the git work tree holding `where` (an error outside one)."""
    return Path(_git(["rev-parse", "--show-toplevel"], where, f"{where} is not in a git work tree")
                .decode().strip()).resolve()


def merge_base(a: str, b: str, config: Config) -> str:
    """The commit of the merge base of revisions `a` and `b` (`git merge-base`), abbreviated
    as git shows commits (`git rev-parse --short`: unique in the repository): it names the
    base's files in locations (`1919979:ops/math_ops.cc:29:6`), which a reader can pass to
    `git show` as they are; the 40 digits only made them long."""
    top = work_tree_top(config.root)
    commits = [_commit_of(rev, top) for rev in (a, b)]  # an unknown one is said as such, not as "no merge base"
    base = _git(["merge-base", *commits], top, f"no merge base of {a!r} and {b!r}").decode().strip()
    return _git(["rev-parse", "--short", base], top, f"cannot abbreviate commit {base}").decode().strip()


_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class WorkTreeFile:
    """How file `path` of the work tree differs from a revision's version of it: `git diff`'s
    hunks (`@@ -a,b +c,d @@` as (a, b, c, d)) and the work tree file's number of lines."""

    hunks: tuple[tuple[int, int, int, int], ...]
    lines: int

    @property
    def unchanged(self) -> bool:
        """Its lines are the revision's."""
        return not self.hunks

    def line_of(self, line: int) -> tuple[int, bool]:
        """Where line `line` of the revision's version is in the work tree's, and whether it is
        there unchanged: the same line moved by the lines inserted or deleted before it, or,
        for a line that was deleted or replaced, the first line after the deleted block (the
        first of the lines replacing it), where the pull request's diff shows the deletion; at
        most the file's last line (0: the file is empty)."""
        shift = 0
        for a, b, c, d in self.hunks:
            if b == 0:  # lines inserted after old line a
                if line <= a:
                    break
                shift += d
                continue
            if line < a:
                break
            if line < a + b:  # deleted (d == 0: the new side's hunk starts at the line before)
                return min(c if d else c + 1, self.lines), False
            shift += d - b
        return min(line + shift, self.lines), line + shift <= self.lines


def work_tree_file(rev: str, path: Path, top: Path) -> WorkTreeFile | None:
    """How file `path` of the work tree at `top` differs from revision `rev`'s (`git diff -U0`,
    the user's external diff and text conversion off); None when the work tree has no such
    file or git cannot compare it with the revision."""
    if not path.is_file():
        return None
    try:
        out = _git(["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--text", "-U0", rev, "--", str(path)],
                   top, f"cannot compare {path} with {rev}")
        data = path.read_bytes()
    except (OpgenError, OSError):
        return None
    hunks = tuple((int(m[1]), int(m[2] or b"1"), int(m[3]), int(m[4] or b"1")) for m in _HUNK.finditer(out))
    return WorkTreeFile(hunks, data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0))


def _commit_of(rev: str, top: Path) -> str:
    """The commit `rev` names in the repository at `top`; an error, with the branches and tags
    it may mean, when it names none (`master` in a fresh CI clone, which has `origin/master`)."""
    try:
        return _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top,
                    f"unknown git revision {rev!r}").decode().strip()
    except OpgenError as e:
        refs = _git(["for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes", "refs/tags"], top,
                    "cannot list the repository's branches").decode().split()
        close = [ref for ref in refs if ref.endswith("/" + rev)] or difflib.get_close_matches(rev, refs, n=3)
        e.message = f"unknown git revision {rev!r}"  # git --quiet says nothing more
        e.hint = (f"did you mean {' or '.join(map(repr, close))}? else " if close else "") + (
            "name a branch, tag or commit of this repository (git branch -a lists them)")
        if rev == "origin/main":  # the base of opgen's opgen-diff pre-commit hook
            e.hint += ("; opgen's opgen-diff pre-commit hook compares with origin/main: for another base, set the "
                       "hook's `entry: opgen diff --git BASE` in .pre-commit-config.yaml")
        raise


def git_revision_snapshot(rev: str, config: Config) -> Snapshot:
    """The project as committed at `rev`, its files read from the revision alone into a
    temporary directory (`_Revision`): its config, sources, headers and overrides.

    The work tree, index and HEAD are never touched. Locations, of errors as of the snapshot,
    are the revision's files (`REV:path`, `_in_revision`): the work tree's may differ or be gone.
    """
    top = work_tree_top(config.root)
    prefix = PurePosixPath(os.path.relpath(config.root.resolve(), top)).as_posix()
    commit = _commit_of(rev, top)

    with tempfile.TemporaryDirectory(prefix="opgen-diff-") as tmp:
        tree = Path(tmp).resolve()
        project = tree.joinpath(*PurePosixPath(prefix).parts)
        project.mkdir(parents=True, exist_ok=True)
        revision = _Revision(top, commit, rev, tree)
        config_path = posixpath.normpath(posixpath.join(prefix, "pyproject.toml"))
        try:
            found = revision.entries([config_path])
            if not found:
                rev_config = dataclasses.replace(config, root=project)  # no config then: the work tree's settings
            elif len(found) == 1 and found[0].path == config_path and found[0].mode in ("100644", "100755"):
                revision.extract(found)
                rev_config = load_config(project)  # finds the file just written: never a parent directory
            else:
                kind = {"120000": "a symbolic link", "160000": "a submodule"}.get(found[0].mode, "a directory")
                raise OpgenError(f"pyproject.toml is {kind} in the revision; opgen reads the configuration from a "
                                 "regular file", revision.where(config_path))
            wanted = _repo_paths(rev_config, prefix)
            if ".." in wanted:
                rev_config = _outside(rev_config, wanted.pop(".."), config, rev)
            wanted.pop(config_path)
            paths = None if "." in wanted else sorted(wanted)
            if paths is None or paths:
                revision.extract([e for e in revision.entries(paths) if e.path != config_path])
            # the extracted project's paths, and the project itself (an include directory `.`)
            extracted = re.compile("|".join(re.escape(str(p)) + rf"(?:{re.escape(os.sep)}|(?=[,;)\s]|$))"
                                            for p in dict.fromkeys((str(project), os.path.realpath(project)))))

            def warn(text: str) -> None:  # located `REV:path` like its errors
                report(extracted.sub(f"{rev}:", text))

            snapshot = project_snapshot(rev_config, warn=warn)
            return snapshot.relocated(lambda loc: _in_revision(loc, project, tree, rev))
        except OpgenError as e:
            error = _at_revision(e, project, tree, rev)
            last = error.errors[-1] if isinstance(error, OpgenErrors) else error  # a list shows its errors' hints
            if not found and not (config.root / "pyproject.toml").is_file():
                defaults = (f"no pyproject.toml in {printable_path(config.root)} or above, nor at {rev}: opgen "
                            "read the default settings; run it in the project, or name the project: "
                            f"{opgen_command(f'diff --git {rev} path/to/project')}")
                last.hint = f"{defaults}; or {last.hint}" if last.hint else defaults
            raise error from None
