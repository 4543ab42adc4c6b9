"""`opgen oplist`: the gathered OpList (pbtxt, pb or json), or with `--api` the per-op Python
API model after the overrides, or with `--report-shapes` how each op's shape function reaches
the runtime; `--from-library` reads a compiled library's OpList instead."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from opgen.settings import Settings as _Settings
from opgen.settings import SpecInput


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    input: SpecInput
    from_library: tuple[str, ...] = ()
    overrides: str | None = None
    api: bool = False
    report_shapes: bool = False
    format: str = "pbtxt"
    output: str | None = None


def run(settings: Settings) -> int:
    import click

    from opgen.fsutil import write_output, write_stdout
    from opgen.outputs.written_files import check_output_option

    if settings.api and settings.report_shapes:
        raise click.UsageError("--api and --report-shapes exclude each other")
    if settings.report_shapes and settings.from_library:
        raise click.UsageError("--report-shapes reads the shape functions of C++ sources; the OpList of a compiled "
                               "library (--from-library) holds none")
    report = "--api" if settings.api else "--report-shapes" if settings.report_shapes else None
    if report and settings.format == "pb":
        raise click.UsageError(f"{report} prints text (--format pbtxt, the default) or json, not pb")
    fmt = "json" if settings.format == "json" else "text"
    if settings.from_library:
        from opgen.spec import op_library

        if not settings.input.reads_configured_sources(settings.config):  # sources named on the command line
            raise click.UsageError("--from-library reads compiled libraries instead of sources: give sources or "
                                   "--from-library, not both")
        op_list = op_library.op_list_from_libraries(settings.from_library)
        check_output_option(settings.output, settings.config, list(settings.from_library))
    else:
        gathered = settings.input.gather()
        check_output_option(settings.output, settings.config, gathered,
                            *([settings.overrides] if settings.api else []))
        op_list = gathered.op_list
    if settings.report_shapes:
        from opgen.shape_translate.report import shape_report

        data = shape_report(gathered.sources, fmt).encode()
    elif settings.api:
        from opgen.overrides.load import describe_api_model, load_overrides

        model = load_overrides(settings.overrides, op_list, merge=settings.config.merge_overrides)
        data = describe_api_model(model, op_list, fmt).encode()
    else:
        from opgen.spec.oplist_io import dump_op_list

        data = dump_op_list(op_list, settings.format)
    if settings.output:
        write_output(Path(settings.output), data)
    else:
        write_stdout(data)
    return 0
