"""The API snapshot as a file: where `opgen build` writes it, and its text (`opgen api` prints it)."""

from __future__ import annotations

from pathlib import Path

from opgen.apidiff.snapshot import Snapshot
from opgen.apidiff.snapshot_build import build_snapshot
from opgen.apidiff.snapshot_format import to_json, to_markdown
from opgen.config import Config
from opgen.errors import OpgenError, opgen_command
from opgen.model import GatherResult
from opgen.overrides.apidef import ApiModel


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
        name = Path(config.api).name if Path(config.api).suffix in (".md", ".json") else "API.md"
        fmt = " --format json" if _format_for(Path(config.api)) == "json" else ""
        raise OpgenError(
            f"[tool.opgen] api = {config.api!r} is not inside out = {config.out!r}", config.where("api"),
            hint="opgen build writes the API snapshot into out, with the modules (--out moves it with them): give "
            f"api a path inside out, e.g. api = {config.out.rstrip('/') + '/' + name!r}; for a copy elsewhere, "
            f"run `{opgen_command(f'api{fmt} -o {config.api}')}`",
        ) from None


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
