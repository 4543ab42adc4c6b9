"""The named constants of a translation unit that a shape function may read: enumerators
(`enum SpatialDims { k2SpatialDims = 2, k3SpatialDims = 3 };`, at namespace or class scope) and
`const`/`constexpr` variables at namespace scope (`constexpr int kRank = 2;`; other variables
too, which the translator refuses), by their names qualified with the namespaces (and classes,
enums of `enum class`) they stand in. What a name
written in a shape function or a template argument means is looked up as C++ looks it up from
where it is written (`cpp_namespaces.lookup`). Only where each is declared is found here; the
translator (`parser.py`) reads their types and values with its own expression rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from opgen.spec.cpp_lexer import KIND, TEXT, Token
from opgen.spec.cpp_namespaces import Namespaces, scope_opened


class Declared(NamedTuple):
    """A constant's declaration: the token index of its name, of its type's tokens (None for an
    enumerator, whose type is its enum's) and of its initializer's (None for an enumerator
    without one: its value is its predecessor's plus 1, or 0 for the first, `previous` None)."""

    name: int
    type: tuple[int, int] | None
    value: tuple[int, int] | None
    previous: str | None = None


class UnitConstants:
    """The constants (`declared`) and enum types (`enums`) of one token list, by qualified name,
    found in one pass; the values the translator computed from them are kept in `values`."""

    def __init__(self, tokens: Sequence[Token]):
        self.tokens = tokens
        self.namespaces = Namespaces(tokens)
        self.declared: dict[str, Declared] = {}
        self.enums: set[str] = set()
        self.values: dict[str, object] = {}  # the translator's, by qualified name (`parser._constant`)
        self.reading: set[str] = set()  # the ones whose values are being computed (a cycle is refused)
        self._scan()

    def find(self, written: str, at: int) -> str | None:
        """The qualified name of the constant `written` (`kRank`, `a::kRank`, `SpatialDims::k2`)
        means at token `at`; None when it names none of the unit's. A name written without a
        qualifier is looked up in the namespaces enclosing `at` (and what their using-directives
        bring in) only: one of another namespace would be a different entity C++ sees there,
        such as a variable opgen does not read. AmbiguousName when several fit."""
        qualified = "::" in written.lstrip(":")
        return self.namespaces.lookup(written, at, self.declared, by_last_names=qualified)

    def find_enum(self, written: str, at: int) -> str | None:
        """The qualified name of the enum type `written` means at `at`, as `find` looks it up."""
        return self.namespaces.lookup(written, at, self.enums, by_last_names="::" in written.lstrip(":"))

    def _scan(self) -> None:
        toks = self.tokens
        # per open brace: ("namespace" | "class" | "code", its name: a namespace's or a class's, or "")
        scopes: list[tuple[str, str]] = []
        statement = 0  # where the statement at the cursor starts
        i = 0
        while i < len(toks):
            t = toks[i]
            text = t[TEXT]
            if text == "enum" and t[KIND] == "id" and all(kind != "code" for kind, _ in scopes):
                i = self._enum(i, self._path(scopes))
                if toks[i - 1][TEXT] == "}":  # (its body read: `enum E e;` declares a variable)
                    statement = i
                continue
            if t[KIND] == "op":
                if text == "{":
                    scopes.append(_brace(toks, statement, i))
                    statement = i + 1
                elif text in ("}", ";"):
                    if text == "}" and scopes:
                        scopes.pop()
                    statement = i + 1
                elif text == "=" and all(kind == "namespace" for kind, _ in scopes):
                    self._constant(statement, i, self._path(scopes))
            i += 1

    @staticmethod
    def _path(scopes: list[tuple[str, str]]) -> tuple[str, ...]:
        return tuple(part for kind, name in scopes if name for part in name.split("::"))

    def _constant(self, start: int, eq: int, path: tuple[str, ...]) -> None:
        """Records `[static|inline] [const[expr]] TYPE NAME = VALUE;` whose `=` is at `eq` (a
        variable that is not const too: the translator refuses it by name, where a name looked
        up past it could mean another namespace's constant)."""
        toks = self.tokens
        head = [t[TEXT] for t in toks[start:eq]]
        if len(head) < 2 or toks[eq - 1][KIND] != "id" \
                or {"(", ")", "<", ">", "[", "]", "*", "&", "template", "typedef", "using"} & set(head):
            return
        end = eq + 1
        depth = 0
        while end < len(toks) and not (toks[end][TEXT] in (";", ",") and depth == 0):
            depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(toks[end][TEXT], 0)
            if depth < 0:
                return
            end += 1
        if end >= len(toks) or toks[end][TEXT] != ";":  # (`int a = 1, b = 2;`: not read)
            return
        type_start = start
        while toks[type_start][TEXT] in ("static", "inline", "extern"):
            type_start += 1
        name = "::".join((*path, toks[eq - 1][TEXT]))
        self.declared.setdefault(name, Declared(eq - 1, (type_start, eq - 1), (eq + 1, end)))

    def _enum(self, i: int, path: tuple[str, ...]) -> int:
        """Records the enumerators of the enum declared at `enum` (tokens[i]); the index after it."""
        toks = self.tokens
        j = i + 1
        scoped = j < len(toks) and toks[j][TEXT] in ("class", "struct")
        j += scoped
        name = ""
        if j < len(toks) and toks[j][KIND] == "id":
            name = toks[j][TEXT]
            j += 1
        if j < len(toks) and toks[j][TEXT] == ":":  # its underlying type
            while j < len(toks) and toks[j][TEXT] not in ("{", ";", "}"):
                j += 1
        if j >= len(toks) or toks[j][TEXT] != "{":  # a declaration only, or `enum E e;`
            return j
        close = j
        depth = 0
        while close < len(toks):
            depth += {"{": 1, "}": -1}.get(toks[close][TEXT], 0) if toks[close][KIND] == "op" else 0
            if depth == 0:
                break
            close += 1
        if close >= len(toks):  # (unbalanced: the unit is an error anyway)
            return close
        if name:
            self.enums.add("::".join((*path, name)))
        prefixes = [(*path, name)] if scoped else [path, *([(*path, name)] if name else [])]
        previous: str | None = None
        j += 1
        while j < close and toks[j][KIND] == "id":  # (an attribute: the rest is not read)
            at = j
            value = None
            j += 1
            if toks[j][TEXT] == "=":
                start = j + 1
                depth = 0
                while j + 1 < close and not (toks[j + 1][TEXT] == "," and depth == 0):
                    j += 1
                    depth += {"(": 1, ")": -1}.get(toks[j][TEXT], 0)
                j += 1
                value = (start, j)
            qualified = ["::".join((*prefix, toks[at][TEXT])) for prefix in prefixes]
            for q in qualified:
                self.declared.setdefault(q, Declared(at, None, value, None if value else previous))
            previous = qualified[0]
            if toks[j][TEXT] != ",":
                break
            j += 1
        return close + 1


def _brace(toks: Sequence[Token], start: int, brace: int) -> tuple[str, str]:
    """What the `{` at `brace` opens, from its statement's tokens since `start`: a namespace
    (or an `extern "C"` block: the same scope) with its name, a class with its name, or code."""
    name = scope_opened(toks, brace)
    if name is not None:
        return "namespace", name
    head = toks[start:brace]
    texts = [t[TEXT] for t in head]
    keys = [k for k, text in enumerate(texts) if text in ("class", "struct", "union")]
    if keys and "(" not in texts and "=" not in texts:
        after = head[keys[-1] + 1] if keys[-1] + 1 < len(head) else None
        return "class", after[TEXT] if after is not None and after[KIND] == "id" else ""
    return "code", ""


_units: list[UnitConstants] = []  # the last token list's


def unit_constants(tokens: Sequence[Token]) -> UnitConstants:
    """The constants of the token list, scanned at its first question and kept for the next
    (gathering translates a unit's shape functions one after another)."""
    if not _units or _units[0].tokens is not tokens:
        _units[:] = [UnitConstants(tokens)]
    return _units[0]
