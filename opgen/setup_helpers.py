"""setuptools support for a package that ships an op library beside its generated wrappers.

In the package's `setup.py` (what `opgen init` writes):

    from setuptools import setup
    from opgen.setup_helpers import OpLibrary, build_ext

    setup(ext_modules=[OpLibrary("my_ops/_my_ops.so", ["ops/my_ops.cc"])], cmdclass={"build_ext": build_ext})

`build_ext` compiles each `OpLibrary` with g++ (or `$CXX`) and TensorFlow's own flags, as TF's
custom-op guide does (`-std=c++17 -fPIC -O2 $(tf.sysconfig.get_compile_flags())`, with
-Wno-deprecated-declarations, then `-shared $(tf.sysconfig.get_link_flags())`: each source
into an object, with its depfile, in the build's temporary folder, then the link), into the
wheel at the path the module's `[tool.opgen] library` names. TensorFlow must be importable
where the build runs (build without isolation: `pip wheel --no-build-isolation .`): the
library is compiled against that TensorFlow's headers and ABI, and its users need a matching
TensorFlow. A library whose recorded state (its command lines, the compiler, its sources and
the headers they include, the library itself) is unchanged since its last build is not
compiled again (`--force` compiles it); those to compile are compiled at once, as many as
`--parallel` (`-j`) says, else as there are CPUs (`opgen.library_build`). TensorFlow's flags
are remembered in the build folder for the same TensorFlow installation.

Before compiling, `build_ext` refuses a wheel that would build and install, then break on its
users' machines (`check_wrappers`, `build_ext.check_packaged`): wrappers missing or stale against
the sources (`opgen build --check`; a library compiled from edited sources would import with an
`OpLibraryWarning`, and its ops would raise `OpLibraryError: ... does not match the module`),
a generated module setuptools would not pack (a split module's subpackage missing from the
packages), or an op library a module loads that the setup neither builds nor ships. After
compiling, it refuses one whose libraries fail on TensorFlow as its users would load them
(`build_ext.check_loaded`): a library that does not load (an undefined symbol), or that lacks
the ops of a module mapped to it (`[tool.opgen.libraries]`). A check that passed is not run
again (it imports TensorFlow: seconds) while nothing it depends on changed: the modules, the
libraries and the package's Python as built, TensorFlow, opgen's runtime (`--force` runs it).

An sdist holds what a wheel built from it needs: `build_ext.get_source_files` (which setuptools'
sdist asks every build command) adds the files `opgen build` reads and writes in the project,
so `opgen build --check` passes in the unpacked sdist as in the project.

setuptools is imported here, not by the rest of opgen: only a package build needs it.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

import tomllib
from setuptools import Extension
from setuptools.command.build_ext import build_ext as _setuptools_build_ext
from setuptools.errors import CompileError, SetupError

from opgen.config import Config, load_config
from opgen.library_build import (
    DEPFILE_TARGET,
    Library,
    LibraryBuildError,
    Step,
    build_libraries,
    compiler_identity,
    tree_digests,
)
from opgen.module_groups import module_library
from opgen.outputs.package_imports import missing_imports
from opgen.render.build import SOURCE_MAP

# -Wno-deprecated-declarations: TF's headers give thousands, which would bury the library's own errors;
# -Wno-interference-size: GCC 12's note on every use of TF's cache-line constants (older compilers
# ignore an unknown -Wno- option).
_WARNINGS = ("-Wno-deprecated-declarations", "-Wno-interference-size")

# Set (to anything) to build without `build_ext.check_loaded`.
SKIP_LIBRARY_CHECK = "OPGEN_SKIP_LIBRARY_CHECK"

_TF_FLAGS = (
    "import json, tensorflow as tf; "
    "print(json.dumps([tf.sysconfig.get_compile_flags(), tf.sysconfig.get_link_flags()]))"
)


# setuptools has no stubs here (pyproject.toml's mypy overrides): its classes are Any to mypy,
# and strict mypy reports subclassing Any.
class OpLibrary(Extension):  # type: ignore[misc]
    """A TensorFlow op library: `path` is where it lands in the package (`my_ops/_my_ops.so`,
    the module's `[tool.opgen] library` resolved from its folder), `sources` its C++ files,
    `include_dirs` directories searched before those `build_ext` adds (`-I`)."""

    def __init__(self, path: str, sources: list[str], extra_compile_args: list[str] | None = None,
                 include_dirs: list[str] | None = None) -> None:
        posix = PurePosixPath(path)
        if posix.suffix != ".so" or posix.is_absolute() or ".." in posix.parts:
            raise ValueError(f"OpLibrary path {path!r}: expected a relative path ending in .so inside the package")
        # setuptools names extensions by a dotted module name; `build_ext` maps it back to `path`.
        super().__init__(".".join(posix.with_suffix("").parts), sources, language="c++",
                         extra_compile_args=list(extra_compile_args or []), include_dirs=list(include_dirs or []))
        self.path = posix


def tensorflow_flags() -> tuple[list[str], list[str]]:
    """TensorFlow's (compile, link) flags for custom ops (`tf.sysconfig`), asked of a child
    process so the build's own process never imports TensorFlow."""
    return _tensorflow_flags(sys.executable)


@functools.cache  # once per build, not per library: importing TensorFlow takes seconds
def _tensorflow_flags(python: str) -> tuple[list[str], list[str]]:
    run = subprocess.run([python, "-c", _TF_FLAGS], capture_output=True, text=True, check=False,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    if run.returncode != 0:
        raise RuntimeError(
            f"building an op library needs TensorFlow importable by {python}: install it there "
            "(pip install tensorflow-cpu), and build without isolation so that the build sees it "
            f"(pip wheel --no-build-isolation .):\n{run.stderr.strip()}")
    compile_flags, link_flags = json.loads(run.stdout.strip().splitlines()[-1])
    return compile_flags, link_flags


def _tensorflow_install() -> list[Any] | None:
    """What says the TensorFlow `tensorflow_flags` would ask is the one asked before, found
    without importing it: the Python that asks, its tensorflow package's folder, and the size,
    times and inode of each file at the top of that folder (`__init__.py`,
    `libtensorflow_framework.so.2`, ...: any install rewrites them, which changes their change
    time). None without a tensorflow package."""
    try:
        spec = importlib.util.find_spec("tensorflow")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.realpath(next(iter(spec.submodule_search_locations)))
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        files = [[entry.name, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]
                 for entry in entries if entry.is_file() and (stat := entry.stat())]
    except OSError:
        return None
    return [sys.executable, folder, files]


def _read_json(path: Path) -> Any:
    """The JSON value in `path`; None when it is missing or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(path: Path, value: Any) -> None:
    """Write `value` to `path` whole (a temporary file renamed over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(value, indent=1), encoding="utf-8")
    os.replace(temporary, path)


def _opgen_build(project: str, *options: str) -> subprocess.CompletedProcess[str]:
    """`opgen build OPTIONS --quiet` in the project, by the building Python: opgen's own command
    line, in a child process, as its author runs it."""
    return subprocess.run([sys.executable, "-m", "opgen", "build", *options, "--quiet"], cwd=project,
                          capture_output=True, text=True, check=False)


def _failed(project: str, options: str, run: subprocess.CompletedProcess[str]) -> SetupError:
    return SetupError(
        f"`opgen build {options}` failed in {project} (exit {run.returncode}):\n{(run.stdout + run.stderr).strip()}\n"
        "Fix what it reports, run `opgen build`, then build again.")


def check_wrappers(project: str) -> None:
    """Raise `SetupError` unless the generated modules of the opgen project in `project` are up
    to date with its sources: `opgen build --check` itself, whose output names each stale file.
    The build's other outputs (source map, API snapshot, `.gitignore`), which the wheel does not
    hold, only get a warning when missing or stale: an sdist made without them (by an older
    opgen's build_ext) builds a wheel that works."""
    from distutils import log

    run = _opgen_build(project, "--check")
    if run.returncode == 0:
        return
    lines = run.stdout.strip().splitlines()  # `would create|rewrite|delete PATH`, one per stale file
    if run.returncode != 1 or not lines:
        raise _failed(project, "--check", run)
    stale = "\n".join(f"  {line}" for line in lines)
    modules = [line for line in lines if line.endswith(".py")]  # a module, or a part of a split one
    if not modules:
        log.warn(
            f"warning: the generated wrappers in {project} are up to date, but `opgen build --check` reports other "
            f"files of the build missing or stale:\n{stale}\nThe wheel holds none of them, so it is built. In the "
            "project, run `opgen build` (and commit them); an sdist made with an older opgen, whose build_ext did not "
            "list them for it, lacks them.")
        return
    if all(line.startswith("would create ") for line in modules):  # no `opgen build` wrote them yet
        raise SetupError(
            f"generated modules of {project} are missing: `opgen build --check` reports\n{stale}\n"
            "The wheel would lack them, and importing them would fail. Run `opgen build` in the project (and "
            "commit the wrappers), then build the wheel again.")
    raise SetupError(
        f"the generated wrappers in {project} are stale: `opgen build --check` reports\n{stale}\n"
        "A wheel of them would install and import, but with an OpLibraryWarning (the op library does not "
        "match the module), and each op of that library would raise OpLibraryError when run. Run `opgen "
        "build` in the project (and commit the wrappers), then build the wheel again.")


def _project_files(project: str) -> list[str]:
    """The files of the opgen project in `project` that `opgen build` writes or reads there
    (`--list-outputs --list-inputs`), relative to it: its outputs, its sources and the headers
    they include, pyproject.toml, its override files. Left out: outputs not written yet,
    directories, and files outside the project (opgen's own templates, the formatter's
    METADATA), which an sdist cannot hold."""
    run = _opgen_build(project, "--list-outputs", "--list-inputs")
    if run.returncode != 0:
        raise _failed(project, "--list-outputs --list-inputs", run)
    root = Path(project).resolve()
    files = []
    for line in run.stdout.splitlines():
        path = Path(project, line).resolve()  # printed relative to the project when below it
        if path.is_file() and path.is_relative_to(root):
            files.append(str(path.relative_to(root)))
    return files


def _setuptools_packages(project: str) -> str | None:
    """How the project's pyproject.toml gives setuptools its packages: "list"
    ([tool.setuptools] packages = [...]), "find" ([tool.setuptools.packages.find]), or None
    (neither: setup.py's setup(), or setuptools' automatic discovery)."""
    try:
        with open(Path(project, "pyproject.toml"), "rb") as f:
            packages = tomllib.load(f).get("tool", {}).get("setuptools", {}).get("packages")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if isinstance(packages, list):
        return "list"
    return "find" if isinstance(packages, dict) else None


def _generated_modules(project: str, out: Path) -> dict[str, list[Path]]:
    """The modules `opgen build` writes into `out` in the opgen project in `project`
    (`--list-outputs`), each with its files: `gen_x.py`, or a split module's package
    (`gen_x/__init__.py` and its parts)."""
    run = _opgen_build(project, "--list-outputs")
    if run.returncode != 0:
        raise _failed(project, "--list-outputs", run)
    modules: dict[str, list[Path]] = {}
    for line in run.stdout.splitlines():
        path = Path(project, line).resolve()  # printed relative to the project when below it
        if path.suffix == ".py" and path.is_relative_to(out):
            modules.setdefault(path.relative_to(out).parts[0].removesuffix(".py"), []).append(path)
    return modules


def _library_check(request: dict[str, Any], project: str) -> subprocess.CompletedProcess[str]:
    """`python -m opgen.library_check REQUEST` by the building Python, in the project."""
    return subprocess.run([sys.executable, "-m", "opgen.library_check", json.dumps(request)], cwd=project,
                          capture_output=True, text=True, check=False, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))


def _uncompiled_sources(ops: list[str], out: Path, library: OpLibrary, project: str) -> list[str]:
    """How to fix `library`, which lacks `ops` of a module in `out`: each source file that declares
    some of them (the build's source map says which) and that the library does not compile."""
    try:
        source_map = json.loads(Path(out, SOURCE_MAP).read_text(encoding="utf-8"))["modules"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    declared = {entry["op"]: entry["source"] for functions in source_map.values() for entry in functions.values()
                if isinstance(entry, dict) and entry.get("source")}
    compiled = {Path(project, source).resolve() for source in library.sources}
    by_source: dict[str, list[str]] = {}
    for op in ops:
        source = declared.get(op)
        if source is not None and Path(project, source).resolve() not in compiled:
            by_source.setdefault(source, []).append(op)
    return [f'add {source} to the sources of OpLibrary("{library.path}", ...) in setup.py: it declares '
            f"{', '.join(names)}, which no source of that library registers" for source, names in by_source.items()]


class _LoadingModule(NamedTuple):
    """A generated module whose op library the wheel holds (`build_ext.check_packaged`)."""

    name: str  # as opgen names it (`gen_my_ops`)
    files: list[Path]  # in the source tree
    library: Path  # in the source tree
    out: Path  # [tool.opgen] out: what `libraries` paths are relative to


# Subclasses setuptools' (Any to mypy, as for OpLibrary).
class build_ext(_setuptools_build_ext):  # type: ignore[misc]  # noqa: N801 - setuptools' command name
    """setuptools' `build_ext`, which also compiles `OpLibrary` extensions with g++ and TF's
    flags, once the generated wrappers are known to match the sources (`check_wrappers`) and
    the wheel to hold them and their op libraries (`check_packaged`)."""

    extensions: list[Any]  # setuptools' (setup()'s ext_modules); typed here for `build_extensions`

    def run(self) -> None:
        if not any(isinstance(ext, OpLibrary) for ext in self.extensions):
            super().run()
            return
        # the project root: where setuptools runs setup.py, and what OpLibrary sources are relative to
        project = os.getcwd()
        check_wrappers(project)
        loading, built = self.check_packaged(project)
        super().run()
        if loading and not os.environ.get(SKIP_LIBRARY_CHECK):
            self.check_loaded(project, loading, built)

    def get_source_files(self) -> list[str]:
        """setuptools' (each extension's sources), and in a project with an `OpLibrary` the
        files `opgen build` writes and reads there (`_project_files`). setuptools puts every
        build command's source files into the sdist: a wheel built from the sdist (`pip install`
        of it, `python -m build`) runs `check_wrappers` there, which compares the outputs with
        what the sources and headers give, and g++ needs the headers too."""
        files: list[str] = super().get_source_files()  # typed: setuptools' is Any here
        if any(isinstance(ext, OpLibrary) for ext in self.extensions):
            files += [file for file in _project_files(os.getcwd()) if file not in files]
        return files

    def check_packaged(self, project: str) -> tuple[list[_LoadingModule], dict[Path, OpLibrary]]:
        """Raise `SetupError` unless the wheel would hold every generated module of the project
        and the op library each loads: setuptools packs only the packages it is told of (a split
        module is a subpackage) and data files it is told of, and builds without a word otherwise.
        The modules whose library the wheel holds and the libraries the setup builds (by source
        tree path), for `check_loaded`."""
        config = load_config(Path(project))
        out = config.path(config.out).resolve()
        build_py = self.get_finalized_command("build_py")
        packed = {Path(file).resolve() for _, _, file in build_py.find_all_modules()}
        built = {self._package_dir(self.get_ext_fullname(ext.name).rpartition(".")[0]) / ext.path.name: ext
                 for ext in self.extensions if isinstance(ext, OpLibrary)}
        shipped = {Path(src_dir, name).resolve() for _, src_dir, _, names in build_py.data_files for name in names}
        errors, unpacked, loading = [], [], []
        generated = _generated_modules(project, out)
        broken = missing_imports(out, {file.relative_to(out).as_posix() for files in generated.values()
                                       for file in files if file.is_file()}, lambda rel: (out / rel).read_bytes())
        for error in broken:  # (named from the project, as `opgen build` names them there)
            assert error.location is not None
            error.location = replace(error.location, path=os.path.relpath(error.location.path, project))
        if broken:
            errors.append("the package's own modules import names its generated modules do not define, so importing "
                          "it would fail on every user's machine:\n" + "\n".join(e.format() for e in broken))
        for module, files in generated.items():
            unpacked += [(module, folder) for folder in sorted({file.parent for file in files if file not in packed})]
            library = module_library(module, config.libraries, config.library)
            if library and (path := self._library_path(library, out)):
                if path in built.keys() | shipped:
                    loading.append(_LoadingModule(module, files, path, out))
                else:
                    errors.append(self._unbuilt_error(module, library, path, project))
        if unpacked:
            errors.insert(0, self._unpacked_error(unpacked, project))
        if errors:
            raise SetupError("\n".join(errors))
        return loading, built

    def check_loaded(self, project: str, loading: list[_LoadingModule], built: dict[Path, OpLibrary]) -> None:
        """Raise `SetupError` unless the modules of `loading`, as the build put them with their
        compiled libraries, register those libraries with TensorFlow as on a user's machine
        (`opgen.library_check`, in a child process: it imports TensorFlow). Not run again when
        it passed with the same `_check_state`, recorded in the build's temporary folder."""
        from distutils import log

        loaded_as = [self._loaded_as(m) for m in loading]
        request = {"modules": loaded_as,
                   "libraries": sorted(str(self._built(path)) for path in built),
                   "packages_root": str(self._packages_root(loading[0].library))}
        state = self._check_state(request, loading)
        stamp = Path(self.build_temp, "opgen", "library-check.json")
        if not self.force and _read_json(stamp) == state:
            log.info("skipping the op library check (up-to-date: it passed with these modules, libraries and "
                     "TensorFlow)")
            return
        stamp.unlink(missing_ok=True)
        log.info("checking the op libraries with TensorFlow (python -m opgen.library_check)")
        run = _library_check(request, project)
        if run.returncode != 0:
            raise SetupError(f"checking the compiled op libraries with TensorFlow failed (exit {run.returncode}):\n"
                             f"{(run.stdout + run.stderr).strip()}\nTo build without this check, set "
                             f"{SKIP_LIBRARY_CHECK}=1.")
        report = json.loads(run.stdout.strip().splitlines()[-1])
        if report["error"] is not None:
            raise SetupError(self._unloadable_error(report, loading, [name for name, _, _ in loaded_as], built,
                                                    project))
        if not self.dry_run:
            _write_json(stamp, state)

    def _check_state(self, request: dict[str, Any], loading: list[_LoadingModule]) -> Any:
        """What the outcome of `check_loaded` depends on, as JSON: the request, the Python and
        TensorFlow that run it, and the content of the files it loads (the modules and
        libraries, the package's Python, which a `package:resource` library imports, and the
        runtime and check doing it). The check passed with that state is not run again."""
        build_py = self.get_finalized_command("build_py")
        files = [*request["libraries"], *(str(self._built(module.library)) for module in loading),
                 *(str(self._built(file)) for module in loading for file in module.files),
                 *(str(self._built(Path(file).resolve())) for _, _, file in build_py.find_all_modules()),
                 str(Path(__file__).with_name("library_check.py"))]
        runtime = importlib.util.find_spec("opgen_runtime")
        for folder in (runtime.submodule_search_locations or []) if runtime else []:
            files += (str(path) for path in Path(folder).rglob("*.py"))
        state = {"format": 1, "python": sys.executable, "tensorflow": _tensorflow_install(), "request": request,
                 "files": tree_digests(set(files))}
        return json.loads(json.dumps(state))  # as read back: lists for tuples

    def _loaded_as(self, module: _LoadingModule) -> tuple[str, str, bool]:
        """(dotted name, file to execute, is a package) of a generated module, where the build put it."""
        first = min(module.files)
        if first.name == "__init__.py" and first.parent.name == module.name:  # a module split into parts
            return self._package_name(first.parent) or module.name, str(self._built(first)), True
        package = self._package_name(first.parent)
        return f"{package}.{module.name}" if package else module.name, str(self._built(first)), False

    def _packages_root(self, path: Path) -> Path:
        """The folder the built packages are imported from (a `package:resource` library is
        found through its package), given `path`, a file of one of them in the source tree."""
        top = (self._package_name(path.parent) or "").partition(".")[0]
        if not top:
            return path.parent
        return self._package_dir(top).parent if self._in_place() else Path(self.build_lib)

    def _built(self, path: Path) -> Path:
        """Where the build put `path`, a file of a package in the source tree: below build_lib, or
        the source tree itself when building in place (`--inplace`, editable installs)."""
        package = self._package_name(path.parent)
        if self._in_place() or package is None:
            return path
        return Path(self.build_lib, *package.split("."), path.name)

    def _in_place(self) -> bool:
        """Whether the build puts the libraries into the source tree (`--inplace`, editable installs)."""
        return bool(self.inplace or getattr(self, "editable_mode", False))

    def _unloadable_error(self, report: dict[str, Any], loading: list[_LoadingModule], names: list[str],
                          built: dict[Path, OpLibrary], project: str) -> str:
        """The refusal of a wheel whose libraries fail on TensorFlow, with, for a module whose
        library lacks its ops, the built library that registers them, else the sources that
        declare them which its OpLibrary does not compile (`names`: each module's as loaded)."""
        in_tree = {str(self._built(path)): path for path in built}
        fixes = []
        for module, name in zip(loading, names):
            own = report["libraries"].get(str(self._built(module.library)))
            missing = [op for op in report["modules"].get(name, []) if isinstance(own, list) and op not in own]
            if not missing:
                continue
            for path, ops in report["libraries"].items():
                if isinstance(ops, list) and set(missing) <= set(ops) and path in in_tree:
                    other = in_tree[path]
                    setting = PurePosixPath(os.path.relpath(other, module.out)).as_posix()
                    fixes.append(f"map module {module.name} to {os.path.relpath(other, project)}, which registers "
                                 f'{", ".join(missing)}: [tool.opgen.libraries] "{module.name}" = "{setting}", '
                                 "then run `opgen build`")
                    break
            else:
                if module.library in built:
                    fixes += _uncompiled_sources(missing, module.out, built[module.library], project)
        fix = f"To fix, {'; '.join(fixes)}, and" if fixes else "Fix what the error names, and"
        return (f"the wheel's op libraries would fail on TensorFlow: {report['error']}\nIts users would get an "
                f"OpLibraryWarning at import and an OpLibraryError from each op of that library. {fix} build the "
                "wheel again. (To build for machines this one cannot stand in for, such as a GPU library where CUDA "
                f"is missing, set {SKIP_LIBRARY_CHECK}=1.)")

    def _package_dir(self, package: str) -> Path:
        """The folder of `package` in the source tree (build_py's: `package_dir` respected)."""
        return Path(self.get_finalized_command("build_py").get_package_dir(package)).resolve()

    def _package_name(self, folder: Path) -> str | None:
        """The dotted name the wheel gives `folder`: a listed package's, or a subpackage of one."""
        for package in self.distribution.packages or ():
            if self._package_dir(package) == folder:
                return str(package)
        parent = self._package_name(folder.parent) if folder.parent != folder else None
        return f"{parent}.{folder.name}" if parent else None

    def _library_path(self, library: str, out: Path) -> Path | None:
        """Where `library` ([tool.opgen], as the runtime resolves it: `resolve_library`) is in the
        source tree, if in this distribution; None for an absolute path or another package's."""
        if ":" in library and not os.path.isabs(library):
            package, _, resource = library.partition(":")
            return self._package_dir(package) / resource if package in (self.distribution.packages or ()) else None
        return None if os.path.isabs(library) else (out / library).resolve()

    def _unpacked_error(self, unpacked: list[tuple[str, Path]], project: str) -> str:
        by_folder: dict[Path, list[str]] = {}
        for module, folder in unpacked:
            by_folder.setdefault(folder, []).append(module)
        modules = ", ".join(f"{', '.join(names)} ({os.path.relpath(folder, project)}/)"
                            for folder, names in by_folder.items())
        packages = list(dict.fromkeys(self._package_name(folder) for folder in by_folder))
        # A folder below a packed package, but without an __init__.py (it or a folder between):
        # setuptools' find_packages and packages.find with namespaces = false skip it and what
        # is below it (setuptools.discovery PackageFinder._looks_like_package).
        no_init = sorted({os.path.relpath(missing, project) for folder in by_folder
                          for missing in self._missing_inits(folder)})
        listing = _setuptools_packages(project)
        if None in packages:
            fix = "make their folders packages the setup packs (or move [tool.opgen] out into one)"
        elif no_init:
            named = ", ".join(f"{folder}/__init__.py" for folder in no_init)
            fix = (f"create {named} (empty will do; `opgen build` leaves files it did not write alone): without "
                   f"one, setuptools takes no folder for a package (packages.find with namespaces = false, "
                   "find_packages)")
            if listing == "list":
                fix += f", and list {', '.join(map(str, packages))} in [tool.setuptools] packages too"
            elif listing is None:
                fix += f", and add {', '.join(map(str, packages))} to the packages of setup() if it lists them"
        else:
            tops = sorted({str(p).partition(".")[0] for p in packages})
            include = ", ".join(f'"{top}", "{top}.*"' for top in tops)
            if listing == "find":
                fix = (f"have setuptools pack {', '.join(map(str, packages))} too: make "
                       f"[tool.setuptools.packages.find] include match them (include = [{include}], "
                       "what `opgen init` writes)")
            else:
                fix = (f"have setuptools pack {', '.join(map(str, packages))} too: in pyproject.toml replace "
                       f"[tool.setuptools] packages with [tool.setuptools.packages.find] include = [{include}] "
                       "(what `opgen init` writes), or add them to the packages of setup()")
        return (f"generated modules would not be in the wheel: {modules}: no package setuptools packs holds "
                f"their files (packages: {sorted(self.distribution.packages or ())}), and their users' import "
                f"would fail with ModuleNotFoundError. To fix, {fix}.")

    def _missing_inits(self, folder: Path) -> list[Path]:
        """The folders from `folder` up to (not including) the nearest packed package's that have
        no `__init__.py`; none when no packed package holds `folder`."""
        packed = {self._package_dir(package) for package in self.distribution.packages or ()}
        missing: list[Path] = []
        for current in (folder, *folder.parents):
            if current in packed:
                return missing
            if not (current / "__init__.py").is_file():
                missing.append(current)
        return []

    def _unbuilt_error(self, module: str, library: str, path: Path, project: str) -> str:
        package = self._package_name(path.parent)
        target = f"{package.replace('.', '/')}/{path.name}" if package else os.path.relpath(path, project)
        return (f"generated module {module} loads op library {library!r} ({os.path.relpath(path, project)}), "
                "which the wheel would lack: no OpLibrary of the setup builds it and no package data ships it. "
                "Its users would get an OpLibraryWarning at import and an OpLibraryError from each of its ops. "
                f'To fix, add OpLibrary("{target}", [<its C++ sources>]) to the ext_modules of setup.py, or '
                "correct the module's library in [tool.opgen] (library, libraries) and run `opgen build`.")

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

    def build_extensions(self) -> None:
        """setuptools' way for other extensions; the `OpLibrary`s by `_build_op_libraries`."""
        self.check_extensions_list(self.extensions)
        libraries = [ext for ext in self.extensions if isinstance(ext, OpLibrary)]
        others = [ext for ext in self.extensions if not isinstance(ext, OpLibrary)]
        if others:
            every: list[Any] = self.extensions
            self.extensions = others
            try:
                super().build_extensions()
            finally:
                self.extensions = every
        if libraries:
            self._build_op_libraries(libraries)

    def build_extension(self, ext: Extension) -> None:
        if not isinstance(ext, OpLibrary):
            super().build_extension(ext)
            return
        self._build_op_libraries([ext])

    def _build_op_libraries(self, libraries: list[OpLibrary]) -> None:
        """Compile those of `libraries` that are not up to date (`opgen.library_build`: a
        library's state, recorded in the build's temporary folder, says which), at most
        `--parallel` (`-j`) at a time, else as many as there are CPUs; `--force` compiles all."""
        from distutils import log

        compile_flags, link_flags = self._tensorflow_flags()
        compiler = os.environ.get("CXX", "g++")
        plans = [self._library(ext, compiler, compile_flags, link_flags) for ext in libraries]
        parallel = self.parallel
        jobs = parallel if isinstance(parallel, int) and not isinstance(parallel, bool) and parallel > 0 else None
        try:
            build_libraries(plans, compiler=compiler_identity(compiler), jobs=jobs or os.cpu_count() or 1,
                            force=bool(self.force), dry_run=bool(self.dry_run), info=log.info, error=log.error)
        except LibraryBuildError as e:
            raise CompileError(str(e)) from None

    def _library(self, ext: OpLibrary, compiler: str, compile_flags: list[str], link_flags: list[str]) -> Library:
        """How `ext` is built: each source compiled into an object (with its depfile, the headers
        it includes) in the build's temporary folder, then linked where setuptools wants it."""
        target = self.get_ext_fullpath(ext.name)
        folder = os.path.join(self.build_temp, "opgen", *ext.path.parts)
        config = load_config(Path(os.getcwd()))
        # the code `opgen build` read: its include directories and its macros (`[tool.opgen]
        # defines` and `undefines`, after TF's flags and before the library's own arguments)
        includes = [f"-I{d}" for d in self._include_dirs(ext, config)]
        macros = [*(f"-D{d}" for d in config.defines), *(f"-U{u}" for u in config.undefines)]
        steps, objects = [], []
        for index, source in enumerate(ext.sources):
            stem = os.path.join(folder, f"{index}-{Path(source).stem}")
            # TF's compile flags carry the C++ standard (--std=c++17) and the ABI macro its wheel was built with.
            steps.append(Step((compiler, "-c", "-fPIC", "-O2", *_WARNINGS, source, *includes, "-o", stem + ".o",
                               "-MMD", "-MF", stem + ".d", "-MT", DEPFILE_TARGET, *compile_flags, *macros,
                               *ext.extra_compile_args), stem + ".d"))
            objects.append(stem + ".o")
        # extra_compile_args go to the link too, as when one command compiled and linked (-fopenmp, -flto)
        steps.append(Step((compiler, "-shared", "-fPIC", "-O2", *objects, "-o", target, *ext.extra_compile_args,
                           *link_flags)))
        return Library(str(ext.path), tuple(ext.sources), tuple(ext.depends or ()), tuple(steps), target, folder)

    def _tensorflow_flags(self) -> tuple[list[str], list[str]]:
        """`tensorflow_flags()`, remembered in the build's temporary folder for the same
        TensorFlow (`_tensorflow_install`): asking imports TensorFlow, seconds that a build with
        nothing to compile would spend on it. `--force` asks again."""
        install = _tensorflow_install()
        cache = Path(self.build_temp, "opgen", "tensorflow-flags.json")
        recorded = _read_json(cache) if install is not None and not self.force else None
        if isinstance(recorded, dict) and recorded.get("tensorflow") == json.loads(json.dumps(install)):
            flags = recorded.get("flags")
            if (isinstance(flags, list) and len(flags) == 2
                    and all(isinstance(f, list) and all(isinstance(a, str) for a in f) for f in flags)):
                return flags[0], flags[1]
        compile_flags, link_flags = tensorflow_flags()
        if install is not None and not self.dry_run:
            _write_json(cache, {"tensorflow": install, "flags": [compile_flags, link_flags]})
        return compile_flags, link_flags

    def _include_dirs(self, ext: OpLibrary, config: Config) -> list[str]:
        """Where g++ looks for `#include`s, as gathering does (docs/gathering.md): the library's
        own `include_dirs`, `[tool.opgen] include_dirs`, then the project root, so a header
        included from the root (`#include "ops/shapes.h"`) that `opgen build` read compiles too."""
        return [*ext.include_dirs, *(str(config.path(d)) for d in config.include_dirs), os.getcwd()]
