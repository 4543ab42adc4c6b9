"""Where the fields of a text-format protobuf file are written (protobuf's Python parser keeps
no positions): its tokens, and the tree of its fields, each at its line and column.

Two readers locate fields with it: override files (`opgen.overrides.files`: an error names
the field it is about) and text OpLists (`opgen.spec.oplist_parts`: `opgen diff` names the
field of an op that changed). `scan` reads text that parsed already (it checks nothing);
`tokens` also splits text that does not, for the override reader's recovery.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from google.protobuf import text_encoding

from opgen.errors import Location

__all__ = ["Node", "scan", "tokens"]

_TOKEN = re.compile(
    r"""(?P<ws>\s+|\#[^\n]*)
      | (?P<str>"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)
      | (?P<punct>[{}<>\[\]:,;])
      | (?P<word>[^\s{}<>\[\]:,;"'\#]+)""",
    re.VERBOSE,
)  # a string may lack its closing quote (a parse error, when recovering: one token)

Token = tuple[str, int, int]  # kind (the punctuation itself, "str" or "word"), start, end


def tokens(text: str) -> list[Token]:
    """(kind, start, end) of each token of `text`, whitespace and `#` comments left out;
    kind is the punctuation itself (`{`, `:`, ...), "str" or "word" (a name, number or enum)."""
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or ""
        if kind != "ws":
            out.append((m.group() if kind == "punct" else kind, m.start(), m.end()))
    return out


@dataclass(slots=True)
class Node:
    """A field occurrence in a text-format file: where it stands, and its sub-fields (a
    message) or its value (a scalar: a string's text, its pieces joined and its escapes
    resolved; any other value as written, e.g. `true`, `DT_FLOAT`, `-1`).

    A field is located at its name; an element of a `field: [a, b]` list at the element
    itself (its value, or the `{` of a message), so each element of a repeated field written
    as a list has a place of its own."""

    name: str
    loc: Location
    children: list[Node] = field(default_factory=list)
    value: str | None = None  # None for a message
    # children by name, built on first use (for the children it was built from): a file of
    # 20,000 entries asks for each one by its index
    _by_name: dict[str, list[Node]] | None = field(default=None, repr=False, compare=False)
    _indexed: int = field(default=-1, repr=False, compare=False)

    def all(self, name: str) -> list[Node]:
        if self._by_name is None or self._indexed != len(self.children):
            self._by_name = {}
            for child in self.children:
                self._by_name.setdefault(child.name, []).append(child)
            self._indexed = len(self.children)
        return self._by_name.get(name, [])

    def nth(self, name: str, index: int) -> Node:
        """The `index`-th occurrence of field `name` (a repeated field's element `index`)."""
        found = self.all(name)
        return found[index] if index < len(found) else (found[-1] if found else self)

    def first(self, name: str) -> Node:
        return self.nth(name, 0)

    def first_scalar(self) -> Node | None:
        """The first scalar field written in this message, at any depth (None: it has none)."""
        for child in self.children:
            found = child if child.value is not None else child.first_scalar()
            if found is not None:
                return found
        return None


def scan(text: str, path: str, line_map: Sequence[int] | None = None) -> Node:
    """The fields of `text`, text-format protobuf that parsed, as the children of a root
    Node at 1:1; `line_map`: the line in the file `path` of each line of `text`, where the
    text read is not the file's own (default: the same)."""
    return Node("", Location(path, 1, 1), _Scan(text, path, line_map).fields(None))


class _Scan:
    """One scan: the tokens, the next one's index, and the line of the last one located."""

    def __init__(self, text: str, path: str, line_map: Sequence[int] | None):
        self.text, self.path, self.line_map = text, path, line_map
        self.tokens = tokens(text)
        self.pos = 0
        self.line, self.line_start, self.counted = 1, 0, 0  # line of offset `counted` (and its start)

    def location(self, offset: int) -> Location:
        """Where `offset` stands; offsets are asked in increasing order."""
        newlines = self.text.count("\n", self.counted, offset)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rfind("\n", self.counted, offset) + 1
        self.counted = offset
        line = self.line_map[self.line - 1] if self.line_map is not None else self.line
        return Location(self.path, line, offset - self.line_start + 1)

    def fields(self, close: str | None) -> list[Node]:
        """The fields up to the token `close` (None: the end of the text), which is consumed."""
        toks, text = self.tokens, self.text
        nodes: list[Node] = []
        while self.pos < len(toks) and toks[self.pos][0] != close:
            _, start, end = toks[self.pos]
            name, loc = text[start:end], self.location(start)
            self.pos += 1
            if toks[self.pos][0] == ":":
                self.pos += 1
            if toks[self.pos][0] == "[":
                self.pos += 1
                while toks[self.pos][0] != "]":
                    nodes.append(self.value(name, self.location(toks[self.pos][1])))
                    if toks[self.pos][0] == ",":
                        self.pos += 1
                self.pos += 1
            else:
                nodes.append(self.value(name, loc))
            if self.pos < len(toks) and toks[self.pos][0] in (",", ";"):
                self.pos += 1
        self.pos += 1
        return nodes

    def value(self, name: str, loc: Location) -> Node:
        """The field `name` at `loc` whose value starts at the current token."""
        toks, text = self.tokens, self.text
        kind, start, end = toks[self.pos]
        self.pos += 1
        if kind in ("{", "<"):
            return Node(name, loc, self.fields("}" if kind == "{" else ">"))
        if kind != "str":  # a word; `-` and the number after it when they stand apart
            if text[start:end] == "-":
                end = toks[self.pos][2]
                self.pos += 1
            return Node(name, loc, value=text[start:end])
        pieces = [text[start + 1:end - 1]]
        while self.pos < len(toks) and toks[self.pos][0] == "str":
            _, start, end = toks[self.pos]
            pieces.append(text[start + 1:end - 1])
            self.pos += 1
        value = "".join(pieces)
        if "\\" in value:
            value = b"".join(text_encoding.CUnescape(piece) for piece in pieces).decode("utf-8", "replace")
        return Node(name, loc, value=value)
