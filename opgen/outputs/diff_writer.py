"""`opgen build --diff`: the changes of the output tree as one unified diff that `git apply`
takes from the project root."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from opgen.outputs.tree_writer import Changes


def unified_diff(out: Path, changes: Changes, root: Path) -> bytes:
    """The changes as one unified diff whose paths are relative to the project `root`, so
    `git apply` takes it from there (`/dev/null` for created and deleted files). Bytes, split
    at `\n` only as git splits lines (str.splitlines would also split at U+2028, U+0085, form
    feeds, ...), so a file that is not UTF-8 is diffed as it is on disk."""
    chunks: list[bytes] = []
    for rel in sorted([*changes.write, *changes.delete]):
        path = root_relative(out / rel, root)
        try:
            old: list[bytes] | None = _git_lines((out / rel).read_bytes())
        except OSError:
            old = None
        data = changes.write.get(rel)
        new = _git_lines(data) if data is not None else None
        chunks.extend(_file_diff(old or [], new or [], _git_quoted(f"a/{path}") if old is not None else b"/dev/null",
                                 _git_quoted(f"b/{path}") if new is not None else b"/dev/null"))
    return b"".join(c if c.endswith(b"\n") else c + b"\n\\ No newline at end of file\n" for c in chunks)


def _git_lines(data: bytes) -> list[bytes]:
    """`data` split after each `\n` (the last line may lack one)."""
    lines = data.split(b"\n")
    return [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


_GIT_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r",
                '"': '\\"', "\\": "\\\\"}


def _git_quoted(path: str) -> bytes:
    """A diff header path as git writes it (quote.c quote_c_style), in double quotes with C
    escapes (octal for other control characters and for bytes that are not UTF-8) when it
    holds one of them, `"` or `\\`, so `git apply` reads it back and a newline cannot break the
    header line; also when it holds a space, so that apply.c find_name_traditional never takes
    its end for a timestamp (`API 2024-01-01 12:00:00`)."""
    if not any(c in _GIT_ESCAPES or c == " " or ord(c) < 0x20 or ord(c) == 0x7F or 0xDC80 <= ord(c) <= 0xDCFF
               for c in path):
        return os.fsencode(path)
    out = bytearray(b'"')
    for c in path:
        if c in _GIT_ESCAPES:
            out += _GIT_ESCAPES[c].encode()
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out += f"\\{ord(c):03o}".encode()
        else:
            out += b"".join(b"\\%03o" % b if b >= 0x80 and 0xDC80 <= ord(c) <= 0xDCFF else bytes([b])
                            for b in os.fsencode(c))
    return bytes(out + b'"')


# The most lines of a changed window difflib aligns line by line. Its matcher without
# autojunk is quadratic in the worst case; with it, lines it deems popular (`],`, `{` of a
# snapshot's JSON) are never matched, so a hunk can end with no trailing context, which
# `git apply` reads as anchored at the end of the file and rejects. A bigger window (a
# rewritten module) becomes one hunk replacing it, which applies as surely.
_ALIGN_LIMIT = 20_000


def _file_diff(old: list[bytes], new: list[bytes], fromfile: bytes, tofile: bytes, context: int = 3) -> list[bytes]:
    """Unified diff lines (on bytes) of `old` -> `new`, computed on the part between the
    common first and last lines (a regenerated module changes locally; difflib on its whole
    4 MB takes seconds), every hunk with its context (`_ALIGN_LIMIT`)."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[-1 - end] == new[-1 - end]:
        end += 1
    if start == len(old) == len(new):
        return []
    skip, keep_end = max(0, start - context), max(0, end - context)
    a, b = old[skip : len(old) - keep_end], new[skip : len(new) - keep_end]
    if len(a) + len(b) <= _ALIGN_LIMIT:
        groups = list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context))
    else:
        head, tail = start - skip, end - keep_end
        groups = [[("equal", 0, head, 0, head), ("replace", head, len(a) - tail, head, len(b) - tail),
                   ("equal", len(a) - tail, len(a), len(b) - tail, len(b))]]
    lines = [b"--- " + fromfile + b"\n", b"+++ " + tofile + b"\n"]
    for group in groups:
        first, last = group[0], group[-1]
        lines.append(b"@@ -%s +%s @@\n" % (_hunk_range(skip + first[1], skip + last[2]),
                                            _hunk_range(skip + first[3], skip + last[4])))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [b" " + line for line in a[i1:i2]]
                continue
            lines += [b"-" + line for line in a[i1:i2]]
            lines += [b"+" + line for line in b[j1:j2]]
    return lines


def _hunk_range(start: int, stop: int) -> bytes:
    """A hunk's `start,length` as unified diffs number lines (from 1; an empty range names
    the line before it), as `difflib.unified_diff` writes it."""
    length = stop - start
    if length == 1:
        return b"%d" % (start + 1)
    return b"%d,%d" % (start if length == 0 else start + 1, length)


def root_relative(path: Path, root: Path) -> str:
    """`path` relative to the project root (as git shows it), else as given."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
