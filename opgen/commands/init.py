"""`opgen init`: scaffold a custom-op package that builds a wheel (`opgen.scaffold`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from opgen.settings import Settings as _Settings


@dataclass(frozen=True, kw_only=True)
class Settings(_Settings):
    directory: str
    package: str | None = None


def run(settings: Settings) -> int:
    from opgen.errors import printable_path, report
    from opgen.scaffold import init_project

    directory = Path(settings.directory)
    written = init_project(directory, settings.package)
    if not settings.quiet:
        package = written[-1].parent.name
        report(f"opgen init: wrote {len(written)} files into {printable_path(directory)}: "
               + ", ".join(printable_path(p.relative_to(directory)) for p in written))
        report(f"next, in {printable_path(directory)}: `opgen build` writes {package}/gen_{package}.py (commit it); "
               "`pip wheel --no-build-isolation --no-deps -w dist .` compiles the op library (needs g++ and "
               "TensorFlow) and builds the wheel")
    return 0
