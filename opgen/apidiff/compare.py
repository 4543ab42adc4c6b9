"""`opgen diff`'s comparison: two sides (`inputs`) classified (`changes`) and reported
(`report`), with the exit status the command returns."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TextIO

from opgen.apidiff.changes import DiffResult, diff_snapshots
from opgen.apidiff.inputs import (
    WorkTreeFile,
    git_revision_snapshot,
    load_side,
    merge_base,
    named_project,
    project_snapshot,
    stands_for_project,
    work_tree_file,
    work_tree_top,
)
from opgen.apidiff.report import FORMATTERS, format_github_errors, format_text
from opgen.apidiff.snapshot import Snapshot
from opgen.config import Config
from opgen.errors import Location, OpgenError, opgen_command
from opgen.fsutil import write_stdout


class DiffOptions(Protocol):
    """What `opgen diff` was asked (its command line; `opgen.commands.diff.Settings`)."""

    @property
    def old(self) -> str | None: ...
    @property
    def new(self) -> str | None: ...
    @property
    def git(self) -> str | None: ...
    @property
    def format(self) -> str: ...
    @property
    def allow_breaking(self) -> bool: ...


def _sides(args: DiffOptions, config: Config) -> tuple[Snapshot, Snapshot]:
    if args.git and ".." in args.git:
        return _revision_range(args.git, args.old or args.new, config)
    if args.git:
        if args.old and args.new:
            raise OpgenError("with --git REV give at most one path (the NEW side)",
                             hint=opgen_command("diff --git REV [NEW]"))
        new_spec = args.old or args.new
        if not new_spec:
            return git_revision_snapshot(args.git, config), project_snapshot(config)
        project = named_project(new_spec)
        if project is not None:  # a project named as NEW: itself at REV
            return git_revision_snapshot(args.git, project), project_snapshot(project)
        return git_revision_snapshot(args.git, config), load_side(new_spec, config, project_overrides=True)
    if not args.old:
        raise OpgenError("nothing to compare: give OLD [NEW] or --git REV",
                         hint=f"{opgen_command('diff old_specs/ new_specs/')}  |  {opgen_command('diff --git HEAD~1')}")
    old = load_side(args.old, config, project_overrides=stands_for_project(args.new))
    new = load_side(args.new, config, stands_for_project(args.old)) if args.new else project_snapshot(config)
    return old, new


def _revision_range(spec: str, project_path: str | None, config: Config) -> tuple[Snapshot, Snapshot]:
    """`--git A..B`: the project at A against itself at B (an empty end is HEAD, as in git);
    `A...B`: at the merge base of A and B against B (what a pull request from B into A
    changes). A path given names the project (a directory with a pyproject.toml)."""
    old_rev, dots, new_rev = spec.partition("...") if "..." in spec else spec.partition("..")
    old_rev, new_rev = old_rev or "HEAD", new_rev or "HEAD"
    project = config
    if project_path:
        named = named_project(project_path)
        if named is None:
            raise OpgenError(f"with --git {spec}, {project_path!r} is not a project (a directory with a "
                             "pyproject.toml)", hint="a revision range compares a project with itself: name the "
                             "project's directory, or nothing for the current one")
        project = named
    if dots == "...":
        old_rev = merge_base(old_rev, new_rev, project)
    return git_revision_snapshot(old_rev, project), git_revision_snapshot(new_rev, project)


def _use_color(stream: TextIO) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def _annotation_paths(result: DiffResult, project: Path) -> DiffResult:
    """Paths relative to the top of the git work tree (GitHub resolves annotation paths from
    the repository's root, wherever opgen ran), or to $GITHUB_WORKSPACE outside a work tree;
    unchanged (relative to the cwd) when neither is known (`_annotation_place`)."""
    placing = _annotation_place(project)
    if placing is None:
        return result
    move, work_tree_lines = placing

    def moved(loc: Location | None) -> Location | None:
        return loc and loc.moved(move)

    changes = [dataclasses.replace(c, location=moved(c.location), override_location=moved(c.override_location),
                                   work_tree_op=moved(c.work_tree_op)) for c in result.changes]
    return DiffResult(changes, result.ops, work_tree_lines)


def _annotation_place(project: Path) -> tuple[Callable[[Location], Location], dict[Location, Location]] | None:
    """How a location moves to where a GitHub annotation names it, and the lines of revisions'
    files it mapped to the work tree's (filled as it moves them); None when no place is known.
    A revision's file (`REV:path`, relative to the `project`, else to the top) that the work tree
    holds unchanged (`--git base...HEAD` in a checkout of HEAD) is the work tree's, whose lines
    GitHub annotates; a line of one the work tree holds changed is mapped to the line of the work
    tree's file where it now is, or where it was deleted (`DiffResult.work_tree_lines`)."""
    in_work_tree = True
    try:
        workspace = work_tree_top(Path.cwd())
    except OpgenError:
        if not os.environ.get("GITHUB_WORKSPACE"):
            return None
        workspace, in_work_tree = Path(os.environ["GITHUB_WORKSPACE"]), False
    files: dict[tuple[str, Path], WorkTreeFile | None] = {}
    work_tree_lines: dict[Location, Location] = {}

    def relative(path: Path, loc: Location, line: int, col: int) -> Location:
        try:
            rel = path.resolve().relative_to(workspace.resolve())
        except ValueError:
            return loc
        return Location(rel.as_posix(), line, col)

    def move(loc: Location) -> Location:
        path = Path.cwd() / loc.path
        if loc.revision:  # a revision's path: the work tree's file only when it is the same
            path = project / loc.path if (project / loc.path).is_file() else workspace / loc.path
            key = (loc.revision, path)
            if key not in files:
                files[key] = work_tree_file(loc.revision, path, workspace) if in_work_tree else None
            file = files[key]
            if file is None:  # the work tree has no such file
                return loc
            if not file.unchanged:
                line, kept = file.line_of(loc.line) if loc.line else (0, False)
                mapped = relative(path, loc, line, loc.col if kept else 0)
                if not mapped.revision:
                    work_tree_lines[loc] = mapped
                return loc
        return relative(path, loc, loc.line, loc.col)

    return move, work_tree_lines


def run_diff(args: DiffOptions, config: Config) -> int:
    """Report the differences NEW - OLD; exit 1 on a breaking change unless --allow-breaking.

    Locations are relative to the cwd; `--format github` makes them relative to the
    repository's top (`_annotation_paths`).
    """
    try:
        old, new = _sides(args, config)
    except OpgenError as e:  # shown on the pull request too, where a failed check's log is not read
        if args.format == "github":
            write_stdout(format_github_errors(e, _annotation_place(config.root)))
        raise
    result = diff_snapshots(old, new)
    if args.format == "github":
        result = _annotation_paths(result, config.root)
    if args.format == "text":
        text = format_text(result, color=_use_color(sys.stdout))
    else:
        text = FORMATTERS[args.format](result)
    write_stdout(text)
    return 1 if result.breaking and not args.allow_breaking else 0
