"""`opgen oplist`: the gathered OpList (pbtxt, pb or json), or with `--api` the per-op Python
API model after the overrides, or with `--report-shapes` how each op's shape function reaches
the runtime; `--from-library` reads a compiled library's OpList instead, `--from-tensorflow`
the installed TensorFlow's registry."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from opgen.settings import Settings as _Settings
from opgen.settings import SpecInput


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    input: SpecInput
    from_library: tuple[str, ...] = ()
    from_tensorflow: bool = False
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
    compiled = "--from-library" if settings.from_library else "--from-tensorflow" if settings.from_tensorflow else None
    if settings.from_library and settings.from_tensorflow:
        raise click.UsageError("--from-library and --from-tensorflow exclude each other: a library's ops are not "
                               "in TensorFlow's registry until it is loaded")
    if settings.report_shapes and compiled:
        raise click.UsageError("--report-shapes reads the shape functions of C++ sources; a compiled OpList "
                               f"({compiled}) holds none")
    report = "--api" if settings.api else "--report-shapes" if settings.report_shapes else None
    if report and settings.format == "pb":
        raise click.UsageError(f"{report} prints text (--format pbtxt, the default) or json, not pb")
    fmt = "json" if settings.format == "json" else "text"
    if compiled:
        from opgen.spec import op_library
        from opgen.spec.gather import select_ops

        if not settings.input.reads_configured_sources(settings.config):  # sources named on the command line
            raise click.UsageError(f"{compiled} reads compiled ops instead of sources: give sources or {compiled}, "
                                   "not both")
        op_list = select_ops(op_library.op_list_from_libraries(settings.from_library) if settings.from_library
                             else op_library.op_list_from_tensorflow(),
                             settings.input.allow, settings.input.include_internal,
                             "which the libraries do not register" if settings.from_library
                             else "which TensorFlow does not register")
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
