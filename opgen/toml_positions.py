"""Where each key (and each element of an array value) stands in a TOML document.

`tomllib` returns values without positions; configuration errors must point at the line a
user has to edit, so the document is scanned once more for them. The scan follows TOML's
lexical rules that decide where a key can start: basic, literal and multi-line strings,
comments, and brackets (arrays and inline tables span lines; nothing inside them is a
key of the enclosing table). Keys are reported by their full dotted path from the root
(`("tool", "opgen", "out")`); an array element adds its index (`("tool", "opgen",
"sources", 1)`), a key of an inline table value its own path (`modules = {"A*" = "m"}`:
`("tool", "opgen", "modules", "A*")`). Arrays of tables (`[[x]]`), and inline tables inside
arrays, are not reported: a caller falls back to the nearest reported ancestor.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Path = tuple[str | int, ...]

_BARE = r"[A-Za-z0-9_-]+"
_BASIC = r'"(?:[^"\\\n]|\\.)*"'
_LITERAL = r"'[^'\n]*'"
_KEY_PART = rf"(?:{_BARE}|{_BASIC}|{_LITERAL})"
_DOTTED = re.compile(rf"[ \t]*({_KEY_PART}(?:[ \t]*\.[ \t]*{_KEY_PART})*)[ \t]*")
_PART = re.compile(rf"[ \t]*({_KEY_PART})[ \t]*\.?")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def _unquote(part: str) -> str:
    if part.startswith("'"):
        return part[1:-1]
    if part.startswith('"'):
        return re.sub(
            r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)",
            lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] in "uU" else _ESCAPES.get(m.group(1), m.group(1)),
            part[1:-1],
        )
    return part


def _split(dotted: str) -> tuple[str, ...]:
    return tuple(_unquote(m.group(1)) for m in _PART.finditer(dotted) if m.group(1))


def key_positions(text: str) -> dict[Path, tuple[int, int]]:
    """Each key's (1-based line, column); for an array value, each element's too. A document
    tomllib rejects may give partial results (they are only ever used for messages)."""
    positions: dict[Path, tuple[int, int]] = {}
    table: tuple[str, ...] = ()
    i, n = 0, len(text)
    line, line_start = 1, 0
    # open brackets: (kind, path of the value it belongs to or None, next element index; for an
    # inline table, 0 where a key may start, 1 in its value)
    stack: list[list[Any]] = []
    at_line_start = True

    def pos(at: int) -> tuple[int, int]:
        return line, at - line_start + 1

    def skip_string(at: int) -> int:
        """Index after the string starting at `at`, counting the newlines it spans."""
        nonlocal line, line_start
        quote = text[at]
        triple = text.startswith(quote * 3, at)
        j = at + (3 if triple else 1)
        while j < n:
            c = text[j]
            if c == "\\" and quote == '"':
                j += 2
                continue
            if c == "\n":
                if not triple:
                    return j
                line, line_start = line + 1, j + 1
            elif triple and text.startswith(quote * 3, j):
                j += 3
                while j < n and text[j] == quote:  # up to two quotes may end the content
                    j += 1
                return j
            elif not triple and c == quote:
                return j + 1
            j += 1
        return n

    while i < n:
        c = text[i]
        if c == "\n":
            line, line_start = line + 1, i + 1
            i += 1
            at_line_start = not stack
            continue
        if c in " \t\r":
            i += 1
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if at_line_start and not stack:
            at_line_start = False
            if c == "[":
                if text.startswith("[[", i):
                    end = text.find("]]", i)
                    table = ("\0array-of-tables",)  # keys below it are not reported
                    i = n if end < 0 else end + 2
                    continue
                m = _DOTTED.match(text, i + 1)
                if m and text.startswith("]", m.end()):
                    table = _split(m.group(1))
                    positions.setdefault(table, pos(i))
                    i = m.end() + 1
                    continue
            m = _DOTTED.match(text, i)
            if m and text.startswith("=", m.end()):
                path = table + _split(m.group(1))
                if "\0array-of-tables" not in table:
                    positions.setdefault(path, pos(i))
                i = m.end() + 1
                i = _value(text, i, path, positions, stack, pos)
                continue
        if stack and stack[-1][0] == "{" and stack[-1][1] is not None and stack[-1][2] == 0:
            m = _DOTTED.match(text, i)
            if m and text.startswith("=", m.end()):
                path = (*stack[-1][1], *_split(m.group(1)))
                positions.setdefault(path, pos(i))
                stack[-1][2] = 1
                i = _value(text, m.end() + 1, path, positions, stack, pos)
                continue
        if c in "\"'":
            if stack and stack[-1][0] == "[" and stack[-1][1] is not None:
                positions.setdefault((*stack[-1][1], stack[-1][2]), pos(i))
            i = skip_string(i)
            continue
        if c in "[{":
            stack.append([c, None, 0])
            i += 1
            continue
        if c in "]}":
            if stack:
                stack.pop()
            i += 1
            continue
        if c == "," and stack and stack[-1][0] == "[":
            stack[-1][2] += 1
        elif c == "," and stack and stack[-1][0] == "{":
            stack[-1][2] = 0
        i += 1
    return positions


def _value(
    text: str,
    i: int,
    path: Path,
    positions: dict[Path, tuple[int, int]],
    stack: list[list[Any]],
    pos: Callable[[int], tuple[int, int]],
) -> int:
    """After `key =`: an array or inline table value opens a bracket whose elements or keys are
    recorded under `path`."""
    n = len(text)
    while i < n and text[i] in " \t":
        i += 1
    if i < n and text[i] in "[{":
        stack.append([text[i], path, 0])
        return i + 1
    return i


__all__ = ["key_positions"]
