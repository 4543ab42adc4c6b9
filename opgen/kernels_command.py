"""`opgen kernels`: the KernelList of the sources (pbtxt, pb, json) or its per-op Markdown
table, and the cross-check of each kernel against the ops the same sources declare
(printed as warnings; `--check` makes them fail the run with exit status 1)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

from opgen.errors import report
from opgen.fsutil import atomic_write
from opgen.spec.kernel_summary import cross_check, kernels_markdown
from opgen.spec.kernels import kernel_list
from opgen.spec.model import GatherResult
from opgen.spec.oplist_io import dump_op_list


def run_kernels(args: SimpleNamespace, gathered: GatherResult) -> int:
    registrations = gathered.kernels or []
    kernels = kernel_list(registrations)
    if args.format == "md":
        data = kernels_markdown(kernels, gathered.op_list).encode("utf-8")
    else:
        data = dump_op_list(kernels, args.format)
    findings = cross_check(registrations, gathered.op_list)
    for finding in findings:
        report(finding.format_warning())
    if args.output:
        atomic_write(Path(args.output), data)
    else:
        sys.stdout.buffer.write(data)
    if findings and not args.quiet:
        print(f"{len(findings)} kernel{'s' if len(findings) != 1 else ''} reported by the cross-check",
              file=sys.stderr)
    return 1 if findings and args.check else 0
