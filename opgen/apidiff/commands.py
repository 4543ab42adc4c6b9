"""`opgen api` and `opgen diff`, and the snapshot file `opgen build` writes and checks."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from types import SimpleNamespace

from opgen.apidef import ApiModel
from opgen.apidiff.changes import DiffResult, diff_snapshots
from opgen.apidiff.inputs import git_revision_snapshot, load_side, project_snapshot
from opgen.apidiff.report import FORMATTERS, format_text
from opgen.apidiff.snapshot import Snapshot
from opgen.apidiff.snapshot_build import build_snapshot
from opgen.apidiff.snapshot_format import to_json, to_markdown
from opgen.config import Config
from opgen.errors import Location, OpgenError
from opgen.fsutil import atomic_write
from opgen.spec.model import GatherResult


def render_snapshot(snapshot: Snapshot, fmt: str) -> str:
    return to_json(snapshot) if fmt == "json" else to_markdown(snapshot)


def _format_for(path: Path) -> str:
    return "json" if path.suffix == ".json" else "md"


def snapshot_path(config: Config) -> Path | None:
    """Where `opgen build` writes the API snapshot, relative to the output directory.

    Its place is `[tool.opgen] api` (Markdown, or JSON for a `.json` name), which must lie
    inside `[tool.opgen] out`; it goes to the same place under `out` (`--out` may move the tree).
    None when `api` is unset.
    """
    if not config.api:
        return None
    try:
        return config.path(config.api).resolve().relative_to(config.path(config.out).resolve())
    except ValueError:
        raise OpgenError(f"[tool.opgen] api = {config.api!r} is not inside out = {config.out!r}", config.where("api"),
                         hint=api_hint(config)) from None


def api_hint(config: Config) -> str:
    return f"keep the API snapshot next to the generated modules, e.g. api = {config.out.rstrip('/') + '/API.md'!r}"


def snapshot_outputs(config: Config, gathered: GatherResult, api_model: ApiModel, out: Path) -> dict[str, bytes]:
    """The committed API snapshot as one more output of `opgen build`: {path relative to `out`: bytes}
    (empty when `[tool.opgen] api` is unset)."""
    rel = snapshot_path(config)
    if rel is None:
        return {}
    text = render_snapshot(build_snapshot(gathered, api_model, config), _format_for(rel))
    return {rel.as_posix(): text.encode("utf-8")}


def run_api(args: SimpleNamespace, config: Config, gathered: GatherResult) -> int:
    """Print (or write with -o) the API snapshot of the gathered sources after their overrides."""
    from opgen.overrides import load_overrides

    overrides = args.overrides or (config.path(config.overrides) if config.overrides else None)
    if overrides is not None and not Path(overrides).exists() and not args.overrides:
        overrides = None  # the configured default directory is optional
    model = load_overrides(overrides, gathered.op_list, merge=config.merge_overrides)
    snapshot = build_snapshot(gathered, model, config)
    text = render_snapshot(snapshot, args.format)
    if args.output:
        atomic_write(Path(args.output), text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return 0


def _sides(args: SimpleNamespace, config: Config) -> tuple[Snapshot, Snapshot]:
    if args.git:
        if args.old and args.new:
            raise OpgenError("with --git REV give at most one path (the NEW side)",
                             hint="opgen diff --git REV [NEW]")
        new_spec = args.old or args.new
        old = git_revision_snapshot(args.git, config)
        new = load_side(new_spec, config) if new_spec else project_snapshot(config)
        return old, new
    if not args.old:
        raise OpgenError("nothing to compare: give OLD [NEW] or --git REV",
                         hint="opgen diff old_specs/ new_specs/  |  opgen diff --git HEAD~1")
    old = load_side(args.old, config)
    new = load_side(args.new, config) if args.new else project_snapshot(config)
    return old, new


def _use_color(stream) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def _workspace_relative(result: DiffResult, workspace: Path) -> DiffResult:
    """Annotation paths relative to the GitHub workspace (the repository checkout)."""

    def move(loc: Location | None) -> Location | None:
        if loc is None:
            return None
        try:
            rel = (Path.cwd() / loc.path).resolve().relative_to(workspace.resolve())
        except ValueError:
            return loc
        return Location(rel.as_posix(), loc.line, loc.col)

    return DiffResult([dataclasses.replace(c, location=move(c.location), override_location=move(c.override_location))
                       for c in result.changes], result.ops)


def run_diff(args: SimpleNamespace, config: Config) -> int:
    """Report the differences NEW - OLD; exit 1 on a breaking change unless --allow-breaking.

    Locations are relative to the cwd; `--format github` makes them relative to
    $GITHUB_WORKSPACE when that is set, as GitHub resolves annotation paths there.
    """
    old, new = _sides(args, config)
    result = diff_snapshots(old, new)
    if args.format == "github" and os.environ.get("GITHUB_WORKSPACE"):
        result = _workspace_relative(result, Path(os.environ["GITHUB_WORKSPACE"]))
    if args.format == "text":
        text = format_text(result, color=_use_color(sys.stdout))
    else:
        text = FORMATTERS[args.format](result)
    sys.stdout.write(text)
    return 1 if result.breaking and not args.allow_breaking else 0
