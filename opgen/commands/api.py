"""`opgen api`: the API snapshot of the gathered sources after their overrides (Markdown or
JSON), the file `opgen build` keeps at `[tool.opgen] api`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from opgen.settings import Settings as _Settings
from opgen.settings import SpecInput


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    input: SpecInput
    overrides: str | None = None
    format: str = "md"
    output: str | None = None


def run(settings: Settings) -> int:
    from opgen.apidiff.snapshot_build import build_snapshot
    from opgen.apidiff.snapshot_file import render_snapshot
    from opgen.fsutil import write_output, write_stdout
    from opgen.outputs.written_files import check_output_option
    from opgen.overrides.load import load_overrides

    config = settings.config
    gathered = settings.input.gather()
    check_output_option(settings.output, config, gathered, settings.overrides)
    model = load_overrides(settings.overrides, gathered.op_list, merge=config.merge_overrides)
    text = render_snapshot(build_snapshot(gathered, model, config), settings.format)
    if settings.output:
        write_output(Path(settings.output), text.encode("utf-8"))
    else:
        write_stdout(text)
    return 0
