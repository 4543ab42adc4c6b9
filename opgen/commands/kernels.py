"""`opgen kernels`: the KernelList of the sources (pbtxt, pb, json) or its per-op Markdown
table, and the cross-check of each kernel against the ops the same sources declare
(printed as warnings; `--check` makes them fail the run with exit status 1)."""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path

from opgen.settings import Settings as _Settings
from opgen.settings import SpecInput


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    input: SpecInput
    format: str = "pbtxt"
    output: str | None = None
    check: bool = False


def run(settings: Settings) -> int:
    from opgen.errors import plural, report
    from opgen.fsutil import write_output, write_stdout
    from opgen.outputs.written_files import check_output_option
    from opgen.spec.kernel_summary import cross_check, kernels_markdown
    from opgen.spec.kernels import kernel_list
    from opgen.spec.oplist_io import dump_op_list

    # kernels of `_` ops are checked against their declarations too
    gathered = dataclasses.replace(settings.input, include_internal=True).gather(strict_kernels=True)
    check_output_option(settings.output, settings.config, gathered)
    registrations = gathered.kernels or []
    kernels = kernel_list(registrations)
    if settings.format == "md":
        data = kernels_markdown(kernels, gathered.op_list).encode("utf-8")
    else:
        data = dump_op_list(kernels, settings.format)
    findings = cross_check(registrations, gathered.op_list, sources=gathered.sources,
                           kernels_elsewhere=settings.config.kernels_elsewhere, type_coverage=True)
    for finding in findings:
        report(finding.format_warning())
    if settings.output:
        write_output(Path(settings.output), data)
    elif not settings.check:  # a check says only what it found, as `opgen build --check` does
        write_stdout(data)
    if findings and not settings.quiet:
        # (a finding is a kernel, or an op without one)
        print(f"{plural(len(findings), 'warning')} from the kernel cross-check", file=sys.stderr)
    return 1 if findings and settings.check else 0
