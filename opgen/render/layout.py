"""Black's layout of a bracketed Python expression, for code opgen writes without the formatter.

Its own module, below every stage that writes Python: the renderer's templates and the shape
function translator (which gathering runs) lay out their code with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

LINE_LENGTH = 88  # black's default


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs a call per field
class Bracketed:
    """`prefix` + items joined by ", " + `suffix`: a call, def, list or subscript whose items
    are atoms (str) or further `Bracketed` expressions, for `layout`."""

    prefix: str  # up to and including the opening bracket
    items: tuple[Bracketed | str, ...]
    suffix: str  # the closing bracket and whatever follows it on the line
    is_def: bool = False  # a `def`: a lone parameter split onto its own line gets a comma too
    separator: str = ", "  # " " between a comprehension's element and its `for` clause
    # A list or tuple display: once split, black puts each of several items on its own line
    # even when they would fit on one (`linegen._should_split_line`).
    collection: bool = False

    flat: str | None = field(default=None, init=False, repr=False, compare=False)  # __str__, once

    def __str__(self) -> str:
        if self.flat is None:  # `layout` asks each level for it, and a level's own text holds its items'
            self.flat = self.prefix + self.separator.join(map(str, self.items)) + self.suffix
        return self.flat


def layout(node: Bracketed | str, indent: str, trailer: str = "") -> str:
    """`node` + `trailer` laid out as black lays out a bracketed expression of atoms.

    One line when it fits; else the items on one indented line (a single item always,
    split further if it is bracketed; never several items of a collection); else one item
    per line with a magic trailing comma.
    `indent` is the line's indentation (the first line's is supplied by the caller). Lines
    black would lay out otherwise are too long, and `residual_lines` sends them to the formatter.
    """
    if isinstance(node, str):
        return node + trailer
    items = node.items
    if all(type(item) is str for item in items):
        return layout_atoms(node.prefix, items, node.suffix + trailer, indent, node.is_def, node.separator,  # type: ignore[arg-type]
                            node.collection)
    flat = str(node) + trailer
    if len(indent) + len(flat) <= LINE_LENGTH:
        return flat
    inner = indent + "    " if node.prefix else indent  # a comprehension's clauses stay at `indent`
    if len(items) == 1:
        body = layout(items[0], inner, "," if node.is_def else "")
    else:
        body = node.separator.join(map(str, items))
        if len(inner) + len(body) > LINE_LENGTH or node.collection:
            comma = "," if node.separator == ", " else ""
            body = f"\n{inner}".join(layout(item, inner, comma) for item in items)
    if not node.prefix:  # a comprehension's clauses, split by the enclosing brackets
        return body
    return f"{node.prefix}\n{inner}{body}\n{indent}{node.suffix}{trailer}"


def layout_atoms(prefix: str, items: tuple[str, ...] | list[str], suffix: str, indent: str, is_def: bool = False,
                 separator: str = ", ", collection: bool = False) -> str:
    """`layout` of a `Bracketed` whose items are all atoms (most of a chunk's calls), without
    building it; `suffix` includes the trailer."""
    body = separator.join(items)
    flat = prefix + body + suffix
    if len(indent) + len(flat) <= LINE_LENGTH:
        return flat
    inner = indent + "    " if prefix else indent
    if len(items) == 1:
        if is_def:
            body += ","
    elif not items:
        body = ""
    elif len(inner) + len(body) > LINE_LENGTH or collection:
        comma = "," if separator == ", " else ""
        body = f"{comma}\n{inner}".join(items) + comma
    if not prefix:
        return body
    return f"{prefix}\n{inner}{body}\n{indent}{suffix}"
