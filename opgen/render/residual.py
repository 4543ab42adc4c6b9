"""Formatting only what the shipped templates leave to a formatter: each statement holding a
line `emit.residual_lines` names is formatted alone, at its depth, and spliced back.

Black and ruff lay out each logical line (a simple statement, or a compound statement's
header) from its own tokens and depth alone, and the templates emit the blank lines between
statements as both want them; so a chunk with a few residual lines formats to the chunk with
those statements replaced by their formatted stubs, without sending its whole function (and
docstring) through the formatter. Tests compare the result with black on the whole chunk for
every residual chunk of TF's registry.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

INDENT = "    "


def format_residuals(
    format_many: Callable[[list[str]], list[str]], chunks: list[tuple[str, list[int] | None]]
) -> list[str]:
    """Each (text, residual lines) chunk as the formatter lays it out (lines None: the whole
    chunk goes through `format_many`); one `format_many` call for every piece of every chunk."""
    pieces: list[str] = []
    plans: list[tuple[str, list[_Span] | None, int]] = []  # text, its spans (None: whole), first piece
    for text, lines in chunks:
        spans = _spans(text, lines) if lines is not None else None
        plans.append((text, spans, len(pieces)))
        if spans is None:
            pieces.append(text)
        else:
            source = text.split("\n")
            pieces.extend(span.stub(source) for span in spans)
    formatted = format_many(pieces)
    out: list[str] = []
    retry: list[int] = []
    for text, spans, first in plans:
        if spans is None:
            out.append(formatted[first])
            continue
        source = text.split("\n")
        for i in reversed(range(len(spans))):  # bottom-up: earlier line numbers stay valid
            replacement = spans[i].unstub(formatted[first + i])
            if replacement is None:
                break
            source[spans[i].start - 1 : spans[i].end] = replacement
        else:
            out.append("\n".join(source))
            continue
        retry.append(len(out))  # the formatter moved a stub's frame: format the whole chunk
        out.append(text)
    if retry:
        for i, text in zip(retry, format_many([out[i] for i in retry])):
            out[i] = text
    return out


class _Span:
    """Lines `start`..`end` (from 1) of a chunk: a simple statement, or a compound statement's
    header (`compound`), at `depth` indentation levels."""

    def __init__(self, start: int, end: int, depth: int, compound: bool):
        self.start, self.end, self.depth, self.compound = start, end, depth, compound

    def stub(self, source: list[str]) -> str:
        """The statement alone at its depth: under `if _:` frames, a header with a `pass` body."""
        frames = "".join(f"{INDENT * k}if _:\n" for k in range(self.depth))
        body = f"{INDENT * (self.depth + 1)}pass\n" if self.compound else ""
        return frames + "\n".join(source[self.start - 1 : self.end]) + "\n" + body

    def unstub(self, formatted: str) -> list[str] | None:
        """The statement's formatted lines, None unless the frames came back as they were."""
        lines = formatted.removesuffix("\n").split("\n")
        if lines[: self.depth] != [f"{INDENT * k}if _:" for k in range(self.depth)]:
            return None
        lines = lines[self.depth :]
        if self.compound:
            if lines[-1:] != [f"{INDENT * (self.depth + 1)}pass"]:
                return None
            lines = lines[:-1]
        return lines or None


def _spans(text: str, lines: list[int]) -> list[_Span] | None:
    """The statements holding `lines`, in order; None when one is not a plain statement or
    header of the chunk (the whole chunk then goes through the formatter)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    wanted = set(lines)
    source = text.split("\n")
    spans: dict[int, _Span] = {}
    # Statements nest only in statement lists; a statement holds no wanted line unless its
    # lines do, so only those lists are walked (a chunk's few residual lines sit in a
    # function of dozens of statements and thousands of expression nodes). In source order,
    # as `ast.walk` went: of two statements starting on one line (`a; b`), the last one counts.
    pending: list[ast.stmt] = tree.body[::-1]
    while pending:
        node = pending.pop()
        end = node.end_lineno or node.lineno
        if not any(node.lineno <= n <= end for n in wanted):
            continue
        children: list[ast.stmt] = []
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, ()):
                children.extend(child.body if isinstance(child, (ast.ExceptHandler, ast.match_case)) else (child,))
        pending.extend(reversed(children))
        if node.col_offset % len(INDENT):
            continue
        depth = node.col_offset // len(INDENT)
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            span = _Span(node.lineno, end, depth, False)
        elif _framed_header(node, depth, source[node.lineno - 1]):
            span = _Span(node.lineno, body[0].lineno - 1, depth, True)
        else:
            continue  # its lines stay uncovered: the whole chunk is formatted
        if any(span.start <= n <= span.end for n in wanted):
            spans[span.start] = span
    covered = {n for span in spans.values() for n in range(span.start, span.end + 1)}
    if not wanted <= covered:
        return None
    return [spans[start] for start in sorted(spans)]


def _framed_header(node: ast.stmt, depth: int, first_line: str) -> bool:
    """A header formatted alone as black formats it in its chunk: a top-level `def` (a nested
    one's blank lines depend on what precedes it; a decorated one's follow its decorators, which
    stay as they are) or an `if` (not `elif`)."""
    if isinstance(node, ast.FunctionDef):
        ok = depth == 0
    elif isinstance(node, ast.If):
        ok = first_line.lstrip().startswith("if ")
    else:
        return False
    return ok and node.body[0].lineno > node.lineno
