"""`opgen specs`: REGISTER_OP C++ (with Doc) for an OpList file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from opgen.settings import Settings as _Settings


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    oplist: str
    output: str | None = None
    skip_inexpressible: bool = False


def run(settings: Settings) -> int:
    from opgen.errors import Location
    from opgen.fsutil import write_output, write_stdout
    from opgen.outputs.written_files import check_output_option
    from opgen.spec.emit_cc import op_list_to_cc
    from opgen.spec.oplist_io import load_op_list_with_lines

    op_list, lines = load_op_list_with_lines(settings.oplist)
    check_output_option(settings.output, settings.config, [settings.oplist])
    entries = [Location(settings.oplist, line, 1 if line else 0) for line in lines]
    cc = op_list_to_cc(op_list, skip_inexpressible=settings.skip_inexpressible, locations=entries)
    if settings.output:
        write_output(Path(settings.output), cc.encode())
    else:
        write_stdout(cc.encode())
    return 0
