"""The C++ namespaces of a translation unit's tokens, and name lookup in them: what
`a::kT` or `kT` means where it is written, among the names the unit defines in its namespaces
(string constants, functions returning a literal; `chains.ChainReader`), and the namespace
each shape function is defined in (`gather.shape_fn_definitions`); with them, the calls at
file scope (the file-scope checks of `chains` and `shim`) and the class and function bodies
tokens stand in (the constants a shape function may read, `shape_translate.constants`)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Sequence
from typing import NamedTuple

from opgen.spec.cpp_lexer import KIND, TEXT, Token


class Scope(NamedTuple):
    """Where a token stands (`Namespaces.scope`): its namespace (`Namespaces.at`), the named
    classes it is in within that namespace, outermost first, and what it stands in:
    "namespace" at namespace scope, "class" in a class body, "code" in a function or
    initializer body (whatever it is nested in there)."""

    namespace: tuple[str, ...]
    classes: tuple[str, ...]
    kind: str


class Namespaces:
    """The namespace each token stands in (`("tensorflow", "mine")`): named namespaces only, an
    anonymous one being its enclosing namespace to lookup, and a class or function body its
    enclosing namespace too (its members are found by their last name, `lookup`); the classes
    and function bodies it stands in (`scope`); and the calls at file scope
    (`file_scope_calls`). One pass over the tokens, at the first question, then a bisection
    per question. One per translation unit, shared by the readers of its chains, kernels and
    shape functions (and the constants they read) and by the file-scope checks."""

    def __init__(self, tokens: Sequence[Token]):
        self.tokens = tokens
        self._starts: list[int] = []  # the token index each scope below starts at (empty: not walked yet)
        self._scopes: list[Scope] = []
        # `using namespace N;` and `using N::name;`: (its index, the namespace it stands in,
        # `N::` for a directive or `N::name` for a declaration, as written)
        self._usings: list[tuple[int, tuple[str, ...], str]] = []
        self._calls: list[tuple[int, bool]] = []

    def _walk(self) -> None:
        # One walk for the namespaces, the class and function bodies and the file-scope calls,
        # so that all see the same braces open the same scopes (`scope_opened`), and a unit's
        # braces are walked once: the file-scope checks ask in every unit. A brace in code
        # opens code: only one outside code has its statement read (`_class_opened`).
        tokens = self.tokens
        n = len(tokens)
        starts, scopes, usings, calls = self._starts, self._scopes, self._usings, self._calls
        starts.append(0)
        scopes.append(Scope((), (), "namespace"))
        # per open brace: "namespace" a named namespace, "" another namespace scope (anonymous,
        # `extern "C"`), "class" a class body, "code" any other
        opened: list[str] = []
        namespace: list[str] = []
        classes: list[str] = []  # the class bodies open outside code, by name ("" unnamed)
        code = 0  # open braces of or in code: a call there is not at file scope, nor in a class
        statement_start = 0  # index of the first token of the current statement or declaration
        for i, t in enumerate(tokens):
            kind = t[KIND]
            if kind == "id":
                if t[TEXT] == "using":
                    used = _used(tokens, i)
                    if used:
                        usings.append((i, tuple(namespace), used))
                elif (not classes and not code and i + 1 < n and tokens[i + 1][TEXT] == "("
                      and (i == 0 or tokens[i - 1][TEXT] not in _MEMBER_ACCESS)):
                    calls.append((i, i == statement_start))
                continue
            if kind != "op":
                continue
            text = t[TEXT]
            if text == "{":
                name = scope_opened(tokens, i)
                if name:
                    namespace.append(name)
                    opened.append("namespace")
                elif name is not None:
                    opened.append("")
                elif code:  # (a block in code: still code, and where the tokens stand is unchanged)
                    code += 1
                    opened.append("code")
                    statement_start = i + 1
                    continue
                elif (class_name := _class_opened(tokens, statement_start, i)) is not None:
                    classes.append(class_name)
                    opened.append("class")
                else:
                    code += 1
                    opened.append("code")
                statement_start = i + 1
            elif text == "}":
                statement_start = i + 1
                scope = opened.pop() if opened else ""
                if scope == "namespace":
                    namespace.pop()
                elif scope == "class":
                    classes.pop()
                elif scope == "code":
                    code -= 1
                    if code:
                        continue
                else:
                    continue
            elif text == ";":
                statement_start = i + 1
                continue
            else:
                continue
            now = Scope(tuple(namespace), tuple(c for c in classes if c),
                        "code" if code else "class" if classes else "namespace")
            if now != scopes[-1]:
                starts.append(i + 1)
                scopes.append(now)

    def scope(self, i: int) -> Scope:
        """Where token `i` stands."""
        if not self._starts:
            self._walk()
        return self._scopes[bisect_right(self._starts, i) - 1]

    def at(self, i: int) -> tuple[str, ...]:
        """The namespace token `i` stands in."""
        return self.scope(i).namespace

    def lookup(self, written: str, i: int, defined: Collection[str], by_last_names: bool = True) -> str | None:
        """`lookup` of `written` at token `i`, with the using-directives above it in its scopes."""
        namespace = self.at(i)  # (walks the tokens, `_usings` too, at the first question)
        using = [(scope, used) for at, scope, used in self._usings if at < i and namespace[: len(scope)] == scope]
        return lookup(written, namespace, defined, using, by_last_names)

    def file_scope_calls(self) -> list[tuple[int, bool]]:
        """The indexes of the names called at file scope (in no function, class or initializer
        body; a namespace or `extern "C"` block is still file scope), not as members (`x.f(`,
        `ns::f(` is a member), each with whether it starts its statement or declaration."""
        if not self._starts:
            self._walk()
        return self._calls


_MEMBER_ACCESS = frozenset({".", "->", "::"})


def _used(tokens: Sequence[Token], using: int) -> str | None:
    """`a::b::` of `using namespace a::b;`, `a::name` of `using a::name;`, at `using`; else
    None (`using T = ...;`, `using Base::Base;` in a class reads the same and finds nothing)."""
    directive = using + 1 < len(tokens) and tokens[using + 1][TEXT] == "namespace"
    start = end = using + 1 + directive
    while end < len(tokens) and (tokens[end][KIND] == "id" or tokens[end][TEXT] == "::"):
        end += 1
    if end >= len(tokens) or tokens[end][TEXT] != ";" or end == start:
        return None
    name = "".join(t[TEXT] for t in tokens[start:end]).lstrip(":")
    if directive:
        return name + "::"
    return name if "::" in name else None


def _class_opened(tokens: Sequence[Token], start: int, brace: int) -> str | None:
    """The name of the class whose body the `{` at `brace` opens ("" an unnamed one), from its
    statement's tokens since `start`; None for another brace (a function or initializer body;
    a namespace's is `scope_opened`'s)."""
    key = None  # the last `class`, `struct` or `union`
    for k in range(start, brace):  # (a loop that stops at a function's `(`: this is asked of every body)
        text = tokens[k][TEXT]
        if text in _CLASS_KEYS:
            key = k
        elif text == "(" or text == "=":
            return None
    if key is None:
        return None
    return tokens[key + 1][TEXT] if key + 1 < brace and tokens[key + 1][KIND] == "id" else ""


_CLASS_KEYS = frozenset(("class", "struct", "union"))


def scope_opened(tokens: Sequence[Token], brace: int) -> str | None:
    """The namespace scope a `{` opens: `a::b` of `namespace a::b {` and of `namespace a::inline
    b {`, `a` of `[inline] namespace a {`, "" of `namespace {` and of `extern "C" {` (still the
    enclosing namespace);
    None for a brace that opens anything else (a function, class or initializer body). Read
    back from the brace, so that what comes before the declaration (an undefined macro's call
    with no `;`, `inline`) does not matter."""
    head = brace - 1
    while head >= 0 and (tokens[head][TEXT] == "::"
                         or (tokens[head][KIND] == "id" and tokens[head][TEXT] != "namespace")):
        head -= 1
    if head == brace - 1 and head > 0 and tokens[head][KIND] == "str" and tokens[head - 1][TEXT] == "extern":
        return ""  # a linkage specification's block
    if head < 0 or tokens[head][TEXT] != "namespace":
        return None
    # (`namespace a::inline b {`, C++20: `inline` marks `b` alone)
    return "".join(tk[TEXT] for tk in tokens[head + 1 : brace] if tk[TEXT] != "inline")


class AmbiguousName(Exception):
    """A name that could mean several definitions (`kT` of `a::kT` and `b::kT`, seen from
    neither `a` nor `b`)."""

    def __init__(self, candidates: list[str]):
        super().__init__(", ".join(candidates))
        self.candidates = candidates


def lookup(written: str, namespace: tuple[str, ...], defined: Collection[str],
           using: Sequence[tuple[tuple[str, ...], str]] = (), by_last_names: bool = True) -> str | None:
    """The qualified name in `defined` that `written` (`kT`, `a::kT`, `::a::kT`) means in
    `namespace`, as C++ looks it up: in that namespace, then each enclosing one, each with what
    its `using` (scope, `N::` of a directive or `N::name` of a declaration) brings in (`::`
    first: the global one only). Failing that (a class member `Op::kDoc`: classes are not
    scopes here), the one definition its qualification fits by its last names (unless not
    `by_last_names`); AmbiguousName when several fit, None when none does."""
    if written.startswith("::"):
        return written[2:] if written[2:] in defined else None
    for depth in range(len(namespace), -1, -1):
        scope = namespace[:depth]
        brought = [used + written if used.endswith("::") else used for used_scope, used in using
                   if used_scope == scope and (used.endswith("::") or used.rsplit("::", 1)[-1] == written)]
        found = [c for c in ("::".join((*scope, written)),
                             *(candidate for used in brought for candidate in ("::".join((*scope, used)), used)))
                 if c in defined]
        if len(set(found)) > 1:
            raise AmbiguousName(sorted(set(found)))
        if found:
            return found[0]
    if not by_last_names:
        return None
    last = written.rsplit("::", 1)[-1]
    same = [d for d in defined if d == last or d.endswith("::" + last)]
    fitting = [d for d in same if d == written or d.endswith("::" + written)] or same
    if len(fitting) > 1:
        raise AmbiguousName(sorted(fitting))
    return fitting[0] if fitting else None
