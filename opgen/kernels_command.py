"""`opgen kernels`: the KernelList of the sources (pbtxt, pb, json) or its per-op Markdown
table, and the cross-check of each kernel against the ops the same sources declare
(printed as warnings; `--check` makes them fail the run with exit status 1)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opgen.config import Config
from opgen.fsutil import atomic_write
from opgen.proto import op_def_pb2
from opgen.spec.kernel_summary import cross_check, kernels_markdown
from opgen.spec.kernels import gather_kernels
from opgen.spec.oplist_io import dump_op_list


def run_kernels(args: argparse.Namespace, config: Config, sources: list[str], defines: list[str],
                include_dirs: list[str], op_list: op_def_pb2.OpList) -> int:
    result = gather_kernels(sources, defines=defines, include_dirs=include_dirs, helpers=config.helpers)
    kernel_list = result.kernel_list()
    if args.format == "md":
        data = kernels_markdown(kernel_list, op_list).encode("utf-8")
    else:
        data = dump_op_list(kernel_list, args.format)
    findings = cross_check(result.registrations, op_list)
    for finding in findings:
        print(finding.format().replace(": error: ", ": warning: ", 1), file=sys.stderr)
    if args.output:
        atomic_write(Path(args.output), data)
    else:
        sys.stdout.buffer.write(data)
    if findings:
        print(f"{len(findings)} kernel{'s' if len(findings) != 1 else ''} reported by the cross-check",
              file=sys.stderr)
    return 1 if findings and args.check else 0
