"""`opgen init`: scaffold a custom-op package that builds a wheel with its generated wrappers
and its compiled op library (docs/custom-ops.md, "Packaging and shipping")."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jinja2

from opgen import __version__
from opgen.errors import Location, OpgenError
from opgen.python_api.names import module_name_problem
from opgen.render.emit import runtime_series
from opgen_runtime.version import compatible_range

# template -> the file it becomes, relative to the project directory
_FILES = {
    "pyproject.toml.j2": "pyproject.toml",
    "setup.py.j2": "setup.py",
    "gitignore.j2": ".gitignore",
    "op.cc.j2": "ops/{package}.cc",
    "__init__.py.j2": "{package}/__init__.py",
    # the marker that type checkers read the package's annotations by (docs/typing.md)
    "py.typed.j2": "{package}/py.typed",
}


@dataclass(frozen=True)
class Project:
    package: str  # the import package: my_ops
    op: str  # the example op: MyOpsScale

    @property
    def values(self) -> dict[str, str]:
        return {
            "package": self.package,
            "distribution": self.package.replace("_", "-"),
            "op": self.op,
            "function": f"{self.package}_scale",
            "library": f"_{self.package}.so",
            "opgen_version": __version__,
            "runtime_requirement": compatible_range(runtime_series()),
        }


_MAX_PACKAGE = 64


def project_for(directory: Path, package: str | None) -> Project:
    """The project `opgen init` writes into `directory`; the package defaults to its name."""
    name = package if package is not None else directory.resolve().name.replace("-", "_")
    problem = module_name_problem(name) or (
        None if re.fullmatch("[a-z][a-z0-9_]*", name) else "is not a lower-case identifier starting with a letter")
    if not problem and len(name) > _MAX_PACKAGE:  # it names files (`ops/<package>_ops.cc`): NAME_MAX is 255 bytes
        problem = f"is {len(name)} characters long (at most {_MAX_PACKAGE})"
    if problem:
        source = "--package" if package is not None else f"the directory name {directory.resolve().name!r}"
        raise OpgenError(f"package name {name!r} (from {source}) {problem}",
                         Location("--package") if package is not None else Location(str(directory)),
                         hint="pass --package with a lower-case Python identifier, e.g. --package my_ops")
    return Project(name, "".join(part.capitalize() for part in name.split("_") if part) + "Scale")


def init_project(directory: Path, package: str | None) -> list[Path]:
    """Write the scaffold into `directory` (created if needed); never overwrites a file."""
    project = project_for(directory, package)
    targets = {template: directory / path.format(package=project.package) for template, path in _FILES.items()}
    existing = [path for path in targets.values() if path.exists()]
    if existing:
        raise OpgenError(f"{len(existing)} of the files opgen init writes already exist: "
                         + ", ".join(str(p) for p in existing), Location(str(existing[0])),
                         hint="choose an empty or new directory; opgen init never overwrites a file")
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                     autoescape=False)  # TOML, Python and C++, not HTML
    folder = resources.files("opgen") / "_scaffold"
    texts = {target: environment.from_string(folder.joinpath(template).read_text(encoding="utf-8"))
             .render(project.values) for template, target in targets.items()}
    written: list[Path] = []
    made = sorted({parent for target in texts for parent in (target.parent, *target.parent.parents)
                   if not parent.exists()}, key=lambda p: len(p.parts), reverse=True)  # deepest first
    try:
        for target, text in texts.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            written.append(target)
    except OSError as e:  # all or nothing: a rerun must not find half a project in its way
        for path in written:
            path.unlink(missing_ok=True)
        for directory in made:
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise OpgenError(f"cannot write {target}: {e.strerror or e}", Location(str(target)),
                         hint="choose a directory you can write to") from None
    return written
