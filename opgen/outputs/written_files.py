"""Files a command writes besides the output tree (`-o`, `--depfile`) may not replace a file
the command read nor one `opgen build` keeps in its output directory: `--depfile
op_specs/s.cc` or `-o pyproject.toml` would destroy an input, `--depfile
generated/.opgen-manifest.json` the record of what the build owns."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from opgen.config import Config
from opgen.errors import Location, OpgenError, printable_path
from opgen.model import GatherResult
from opgen.outputs.tree_writer import owns


def gathered_inputs(gathered: GatherResult) -> set[str]:
    """Every file a gather read: sources, the headers they include, the allow file."""
    return set(gathered.inputs) | {s.location.path for s in gathered.sources.values()}


def check_written_file(path: Path, option: str, inputs: Iterable[str | Path], out: Path,
                       outputs: Iterable[str] = ()) -> None:
    """`path` (given with `option`) is none of `inputs`, nor a file opgen build owns in `out`
    (`tree_writer.owns`), is about to write there (`outputs`, relative to `out`) or may write
    there (a Python file below `out`: before the first build, no record says which modules the
    build writes, and the build would then refuse to replace the file): an error located at
    `path` otherwise."""
    hint = f"{option} names the file to write: give it a name of its own, outside the inputs and {printable_path(out)}"
    for given in inputs:
        if _same_file(path, Path(given)):
            raise OpgenError(f"{option} names a file this command reads ({printable_path(given)})", Location(str(path)),
                             hint=hint)
    if (owns(out, path) or any(_same_file(path, out / rel) for rel in outputs)
            or (path.suffix == ".py" and path.resolve().is_relative_to(out.resolve()))):
        raise OpgenError(f"{option} names a file opgen build writes in {printable_path(out)}", Location(str(path)),
                         hint=hint)


def check_output_option(output: str | None, config: Config, read: GatherResult | list[str],
                        overrides: str | Path | None = None) -> None:
    """`-o` replaces none of the files the command read (`read`: a GatherResult's inputs or a
    list of paths; the override files under `overrides`; pyproject.toml) nor a file of the
    build's output tree (`check_written_file`)."""
    if not output:
        return
    inputs = [*(read if isinstance(read, list) else gathered_inputs(read)),
              *(Path(overrides).rglob("*") if overrides is not None and Path(overrides).is_dir() else [])]
    pyproject = config.root / "pyproject.toml"
    if pyproject.is_file():
        inputs.append(str(pyproject))
    check_written_file(Path(output), "-o", inputs, config.path(config.out))


def _same_file(a: Path, b: Path) -> bool:
    """The same path once resolved, or (hard links, a case-insensitive file system) the same file."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
