"""The named constants of a translation unit that a shape function may read: enumerators
(`enum SpatialDims { k2SpatialDims = 2, k3SpatialDims = 3 };`, at namespace or class scope) and
`const`/`constexpr` variables at namespace scope (`constexpr int kRank = 2;`; other variables
too, which the translator refuses), by their names qualified with the namespaces (and classes,
enums of `enum class`) they stand in. What a name
written in a shape function or a template argument means is looked up as C++ looks it up from
where it is written (`cpp_namespaces.lookup`). Only where each is declared is found here, from
where the unit's `Namespaces` says each token stands (`Namespaces.scope`: its one walk over the
unit's braces); the translator (`parser.py`) reads their types and values with its own
expression rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from opgen.spec.cpp_lexer import KIND, TEXT, Token
from opgen.spec.cpp_namespaces import Namespaces


class Declared(NamedTuple):
    """A constant's declaration: the token index of its name, of its type's tokens (None for an
    enumerator, whose type is its enum's) and of its initializer's (None for an enumerator
    without one: its value is its predecessor's plus 1, or 0 for the first, `previous` None)."""

    name: int
    type: tuple[int, int] | None
    value: tuple[int, int] | None
    previous: str | None = None


class UnitConstants:
    """The constants (`declared`) and enum types (`enums`) of one translation unit, by qualified
    name, found in one pass at the first question, where the unit's `Namespaces` (shared with
    gathering's readers: one walk over its braces) says each token stands; the values the
    translator computed from them are kept in `values`."""

    def __init__(self, namespaces: Namespaces):
        self.tokens = namespaces.tokens
        self.namespaces = namespaces
        self.declared: dict[str, Declared] = {}
        self.enums: set[str] = set()
        self.values: dict[str, object] = {}  # the translator's, by qualified name (`parser._constant`)
        self.reading: set[str] = set()  # the ones whose values are being computed (a cycle is refused)
        self._scanned = False

    def find(self, written: str, at: int) -> str | None:
        """The qualified name of the constant `written` (`kRank`, `a::kRank`, `SpatialDims::k2`)
        means at token `at`; None when it names none of the unit's. A name written without a
        qualifier is looked up in the namespaces enclosing `at` (and what their using-directives
        bring in) only: one of another namespace would be a different entity C++ sees there,
        such as a variable opgen does not read. AmbiguousName when several fit."""
        self._scan()
        qualified = "::" in written.lstrip(":")
        return self.namespaces.lookup(written, at, self.declared, by_last_names=qualified)

    def find_enum(self, written: str, at: int) -> str | None:
        """The qualified name of the enum type `written` means at `at`, as `find` looks it up."""
        self._scan()
        return self.namespaces.lookup(written, at, self.enums, by_last_names="::" in written.lstrip(":"))

    def _scan(self) -> None:
        if self._scanned:
            return
        self._scanned = True
        toks = self.tokens
        statement = 0  # where the statement at the cursor starts
        i = 0
        while i < len(toks):
            t = toks[i]
            text = t[TEXT]
            if text == "enum" and t[KIND] == "id":
                scope = self.namespaces.scope(i)
                if scope.kind != "code":
                    i = self._enum(i, (*scope.namespace, *scope.classes))
                    if toks[i - 1][TEXT] == "}":  # (its body read: `enum E e;` declares a variable)
                        statement = i
                    continue
            if t[KIND] == "op":
                if text in ("{", "}", ";"):
                    statement = i + 1
                elif text == "=":
                    scope = self.namespaces.scope(i)
                    if scope.kind == "namespace":
                        self._constant(statement, i, scope.namespace)
            i += 1

    def _constant(self, start: int, eq: int, path: tuple[str, ...]) -> None:
        """Records `[static|inline] [const[expr]] TYPE NAME = VALUE;` whose `=` is at `eq` (a
        variable that is not const too: the translator refuses it by name, where a name looked
        up past it could mean another namespace's constant)."""
        toks = self.tokens
        head = [t[TEXT] for t in toks[start:eq]]
        if len(head) < 2 or toks[eq - 1][KIND] != "id" \
                or {"(", ")", "<", ">", "[", "]", "*", "&", "template", "typedef", "using"} & set(head):
            return
        end = initializer_end(toks, eq + 1, len(toks))
        if end >= len(toks) or toks[end][TEXT] != ";":  # (`int a = 1, b = 2;`, or a stray closer: not read)
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


_units: list[UnitConstants] = []  # the last unit's


def initializer_end(toks: Sequence[Token], start: int, end: int) -> int:
    """Where the initializer at toks[start] ends, before `end`: its `,` or `;` outside brackets,
    or the closer of a bracket opened before it (`end` when neither comes)."""
    depth = 0
    for j in range(start, end):
        text = toks[j][TEXT]
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            if depth == 0:
                return j
            depth -= 1
        elif text in (",", ";") and depth == 0:
            return j
    return end


def unit_constants(namespaces: Namespaces) -> UnitConstants:
    """The constants of the unit whose `Namespaces` is given, kept for the next question
    (gathering translates a unit's shape functions one after another, each with its own entry
    into the translator, and their values are computed once)."""
    if not _units or _units[0].namespaces is not namespaces:
        _units[:] = [UnitConstants(namespaces)]
    return _units[0]
