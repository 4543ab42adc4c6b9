"""`opgen build --depfile`: one rule `targets: inputs`, each name spelled so that the build tool
that reads the file reads exactly that name, and nothing else.

make and ninja read depfiles differently, so the file is written for one of them
(`--depfile-format`); a name the chosen tool cannot read back exactly is a located error (exit 2),
never a depfile that misnames a file or makes make run a command. The rules, checked by running
real GNU make 4.3 and ninja 1.11 on hostile names (tests/commands/test_build_depfile.py):

make (GNU make's read.c `eval` and `parse_file_seq`):
- `$` is `$$`; a blank, `#`, `:`, `|` and the glob characters `[`, `]`, `*`, `?` take a
  backslash (make globs every name, and unquotes the backslash when the glob matches the file
  itself); `%` takes one in a target only (there it would make a pattern rule). Backslashes
  that precede an escaped character are doubled; every other backslash is literal.
- `=` would turn the rule into a (target-specific) variable assignment, and no backslash stops
  that: it is written as the function call `$(if 1,=)`, which expands to `=` after make has
  decided the line is a rule.
- `;` starts the rule's recipe, escaped or not, even when a variable expands to it: it cannot
  be written (a file `x;touch${IFS}PWNED` would run `touch`). Neither can a newline, a name
  ending in a backslash, a leading `~` (make expands it to a home directory), `NAME(MEMBER)`
  (an archive member), a tab or `|` in a target, nor a backslash in a name with a glob
  character (the glob would read the backslash as an escape).

ninja (src/depfile_parser.in.cc, `DepfileParser::Parse`): a name is a run of
`[a-zA-Z0-9+,/_:.~()}{%=@[]!-]` and bytes >= 0x80; `$$` is `$`; a space is `\\ ` and `#` is
`\\#`, with the backslashes before them doubled the way that parser undoes it; any other
backslash is literal. Every other character ends the name, so `;`, tabs, quotes, `*`, `?`,
`&`, `|`, `<`, `>`, `^` and control characters cannot be written, nor a backslash before `$`
or at the end of a name, nor a `:` ending a name (it would end the target list).
"""

from __future__ import annotations

import os
import re

from opgen.errors import Location, OpgenError

FORMATS = ("make", "ninja")

_MAKE_BACKSLASHED = frozenset(" \t#:|[]*?")
_NINJA_PLAIN = re.compile(r"[a-zA-Z0-9+,/_:.~()}{%=@\[\]!\x80-\U0010ffff-]")
_BACKSLASH_RUN = re.compile(r"\\+(?=(.?))", re.DOTALL)


def depfile_bytes(targets: list[str], inputs: list[str], fmt: str) -> bytes:
    """The depfile `targets: inputs` for `fmt` (one of FORMATS), as the bytes of the file names
    (`os.fsencode`: a name that is not UTF-8 is written as it is on disk). For make, also an
    empty rule per input, as `gcc -MP` writes: an input deleted or renamed since is then a
    target make knows how to "remake" (it reruns opgen) rather than an error stopping make;
    ninja needs none (a missing input of a depfile is out of date)."""
    text = " ".join(spell_name(t, fmt, target=True) for t in targets) + ": " + " ".join(
        spell_name(p, fmt, target=False) for p in inputs) + "\n"
    if fmt == "make":
        text += "".join(f"{name}:\n" for name in filter(None, (_make_target_or_none(p) for p in inputs)))
    return os.fsencode(text)


def _make_target_or_none(path: str) -> str | None:
    """`path` spelled as a make target, or None when make cannot name it as one (a tab or `|`
    in it: the input itself is still listed, only the empty rule is left out)."""
    try:
        return _make_name(path, target=True)
    except OpgenError:
        return None


def spell_name(path: str, fmt: str, target: bool) -> str:
    """`path` as the depfile for `fmt` spells it, as an output (`target`) or an input; an
    OpgenError located at `path` when that tool cannot read it back exactly."""
    return _make_name(path, target) if fmt == "make" else _ninja_name(path, target)


def _refuse(path: str, tool: str, why: str) -> OpgenError:
    hint = "rename the file, or build without --depfile"
    if tool == "make" and _ninja_reads(path):
        hint += "; a depfile for ninja can name it (--depfile-format ninja)"
    return OpgenError(f"a depfile for {tool} cannot name this file: {why}", Location(path), hint=hint)


def _ninja_reads(path: str) -> bool:
    try:
        _ninja_name(path, False)
    except OpgenError:
        return False
    return True


def _common_checks(path: str, tool: str) -> None:
    if any(c in path for c in "\n\r\0"):
        raise _refuse(path, tool, "it has a newline")
    if path.endswith("\\"):
        raise _refuse(path, tool, "it ends in a backslash")
    try:
        os.fsencode(path)
    except UnicodeEncodeError:  # a lone surrogate that no file name on disk decodes to
        raise _refuse(path, tool, "it has a character the file system cannot encode") from None


def _make_name(path: str, target: bool) -> str:
    _common_checks(path, "make")
    if ";" in path:
        raise _refuse(path, "make", "make reads ';' as the start of a recipe, escaped or not")
    if path.startswith("~"):
        raise _refuse(path, "make", "make expands a leading '~' to a home directory")
    if "(" in path and path.endswith(")"):
        raise _refuse(path, "make", "make reads NAME(MEMBER) as an archive member")
    if target and ("\t" in path or "|" in path):
        raise _refuse(path, "make", "make cannot name an output with a tab or '|'")
    if "\\" in path and set(path) & set("[]*?"):
        raise _refuse(path, "make", "make's glob would read its backslash as an escape of its [, ], * or ?")
    escaped = _MAKE_BACKSLASHED | ({"%"} if target else set())
    out: list[str] = []
    pos = 0
    for m in _BACKSLASH_RUN.finditer(path):  # a backslash run before an escaped character is doubled
        out.append(_make_chars(path[pos:m.start()], escaped))
        out.append(m.group() * (2 if m.group(1) in escaped else 1))
        pos = m.end()
    out.append(_make_chars(path[pos:], escaped))
    return "".join(out)


def _make_chars(text: str, escaped: frozenset[str] | set[str]) -> str:
    return "".join("$$" if c == "$" else "$(if 1,=)" if c == "=" else f"\\{c}" if c in escaped else c for c in text)


def _ninja_name(path: str, target: bool) -> str:
    del target  # ninja reads targets and inputs alike
    _common_checks(path, "ninja")
    if path.endswith(":"):
        raise _refuse(path, "ninja", "ninja would read its ':' at the end as the end of the outputs")
    bad = next((c for c in path if not (c in " #$\\" or _NINJA_PLAIN.match(c))), None)
    if bad is not None:
        raise _refuse(path, "ninja", f"ninja ends a name at {bad!r}")
    out: list[str] = []
    pos = 0
    for m in _BACKSLASH_RUN.finditer(path):
        out.append(_ninja_chars(path[pos:m.start()]))
        run, after = m.group(), m.group(1)
        if after == "$":
            raise _refuse(path, "ninja", "ninja cannot read a backslash before '$'")
        # k backslashes before a space: 2k+1 and the space; before `#` or `:`, k+1 and the
        # character (`_ninja_chars` adds the escape of a space or `#`)
        out.append(run * 2 if after == " " else run + "\\" if after == ":" else run)
        pos = m.end()
    out.append(_ninja_chars(path[pos:]))
    return "".join(out)


def _ninja_chars(text: str) -> str:
    return "".join("$$" if c == "$" else f"\\{c}" if c in " #" else c for c in text)
