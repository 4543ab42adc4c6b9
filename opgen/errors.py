"""Errors that carry a source location and print as `path:line:col: error: message`; the
interrupt a build raises once it has completed its output tree (`InterruptedAfterCommit`); and
the commands messages tell the user to run (`opgen_command`)."""

from __future__ import annotations

import contextlib
import difflib
import re
import shlex
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

_ECHOED_NEWLINE = re.compile(r"\r?\n(?![ \t])")
_TAB_CONTINUATION = re.compile(r"\n\t ?")
# Control characters, and lone surrogates: bytes that are not UTF-8 as `surrogateescape` keeps
# them (a file name, a source's `#error` text), which stderr could not encode as they are.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\udc80-\udcff]")


def terminal_safe(text: str) -> str:
    """`text` with terminal control characters (escape sequences, carriage returns, ...)
    spelled as `\\xNN`, so echoed input cannot drive the terminal, and a byte that is not
    UTF-8 as `\\xNN` too; newlines and tabs stay."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()) & 0xFF:02x}", text)


_LINE_SEPARATORS = re.compile("[\u2028\u2029]")


def printable_line(text: str) -> str:
    """`text` on one line of text output: a newline as `\\n`, other control characters as
    `\\xNN` and Unicode's line and paragraph separators as `\\u2028`/`\\u2029` (line breaks
    to Python's `splitlines` and JavaScript), so a hostile string stays on its line and cannot
    drive the terminal (the text format's escaping; `opgen.output_escape` builds Markdown and
    GitHub's on it)."""
    text = _LINE_SEPARATORS.sub(lambda m: f"\\u{ord(m.group()):04x}", text.replace("\n", "\\n"))
    return terminal_safe(text)


def one_message(text: str) -> str:
    """A message with its own indented lines (`  hint: ...`, TF's `\n\t in Op ...`), where any
    other newline was echoed from input: spelled `\\n`, so it cannot start a line of output
    that reads like another message (`x.cc:1:1: error: ...`)."""
    return _ECHOED_NEWLINE.sub(r"\\n", text)


def printable_path(path: object) -> str:
    """A path as opgen shows it in errors, warnings and summary lines (`printable_line`)."""
    return printable_line(str(path))


def opgen_command(args: str) -> str:
    """`opgen ARGS` as a message names a command for the user to run: `opgen -C DIR ARGS` when
    this command was given `-C DIR` (`--directory DIR`; `given_directory`), DIR as the user
    spelled it (several `-C` joined as opgen joins them), so that the command, typed where
    this one was, runs where this one ran."""
    if not _given_directory:
        return f"opgen {args}"
    return f"opgen -C {printable_path(shlex.quote(_given_directory))} {args}"


def given_directory(directory: str) -> None:
    """The `-C` DIR this command runs in, as given (`cli._enter_directory`); "" none (once the
    command ends: `cli.main` runs the next without it)."""
    global _given_directory
    _given_directory = directory


_given_directory = ""


def plain_proto_names(message: str) -> str:
    """protobuf's parse error `message` naming types as the files' users know them: `OpDef`,
    `OpGenOverride`, `ApiDef.Visibility`, not opgen's proto package (`opgen.OpDef`)."""
    return re.sub(r'\b(Message|Enum) type "opgen\.', r'\1 type "', message)


def report(text: str) -> None:
    """One message (an error, a warning, a summary line) on stderr, terminal-safe; a closed
    stderr is ignored (the exit status still tells). Nothing inside `reports_silenced`; a
    warning counts towards `counting_warnings`."""
    if _silenced:
        return
    if _counted is not None and _WARNING_HEAD.match(text):
        _counted.warnings += 1
    with contextlib.suppress(OSError, ValueError):
        print(terminal_safe(text), file=sys.stderr)


_silenced = False

# A warning's first line as `format_warning` (and every warning opgen prints, docs/cli.md)
# writes it: `path:line:col: warning: ...` (a location holds no ": "), or `warning: ...` when
# it concerns no one file; not a note (`...: note: ...`), nor an error quoting "warning: ".
_WARNING_HEAD = re.compile(r"(?:(?:(?!: )[^\n])*: )?warning: ")


@dataclass
class ReportedWarnings:
    """How many warnings `report` printed inside `counting_warnings`."""

    warnings: int = 0


_counted: ReportedWarnings | None = None


@contextlib.contextmanager
def counting_warnings() -> Iterator[ReportedWarnings]:
    """Counts the warnings reported meanwhile (`opgen build --warnings-as-errors` fails on any)."""
    global _counted
    before, _counted = _counted, ReportedWarnings()
    try:
        yield _counted
    finally:
        _counted = before


@contextlib.contextmanager
def reports_silenced() -> Iterator[None]:
    """No `report` output meanwhile (a query such as `opgen build --list-outputs`, which a build
    tool runs on every invocation: the build itself reports the warnings); errors raised
    still reach the CLI, which prints them."""
    global _silenced
    before, _silenced = _silenced, True
    try:
        yield
    finally:
        _silenced = before


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based line and column in a file; `path` is as the user named it (relative stays relative).
    A file of a git revision (not the work tree) has `revision` and is shown `REV:path`.
    A place whose text is written elsewhere has `expanded_from`: what wrote it (`expansion of
    macro 'M'`, `constant 'kName'`) and where that text is (errors add it as a note; it is no
    part of the place's identity)."""

    path: str
    line: int = 0
    col: int = 0
    revision: str = ""
    expanded_from: tuple[str, Location] | None = field(default=None, compare=False, repr=False)

    def moved(self, move: Callable[[Location], Location]) -> Location:
        """`move(self)`, with the place `expanded_from` names moved alike (a relocation to
        another root or a revision's files must not drop the note, nor leave it elsewhere)."""
        moved = move(self)
        if self.expanded_from is None:
            return moved
        what, at = self.expanded_from
        return replace(moved, expanded_from=(what, move(at)))

    def __str__(self) -> str:
        path = f"{self.revision}:{self.path}" if self.revision else self.path
        if self.line <= 0:
            return path
        if self.col <= 0:
            return f"{path}:{self.line}"
        return f"{path}:{self.line}:{self.col}"


class OpgenError(Exception):
    """A user-facing error: bad input, not a bug. The CLI prints `format()` and exits 2."""

    exit_code = 2

    def __init__(self, message: str, location: Location | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
        self.hint = hint

    def format(self) -> str:
        head = f"{printable_path(self.location)}: error: " if self.location else _UNLOCATED_ERROR
        # A message's own continuation lines are indented (TF's `\n\t for attr ...`, shown with
        # spaces: a tab's width varies); a newline echoed from input (a hostile name) is spelled
        # `\n`, so every unindented line of opgen's output starts with a location.
        text = head + _TAB_CONTINUATION.sub("\n    ", _ECHOED_NEWLINE.sub(r"\\n", self.message))
        if self.location and self.location.expanded_from:
            what, written = self.location.expanded_from
            text += f"\n  note: in {what}, written at {printable_path(written)}"
        if self.hint:  # (which may quote input too: `or add "..." to them`)
            text += "\n  hint: " + one_message(self.hint)
        return text

    def __str__(self) -> str:
        return self.format()

    def report(self) -> str:
        """What the CLI prints: `format()`, then gathering's summary line (`1 error in 1 file`)
        when an error is located at a line, so every run that fails on its input's text ends alike."""
        errors = self.errors if isinstance(self, OpgenErrors) else [self]
        if not any(e.location is not None and e.location.line > 0 for e in errors):
            return self.format()
        return f"{self.format()}\n{error_summary(errors)}"

    def format_warning(self) -> str:
        """`format()` as a warning: for problems a reader skips (`path:line:col: warning: ...`)."""
        return self._format_as("warning")

    def format_note(self) -> str:
        """`format()` as a note: for what a reader may have meant (`path:line:col: note: ...`)."""
        return self._format_as("note")

    def _format_as(self, severity: str) -> str:
        return (
            self.format().replace(": error: ", f": {severity}: ", 1)
            if self.location
            else f"{severity}: " + self.format().removeprefix(_UNLOCATED_ERROR)
        )


# An error about no input file: as click's usage errors, so every unindented line of output
# starts with a location, a summary or `opgen:` (docs/cli.md).
_UNLOCATED_ERROR = "opgen: error: "


def did_you_mean(name: str, choices: Iterable[str], quote: str = "", cutoff: float = 0.6) -> str | None:
    """`did you mean `hide`?` naming the choices closest to a misspelled `name` (difflib, at
    least `cutoff` alike); None when none is close."""
    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=cutoff)
    return f"did you mean {', '.join(f'{quote}{c}{quote}' for c in close)}?" if close else None


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def first_names(names: Sequence[str], most: int) -> str:
    """`a, b, c, ...`: the first `most` of `names`, and `...` when there are more."""
    return ", ".join(names[:most]) + (", ..." if len(names) > most else "")


def with_article(word: str) -> str:
    """`a shape`, `an int`: a (type) name in a message with its indefinite article."""
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def error_summary(errors: list[OpgenError]) -> str:
    """The summary line after a list of errors: `3 errors in 2 files`."""
    files = {e.location.path for e in errors if e.location is not None}
    return plural(len(errors), "error") + (f" in {plural(len(files), 'file')}" if files else "")


class OpgenErrors(OpgenError):
    """Several located errors reported together (e.g. every bad op of a source tree)."""

    def __init__(self, errors: list[OpgenError]):
        self.errors = list(errors)
        super().__init__("\n".join(e.format() for e in self.errors))

    def format(self) -> str:
        return "\n".join(e.format() for e in self.errors)


class InterruptedAfterCommit(KeyboardInterrupt):
    """An interrupt (Ctrl-C's KeyboardInterrupt, or the CLI's `Terminated` for SIGTERM and
    SIGHUP) that came after a build's commit point (`tree_writer.commit`): the build completed
    its output tree first, then this ends it, so the CLI says the build completed. Here, not in
    tree_writer, so the CLI knows it without importing the build's modules."""

    def __init__(self, interrupt: KeyboardInterrupt):
        super().__init__(*interrupt.args)
        self.interrupt = interrupt
