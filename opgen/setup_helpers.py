"""setuptools support for a package that ships an op library beside its generated wrappers.

In the package's `setup.py` (what `opgen init` writes):

    from setuptools import setup
    from opgen.setup_helpers import OpLibrary, build_ext

    setup(ext_modules=[OpLibrary("my_ops/_my_ops.so", ["ops/my_ops.cc"])], cmdclass={"build_ext": build_ext})

`build_ext` compiles each `OpLibrary` with g++ (or `$CXX`) and TensorFlow's own flags, as TF's
custom-op guide does (`g++ -std=c++17 -shared ... -fPIC $(tf.sysconfig.get_compile_flags())
$(tf.sysconfig.get_link_flags()) -O2`, with -Wno-deprecated-declarations), into the wheel at
the path the module's `[tool.opgen] library` names. TensorFlow must be importable where the
build runs (build without isolation: `pip wheel --no-build-isolation .`): the library is
compiled against that TensorFlow's headers and ABI, and its users need a matching TensorFlow.

Before compiling, `build_ext` runs `opgen build --check` in the project and refuses to build
when the committed wrappers are not what `opgen build` writes from the sources now: a library
compiled from edited sources beside stale wrappers would build, install, and fail only at its
users' import (`OpLibraryError: ... does not match the module`).

setuptools is imported here, not by the rest of opgen: only a package build needs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import PurePosixPath

from setuptools import Extension
from setuptools.command.build_ext import build_ext as _setuptools_build_ext
from setuptools.errors import SetupError

_TF_FLAGS = (
    "import json, tensorflow as tf; "
    "print(json.dumps([tf.sysconfig.get_compile_flags(), tf.sysconfig.get_link_flags()]))"
)


# setuptools has no stubs here (pyproject.toml's mypy overrides): its classes are Any to mypy,
# and strict mypy reports subclassing Any.
class OpLibrary(Extension):  # type: ignore[misc]
    """A TensorFlow op library: `path` is where it lands in the package (`my_ops/_my_ops.so`,
    the module's `[tool.opgen] library` resolved from its folder), `sources` its C++ files."""

    def __init__(self, path: str, sources: list[str], extra_compile_args: list[str] | None = None) -> None:
        posix = PurePosixPath(path)
        if posix.suffix != ".so" or posix.is_absolute() or ".." in posix.parts:
            raise ValueError(f"OpLibrary path {path!r}: expected a relative path ending in .so inside the package")
        # setuptools names extensions by a dotted module name; `build_ext` maps it back to `path`.
        super().__init__(".".join(posix.with_suffix("").parts), sources, language="c++",
                         extra_compile_args=list(extra_compile_args or []))
        self.path = posix


def tensorflow_flags() -> tuple[list[str], list[str]]:
    """TensorFlow's (compile, link) flags for custom ops (`tf.sysconfig`), asked of a child
    process so the build's own process never imports TensorFlow."""
    run = subprocess.run([sys.executable, "-c", _TF_FLAGS], capture_output=True, text=True, check=False,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    if run.returncode != 0:
        raise RuntimeError(
            f"building an op library needs TensorFlow importable by {sys.executable}: install it there "
            "(pip install tensorflow-cpu), and build without isolation so that the build sees it "
            f"(pip wheel --no-build-isolation .):\n{run.stderr.strip()}")
    compile_flags, link_flags = json.loads(run.stdout.strip().splitlines()[-1])
    return compile_flags, link_flags


def check_wrappers(project: str) -> None:
    """Raise `SetupError` unless the generated wrappers of the opgen project in `project` are
    up to date with its sources: `opgen build --check` itself, in a child process (it is
    opgen's command line, and its output names the stale files), by the building Python."""
    run = subprocess.run([sys.executable, "-m", "opgen", "build", "--check", "--quiet"], cwd=project,
                         capture_output=True, text=True, check=False)
    if run.returncode == 0:
        return
    if run.returncode == 1 and run.stdout.strip():  # one `would rewrite PATH` line per stale file
        stale = "\n".join(f"  {line}" for line in run.stdout.strip().splitlines())
        raise SetupError(
            f"the generated wrappers in {project} are stale: `opgen build --check` reports\n{stale}\n"
            "A wheel of them would install, then fail at its users' import (OpLibraryError: the op library "
            "does not match the module). Run `opgen build` in the project (and commit the wrappers), then build "
            "the wheel again.")
    raise SetupError(
        f"`opgen build --check` failed in {project} (exit {run.returncode}):\n{(run.stdout + run.stderr).strip()}\n"
        "Fix what it reports, run `opgen build`, then build the wheel again.")


# Subclasses setuptools' (Any to mypy, as for OpLibrary).
class build_ext(_setuptools_build_ext):  # type: ignore[misc]  # noqa: N801 - setuptools' command name
    """setuptools' `build_ext`, which also compiles `OpLibrary` extensions with g++ and TF's
    flags, once the generated wrappers are known to match the sources (`check_wrappers`)."""

    def run(self) -> None:
        if any(isinstance(ext, OpLibrary) for ext in self.extensions):
            # the project root: where setuptools runs setup.py, and what OpLibrary sources are relative to
            check_wrappers(os.getcwd())
        super().run()

    def get_ext_filename(self, fullname: str) -> str:
        """An `OpLibrary`'s file under its own name (`my_ops/_my_ops.so`) rather than a Python
        extension's (`_my_ops.cpython-311-...so`). setuptools derives every path of an extension
        from this one: where it is built, where --inplace and editable installs copy it from
        and to, and what the wheel lists."""
        ext = self.ext_map.get(fullname)  # setuptools maps full and last-component names
        if isinstance(ext, OpLibrary):
            return os.path.join(*fullname.split(".")) + ext.path.suffix
        filename: str = super().get_ext_filename(fullname)  # typed: setuptools' is Any here
        return filename

    def build_extension(self, ext: Extension) -> None:
        if not isinstance(ext, OpLibrary):
            super().build_extension(ext)
            return
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        compile_flags, link_flags = tensorflow_flags()
        compiler = os.environ.get("CXX", "g++")
        # TF's compile flags carry the C++ standard (--std=c++17) and the ABI macro its wheel was built with.
        # -Wno-deprecated-declarations: TF's headers give thousands, which would bury the library's own errors.
        self.spawn([compiler, "-shared", "-fPIC", "-O2", "-Wno-deprecated-declarations", *ext.sources,
                    "-o", target, *compile_flags, *ext.extra_compile_args, *link_flags])
