"""opgen's documented resource limits (docs/cli.md, "Errors, limits and names") and the checked file reads that
enforce the ones about files. Input beyond a limit fails with a located error instead of
running away in time or memory (or hitting Python's own limits as a traceback).
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from opgen.errors import Location, OpgenError

# Any one input file (C++ source or header, OpList, override, config, allow list).
MAX_FILE_BYTES = 64 << 20
# Tokens one macro invocation may expand to (all rescans included), and macro calls nested
# inside one another's arguments or expansions. TF's largest op sources expand to a few
# thousand tokens per macro; billion-laughs nests stop here in well under a second.
MAX_MACRO_EXPANSION_TOKENS = 1 << 18
MAX_MACRO_NESTING = 200
# Files `#include` reads into one translation unit (a header included again counts again,
# guarded or not). Op libraries read tens to hundreds; headers without guards that include
# the next one twice double with each level and would never end.
MAX_INCLUDES = 10_000
# Tokens of one translation unit's files (before macro expansion, headers included): 1.3x
# TensorFlow's whole op registry written as one file (99,304 tokens). Gathering takes about
# 180 us per op when ops are as short as they can be (20 tokens: 6,553 of them at the limit,
# about 1.2 s), so any source within the limit gathers in under 2 s, and a file of `;` or of
# identifiers stops with a located error well within that instead of a minute and gigabytes.
MAX_TRANSLATION_UNIT_TOKENS = 1 << 17
# `#if` expressions: nesting of parentheses, unary operators and `?:` (values are C's intmax_t /
# uintmax_t, 64 bits, as in g++: see opgen/spec/pp_expr.py).
MAX_IF_NESTING = 256
# Nesting of messages in a text-format OpList or override file (TF's ops nest 4 deep), and in
# a JSON OpList or API snapshot (where a message nests in at most two JSON levels).
MAX_TEXT_NESTING = 32
MAX_JSON_NESTING = 2 * MAX_TEXT_NESTING
# The files `opgen diff --git REV` reads from the revision, together (each is also an input
# file, at most MAX_FILE_BYTES).
MAX_REVISION_BYTES = 256 << 20


def read_input_bytes(path: str | Path, what: str = "file") -> bytes:
    """The bytes of an input file: regular files only (a FIFO or device named like a source
    would block or never end), at most MAX_FILE_BYTES."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise OpgenError(f"cannot read {what}: {e.strerror}", Location(name)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):  # checked before fdopen, which refuses a directory itself
        os.close(fd)
        raise OpgenError(f"cannot read {what}: not a regular file", Location(name),
                         hint="sources, OpLists, overrides and config must be regular files")
    with os.fdopen(fd, "rb") as f:
        if st.st_size > MAX_FILE_BYTES:
            raise OpgenError(f"{what} is {st.st_size} bytes, more than opgen's limit of {MAX_FILE_BYTES}",
                             Location(name), hint="split it into several files")
        try:
            data = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            raise OpgenError(f"cannot read {what}: {e.strerror}", Location(name)) from None
    if len(data) > MAX_FILE_BYTES:
        raise OpgenError(f"{what} is more than opgen's limit of {MAX_FILE_BYTES} bytes", Location(name))
    return data


def decode_utf8(data: bytes, name: str, what: str = "file") -> str:
    """`data` as UTF-8 (a leading BOM dropped); a located error at the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise OpgenError(f"{what} is not UTF-8 text ({e.reason})", Location(name, line, col)) from None


def read_text_file(path: str | Path, what: str = "file") -> str:
    """`read_input_bytes` decoded as UTF-8 with a located error."""
    return decode_utf8(read_input_bytes(path, what), str(path), what)


# Strings, `#` comments, brackets, newlines and one optional field name: what the scan of a
# text-format proto's structure needs to see.
_TEXT_PROTO_TOKEN = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|#[^\n]*|[{}<>\[\]\n]"


@functools.lru_cache(maxsize=4)
def _text_proto_scanner(field: str | None) -> re.Pattern[str]:
    return re.compile(_TEXT_PROTO_TOKEN + (rf"|\b{re.escape(field)}\b" if field else ""))


def text_proto_structure(
    text: str, field: str | None = None
) -> Iterator[tuple[int, int, str]]:
    """(line, nesting depth after it, token) for each bracket of a text-format proto, and
    each occurrence of the name `field` outside strings and comments."""
    depth = 0
    line = 1
    for m in _text_proto_scanner(field).finditer(text):
        tok = m.group()
        if tok == "\n":
            line += 1
            continue
        if tok in ("{", "<", "["):
            depth += 1
        elif tok in ("}", ">", "]"):
            depth -= 1
        elif tok[0] in "\"'#":
            continue
        yield line, depth, tok


def text_nesting_problem(text: str) -> int | None:
    """The 1-based line where brace/bracket nesting of a text-format proto first exceeds
    MAX_TEXT_NESTING (strings and `#` comments skipped), else None."""
    for line, depth, _ in text_proto_structure(text):
        if depth > MAX_TEXT_NESTING:
            return line
    return None


__all__ = [
    "MAX_FILE_BYTES",
    "MAX_IF_NESTING",
    "MAX_INCLUDES",
    "MAX_JSON_NESTING",
    "MAX_MACRO_EXPANSION_TOKENS",
    "MAX_MACRO_NESTING",
    "MAX_REVISION_BYTES",
    "MAX_TEXT_NESTING",
    "MAX_TRANSLATION_UNIT_TOKENS",
    "decode_utf8",
    "read_input_bytes",
    "read_text_file",
    "text_nesting_problem",
    "text_proto_structure",
]
