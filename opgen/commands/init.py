"""`opgen init`: scaffold a custom-op package that builds a wheel (`opgen.scaffold`)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from opgen.settings import Settings as _Settings

if TYPE_CHECKING:
    from opgen.errors import OpgenError


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    directory: str
    package: str | None = None


def run(settings: Settings) -> int:
    from opgen.errors import printable_path, report
    from opgen.scaffold import init_project

    directory = Path(settings.directory)
    written = init_project(directory, settings.package)
    package = written[-1].parent.name
    shadowing = _shadowing_folder(directory, package)
    if shadowing is not None:
        report(shadowing.format_warning())
    if not settings.quiet:
        report(f"opgen init: wrote {len(written)} files into {printable_path(directory)}: "
               + ", ".join(printable_path(p.relative_to(directory)) for p in written))
        report(f"next, in {printable_path(directory)}: `opgen build` writes {package}/gen_{package}.py (commit it); "
               "`pip wheel --no-build-isolation --no-deps -w dist .` compiles the op library (needs g++ and "
               "TensorFlow) and builds the wheel")
    return 0


def _shadowing_folder(directory: Path, package: str) -> OpgenError | None:
    """A warning when the project folder, named like its package, sits in a directory on
    Python's path (an editable install in compat mode, as opgen's own README installs, puts the
    clone there): `import <package>` then finds the folder as a namespace package, which has
    none of the package's modules, before an editable install's finder gets to ask."""
    from opgen.errors import Location, OpgenError

    if directory.name != package:
        return None
    parent = directory.resolve().parent
    # (not sys.path[0]: the directory of the script, or the working one of `python -m opgen`)
    entries = {Path(entry).resolve() for entry in sys.path[1:] if entry}
    if parent not in entries:
        return None
    return OpgenError(
        f"{parent} is on Python's path (sys.path), so `import {package}` finds the folder {directory} "
        "(a namespace package without its modules) before the package an editable install of it provides",
        Location(str(directory)),
        hint=f"create the project outside {parent}, or give the folder another name than the package "
        f"(opgen init DIR --package {package})",
    )
