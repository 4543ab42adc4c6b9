"""Compiling op libraries incrementally and in parallel, for `opgen.setup_helpers.build_ext`.

A library is built by steps: each source compiled into an object, which also writes a
depfile (`g++ -MMD -MF`: the headers the source included, system headers aside, as make and
ninja learn them), then the link. After a library's build succeeds, its state is written to a
small JSON file in the build's temporary folder (`state.json`, beside its objects and
depfiles): a hash of its command lines, the compiler (its resolved path and a hash of its
content), a hash of the content of each input (the sources, and every header the depfiles
name) and of the library it produced. A later build compiles the library again only when
something of that differs, compared for equality: contents, not times, so a `git checkout`
that changes times but no content rebuilds nothing, and one that brings back an older content
(whose time may be older than the library's) rebuilds. No state (a fresh checkout, a cleaned
build folder, a build that failed or was interrupted: the state is removed before a build
starts) means compiling.

The libraries that must be compiled are, at most `jobs` at a time, each on a thread that runs
its steps one after the other in child processes whose output is collected, and reported
whole, library by library, when its build ends: never interleaved. After a failure no
further library starts; those running finish, and then the failures are raised together.

setuptools-free: `opgen.setup_helpers` builds the command lines and says where things go.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

# Of the state files: one of another format (another opgen) is no record.
STATE_FORMAT = 1
# The target a compile step names in its depfile (`-MT`): its dependencies follow it.
DEPFILE_TARGET = "object"


@dataclass(frozen=True)
class Step:
    """A command of a library's build; a compile step also names the depfile it writes."""

    argv: tuple[str, ...]
    depfile: str | None = None


@dataclass(frozen=True)
class Library:
    """An op library to build: `name` as messages name it (`my_ops/_my_ops.so`), `sources`
    and `depends` (inputs besides the sources and the headers the depfiles name), its steps,
    the file they produce and the folder of its objects, depfiles and state."""

    name: str
    sources: tuple[str, ...]
    depends: tuple[str, ...]
    steps: tuple[Step, ...]
    output: str
    folder: str

    @property
    def state_file(self) -> str:
        return os.path.join(self.folder, "state.json")

    def command_hash(self) -> str:
        return _sha256(json.dumps([STATE_FORMAT, [list(step.argv) for step in self.steps]]).encode())


class LibraryBuildError(Exception):
    """Some libraries failed to compile; their compilers' output was reported already."""


def file_digest(path: str) -> str | None:
    """The SHA-256 of a file's content; None when it cannot be read (missing)."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def compiler_identity(compiler: str) -> str:
    """What says the compiler is the same one: the file `compiler` runs (found on PATH, links
    resolved) and a hash of its content (an upgrade rewrites it)."""
    found = shutil.which(compiler)
    if found is None:
        return f"{compiler}: not found"
    path = os.path.realpath(found)
    return f"{path}: {file_digest(path)}"


def parse_depfile(text: str) -> list[str]:
    """The dependencies of the one rule of a make-style depfile, as g++ `-MMD -MT object`
    writes it (its mkdeps.cc): `\\`-newline continues the line; a space or tab after 2N+1
    backslashes is N backslashes and the space, after 2N backslashes N backslashes ending the
    name; `\\#` is `#`, `$$` is `$`."""
    text = text.replace("\\\r\n", " ").replace("\\\n", " ")
    names: list[str] = []
    name = ""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            j = i
            while j < len(text) and text[j] == "\\":
                j += 1
            following = text[j:j + 1]
            if following in (" ", "\t"):
                name += "\\" * ((j - i) // 2)
                if (j - i) % 2:  # an escaped blank, part of the name
                    name += following
                    j += 1
            elif following == "#":
                name += "\\" * (j - i - 1) + "#"
                j += 1
            else:
                name += "\\" * (j - i)
            i = j
            continue
        if c in " \t\r\n":
            if name:
                names.append(name)
            name = ""
        elif c == "$" and text[i + 1:i + 2] == "$":
            name += "$"
            i += 1
        else:
            name += c
        i += 1
    if name:
        names.append(name)
    if not names or not names[0].endswith(":"):
        raise ValueError(f"expected a rule `{DEPFILE_TARGET}: ...`")
    return names[1:]


@dataclass
class _Digests:
    """File digests computed once per build (by absolute path): an input shared by several
    libraries is read once, and an input's digest is the one taken before the compile started
    (so a header edited during the build is found changed by the next)."""

    known: dict[str, str | None] = field(default_factory=dict)

    def __call__(self, path: str) -> str | None:
        key = os.path.abspath(path)
        if key not in self.known:
            self.known[key] = file_digest(key)
        return self.known[key]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _shown(path: str) -> str:
    """A path as a message shows it: relative to the working directory (the project) when below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _why_stale(library: Library, compiler: str, digests: _Digests) -> str | None:
    """Why `library` must be compiled (a short phrase), or None when the state its last build
    recorded is the present one. Every recorded input is read, so that `digests` holds each
    one's content from before any compile starts."""
    try:
        with open(library.state_file, encoding="utf-8") as f:
            state = json.load(f)
    except FileNotFoundError:
        return "no earlier build recorded"
    except (OSError, ValueError):
        return "the record of its last build is unreadable"
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        return "the record of its last build is from another opgen"
    inputs = state.get("inputs")
    if not isinstance(inputs, dict):
        return "the record of its last build is unreadable"
    changed = [path for path, digest in inputs.items() if digests(path) != digest]
    output = file_digest(library.output)
    if state.get("command") != library.command_hash():
        return "its command line changed"
    if state.get("compiler") != compiler:
        return "the compiler changed"
    if output is None:
        return "the library is missing"
    if output != state.get("output"):
        return "the library changed since it was built"
    if changed:
        first = _shown(changed[0]) + (" changed" if digests(changed[0]) is not None else " is missing")
        return first + (f" (and {len(changed) - 1} more inputs)" if len(changed) > 1 else "")
    return None


def _record(library: Library, compiler: str, digests: _Digests) -> str | None:
    """Write the state of `library`, just built; or say why not (it will be compiled again)."""
    paths = [*library.sources, *library.depends]
    for step in library.steps:
        if step.depfile is None:
            continue
        try:
            with open(step.depfile, encoding="utf-8", errors="surrogateescape") as f:
                paths += parse_depfile(f.read())
        except (OSError, ValueError) as e:
            return f"{library.steps[0].argv[0]} wrote no readable dependency file {_shown(step.depfile)} ({e})"
    inputs = {os.path.abspath(path): digests(path) for path in paths}
    missing = [path for path, digest in inputs.items() if digest is None]
    if missing:
        return f"input {_shown(missing[0])} is gone"
    state = {"format": STATE_FORMAT, "command": library.command_hash(), "compiler": compiler,
             "output": file_digest(library.output), "inputs": inputs}
    temporary = library.state_file + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1)
    os.replace(temporary, library.state_file)
    return None


@dataclass
class _Ran:
    """The commands of one library's build that ran: each with its exit status and output
    (none: the build did not start, another having failed)."""

    commands: list[tuple[Step, int, str]] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.commands) and self.commands[-1][1] != 0


def _run(library: Library, started: Callable[[], None], stop: threading.Event) -> _Ran:
    """Run the steps of `library` (on a worker thread), stopping at the first that fails; none
    once `stop` is set, which a failure sets before its worker takes the next library."""
    ran = _Ran()
    if stop.is_set():
        return ran
    started()
    os.makedirs(library.folder, exist_ok=True)
    os.makedirs(os.path.dirname(library.output) or ".", exist_ok=True)
    for step in library.steps:
        try:
            done = subprocess.run(step.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  errors="replace", check=False)
            ran.commands.append((step, done.returncode, done.stdout))
        except OSError as e:
            ran.commands.append((step, 127, f"cannot run {step.argv[0]}: {e}\n"))
        if ran.failed:
            stop.set()
            break
    return ran


def _commands_text(ran: _Ran) -> str:
    return "\n".join(shlex.join(step.argv) + (f"\n{output.rstrip()}" if output.strip() else "")
                     for step, _, output in ran.commands)


def build_libraries(libraries: Sequence[Library], *, compiler: str, jobs: int, force: bool, dry_run: bool,
                    info: Callable[[str], None], error: Callable[[str], None]) -> list[Library]:
    """Compile those of `libraries` that are not up to date (all with `force`), at most `jobs`
    at a time; `compiler`: its `compiler_identity`. Says of each library, through `info`, that
    it is skipped or built and why, then the commands of its build with their output;
    through `error` the output of a failed one. Returns the libraries compiled; raises
    `LibraryBuildError` when some failed, once the others running have finished."""
    digests = _Digests()
    stale: list[tuple[Library, str]] = []
    for library in libraries:
        reason = "--force" if force else _why_stale(library, compiler, digests)
        if reason is None:
            info(f"skipping '{library.name}' op library (up-to-date)")
        else:
            stale.append((library, reason))
    for library, _ in stale:  # their sources' content before any compile
        for path in (*library.sources, *library.depends):
            digests(path)
    if dry_run:
        for library, reason in stale:
            info(f"building '{library.name}' op library ({reason})\n"
                 + "\n".join(shlex.join(step.argv) for step in library.steps))
        return []
    for library, _ in stale:  # a build that fails or is interrupted leaves no state: compiled again
        try:
            os.remove(library.state_file)
        except FileNotFoundError:
            pass
    if not stale:
        return []
    lock = threading.Lock()

    def say(message: str, to: Callable[[str], None] = info) -> None:
        with lock:
            to(message)

    def starting(library: Library, reason: str) -> Callable[[], None]:
        return lambda: say(f"building '{library.name}' op library ({reason})")

    built: list[Library] = []
    failed: list[str] = []
    not_started: list[str] = []
    stop = threading.Event()
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="opgen-build") as pool:
        futures: dict[Future[_Ran], Library] = {
            pool.submit(_run, library, starting(library, reason), stop): library for library, reason in stale}
        try:
            for future in as_completed(futures):
                library, ran = futures[future], future.result()
                if not ran.commands:
                    not_started.append(library.name)
                elif ran.failed:
                    step, status, _ = ran.commands[-1]
                    say(f"error: building '{library.name}' op library failed: {shlex.join(step.argv[:1])} exited "
                        f"with status {status}:\n{_commands_text(ran)}", error)
                    failed.append(library.name)
                else:
                    say(_commands_text(ran))
                    unrecorded = _record(library, compiler, digests)
                    if unrecorded:
                        say(f"warning: '{library.name}' will be compiled again by the next build: {unrecorded}",
                            error)
                    built.append(library)
        except BaseException:  # an interrupt: start nothing more; the running compiles end with it
            stop.set()
            raise
    if failed:
        names = ", ".join(f"'{name}'" for name in failed)
        message = (f"{len(failed)} op libraries failed to compile: {names}" if len(failed) > 1
                   else f"op library {names} failed to compile")
        message += " (the compiler's output is above)"
        if not_started:
            message += f"; not compiled after the failure: {', '.join(f'{name!r}' for name in sorted(not_started))}"
        raise LibraryBuildError(message)
    return built


def tree_digests(paths: Iterable[str]) -> dict[str, str | None]:
    """The content digest of each of `paths`, by absolute path, in sorted order."""
    return {os.path.abspath(path): file_digest(path) for path in sorted(paths)}
