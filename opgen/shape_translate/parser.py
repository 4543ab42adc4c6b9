"""C++ shape function -> typed statements -> Python source, in one recursive-descent pass.

The accepted language is the part of C++ shape functions whose meaning is fixed by TF's
`InferenceContext` (tensorflow/core/framework/shape_inference.h/.cc): locals of a few
types, `TF_RETURN_IF_ERROR` around the context's status methods, `if`/`for`/range-`for`,
`return OkStatus()`-like returns and `return errors::InvalidArgument(...)`. Every
expression is typed (shape, dim, int, bool, str, list of those) so each C++ call picks the
runtime method with TF's semantics for its argument types (`Merge` of shapes or of dims,
`Vector` of a dimension or of a constant, `Rank` giving -1 when unknown). Anything else
raises `Untranslatable` naming the construct: the op keeps unknown shapes, never a guess.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from opgen.errors import Location, OpgenError, did_you_mean, plural, with_article
from opgen.python_api.literals import py_str
from opgen.render.layout import LINE_LENGTH, Bracketed, layout
from opgen.shape_translate.constants import UnitConstants, initializer_end, unit_constants
from opgen.spec.cpp_lexer import (
    BOL,
    END,
    KIND,
    POS,
    SRC,
    TEXT,
    Token,
    decode_escapes,
    parse_int_literal,
)
from opgen.spec.cpp_namespaces import AmbiguousName, Namespaces
from opgen_runtime.proto.datatypes import BY_ENUM


@dataclass(frozen=True)
class Translation:
    """`lines`: the Python function body (4-space indented), or None with `problem` (a
    located `shape function not translated: <construct>` message) and maybe a `hint` (how to
    fix a mistake in the C++, when the construct is one)."""

    lines: tuple[str, ...] | None
    problem: str | None = None
    location: Location | None = None
    hint: str | None = None
    # The constant indices it reads inputs, sets or reads outputs at: ("reads input",
    # "sets output" or "reads output"; the index; where), for a check against the op's arguments.
    indices: tuple[tuple[str, int, Location], ...] = ()
    attrs: tuple[tuple[str, Location], ...] = ()  # the attrs it reads by a literal name, and where


class Untranslatable(Exception):
    """`construct` at `tok` (right after it with `after`: where a missing token belongs)."""

    def __init__(self, construct: str, tok: Token | None, hint: str | None = None, after: bool = False):
        super().__init__(construct)
        self.construct = construct
        self.tok = tok
        self.hint = hint
        self.after = after


@dataclass(frozen=True)
class Expr:
    """A typed Python expression; `prec` is its Python precedence (higher binds tighter);
    `call` = (prefix, args) when it is a call (or a list display: prefix `[`), so a long
    statement can be wrapped as black would."""

    code: str
    type: str  # shape | dim | int | bool | str | float | dtype | attrshape | tensor | list_<one of those>,
    # or double: a floating literal without `f` (a C++ double; no variable has that type)
    prec: int = 20
    call: tuple[str, tuple[Expr | str, ...]] | None = None
    ternary: tuple[str, str, str] | None = None  # `a if cond else b`: (a, "if cond", "else b")
    # An `and`/`or` chain's operands outside parentheses, each after the first led by its
    # operator (`a`, `and b`, `or c`): black splits a long one before each of them.
    logic: tuple[str, ...] | None = None
    # A C++ size_t (a container's `size()`, or arithmetic with one), kept as its signed value:
    # the same bits once converted back to an int64 argument; a comparison wraps it.
    unsigned: bool = False
    # An int C++ holds in 32 bits (a literal, an int32 local, `Rank`, ...): stored into an int32
    # it needs no wrap; any other int does (`c.as_int32`, C++'s narrowing conversion).
    narrow: bool = False


def _call(prefix: str, args: Sequence[Expr | str], type_: str) -> Expr:
    codes = tuple(a.code if isinstance(a, Expr) else a for a in args)
    return Expr(f"{prefix}{', '.join(codes)})", type_, 20, (prefix, tuple(args)))


def _as_size_t(e: Expr) -> Expr:
    """`e` as C++ converts it to size_t for a comparison; a `size()` itself (a whole `len(...)`),
    or a literal that is not negative, is unchanged."""
    if e.code.isdigit() or (e.prec == 20 and e.code.startswith("len(")):
        return e
    if e.call is not None and e.call[0] == "c.as_int64(":  # wrapping into int64's range first changes nothing
        e = e.call[1][0]  # type: ignore[assignment]  # (an Expr: _as_int64 makes it)
    return _call("c.as_size_t(", [e], "int")


def _as_int32(e: Expr) -> Expr:
    """`e` converted to a C++ int32 (its low 32 bits, signed); unchanged when it fits already."""
    if e.type != "int" or e.narrow:
        return e
    return dataclasses.replace(_call("c.as_int32(", [e], "int"), narrow=True)


def _int_keywords(p: _Parser) -> tuple[str, str]:
    """`unsigned long long`, `long int`, `signed char`, ... at the cursor (consumed), as the one
    name of `_INT_TYPES` or `_NARROW_UNSIGNED_TYPES` of its type (LP64 sizes), and the C++ type
    itself (`long long`: a type other than `long`, of the same size)."""
    words = []
    while p.text() in _INT_KEYWORDS:
        words.append(p.next()[TEXT])
    size = [w for w in words if w not in ("unsigned", "signed", "int")]
    exact = ("unsigned " if "unsigned" in words else "") + (" ".join(size) or "int")
    # (`short` and `char` stay names no local type has: their narrowing is not modelled)
    base = {(): "int", ("long",): "long", ("long", "long"): "long"}.get(tuple(size), " ".join(size))
    if "unsigned" not in words:
        return base, exact
    return {"int": "unsigned", "long": "unsigned long"}.get(base, "unsigned " + base), exact


def _as_int64(e: Expr) -> Expr:
    """A 64-bit unsigned `e` whose value may have left int64's range, wrapped back into it
    (the value with the same low 64 bits: C++'s unsigned arithmetic is modulo 2**64)."""
    return dataclasses.replace(_call("c.as_int64(", [e], "int"), unsigned=True)


def _owned(e: Expr) -> Expr:
    """`e` as C++ copies it into a vector variable or a by-value parameter: a list of its own
    (`list(v_a)`) unless it is one already (a call's result, a display); a name's list itself
    would change with writes to the copy, and the copy with writes to the original."""
    if not e.type.startswith("list_") or e.call is not None:
        return e
    return _call("list(", [e], e.type)


def _list_display(items: Sequence[Expr], type_: str) -> Expr:
    """`[a, b]`, laid out like a call (`Expr.call` with the prefix `[`)."""
    return Expr(f"[{', '.join(e.code for e in items)}]", type_, 20, ("[", tuple(items)))


def _bracketed(e: Expr | str) -> Bracketed | str:
    """The call as the renderer's `Bracketed` tree (nested calls too), for black's layout."""
    if isinstance(e, str):
        return e
    if e.call is None:
        return e.code
    return _bracketed_call(*e.call)


def _bracketed_call(prefix: str, args: tuple[Expr | str, ...]) -> Bracketed:
    """An `Expr.call` as its `Bracketed` tree (typed apart from `_bracketed`: a call's tree is never a
    str); a list display (`_list_display`) is split as black splits a collection."""
    if prefix == "[":
        return Bracketed(prefix, tuple(_bracketed(a) for a in args), "]", collection=True)
    return Bracketed(prefix, tuple(_bracketed(a) for a in args), ")")


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FLOAT_LITERAL = re.compile(r"-?[0-9.e+-]+\Z")
# The 64-bit unsigned types (LP64: `unsigned long` is 64 bits). A value of one is held as the
# int64 with its bits (`size()` - 1 of an empty vector is -1), which is what converting it back
# to a signed type gives; a comparison converts both sides to size_t (`c.as_size_t`), and
# arithmetic whose result may leave int64's range wraps back into it (`c.as_int64`): C++'s
# unsigned arithmetic is modulo 2**64.
_UNSIGNED_TYPES = frozenset(("size_t", "uint64", "uint64_t", "unsigned long", "unsigned long long"))
# The narrower unsigned types: `unsigned` arithmetic wraps modulo 2**32 and converts an int
# operand to unsigned, `uint8`/`uint16` promote to int; none of that is modelled, so a type
# of these is refused (as a local, a parameter, a cast).
_NARROW_UNSIGNED_TYPES = frozenset(("unsigned", "unsigned int", "uint32", "uint32_t", "uint16", "uint16_t",
                                    "uint8", "uint8_t", "unsigned short", "unsigned char"))
_INT_TYPES = {"int", "int32", "int64", "int32_t", "int64_t", "long", "int16", "int8", *_UNSIGNED_TYPES}
# C++'s integer types of several keywords, spelled as one name of the ones above
_INT_KEYWORDS = ("unsigned", "signed", "long", "short", "int", "char")
_SCALAR_TYPES = {**dict.fromkeys(_INT_TYPES, "int"), "bool": "bool", "ShapeHandle": "shape",
                 "DimensionHandle": "dim", "string": "str", "tstring": "str", "auto": "auto",
                 "PartialTensorShape": "attrshape", "float": "float", "DataType": "dtype",
                 "DataTypeVector": "list_dtype"}
_VECTOR_ITEMS = ("int", "bool", "str", "dim", "shape", "float", "dtype", "attrshape")
# Names of one C++ type (TF's typedefs, tensorflow/core/platform/types.h: `int32` is `std::int32_t`,
# which is `int`), by the spelling `_Parser.exact_type` gives their type. `long` and `int64_t` are
# not listed: one type on Linux, two on macOS (where `int64_t` is `long long`).
_SAME_TYPES = {"int32": "int", "int32_t": "int", "int64": "int64_t", "uint64": "uint64_t", "int16": "int16_t",
               "int8": "int8_t"}
# A statement whose translation black would split (opgen writes black's layout itself, and
# splits only calls and conditional expressions)
_TOO_LONG = f"a statement whose Python translation is longer than {LINE_LENGTH} columns"
_MAX_CALL_DEPTH = 32  # project functions calling each other, each translated as a nested function
# C++ initializes a static local once, on the first call (C++17 [stmt.dcl]/4), and keeps it across
# calls; a Python local is set on every call. The two agree only for a constant initialized by a
# constant expression (the same value every time), which is what is translated.
_STATIC_ONCE = "C++ initializes it once, on the first call"
# Expressions, blocks or calls of project functions nested deeper than Python's recursion
# allows the recursive-descent translator (hundreds of levels): left untranslated.
_TOO_DEEP = "code nested too deeply (expressions, blocks or function calls)"
_TOO_LONG_HINT = "compute its parts into locals first (bool big = ...; if (big && ...))"
# A statement that would fit at the function's top level, too long only for the 4 columns of
# indentation each enclosing block adds (Python's own limit is 100 levels)
_TOO_NESTED = ("a statement nested {} blocks deep: its Python translation's indentation (4 columns a block) "
               f"makes it longer than {LINE_LENGTH} columns")
_TOO_NESTED_HINT = ("nest fewer blocks: return early instead (if (...) return ...;), or move inner blocks "
                    "into a function")
# The value of a default-constructed vector item, for `std::vector<T> v(n)`
_ITEM_DEFAULTS = {"int": "0", "bool": "False", "float": "0.0", "str": '""'}
# The 32-bit integers TF's GetNodeAttr reads an int attr into, checking its range
# (tensorflow/core/framework/node_def_util.cc: DEFINE_GET_ATTR(int32_t, ...)).
_INT32_TYPES = frozenset(("int", "int32", "int32_t"))
# What GetAttr reads into a local of each type (and lists of them): the runtime's attr kinds
_ATTR_KINDS = {"int": "int", "bool": "bool", "str": "str", "float": "float", "dtype": "type", "attrshape": "shape"}
# DataType enum values by name (`DT_FLOAT`; tensorflow/core/framework/types.proto)
_DTYPES = {n.enum_name: n.enum for n in BY_ENUM.values()}
# A float compared with an int converts the int to float: exact for these (2**24, float's mantissa)
_EXACT_IN_FLOAT = 1 << 24
# TF's common functions taking arguments after the context, by their parameters' types
# (tensorflow/core/framework/common_shape_fns.h); the runtime's `shape_fns.common.WITH_ARGS`.
# (the type of an out-param ending the arguments, if any).
_COMMON_WITH_ARGS: dict[str, tuple[str, str | None]] = {
    "UnchangedShapeWithRank": ("i", None),
    "UnchangedShapeWithRankAtLeast": ("i", None),
    "UnchangedShapeWithRankAtMost": ("i", None),
    "BroadcastBinaryOpOutputShapeFn": ("i", None),
    "BroadcastBinaryOpOutputShapeFnHelper": ("ssb", "shape"),
}
_NAMESPACES = {"std", "tensorflow", "shape_inference", "tsl", "absl"}
# Statements a translation leaves out: log lines (but `LOG(FATAL)`, which aborts) and
# using-declarations (`using errors::InvalidArgument;` inside a body).
_LOGGING = {"VLOG", "LOG", "LOG_IF", "VLOG_IF", "LOG_EVERY_N", "LOG_FIRST_N"}
# The debug-build checks (absl's, as TF's logging.h re-exports them), by their comparison.
_DEBUG_CHECKS = {"DCHECK": "", "DCHECK_EQ": "==", "DCHECK_NE": "!=", "DCHECK_LT": "<", "DCHECK_LE": "<=",
                 "DCHECK_GT": ">", "DCHECK_GE": ">="}
_OK_RETURNS = {"OkStatus", "OK", "Status", "absl::OkStatus", "Status::OK", "absl::Status", "tsl::OkStatus"}

# Python precedences (higher binds tighter)
_TERNARY, _OR, _AND, _NOT, _CMP, _ADD, _MUL, _UNARY = 1, 2, 3, 4, 5, 9, 10, 11
_CPP_BINARY = {  # C++ operator -> (C++ precedence, Python operator, Python precedence)
    "||": (1, "or", _OR), "&&": (2, "and", _AND),
    "==": (3, "==", _CMP), "!=": (3, "!=", _CMP),
    "<": (4, "<", _CMP), "<=": (4, "<=", _CMP), ">": (4, ">", _CMP), ">=": (4, ">=", _CMP),
    "+": (5, "+", _ADD), "-": (5, "-", _ADD),
    "*": (6, "*", _MUL), "/": (6, "/", _MUL), "%": (6, "%", _MUL),
}


@dataclass(frozen=True)
class _Assign:
    """`target = value` at `depth`, laid out once the whole function says whether target is read."""

    depth: int
    target: str
    value: Expr
    tok: Token | None


def _paren(e: Expr, prec: int) -> str:
    return f"({e.code})" if e.prec < prec else e.code


def _logic_operands(e: Expr, prec: int) -> tuple[str, ...]:
    """`e` as an operand of an `and`/`or` of precedence `prec`: its own chain's operands when
    it needs no parentheses (`and` and `or` split alike in black: one delimiter priority)."""
    if e.prec < prec:
        return (f"({e.code})",)
    return e.logic or (e.code,)


def _logic_split(e: Expr) -> tuple[str, ...] | None:
    """The lines black splits long `e` into in optional parentheses (a condition, an assigned
    value) when it is an `and`/`or` chain: black keeps those parentheses for two or more
    `and`/`or`, or one in an expression that does not end in a bracket
    (`linegen.can_omit_invisible_parens`); otherwise it splits a bracket of the expression
    itself, which is left to the caller (None)."""
    if e.logic is None or (len(e.logic) == 2 and e.code[-1] in ")]"):
        return None
    return e.logic


class _Parser:
    def __init__(self, tokens: Sequence[Token], pos: int, end: int, ctx_name: str, helpers: _Helpers,
                 depth: int = 1, bound: Mapping[str, Expr] | None = None):
        self.toks = tokens
        self.bound = bound or {}  # a function template's parameters, by name: their values (literals)
        # The unit's constants read (`unit_constant`), by qualified name: (the local holding it,
        # its value); None: their values inline (reading a constant expression: `_initializer`).
        self.constants: dict[str, tuple[str, Expr]] | None = None
        self.i = pos
        self.end = end
        self.ctx = ctx_name
        self.shared = helpers
        self.scopes: list[dict[str, tuple[str, str]]] = [{}]
        # Lines, and assignments laid out at the end: a variable never read gets none (its
        # call stays, for its checks), so the output has no unused locals.
        self.lines: list[str | _Assign] = []
        self.reads: set[str] = set()
        self.depth = depth
        self.base_depth = depth  # the function body's
        self.statement_tok: Token | None = None  # where the statement being translated starts
        self.int32_type = False  # the type `try_type` read last is a 32-bit int (or a vector of them)
        self.int32_vars: set[str] = set()  # locals of such a type, for GetAttr's range check
        self.unsigned_type = False  # ... is a 64-bit unsigned int (or a vector of them)
        self.unsigned_vars: set[str] = set()  # locals of such a type
        # The C++ type `try_type` read last, spelled one way for each type (`int32` and `int` are
        # `int`; `long` and `long long` stay apart), None for `auto`; and whether it ended in the
        # `&` of a const reference
        self.exact_type: str | None = None
        self.reference = False
        self.exact_types: dict[str, str | None] = {}  # each local's C++ type, so spelled (None: unknown)
        # The locals each statement writes, in order (a name and where), for a range-for over a
        # vector its body changes
        self.writes: list[tuple[str, Token]] = []
        # The static constants' locals (`static const int k = 2;`), by local name: their values, for
        # a later static constant's initializer (`static const int k2 = k + 1;`)
        self.static_values: dict[str, Expr] = {}
        self.breaks: list[str] = []  # what a `break` here leaves: "loop" or "switch" (innermost last)
        # What a `continue` here runs before its `continue` (innermost loop last): the step of a
        # `for (init; cond; step)`, a while loop in Python, as tokens [start, end); None: nothing
        # (a range-for, Python's own for)
        self.loop_steps: list[tuple[int, int] | None] = []

    # tokens
    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.toks[j] if j < self.end else None

    def text(self, k: int = 0) -> str:
        t = self.peek(k)
        return "" if t is None else t[TEXT]

    def next(self) -> Token:
        t = self.peek()
        if t is None:
            raise Untranslatable("end of function", self.toks[self.end - 1] if self.end else None)
        self.i += 1
        return t

    def expect(self, text: str) -> Token:
        t = self.peek()
        if t is None or t[TEXT] != text:
            if text == ";" and t is not None and (t[BOL] or t[TEXT] == "}") and self.i > 0:
                # the statement ended with its line or its block: a `;` left out, placed where
                # the compiler wants it (after the statement's last token), not at what follows
                last = self.toks[self.i - 1]
                raise Untranslatable(f"expected ';' before '{t[TEXT]}'", last, f"add ';' after '{last[TEXT]}'",
                                     after=True)
            raise self.fail(tok=t)
        self.i += 1
        return t

    def fail(self, construct: str | None = None, tok: Token | None = None, hint: str | None = None) -> Untranslatable:
        tok = tok or self.peek()
        if construct is None:
            construct = _token_in_its_line(tok) if tok else "end of function"
        return Untranslatable(construct, tok, hint)

    def note_index(self, use: str, index: Expr, tok: Token | None) -> None:
        """Records a constant input or output index (`Translation.indices`)."""
        code = self.literal_code(index)
        if code.isdigit() and tok is not None:
            self.shared.indices.append((use, int(code), tok[SRC].location(tok[POS])))

    def literal_code(self, e: Expr) -> str:
        """The literal a template parameter's or a constant's local holds, for `e` that is one
        (`k_kInputIndex`: `0`); else `e`'s code."""
        if e.code.startswith("v_") and e.code[2:] in self.bound:
            return self.bound[e.code[2:]].code
        return next((value.code for py, value in (self.constants or {}).values() if py == e.code), e.code)

    def method_failure(self, m: Token) -> Untranslatable:
        """A call of the context's method `m` that opgen does not translate; a name that is
        no method of TF's InferenceContext is a typo, and the hint says which was meant."""
        name = m[TEXT]
        hint = None
        if name not in _CONTEXT_METHODS:
            close = did_you_mean(name, _CONTEXT_METHODS, "'")
            hint = f"'{name}' is not a method of InferenceContext" + (f": {close}" if close else "")
        return self.fail(f"{self.ctx}->{name}", m, hint)

    # names
    def qualified(self) -> tuple[str, Token]:
        """`::a::b::c` -> the name without the TF/std namespaces it starts with (`c` when all
        qualifiers are; `InferenceContext::kUnknownDim` of `::tensorflow::shape_inference::...`)."""
        first = self.peek()
        parts = []
        if self.text() == "::":
            self.next()
        while True:
            t = self.next()
            if t[KIND] != "id":
                raise self.fail(tok=t)
            parts.append(t[TEXT])
            if self.text() != "::":
                break
            self.next()
        assert first is not None
        while len(parts) > 1 and parts[0] in _NAMESPACES:  # `shape_inference::InferenceContext::kUnknownDim`
            parts.pop(0)
        return "::".join(parts), first

    def lookup(self, name: str) -> tuple[str, str] | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def declare(self, tok: Token, type_: str, unsigned: bool = False, exact: str | None = None) -> str:
        """A local `tok` of `type_` (`unsigned`: of a 64-bit unsigned type, or a vector of them;
        `exact`: its C++ type, as `exact_type` spells it, when known)."""
        name = self.new_name(tok)
        py = "v_" + name
        self.scopes[-1][name] = (py, type_)
        self.static_values.pop(py, None)  # (a static constant of that name in a closed block)
        self.exact_types[py] = exact
        if unsigned:
            self.unsigned_vars.add(py)
        return py

    def new_name(self, tok: Token) -> str:
        """The name `tok` declares, refused when it is no identifier or redeclares one in sight."""
        name = tok[TEXT]
        if not _IDENT.match(name):
            raise self.fail(name, tok)
        if self.lookup(name) is not None or name == self.ctx or name in self.bound:
            raise self.fail(f"redeclared name {name}", tok)
        return name

    def written(self, py: str, tok: Token) -> None:
        """The local `py` is written at `tok` (assigned, an element of it, `push_back`, an out-argument)."""
        self.writes.append((py, tok))

    def emit(self, line: str) -> None:
        indent = "    " * self.depth
        text = indent + line
        if len(text) > LINE_LENGTH:
            raise self.too_long(self.statement_tok, self.depth, lambda: len(self.indent() + line) <= LINE_LENGTH)
        self.lines.append(text)

    def emit_condition(self, keyword: str, cond: Expr) -> None:
        """`keyword cond:`; when too long, an `and`/`or` chain in black's parentheses
        (`_logic_split`); any other long condition is refused."""
        indent = "    " * self.depth
        if len(indent) + len(keyword) + len(cond.code) + 1 <= LINE_LENGTH:
            self.lines.append(f"{indent}{keyword}{cond.code}:")
            return
        parts = _logic_split(cond)
        if parts is None:
            raise self.too_long(self.statement_tok, self.depth,
                                lambda: len(self.indent()) + len(keyword) + len(cond.code) + 1 <= LINE_LENGTH)
        self.lines.extend(self.parenthesized(indent, keyword, parts, "):", self.statement_tok))

    def parenthesized(self, indent: str, head: str, parts: Sequence[str], tail: str, tok: Token | None) -> list[str]:
        """Black's right-hand split of `head (...) tail`: the expression in parentheses, on one
        line when it fits, else one of its `parts` per line."""
        inner = indent + "    "
        code = " ".join(parts)
        body = [code] if len(inner) + len(code) <= LINE_LENGTH else list(parts)
        if any(len(inner) + len(part) > LINE_LENGTH for part in body):
            raise self.too_long(tok, len(indent) // 4,
                                lambda: bool(self.parenthesized(self.indent(), head, parts, tail, tok)))
        return [f"{indent}{head}(", *(inner + part for part in body), f"{indent}{tail}"]

    def emit_call(self, head: str, e: Expr) -> None:
        """`head` + a call expression, wrapped like black when it is too long."""
        self.lines.extend(self.layout(self.depth, head, e, self.statement_tok))

    def assign(self, target: str, e: Expr) -> None:
        self.lines.append(_Assign(self.depth, target, e, self.statement_tok))

    def layout(self, depth: int, head: str, e: Expr, tok: Token | None) -> list[str]:
        indent = "    " * depth
        if len(indent) + len(head) + len(e.code) > LINE_LENGTH and head.endswith("= "):
            parts = e.ternary or _logic_split(e)
            if parts is not None:
                return self.parenthesized(indent, head, parts, ")", tok)
        if len(indent) + len(head) + len(e.code) <= LINE_LENGTH or e.call is None:
            if len(indent) + len(head) + len(e.code) > LINE_LENGTH:
                raise self.too_long(tok, depth, lambda: bool(self.layout(self.base_depth, head, e, tok)))
            return [indent + head + e.code]
        tree = _bracketed_call(*e.call)
        text = indent + layout(type(tree)(head + tree.prefix, tree.items, tree.suffix), indent)
        if any(len(line) > LINE_LENGTH for line in text.split("\n")):
            raise self.too_long(tok, depth, lambda: bool(self.layout(self.base_depth, head, e, tok)))
        return text.split("\n")

    def indent(self) -> str:
        """The indentation of the function body's top level."""
        return "    " * self.base_depth

    def too_long(self, tok: Token | None, depth: int, fits_at_top: Callable[[], bool]) -> Untranslatable:
        """The refusal of a statement at `depth` whose translation is too long: for its nesting
        when it would fit (`fits_at_top`: a check, or a layout that raises) at the body's top level."""
        if depth > self.base_depth:
            try:
                fits = fits_at_top()
            except Untranslatable:
                fits = False
            if fits:
                return self.fail(_TOO_NESTED.format(depth - self.base_depth), tok, _TOO_NESTED_HINT)
        return self.fail(_TOO_LONG, tok, _TOO_LONG_HINT)

    def finished_lines(self) -> list[str]:
        out: list[str] = []
        for line in self.lines:
            if isinstance(line, _Assign):
                value = line.value
                if line.target in self.reads:
                    head = f"{line.target} = "
                else:  # the value for its calls' checks only: no narrowing or copy of what nothing reads
                    head = ""
                    if value.call is not None and value.call[0] in ("c.as_int32(", "list("):
                        inner = value.call[1][0]
                        value = inner if isinstance(inner, Expr) else Expr(inner, "int")
                out.extend(self.layout(line.depth, head, value, line.tok))
            else:
                out.append(line)
        return out

    # types
    def try_type(self, named: bool = True) -> str | None:
        """A declaration's type at the cursor (consumed), else None (cursor unchanged);
        `named`: only when a name follows (a declaration, not a template argument)."""
        start = self.i
        const = False
        while self.text() in ("const", "constexpr", "static"):
            const = self.next()[TEXT] != "static" or const  # (each word consumed: `const static`)
        t = self.peek()
        if t is None or (t[KIND] != "id" and t[TEXT] != "::"):
            self.i = start
            return None
        if t[TEXT] in _INT_KEYWORDS[:4]:  # `unsigned int`, `long long`, ...
            name, exact = _int_keywords(self)
        else:
            name, _ = self.qualified()
            exact = _SAME_TYPES.get(name, name)
        after = self.peek()
        if name in _NARROW_UNSIGNED_TYPES and (not named or (after is not None and after[KIND] == "id")):
            raise self.fail(f"{name}, an unsigned type narrower than 64 bits", t,
                            "its arithmetic wraps modulo 2**32 or promotes to int; name size_t or int64_t")
        if named or name in _INT_TYPES:  # (a vector's item type decides for the vector)
            self.int32_type = name in _INT32_TYPES
            self.unsigned_type = name in _UNSIGNED_TYPES
        type_: str | None = _SCALAR_TYPES.get(name)
        if name == "Tensor" and self.text() == "*":  # `const Tensor* t = c->input_tensor(i);`
            self.next()
            type_ = "tensor"
        elif name == "auto" and self.text() == "*":  # `auto* t = ...`: its initializer says what it points to
            self.next()
            type_ = "auto*"
        if name == "vector" and self.text() == "<":
            self.next()
            inner = self.try_type(named=False)
            if inner not in _VECTOR_ITEMS or self.text() != ">":
                self.i = start
                return None
            self.next()
            type_ = "list_" + inner
            exact = f"vector<{self.exact_type}>"
        reference = False
        if named and const and self.text() == "&" and type_ is not None:
            self.next()  # a const reference: `declaration` binds it (`reference`)
            reference = True
        if type_ is None or (named and (self.peek() is None or self.peek()[KIND] != "id")):  # type: ignore[index]
            self.i = start
            return None
        while self.text() in ("const",):
            self.next()
        self.exact_type = None if type_ in ("auto", "auto*") else exact
        self.reference = reference
        return type_

    # statements
    def block_body(self) -> None:
        """Statements up to the closing `}` (consumed)."""
        while self.text() != "}":
            self.statement()
        self.next()

    def nested(self) -> None:
        """The body of an if/else/for: a statement in its own scope and indentation."""
        self.scopes.append({})
        self.depth += 1
        before = len(self.lines)
        if self.text() == "{":
            self.next()
            self.block_body()
        else:
            self.statement()
        if len(self.lines) == before:
            self.emit("pass")
        self.depth -= 1
        self.scopes.pop()

    def statement(self) -> None:
        t = self.peek()
        if t is None:
            raise self.fail()
        self.statement_tok = t
        text = t[TEXT]
        if text == ";":
            self.next()
        elif text == "{":
            self.next()
            self.scopes.append({})
            self.block_body()
            self.scopes.pop()
        elif text == "return":
            self.next()
            self.return_statement()
        elif text == "if":
            self.if_statement("if ")
        elif text == "for":
            self.for_statement()
        elif text == "switch":
            self.switch_statement()
        elif text == "break":
            if not self.breaks:
                raise self.fail("break outside a loop or switch", t)
            if self.breaks[-1] == "switch":
                raise self.fail("a break before the end of its switch case", t,
                                hint="end the case with its break (an if/else inside the case instead)")
            self.next()
            self.expect(";")
            self.emit("break")
        elif text == "continue":
            self.continue_statement(t)
        elif text == "TF_RETURN_IF_ERROR":
            self.next()
            self.expect("(")
            self.status_call()
            self.expect(")")
            self.expect(";")
        elif self.declares_status():
            self.status_variable()
        elif text in _LOGGING and self.text(1) == "(" and self.text(2) in ("FATAL", "QFATAL", "DFATAL"):
            raise self.fail(f"{text}({self.text(2)}), which aborts", t)
        elif text == "using" or (text in _LOGGING and self.text(1) == "("):
            self.skip_statement()  # a name's spelling, or a log line: nothing a shape depends on
        elif text in _DEBUG_CHECKS and self.text(1) == "(":
            self.debug_check()
        else:
            static = self.static_local()
            type_ = self.try_type()
            if type_ is not None:
                self.declaration(type_, static)
            else:
                self.expression_statement()

    def static_local(self) -> Token | None:
        """The `static` among the declaration specifiers at the cursor (not consumed), else None;
        one that is not `const`/`constexpr` is refused (`_STATIC_ONCE`)."""
        words: list[str] = []
        while self.text(len(words)) in ("const", "constexpr", "static"):
            words.append(self.text(len(words)))
        if "static" not in words:
            return None
        static = self.peek(words.index("static"))
        if not {"const", "constexpr"} & set(words):
            raise self.fail(f"a static local that is not a constant: {_STATIC_ONCE}", static)
        return static

    def initializer_end(self) -> int:
        """Where the initializer at the cursor ends: its `,` or `;`, or its `(`/`{`'s closer."""
        return initializer_end(self.toks, self.i, self.end)

    def static_constant(self, start: int, end: int) -> Expr:
        """The value of a static local's initializer tokens[start:end], refused unless it is a
        constant expression opgen computes as a template argument's (`_initializer`: literals,
        the unit's constants, the template's parameters, earlier static constants), never reading
        another local, the context or an attr."""
        known = dict(self.bound)
        reads_local = False
        for t in self.toks[start:end]:
            found = self.lookup(t[TEXT]) if t[KIND] == "id" else None
            if found is not None and found[0] in self.static_values:
                known[t[TEXT]] = self.static_values[found[0]]
            elif found is not None:
                reads_local = True
        try:
            if not reads_local:
                return _initializer(self.toks, start, end, self.shared.constants, known)
        except Untranslatable as refused:
            if refused.construct.startswith("the constant "):  # (why that constant has no value)
                raise
        raise self.fail(f"a static local initialized by `{_text(self.toks, start, end)}`, not a constant: "
                        f"{_STATIC_ONCE}", self.toks[start])

    def skip_statement(self) -> None:
        """Past the `;` ending the statement at the cursor (outside brackets)."""
        depth = 0
        while True:
            t = self.next()
            if t[TEXT] in ("(", "[", "{"):
                depth += 1
            elif t[TEXT] in (")", "]", "}"):
                depth -= 1
            elif t[TEXT] == ";" and depth == 0:
                return

    def debug_check(self) -> None:
        """`DCHECK(cond)` or `DCHECK_EQ(a, b)` (`_NE`, `_LT`, ...) as Python's `assert`: each
        fails loudly where the debug build would abort, and neither runs when optimized away
        (C++'s NDEBUG, Python's -O)."""
        macro = self.next()
        self.expect("(")
        if macro[TEXT] == "DCHECK":
            cond = self.convert(self.expression(), "bool", macro)
        else:
            a = self.expression()
            self.expect(",")
            cond = self.compare(a, _DEBUG_CHECKS[macro[TEXT]], self.expression(), macro)
        self.expect(")")
        self.expect(";")
        indent = "    " * self.depth
        if len(indent) + len("assert ") + len(cond.code) <= LINE_LENGTH:
            self.emit("assert " + cond.code)
            return
        self.lines.extend(self.parenthesized(indent, "assert ", _logic_split(cond) or (cond.code,), ")",
                                             self.statement_tok))

    def sized_vector(self, item: str, tok: Token) -> Expr:
        """`(n)` or `(n, value)` of `std::vector<T> v(n, value)` (after its `(`): n copies; `(a)`
        of a vector: a copy of it."""
        first = self.expression()
        if first.type == "list_" + item and self.text() == ")":
            self.next()
            return _owned(first)
        count = self.convert(first, "int", tok)
        if self.text() == ",":
            self.next()
            value = self.convert(self.expression(), item, tok).code
        elif item in _ITEM_DEFAULTS:
            value = _ITEM_DEFAULTS[item]
        else:
            raise self.fail(f"a vector of {item} values without a value", tok)
        self.expect(")")
        return Expr(f"[{value}] * {_paren(count, _MUL + 1)}", "list_" + item, _MUL)

    def braced_vector(self, type_: str, int32: bool, tok: Token) -> Expr:
        """The items of `std::vector<T> v{a, b}` (or `= {a, b}`, `v = {a, b}`) after its `{`, up to its
        `}` (consumed): a list of them, as the initializer_list constructor makes it (`{3}` is one
        item, not 3 of them), each converted to T (an int32's narrowed); `{a}` of a vector of the
        same type is its copy (no initializer_list of T takes a vector)."""
        items: list[Expr] = []
        while self.text() != "}":
            items.append(self.expression())
            if self.text() != "}":
                self.expect(",")
        self.next()
        if len(items) == 1 and items[0].type == type_:
            return _owned(items[0])
        converted = [self.convert(e, type_[5:], tok) for e in items]
        return _list_display([_as_int32(e) if int32 else e for e in converted], type_)

    def status_variable(self) -> None:
        """`Status s = call;` whose next statement returns its error (`TF_RETURN_IF_ERROR(s);`,
        `if (!s.ok()) return s;`, braced too) or it (`return s;`), s read nowhere else in its
        block: that is `TF_RETURN_IF_ERROR(call);` (or `return call;`), translated so. Any other
        use of the status (an error handled, `s.message()`) is refused."""
        while self.text() != "Status":  # (its namespaces: `declares_status`)
            self.next()
        self.next()
        name = self.next()
        self.new_name(name)
        refusal = self.fail("a Status kept in a variable, not returned by the next statement", name,
                            "return its error at once: TF_RETURN_IF_ERROR(...), or `if (!s.ok()) return s;` "
                            "right after it")
        if self.text() != "=":
            raise refusal
        end = self.initializer_end()
        s = name[TEXT]
        test = ["if", "(", "!", s, ".", "ok", "(", ")", ")"]
        checks = (["TF_RETURN_IF_ERROR", "(", s, ")", ";"], [*test, "return", s, ";"],
                  [*test, "{", "return", s, ";", "}"], ["return", s, ";"])
        after = next((end + 1 + len(check) for check in checks
                      if [t[TEXT] for t in self.toks[end + 1:end + 1 + len(check)]] == check), None)
        if end >= self.end or self.toks[end][TEXT] != ";" or after is None:
            raise refusal
        depth = 0
        for k in range(after, self.end):  # the rest of its block
            text = self.toks[k][TEXT]
            depth += {"{": 1, "}": -1}.get(text, 0)
            if depth < 0:
                break
            if text == s and self.toks[k - 1][TEXT] not in (".", "->", "::"):
                raise self.fail("a Status kept in a variable and read again after the statement returning its "
                                "error", self.toks[k], "return its error at once: TF_RETURN_IF_ERROR(...)")
        self.next()
        self.status_call()
        self.expect(";")
        if self.text() == "return":
            self.emit("return")
        self.i = after

    def declares_status(self) -> bool:
        """`[::][ns::]Status name` at the cursor (a status kept in a variable)."""
        k = 0
        while self.text(k) in ("::", "tensorflow", "absl", "tsl") or self.text(k) in _NAMESPACES:
            k += 1
        t = self.peek(k + 1)
        return self.text(k) == "Status" and t is not None and t[KIND] == "id"

    def declaration(self, type_: str, static: Token | None = None) -> None:
        """The locals declared at the cursor (after their type); `static`: the `static` of a
        constant, whose initializers must be constant expressions (`static_constant`)."""
        int32 = self.int32_type and type_ in ("int", "list_int")
        unsigned = self.unsigned_type and type_ in ("int", "list_int")
        exact = self.exact_type
        reference = self.reference  # (the first declarator's: `const int& a = x, b = y;` copies into b)
        while True:
            tok = self.next()
            if tok[KIND] != "id":
                raise self.fail(tok=tok)
            if static is not None and self.text() not in ("=", "(", "{"):
                raise self.fail(f"a static local without an initializer: {_STATIC_ONCE}", tok)
            if self.text() == "(" and type_.startswith("list_") and not reference:
                if static is not None:
                    raise self.fail(f"a static vector: {_STATIC_ONCE}", tok)
                self.next()
                py = self.declare(tok, type_, unsigned, exact)
                self.assign(py, self.sized_vector(type_[5:], tok))
                if int32:
                    self.int32_vars.add(py)
            elif reference and static is None and self.text() in ("=", "(", "{") and self.bind_reference(tok, exact):
                pass  # another name of a local
            elif type_.startswith("list_") and (self.text() == "{" or (self.text() == "=" and self.text(1) == "{")):
                if static is not None:
                    raise self.fail(f"a static vector: {_STATIC_ONCE}", tok)
                if self.next()[TEXT] == "=":
                    self.next()
                value = self.braced_vector(type_, int32, tok)
                py = self.declare(tok, type_, unsigned, exact)
                if value.code == "[]":  # (as `std::vector<T> v;`: a line even when nothing reads it)
                    self.emit(f"{py} = []")
                else:
                    self.assign(py, value)
                if int32:
                    self.int32_vars.add(py)
            elif self.text() in ("=", "(", "{") and not (self.text() == "{" and self.text(1) == "}"):
                opener = self.next()[TEXT]
                constant = self.static_constant(self.i, self.initializer_end()) if static is not None else None
                start = self.i
                value = _owned(self.expression())  # (a vector's copy is a list of its own)
                if opener != "=":
                    self.expect(")" if opener == "(" else "}")
                actual = value.type
                if type_ == "auto":
                    if actual.startswith("list_"):
                        raise self.fail("auto of a vector", tok)
                    var_type = actual
                    unsigned = value.unsigned and actual == "int"  # `auto n = v.size();`
                    exact = self.exact_type_of(value, start, self.i - (opener != "="))
                elif type_ == "auto*":
                    if actual != "tensor":  # the only pointer a translated expression gives
                        raise self.fail(f"auto* of {with_article(actual)}", tok)
                    var_type = actual
                else:
                    value = self.convert(value, type_, tok)
                    var_type = type_
                    if int32:
                        value = _as_int32(value)
                py = self.declare(tok, var_type, unsigned, exact)
                self.assign(py, value)
                if int32:
                    self.int32_vars.add(py)
                if constant is not None:  # (its value as C++ converts it; out of range: unknown)
                    typed = _typed(constant, var_type, int32, unsigned)
                    if typed is not None:
                        self.static_values[py] = typed
            else:
                braces = self.text() == "{"  # `T x{}`: value-initialized, a number 0 (`T x;` leaves it unset)
                if braces:
                    self.next()
                    self.next()
                if type_ in ("auto", "auto*"):
                    raise self.fail(f"{type_} without initializer", tok)
                py = self.declare(tok, type_, unsigned, exact)
                if int32:
                    self.int32_vars.add(py)
                default = (_ITEM_DEFAULTS if braces else {"str": '""'}).get(
                    type_, "[]" if type_.startswith("list_") else None)
                if default is not None:
                    self.emit(f"{py} = {default}")
            reference = False
            if self.text() == ",":
                self.next()
                continue
            self.expect(";")
            return

    def bind_reference(self, tok: Token, exact: str | None) -> bool:
        """The const reference `tok` of C++ type `exact` (None: `auto`), its initializer at the
        cursor (`= x`, `(x)`, `{x}`): when it names a local (or a parameter), `tok` becomes another
        name of it, reading what later writes to the local store (True; the initializer
        consumed). A temporary (a call's result, arithmetic, a constant's value) is kept by the
        reference as by a copy: False (the cursor unchanged). Refused when the local is of
        another C++ type (or of one opgen does not know), to which C++ binds a converted copy
        instead, and for an initializer that may name an element or one of several variables
        (`v[i]`, `v.back()`, `?:`, `std::max`)."""
        toks = self.toks
        start = self.i + 1
        end = self.initializer_end() if self.text() == "=" else self.closer(self.i)
        after = end + (self.text() != "=")  # (past the `)` or `}`)
        while end - start > 2 and toks[start][TEXT] == "(" and self.closer(start) == end - 1:
            start, end = start + 1, end - 1
        if end - start == 1 and toks[start][KIND] == "id":
            found = self.lookup(toks[start][TEXT])
            if found is None:  # a template parameter or a constant of the unit: never written
                return False
            if exact is not None and self.exact_types.get(found[0]) != exact:
                raise self.fail(f"a const reference to {toks[start][TEXT]}, a local whose C++ type opgen does not "
                                "know to be the reference's: C++ binds it to the local itself, or to a "
                                "converted copy", tok, f"declare it `const auto& {tok[TEXT]}`, or a copy")
            self.scopes[-1][self.new_name(tok)] = found
            self.i = after
            return True
        depth = 0
        for k in range(start, end):
            text = toks[k][TEXT]
            member = toks[k + 1][TEXT] if k + 1 < end else ""
            if depth == 0 and (text in ("[", "?") or (text == "." and member in ("front", "back"))
                               or (text in ("max", "min") and k > start and toks[k - 1][TEXT] == "::")):
                raise self.fail(f"a const reference to `{_text(toks, start, end)}`, which may be an element or "
                                "a local: the reference reads what later writes store there", tok,
                                f"copy the value instead: drop the `&` of {tok[TEXT]}")
            depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(text, 0)
        return False

    def closer(self, opener: int) -> int:
        """The index of the bracket closing the one at tokens[opener]."""
        depth = 0
        for k in range(opener, self.end):
            depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(self.toks[k][TEXT], 0)
            if depth == 0:
                return k
        return self.end

    def convert(self, e: Expr, type_: str, tok: Token | None) -> Expr:
        """`e` as a value of C++ type `type_` (the implicit conversions shape functions use)."""
        if e.type == type_:
            return e
        if type_ == "int" and e.type == "bool":
            return Expr(f"int({e.code})", "int", narrow=True)
        if type_ == "float" and e.type in ("double", "int"):  # only values float holds exactly
            value = float(e.code) if _FLOAT_LITERAL.match(e.code) else None
            if value is not None and _to_float(value) == value:
                return Expr(repr(value), "float", e.prec)
            raise self.fail(f"{with_article(e.type)} that float may round", tok)
        if type_ == "bool" and e.type == "tensor":
            return Expr(f"{_paren(e, _CMP + 1)} is not None", "bool", _CMP)
        if type_ == "bool" and e.type == "int":
            return Expr(f"{_paren(e, _CMP + 1)} != 0", "bool", _CMP)
        raise self.fail(f"{with_article(e.type)} used as {with_article(type_)}", tok)

    def return_statement(self) -> None:
        t = self.peek()
        if self.text() == ";":
            raise self.fail("return without a status", t)
        start = self.i
        name = self.qualified()[0] if (t and (t[KIND] == "id" or t[TEXT] == "::")) else ""
        if name in _OK_RETURNS and self.text() == "(" and self.text(1) == ")":
            self.next()
            self.next()
            self.expect(";")
            self.emit("return")
            return
        status_types = ("Status", "tensorflow::Status", "::tensorflow::Status")
        if name.endswith("::OK") and name.rsplit("::", 1)[0] in status_types \
                and self.text() == "(" and self.text(1) == ")":
            self.next()
            self.next()
            self.expect(";")
            self.emit("return")
            return
        self.i = start
        if self.error_call():
            self.expect(";")
            return
        self.status_call()
        self.expect(";")
        self.emit("return")

    def error_call(self) -> bool:
        """`errors::InvalidArgument(pieces...)`, or `absl::InvalidArgumentError(message)` (the
        cursor stays put when it is neither)."""
        start = self.i
        parts = self.name_parts()
        if parts in (["absl", "InvalidArgumentError"], ["tsl", "errors", "InvalidArgumentError"]):
            self.expect("(")
            pieces = self.message_pieces(single=True)
        elif parts and parts[-1] == "InvalidArgument" and (parts[:-1] in (
                ["errors"], ["tensorflow", "errors"], ["tsl", "errors"]) or (
                parts == ["InvalidArgument"] and _uses_errors(self.toks))):
            self.expect("(")
            pieces = self.message_pieces()
        else:
            self.i = start
            return False
        self.emit_call("raise ", _call("c.invalid_argument(", pieces, "error"))
        return True

    def name_parts(self) -> list[str]:
        """The parts of a qualified name at the cursor (`::a::b` -> [a, b], consumed; [] when none)."""
        start = self.i
        if self.text() == "::":
            self.next()
        parts = []
        while self.peek() is not None and self.peek()[KIND] == "id":  # type: ignore[index]
            parts.append(self.next()[TEXT])
            if self.text() != "::" or self.peek(1) is None or self.peek(1)[KIND] != "id":  # type: ignore[index]
                break
            self.next()
        if not parts:
            self.i = start
        return parts

    def message_pieces(self, single: bool = False) -> list[Expr]:
        """The arguments of an error message up to its `)` (consumed), as the strings StrCat
        joins: ints, floats and strings, and the pieces of a nested `StrCat(...)` call;
        `single`: one argument (a string, or a StrCat), as absl's `*Error(message)` takes."""
        pieces: list[Expr] = []
        while True:
            start = self.i
            if self.name_parts() in (["absl", "StrCat"], ["strings", "StrCat"], ["tsl", "strings", "StrCat"]) \
                    and self.text() == "(":
                self.next()
                pieces += self.message_pieces()
            else:
                self.i = start
                e = self.expression()
                if e.type == "int" and not single:
                    pieces.append(Expr(f"str({e.code})", "str"))
                elif e.type in ("float", "double") and not single:
                    pieces.append(_call("c.float_text(", [e], "str"))
                elif e.type == "str":
                    pieces.append(e)
                else:
                    raise self.fail(f"{with_article(e.type)} in an error message", self.toks[start])
            if self.text() == "," and not single:
                self.next()
                continue
            self.expect(")")
            return pieces

    def status_call(self) -> None:
        """A call returning a Status, its errors propagated (out-params assigned)."""
        name, first = self.qualified()
        if name != self.ctx:
            self.function_call(name, first)
            return
        self.expect("->")
        m = self.next()
        method = m[TEXT]
        if method not in _STATUS_METHODS:
            raise self.method_failure(m)
        self.expect("(")
        first_arg = self.peek()
        args: list[Expr] = []
        outs: list[tuple[str, str, Token]] = []
        while self.text() != ")":
            if self.text() == "&":
                amp = self.next()
                v = self.next()
                found = self.lookup(v[TEXT])
                if found is None:
                    raise self.fail(f"&{v[TEXT]}", v)
                if found[0] in self.unsigned_vars:  # TF's methods write an int64_t (or int32), not these
                    raise self.fail(f"&{v[TEXT]} of an unsigned type", v)
                self.written(found[0], v)
                outs.append((found[0], found[1], amp))
            elif outs:
                raise self.fail(tok=self.peek())
            elif method == "MakeShape" or self.text() == "{":
                raise self.fail()
            else:
                args.append(self.expression())
            if self.text() == ",":
                self.next()
        self.next()
        if method == "GetAttr":
            if len(args) != 1 or args[0].type != "str" or len(outs) != 1:
                raise self.fail(f"{self.ctx}->GetAttr", m)
            attr = _literal_str(self.literal_code(args[0]))
            if attr is not None and first_arg is not None:
                self.shared.attrs.append((attr, first_arg[SRC].location(first_arg[POS])))
            py, type_, _ = outs[0]
            item = type_.removeprefix("list_")
            if item not in _ATTR_KINDS:
                raise self.fail(f"GetAttr into a {type_}", m)
            kind = type_.replace(item, "int32" if py in self.int32_vars else _ATTR_KINDS[item])
            self.assign(py, _call("c.attr_value(", [args[0], py_str(kind)], type_))
            return
        call, out_types = _STATUS_METHODS[method](self, args, m)  # type: ignore[misc]  # GetAttr's None: returned above
        if [o[1] for o in outs] != list(out_types):
            raise self.fail(f"{self.ctx}->{method} with these arguments", m)
        if not outs:
            self.emit_call("", call)
        elif len(outs) == 1:
            self.assign(outs[0][0], call)
        else:
            self.emit_call(", ".join(o[0] for o in outs) + " = ", call)

    def function_call(self, name: str, first: Token) -> None:
        """`F(c, args...)` returning a Status: a built-in of the runtime (TF's common
        functions), or a function of the project defined in the sources, translated as a
        nested function (`def f_F(c, ...)`) on first use."""
        if self.text() == "<":
            raise self.fail(f"a call of the function template {name}", first)
        if self.text() != "(" or self.text(1) != self.ctx:
            raise self.fail(name, first)
        self.i += 2
        args: list[Expr] = []
        arg_types: list[str | None] = []  # their C++ types, for an overloaded function's
        out: tuple[str, str] | None = None  # a last `&out` argument: (its Python name, type)
        while self.text() == "," and out is None:
            self.next()
            if self.text() == "&":
                self.next()
                v = self.next()
                out = self.var(v, read=False)
                self.written(out[0], v)
            else:
                start = self.i
                args.append(self.expression())
                arg_types.append(self.exact_type_of(args[-1], start))
        self.expect(")")
        from opgen.spec.shape_fn_names import known_shape_fns

        if not args and out is None and name in known_shape_fns():
            self.emit(f"c.run_named({py_str(name)})")
            return
        if name in _COMMON_WITH_ARGS:
            types, out_type = _COMMON_WITH_ARGS[name]
            if len(args) != len(types) or (out[1] if out else None) != out_type:
                raise self.fail(f"{name} with these arguments", first)
            if name == "BroadcastBinaryOpOutputShapeFnHelper" and args[2].code != "True":
                # the runtime's port is TF's rule for incompatible_shape_error=true only
                raise self.fail(f"{name} with incompatible_shape_error other than true", first)
            call = _call("c.run_named(", [py_str(name), *_args(self, args, types, first)], out_type or "void")
            if out is None:
                self.emit_call("", call)
            else:
                self.assign(out[0], call)
            return
        py, params = self.shared.helper(self, name, first, arg_types)
        if out is not None or len(args) != len(params):
            raise self.fail(f"{name} with {len(args)} arguments after the context", first)
        values = [self.convert(a, param.type, first) for a, param in zip(args, params)]
        values = [_as_int32(v) if param.int32 else v for v, param in zip(values, params)]
        # (a vector passed by value is the function's own copy: its writes stay in it)
        values = [v if param.reference else _owned(v) for v, param in zip(values, params)]
        self.emit_call("", _call(f"{py}(", ["c", *values], "void"))

    def exact_type_of(self, e: Expr, start: int, end: int | None = None) -> str | None:
        """The C++ type (as `exact_type` spells it) of the expression `e`, read from tokens[start]
        to `end` (the cursor), when opgen knows it exactly: a bool, a handle, a `DataType`, a
        local's, a decimal literal's, a cast's, `Rank`'s, `Value`'s, `size()`'s; else None."""
        toks = self.toks
        end = self.i if end is None else end
        while end - start > 2 and toks[start][TEXT] == "(" and self.closer(start) == end - 1:
            start, end = start + 1, end - 1
        first = toks[start]
        if first[TEXT] == "DimensionOrConstant":  # (a dimension's type, not a DimensionHandle)
            return None
        fixed = {"bool": "bool", "shape": "ShapeHandle", "dim": "DimensionHandle", "dtype": "DataType",
                 "attrshape": "PartialTensorShape", "double": "double"}
        if e.type in fixed:
            return fixed[e.type]
        texts = [t[TEXT] for t in toks[start:end]]
        if len(texts) == 1 and first[KIND] == "id":
            found = self.lookup(first[TEXT])
            return None if found is None else self.exact_types.get(found[0])
        if len(texts) == 1 and first[KIND] == "num" and e.type == "int" and first[TEXT].isdigit() \
                and (first[TEXT] == "0" or first[TEXT][0] != "0"):
            return "int" if int(first[TEXT]) < 1 << 31 else "long"  # a decimal literal's type (LP64)
        if len(texts) == 1 and first[KIND] == "num" and e.type == "float":
            return "float"  # (`1.5f`)
        if texts[:2] == ["static_cast", "<"] or texts[-1] in (")", "}"):  # `static_cast<T>(x)`, `T(x)`, `T{x}`
            cast = _Parser(toks, start + 2 if texts[0] == "static_cast" else start, end, self.ctx, self.shared)
            try:
                type_ = cast.try_type(named=False)
            except Untranslatable:
                type_ = None
            if texts[0] == "static_cast" and cast.text() == ">":
                cast.next()
            if type_ is not None and cast.text() in ("(", "{") and cast.closer(cast.i) == end - 1:
                return cast.exact_type
        calls = {"Rank": "int", "Value": "int64_t", "num_inputs": "int", "num_outputs": "int"}
        if texts[:2] == [self.ctx, "->"] and len(texts) > 3 and texts[2] in calls and texts[3] == "(" \
                and self.closer(start + 3) == end - 1:
            return calls[texts[2]]
        if len(texts) == 5 and texts[1:] == [".", "size", "(", ")"]:
            return "size_t"
        return None

    def if_statement(self, keyword: str) -> None:
        self.expect("if")
        self.expect("(")
        cond = self.convert(self.expression(), "bool", self.peek())
        self.expect(")")
        self.emit_condition(keyword, cond)
        self.nested()
        if self.text() == "else":
            self.next()
            if self.text() == "if":
                self.if_statement("elif ")
            else:
                self.emit("else:")
                self.nested()

    def for_statement(self) -> None:
        """`for (init; cond; step) body` as a while loop (exact whatever the body does: its
        `continue` runs the step first); `for (x : vector)` over a copy."""
        self.expect("for")
        self.expect("(")
        self.scopes.append({})
        type_ = self.try_type()
        unsigned, exact = self.unsigned_type, self.exact_type
        if type_ is not None and self.text(1) == ":":
            tok = self.next()
            self.next()
            seq = self.expression()
            self.expect(")")
            if not seq.type.startswith("list_") or type_ not in ("auto", seq.type[5:]):
                raise self.fail("a range-for over this", tok)
            if exact is None:  # `auto`: the vector's item type
                item = self.exact_types.get(seq.code, None) or ""
                exact = item[len("vector<") : -1] if item.startswith("vector<") else None
            py = self.declare(tok, seq.type[5:], (unsigned and type_ == "int") or (type_ == "auto" and seq.unsigned),
                              exact)
            self.emit(f"for {py} in list({seq.code}):")
            first_write = len(self.writes)
            self.loop_body(None)
            # C++ reads each item from the vector as the loop reaches it; the list iterated is the
            # vector's value when the loop starts
            changed = [(name, where) for name, where in self.writes[first_write:]
                       if re.search(rf"\b{name}\b", seq.code)]
            if changed:
                raise self.fail(f"a change to {changed[0][1][TEXT]} inside a range-for over it", changed[0][1],
                                "loop over its indices instead: for (size_t i = 0; i < v.size(); ++i)")
            self.scopes.pop()
            return
        if type_ is not None:
            self.declaration(type_)
        elif self.text() != ";":
            self.expression_statement()
        else:
            self.next()
        if self.text() == ";":
            raise self.fail("a for loop without a condition")
        cond = self.convert(self.expression(), "bool", self.peek())
        self.expect(";")
        step_start = self.i
        depth = 0
        while depth or self.text() != ")":  # the step is translated after the body
            depth += {"(": 1, ")": -1}.get(self.text(), 0)
            self.next()
        step_end = self.i
        self.next()
        self.emit_condition("while ", cond)
        self.loop_body((step_start, step_end))
        self.depth += 1
        self.for_step(step_start, step_end)
        self.depth -= 1
        self.scopes.pop()

    def for_step(self, start: int, end: int) -> None:
        """The step of a `for (init; cond; step)`, tokens [start, end), translated at the current
        depth (after the body, and before each `continue` of it); the cursor stays put."""
        if start == end:  # `for (; cond;)`: no step
            return
        saved = self.i, self.end, self.statement_tok
        self.i, self.end = start, end
        self.statement_tok = self.peek()
        self.simple_update()
        if self.i != end:
            raise self.fail()
        self.i, self.end, self.statement_tok = saved

    def loop_body(self, step: tuple[int, int] | None) -> None:
        """A loop's body; `step`: what its `continue` runs first (`loop_steps`)."""
        self.breaks.append("loop")
        self.loop_steps.append(step)
        self.nested()
        self.loop_steps.pop()
        self.breaks.pop()

    def continue_statement(self, t: Token) -> None:
        """`continue;`: of a range-for, Python's; of a `for (init; cond; step)`, its step and then
        Python's `continue`, which tests the condition again, as C++ does after the step. A switch
        between it and its loop is an if/elif chain in Python, which `continue` leaves alike."""
        if not self.loop_steps:
            raise self.fail("continue outside a loop", t)
        self.next()
        self.expect(";")
        step = self.loop_steps[-1]
        if step is not None:
            self.for_step(*step)
        self.emit("continue")

    def switch_statement(self) -> None:
        """`switch (x) { case a: case b: ...; break; default: ... }` as an if/elif/else chain.
        Exact when no case runs on into the next one's statements, which is what is accepted:
        each case ends with `break` or `return` (the last one may just end), and no `break`
        comes before the end of its case."""
        switch_tok = self.expect("switch")
        self.expect("(")
        value = self.expression()
        self.expect(")")
        if value.type not in ("int", "dtype"):
            raise self.fail(f"a switch over {with_article(value.type)}", switch_tok)
        self.expect("{")
        if not (value.code.isidentifier() or value.code.lstrip("-").isdigit()):
            # evaluated once; `switch` is a C++ keyword, so no local translates to this name,
            # and a nested switch may reuse it: the chain compares no more once in a branch
            self.assign("v_switch", value)
            self.reads.add("v_switch")
            value = Expr("v_switch", value.type, unsigned=value.unsigned)
        self.scopes.append({})  # the switch's body is one C++ scope
        self.breaks.append("switch")
        keyword = "if "
        default: list[str | _Assign] | None = None
        while self.text() != "}":
            cond: Expr | None = None
            is_default = False
            while self.text() in ("case", "default"):
                label = self.next()
                if label[TEXT] == "default":
                    is_default = True
                else:
                    match = self.compare(value, "==", self.expression(), label)
                    cond = match if cond is None else self.logical(cond, "or", match, label)
                self.expect(":")
            if cond is None and not is_default:
                raise self.fail("a statement before the first case of a switch")
            start = len(self.lines)
            if not is_default:
                assert cond is not None
                self.emit_condition(keyword, cond)
                keyword = "elif "
            self.depth += 1
            body = len(self.lines)
            ended = self.case_body()
            if len(self.lines) == body and not is_default:
                self.emit("pass")
            self.depth -= 1
            if not ended and self.text() != "}":
                raise self.fail("a switch case that runs on into the next one", self.peek(),
                                hint="end the case with break; (or return)")
            if is_default:  # its lines go last, under `else:` (no case runs on into another)
                default = self.lines[start:] or None
                del self.lines[start:]
        self.next()
        if keyword == "if ":
            raise self.fail("a switch without a case", switch_tok)
        if default is not None:
            self.emit("else:")
            self.lines.extend(default)
        self.breaks.pop()
        self.scopes.pop()

    def case_body(self) -> bool:
        """The statements of a switch case, up to the next label or the switch's `}`; True when
        they end the case: with a `break` (consumed, nothing after it) or a `return`."""
        ended = False
        while self.text() not in ("case", "default", "}"):
            self.statement_tok = self.peek()
            if self.text() == "break":
                self.next()
                self.expect(";")
                ended = True
            elif self.text() == "{":
                self.next()
                self.scopes.append({})
                ended = self.case_body()
                self.expect("}")
                self.scopes.pop()
            else:
                ended = self.text() in ("return", "continue")  # (a `continue` leaves the switch too)
                self.statement()
                continue
            if ended and self.text() not in ("case", "default", "}"):
                raise self.fail("code after the break that ends a switch case")
        return ended

    def expression_statement(self) -> None:
        t = self.peek()
        if t is not None and t[TEXT] == self.ctx and self.text(1) == "->" and self.text(2) == "set_output":
            self.i += 3
            self.expect("(")
            index_tok = self.peek()
            index = self.convert(self.expression(), "int", index_tok)
            self.expect(",")
            shape = self.expression()
            if shape.type != "shape":
                raise self.fail("set_output of a " + shape.type, t)
            self.expect(")")
            self.expect(";")
            self.note_index("sets output", index, index_tok)
            self.emit_call("", _call("c.set_output(", [index, shape], "void"))
            return
        if t is not None and t[TEXT] == self.ctx:
            m = self.peek(2)
            if m is not None and m[TEXT] in _STATUS_METHODS:
                raise self.fail(f"an ignored status of {self.ctx}->{m[TEXT]}", m)
            if m is not None and m[KIND] == "id" and self.text(1) == "->":
                raise self.method_failure(m)  # the method it calls, not the context, is the construct
        self.simple_update()
        self.expect(";")

    def simple_update(self) -> None:
        """`x = e`, `x op= e`, `++x`, `x++`, `v.push_back(e)`."""
        t = self.next()
        if t[TEXT] in ("++", "--"):
            v = self.next()
            py, type_ = self.var(v)
            self.written(py, v)
            if type_ != "int":
                raise self.fail(f"{t[TEXT]} of {with_article(type_)}", t)
            self.step(py, t[TEXT][0])
            return
        py, type_ = self.var(t, read=self.text() != "=")
        self.written(py, t)
        int32 = py in self.int32_vars  # (an int32 or a vector of them)
        unsigned = py in self.unsigned_vars  # (a 64-bit unsigned int or a vector of them)
        if self.text() == "[" and type_.startswith("list_"):  # `v[i] = e`, `v[i] += e`
            self.next()
            index = self.convert(self.expression(), "int", t)
            self.expect("]")
            py, type_ = f"{py}[{index.code}]", type_[5:]
            if self.text() not in ("=", "+=", "-=", "*="):
                raise self.fail(tok=self.peek())
        op = self.next()
        if op[TEXT] in ("++", "--") and type_ == "int":
            self.step(py, op[TEXT][0])
        elif op[TEXT] == "=" and type_.startswith("list_") and self.text() == "{":
            self.next()
            self.assign(py, self.braced_vector(type_, int32, op))
        elif op[TEXT] == "=" and py.endswith("]"):  # an element: its list is read, so it is kept
            value = self.convert(self.expression(), type_, op)
            self.lines.extend(self.layout(self.depth, f"{py} = ", _as_int32(value) if int32 else value, op))
        elif op[TEXT] == "=":
            value = _owned(self.convert(self.expression(), type_, op))  # (a vector's copy is a list of its own)
            self.assign(py, _as_int32(value) if int32 else value)
        elif op[TEXT] in ("+=", "-=", "*=") and type_ == "int":
            value = self.convert(self.expression(), "int", op)
            if (int32 and not value.narrow) or unsigned:  # computed in 64 bits, then narrowed or wrapped
                pyop = op[TEXT][0]
                total = Expr(f"{py} {pyop} {_paren(value, _MUL + 1 if pyop == '*' else _ADD + 1)}", "int")
                self.emit_call(f"{py} = ", _as_int32(total) if int32 else _as_int64(total))
            else:
                self.emit(f"{py} {op[TEXT]} {value.code}")
        elif op[TEXT] == "." and type_.startswith("list_") and self.text() in ("push_back", "emplace_back"):
            self.next()
            self.expect("(")
            value = self.expression()
            if type_ == "list_dim" and value.type == "int":
                value = _call("c.make_dim(", [value], "dim")
            value = self.convert(value, type_[5:], op)
            self.expect(")")
            self.emit_call("", _call(f"{py}.append(", [_as_int32(value) if int32 else value], "void"))
        else:
            raise self.fail(tok=op)

    def step(self, py: str, pyop: str) -> None:
        """`++x` (`pyop` +) or `--x` (-) of an int local `py`; of a 64-bit unsigned one, wrapped
        into int64's range as C++ wraps it modulo 2**64."""
        if py in self.unsigned_vars:
            self.emit_call(f"{py} = ", _as_int64(Expr(f"{py} {pyop} 1", "int", _ADD)))
        else:
            self.emit(f"{py} {pyop}= 1")

    def var(self, t: Token, read: bool = True) -> tuple[str, str]:
        found = self.lookup(t[TEXT]) if t[KIND] == "id" else None
        if found is None:
            raise self.fail(tok=t)
        if read:
            self.reads.add(found[0])
        return found

    # expressions (C++ precedence climbing; Python parenthesized by its own precedences)
    def expression(self) -> Expr:
        cond = self.binary(1)
        if self.text() != "?":
            return cond
        q = self.next()
        cond = self.convert(cond, "bool", q)
        a = self.expression()
        self.expect(":")
        b = self.expression()
        if a.type != b.type:
            if {a.type, b.type} == {"int", "dim"}:
                a = a if a.type == "dim" else _call("c.make_dim(", [a], "dim")
                b = b if b.type == "dim" else _call("c.make_dim(", [b], "dim")
            else:
                raise self.fail("a conditional of two types", q)
        parts = (_paren(a, _TERNARY + 1), f"if {_paren(cond, _TERNARY + 1)}", f"else {_paren(b, _TERNARY)}")
        # (C++'s common type: a size_t when either is one, with the same bits)
        return Expr(" ".join(parts), a.type, _TERNARY, ternary=parts, narrow=a.narrow and b.narrow,
                    unsigned=a.unsigned or b.unsigned)

    def binary(self, min_prec: int) -> Expr:
        left = self.unary()
        while True:
            op = self.peek()
            spec = _CPP_BINARY.get(op[TEXT]) if op is not None and op[KIND] == "op" else None
            if spec is None or spec[0] < min_prec:
                return left
            self.next()
            right = self.binary(spec[0] + 1)
            left = self.combine(left, op, right, spec)  # type: ignore[arg-type]

    def combine(self, a: Expr, op: Token, b: Expr, spec: tuple[int, str, int]) -> Expr:
        _, pyop, prec = spec
        text = op[TEXT]
        if text in ("&&", "||"):
            return self.logical(a, pyop, b, op)
        if prec == _CMP:
            return self.compare(a, text, b, op)
        if {a.type, b.type} & {"float", "double"}:
            raise self.fail(f"floating-point arithmetic (`{text}` of a float)", op)
        a, b = self.convert(a, "int", op), self.convert(b, "int", op)
        unsigned = a.unsigned or b.unsigned
        narrow = a.narrow and b.narrow  # int32 arithmetic (whose overflow C++ leaves undefined)
        if text in ("/", "%"):  # C++ integer division truncates toward zero
            if unsigned:
                raise self.fail("dividing a size_t (a size() or an unsigned local)", op,
                                "cast it to a signed type first: static_cast<int64_t>(...)")
            name = "c.truncdiv(" if text == "/" else "c.truncmod("
            # 32-bit operands: INT32_MIN / -1 traps too (a literal divisor other than -1 cannot)
            bits = ["32"] if narrow and not (b.code.isdigit() and b.code != "1") else []
            return dataclasses.replace(_call(name, [a, b, *bits], "int"), narrow=narrow)
        result = Expr(f"{_paren(a, prec)} {pyop} {_paren(b, prec + 1)}", "int", prec, unsigned=unsigned, narrow=narrow)
        if unsigned and not (a.narrow and b.narrow):  # 64-bit operands: the result may leave int64's range
            return _as_int64(result)
        if unsigned and text == "*":  # of two 32-bit values, in int64's range but maybe not in 32 bits
            return dataclasses.replace(result, narrow=False)
        return result

    def logical(self, a: Expr, pyop: str, b: Expr, op: Token) -> Expr:
        """`a and b` / `a or b` (`pyop`), remembering the chain's operands for black's split."""
        prec = _AND if pyop == "and" else _OR
        a, b = self.convert(a, "bool", op), self.convert(b, "bool", op)
        left, right = _logic_operands(a, prec), _logic_operands(b, prec + 1)
        return Expr(f"{_paren(a, prec)} {pyop} {_paren(b, prec + 1)}", "bool", prec,
                    logic=(*left, f"{pyop} {right[0]}", *right[1:]))

    def compare(self, a: Expr, text: str, b: Expr, op: Token) -> Expr:
        """`a <text> b` for a C++ comparison operator `text` (at `op`), with C++'s conversions."""
        pyop = _CPP_BINARY[text][1]
        if {a.type, b.type} == {"tensor", "null"} and text in ("==", "!="):
            tensor = a if a.type == "tensor" else b
            return Expr(f"{tensor.code} {'is' if text == '==' else 'is not'} None", "bool", _CMP)
        if {a.type, b.type} & {"float", "double"}:
            a, b = self.float_operand(a, op), self.float_operand(b, op)
        if a.type != b.type or (a.type not in ("int", "bool", "float")
                                and not (a.type in ("str", "dtype") and text in ("==", "!="))):
            raise self.fail(f"comparing {with_article(a.type)} with {with_article(b.type)}", op)
        if a.unsigned or b.unsigned:  # C++ compares as size_t: -1 (an unknown rank) is its largest value
            a, b = _as_size_t(a), _as_size_t(b)
        return Expr(f"{_paren(a, _CMP + 1)} {pyop} {_paren(b, _CMP + 1)}", "bool", _CMP)

    def float_operand(self, e: Expr, op: Token) -> Expr:
        """A comparison operand beside a float or double: C++ compares them as doubles (a
        float converts exactly), as Python does; an int literal converts exactly too, other
        ints could round, so are refused."""
        if e.type in ("float", "double"):
            return Expr(e.code, "float", e.prec)
        if e.type == "int" and e.code.lstrip("-").isdigit() and abs(int(e.code)) <= _EXACT_IN_FLOAT:
            return Expr(e.code, "float", e.prec)
        raise self.fail(f"comparing a float with {with_article(e.type)}", op)

    def unary(self) -> Expr:
        t = self.peek()
        if t is not None and t[KIND] == "op" and t[TEXT] in ("!", "-", "+"):
            self.next()
            e = self.unary()
            if t[TEXT] == "!" and e.type == "tensor":
                return Expr(f"{_paren(e, _CMP + 1)} is None", "bool", _CMP)
            if t[TEXT] == "!":
                e = self.convert(e, "bool", t)
                if e.prec == _NOT and e.code.startswith("not "):  # `!v.empty()`: no `not not`
                    return Expr(f"bool({e.code[4:]})", "bool")
                return Expr(f"not {_paren(e, _NOT)}", "bool", _NOT)
            if e.type in ("float", "double") and t[TEXT] == "-" and _FLOAT_LITERAL.match(e.code):
                return Expr(repr(-float(e.code)), e.type, _UNARY)
            e = self.convert(e, "int", t)
            if t[TEXT] == "+":
                return e
            if e.code.isdigit():
                return Expr(f"-{e.code}", "int", _UNARY, narrow=e.narrow)
            negated = Expr(f"-{_paren(e, _UNARY)}", "int", _UNARY, narrow=e.narrow, unsigned=e.unsigned)
            # (a size_t negated is one too: -INT64_MIN's bits leave int64's range)
            return _as_int64(negated) if e.unsigned and not e.narrow else negated
        return self.postfix(self.primary())

    def postfix(self, e: Expr) -> Expr:
        while True:
            if self.text() == "[" and e.type.startswith("list_"):
                self.next()
                index = self.convert(self.expression(), "int", self.peek())
                self.expect("]")
                e = Expr(f"{e.code}[{index.code}]", e.type[5:], narrow=e.narrow, unsigned=e.unsigned)
            elif self.text() == "." and e.type.startswith("list_") and self.text(1) == "size" and self.text(2) == "(":
                self.i += 3
                self.expect(")")
                e = Expr(f"len({e.code})", "int", unsigned=True, narrow=True)  # no vector holds 2**31 items
            elif self.text() == "." and e.type.startswith("list_") and self.text(1) == "empty" and self.text(2) == "(":
                self.i += 3
                self.expect(")")
                e = Expr(f"not {e.code}", "bool", _NOT)
            elif self.text() == "." and e.type.startswith("list_") and self.text(1) in ("front", "back") \
                    and self.text(2) == "(":
                # of an empty vector, undefined in C++: the IndexError that v[0] raises too
                end = "0" if self.text(1) == "front" else "-1"
                self.i += 3
                self.expect(")")
                e = Expr(f"{e.code}[{end}]", e.type[5:], narrow=e.narrow, unsigned=e.unsigned)
            elif self.text() == "->" and e.type == "tensor":
                e = self.tensor_access(e)
            else:
                return e

    def tensor_access(self, e: Expr) -> Expr:
        """`t->scalar<int>()()`, `t->flat<int>()(i)` / `vec`, `t->NumElements()`, `t->dims()`
        of a constant input (integer values only; TF's accessors CHECK their type)."""
        self.next()
        m = self.next()
        if m[TEXT] in ("NumElements", "dims") and self.text() == "(" and self.text(1) == ")":
            self.i += 2
            size = _call("c.tensor_size(" if m[TEXT] == "NumElements" else "c.tensor_rank(", [e], "int")
            return dataclasses.replace(size, narrow=m[TEXT] == "dims")  # dims() is an int
        if m[TEXT] not in ("scalar", "flat", "vec") or self.text() != "<":
            raise self.fail(f"Tensor::{m[TEXT]}", m)
        self.next()
        if self.try_type(named=False) != "int":
            raise self.fail(f"Tensor::{m[TEXT]} of a non-integer type", m)
        self.expect(">")
        self.expect("(")
        self.expect(")")
        self.expect("(")
        if m[TEXT] == "scalar":
            self.expect(")")
            return _call("c.tensor_scalar(", [e], "int")
        index = self.convert(self.expression(), "int", m)
        self.expect(")")
        return _call("c.tensor_element(", [e, index], "int")

    def primary(self) -> Expr:
        t = self.peek()
        if t is None:
            raise self.fail()
        kind, text = t[KIND], t[TEXT]
        if text == "(":
            self.next()
            e = self.expression()
            self.expect(")")
            return e
        if kind == "num":
            value = parse_int_literal(text)
            if value is None:
                return self.float_literal(t)
            if value >= 1 << 63:
                raise self.fail(f"the number {text}", t)
            self.next()
            return Expr(str(value), "int", narrow=value < 1 << 31)
        if kind == "str":
            if not text.startswith('"'):
                raise self.fail("a prefixed string literal", t)
            parts = []
            while self.peek() is not None and self.peek()[KIND] == "str":  # type: ignore[index]
                s = self.next()
                if not s[TEXT].startswith('"'):
                    raise self.fail("a prefixed string literal", s)
                try:
                    parts.append(decode_escapes(s[TEXT][1:-1], s).decode("utf-8"))
                except (UnicodeDecodeError, OpgenError):  # not UTF-8, or a bad escape
                    raise self.fail("a string literal", s) from None
            return Expr(py_str("".join(parts)), "str")
        if text == "static_cast" and self.text(1) == "<":
            self.i += 2
            type_ = self.try_type(named=False)
            if type_ != "int":
                raise self.fail("static_cast", t)
            int32, unsigned = self.int32_type, self.unsigned_type
            self.expect(">")
            self.expect("(")
            e = self.convert(self.expression(), "int", t)
            self.expect(")")
            return dataclasses.replace(_as_int32(e) if int32 else e, unsigned=unsigned)
        if text == "nullptr":
            self.next()
            return Expr("None", "null")
        if text in ("true", "false"):
            self.next()
            return Expr("True" if text == "true" else "False", "bool")
        if kind == "id" and text == self.ctx:
            self.next()
            self.expect("->")
            m = self.next()
            spec = _VALUE_METHODS.get(m[TEXT])
            if spec is None:
                raise self.method_failure(m)
            self.expect("(")
            args: list[Expr] = []
            if m[TEXT] == "MakeShape" and self.text() == "{":
                self.next()
                dims = []
                while self.text() != "}":
                    dims.append(self.dim_or_constant(self.expression(), m))
                    if self.text() == ",":
                        self.next()
                self.next()
                self.expect(")")
                return _call("c.make_shape(", [_list_display(dims, "list_dim")], "shape")
            while self.text() != ")":
                args.append(self.expression())
                if self.text() == ",":
                    self.next()
                elif self.text() != ")":
                    raise self.fail()
            self.next()
            result = spec(self, args, m)
            if m[TEXT] in ("Rank", "num_inputs", "num_outputs"):  # C++ int32 results
                result = dataclasses.replace(result, narrow=True)
            if m[TEXT] in ("input", "output"):
                self.note_index(f"reads {m[TEXT]}", args[0], m)
            return result
        if kind == "id" or text == "::":
            found = self.lookup(text) if kind == "id" else None
            if found is not None:
                self.next()
                self.reads.add(found[0])
                return Expr(found[0], found[1], narrow=found[0] in self.int32_vars,
                            unsigned=found[0] in self.unsigned_vars)
            if kind == "id" and text in self.bound and self.text(1) != "::":  # (its local: `_body`)
                self.next()
                if self.constants is None:  # a constant expression (`_initializer`): the value itself
                    return self.bound[text]
                self.reads.add("v_" + text)
                return dataclasses.replace(self.bound[text], code="v_" + text, prec=20)
            start = self.i
            name, first = self.qualified()
            if name in ("max", "min", "abs") and "std" in (tok[TEXT] for tok in self.toks[start:self.i]):
                return self.std_math(name, first)
            if name in _NARROW_UNSIGNED_TYPES and self.text() in ("(", "{"):
                raise self.fail(f"{name}, an unsigned type narrower than 64 bits", first,
                                "its arithmetic wraps modulo 2**32 or promotes to int; name size_t or int64_t")
            if name in _INT_TYPES and self.text() in ("(", "{"):  # `int64_t{-1}`: a functional cast
                closer = ")" if self.next()[TEXT] == "(" else "}"
                e = self.convert(self.expression(), "int", first)
                self.expect(closer)
                unsigned = name in _UNSIGNED_TYPES
                return dataclasses.replace(_as_int32(e) if name in _INT32_TYPES else e, unsigned=unsigned)
            if name == "DimensionOrConstant" and self.text() == "(":  # what a context method takes anyway
                self.next()
                e = self.dim_or_constant(self.expression(), first)
                self.expect(")")
                return e
            if name in ("kUnknownDim", "InferenceContext::kUnknownDim"):
                return Expr("-1", "int", _UNARY)
            if name in ("kUnknownRank", "InferenceContext::kUnknownRank"):
                return Expr("-1", "int", _UNARY)
            dtype = _DTYPES.get(name.removeprefix("DataType::"))
            if dtype is not None:
                return Expr(str(dtype), "dtype")
            if name == "DataTypeString" and self.text() == "(":
                self.next()
                e = self.expression()
                self.expect(")")
                if e.type != "dtype":
                    raise self.fail(f"DataTypeString of {with_article(e.type)}", first)
                return _call("c.dtype_string(", [e], "str")
            constant = self.unit_constant(start, first) if self.text() not in ("(", "<", "{") else None
            if constant is None:
                raise self.fail(name, first)
            return constant
        raise self.fail(tok=t)

    def unit_constant(self, start: int, first: Token) -> Expr | None:
        """The value of the unit's constant (an enumerator, a const variable: `constants.py`) that
        the name at tokens[start:cursor] means where it is written; None when it names none."""
        written = "".join(t[TEXT] for t in self.toks[start : self.i])
        table = self.shared.constants
        try:
            qualified = table.find(written, start)
        except AmbiguousName as e:
            raise self.fail(f"{written}, which may name {' or '.join(e.candidates)}", first) from None
        if qualified is None:
            return None
        value = _constant(table, qualified, written, first)
        if self.constants is None:
            return value
        local = self.constants.get(qualified)
        if local is None:
            py = "k_" + qualified.rsplit("::", 1)[-1]
            if any(taken == py for taken, _ in self.constants.values()):  # (another namespace's of that name)
                return value
            self.constants[qualified] = local = (py, value)
        return dataclasses.replace(value, code=local[0], prec=20)

    def std_math(self, name: str, first: Token) -> Expr:
        """`std::max(a, b)`, `std::max<T>(a, b)`, `std::max({a, b, c})` (and `min`) of ints or of
        floats, and `std::abs(a)`: Python's built-ins, which pick the same operand C++'s do
        (`max` keeps the first unless a later one is greater, as `(a < b) ? b : a`; a NaN
        compares false either way)."""
        what = f"std::{name}"
        typed = int32 = False
        if self.text() == "<":
            self.next()
            if self.try_type(named=False) != "int" or self.unsigned_type:
                raise self.fail(f"{what} of a type other than a signed integer", first)
            int32 = self.int32_type
            self.expect(">")
            typed = True
        self.expect("(")
        braced = name != "abs" and self.text() == "{"
        if braced:
            self.next()
        args = []
        while True:
            args.append(self.expression())
            if self.text() != ",":
                break
            self.next()
        if braced:
            self.expect("}")
        self.expect(")")
        if len(args) != (1 if name == "abs" else 2) and not braced:
            raise self.fail(f"{what} of {len(args)} arguments", first)
        if typed:  # the arguments converted to the named type (to 32 bits: narrowed)
            args = [dataclasses.replace(self.convert(a, "int", first), unsigned=False) for a in args]
            args = [_as_int32(a) for a in args] if int32 else args
        types = {"float" if a.type == "double" else a.type for a in args}
        if len(types) != 1 or types.pop() not in ("int", "float"):
            raise self.fail(f"{what} of {' and '.join(sorted({with_article(a.type) for a in args}))}", first)
        if any(a.unsigned for a in args):  # a size_t: the value Python holds is its signed one
            raise self.fail(f"{what} of a size_t (a size())", first, hint=f"name a signed type: {what}<int64_t>(...)")
        return dataclasses.replace(_call(f"{name}(", args, args[0].type), narrow=all(a.narrow for a in args))

    def float_literal(self, t: Token) -> Expr:
        """A decimal floating literal: a double, or with `f` a float (rounded as the compiler
        does). Python floats are doubles: a float value is a double that float holds exactly."""
        self.next()
        text = t[TEXT].lower().replace("'", "")
        suffix = text[-1] if text[-1] in "fl" else ""
        try:
            value = float(text.removesuffix(suffix)) if not text.startswith("0x") else None
        except ValueError:
            value = None
        if value is None or value != value or value in (float("inf"), float("-inf")):
            raise self.fail(f"the number {t[TEXT]}", t)
        if suffix == "f":
            return Expr(repr(_to_float(value)), "float")
        return Expr(repr(value), "double")

    def dim_or_constant(self, e: Expr, tok: Token) -> Expr:
        """TF's DimensionOrConstant: a dimension, or an int (-1 meaning unknown)."""
        if e.type == "dim":
            return e
        if e.type == "int":
            return _call("c.make_dim(", [e], "dim")
        raise self.fail(f"{with_article(e.type)} used as a dimension", tok)


def _literal_str(code: str) -> str | None:
    """The value of a translated expression that is a string literal, else None."""
    try:
        value = ast.literal_eval(code)  # (evaluates literals only: code opgen wrote)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, str) else None


def _to_float(value: float) -> float:
    """`value` rounded to the nearest C++ float."""
    rounded: float = struct.unpack("<f", struct.pack("<f", value))[0]  # typed: unpack gives Any
    return rounded


def _args(p: _Parser, args: list[Expr], types: str, tok: Token) -> list[Expr]:
    """`args` checked against `types` (s=shape, d=dim, i=int, b=bool, t=string, a=PartialTensorShape,
    l=vector of shapes, D=dimension-or-constant)."""
    if len(args) != len(types):
        raise p.fail(f"{p.ctx}->{tok[TEXT]} with {len(args)} arguments", tok)
    out = []
    for a, t in zip(args, types):
        if t == "D":
            out.append(p.dim_or_constant(a, tok))
            continue
        want = {"s": "shape", "d": "dim", "i": "int", "b": "bool", "t": "str", "a": "attrshape", "l": "list_shape"}[t]
        out.append(p.convert(a, want, tok))
    return out


# A value method's translation: (parser, its arguments, the method's token) -> the Expr.
_ValueMethod = Callable[[_Parser, list[Expr], Token], Expr]
# A status method's translation: the call and the types of the values it sets.
_StatusMethod = Callable[[_Parser, list[Expr], Token], tuple[Expr, tuple[str, ...]]]


def _value(py: str, types: str, result: str) -> _ValueMethod:
    def build(p: _Parser, args: list[Expr], tok: Token) -> Expr:
        return _call(f"c.{py}(", _args(p, args, types, tok), result)
    return build


def _by_types(*variants: tuple[tuple[str, ...], str, str, tuple[str, ...]]) -> _StatusMethod:
    """A status method overloaded on its argument types: (arg types, python method, types spec, out types)."""
    def build(p: _Parser, args: list[Expr], tok: Token) -> tuple[Expr, tuple[str, ...]]:
        for arg_types, py, spec, outs in variants:
            if len(args) == len(arg_types) and all(a.type == t or t == "*" for a, t in zip(args, arg_types)):
                return _call(f"c.{py}(", _args(p, args, spec, tok), "void"), outs
        raise p.fail(f"{p.ctx}->{tok[TEXT]} with these arguments", tok)
    return build


def _dim_text(p: _Parser, args: list[Expr], tok: Token) -> Expr:
    if len(args) != 1 or args[0].type not in ("shape", "dim"):
        raise p.fail(f"{p.ctx}->DebugString with these arguments", tok)
    return _call("c.debug_string(" if args[0].type == "shape" else "c.dim_string(", args, "str")


_DIM_OR_INT = ("*", "*")
_VALUE_METHODS = {
    "input": _value("input", "i", "shape"),
    "output": _value("output", "i", "shape"),
    "Rank": _value("rank_value", "s", "int"),
    "RankKnown": _value("rank_known", "s", "bool"),
    "FullyDefined": _value("fully_defined", "s", "bool"),
    "Dim": _value("dim", "si", "dim"),
    "DimKnownRank": _value("dim", "si", "dim"),
    "NumElements": _value("num_elements", "s", "dim"),
    "Value": _value("dim_value", "D", "int"),
    "ValueKnown": _value("value_known", "d", "bool"),
    "Scalar": _value("scalar", "", "shape"),
    "UnknownShape": _value("unknown_shape", "", "shape"),
    "UnknownShapeOfRank": _value("unknown_shape_of_rank", "i", "shape"),
    "Vector": _value("vector", "D", "shape"),
    "Matrix": _value("matrix", "DD", "shape"),
    "UnknownDim": _value("unknown_dim", "", "dim"),
    "MakeDim": _value("make_dim", "i", "dim"),
    "DebugString": _dim_text,
    "input_tensor": _value("input_tensor", "i", "tensor"),
}


def _make_shape(p: _Parser, args: list[Expr], tok: Token) -> Expr:
    if len(args) == 1 and args[0].type == "list_dim":
        return _call("c.make_shape(", args, "shape")
    raise p.fail(f"{p.ctx}->MakeShape with these arguments", tok)


def _count(attribute: str) -> _ValueMethod:
    def build(p: _Parser, args: list[Expr], tok: Token) -> Expr:
        _args(p, args, "", tok)
        return Expr(f"c.{attribute}", "int")
    return build


_VALUE_METHODS["MakeShape"] = _make_shape
_VALUE_METHODS["num_inputs"] = _count("num_inputs")
_VALUE_METHODS["num_outputs"] = _count("num_outputs")

_STATUS_METHODS = {
    "WithRank": _by_types((("shape", "int"), "with_rank", "si", ("shape",))),
    "WithRankAtLeast": _by_types((("shape", "int"), "with_rank_at_least", "si", ("shape",))),
    "WithRankAtMost": _by_types((("shape", "int"), "with_rank_at_most", "si", ("shape",))),
    "WithValue": _by_types((("dim", "int"), "with_value", "di", ("dim",))),
    "Merge": _by_types((("shape", "shape"), "merge", "ss", ("shape",)),
                       (("dim", "dim"), "merge_dim", "dd", ("dim",))),
    "MergePrefix": _by_types((("shape", "shape"), "merge_prefix", "ss", ("shape", "shape"))),
    "Subshape": _by_types((("shape", "int"), "subshape", "si", ("shape",)),
                          (("shape", "int", "int"), "subshape", "sii", ("shape",))),
    "Concatenate": _by_types((("shape", "shape"), "concatenate", "ss", ("shape",))),
    "ReplaceDim": _by_types((("shape", "int", "dim"), "replace_dim", "sid", ("shape",))),
    "Add": _by_types((_DIM_OR_INT, "add", "DD", ("dim",))),
    "Subtract": _by_types((_DIM_OR_INT, "subtract", "DD", ("dim",))),
    "Multiply": _by_types((_DIM_OR_INT, "multiply", "DD", ("dim",))),
    "Divide": _by_types((("dim", "int", "bool"), "divide", "dib", ("dim",)),
                        (("dim", "dim", "bool"), "divide", "ddb", ("dim",))),
    "MakeShapeFromShapeTensor": _by_types((("int",), "make_shape_from_shape_tensor", "i", ("shape",))),
    "MakeShapeFromShapeTensorTreatScalarAsUnknownShape": lambda p, args, tok: (
        _call("c.make_shape_from_shape_tensor(", [*_args(p, args, "i", tok), "True"], "shape"), ("shape",)),
    # a PartialTensorShape attr is read as the ShapeHandle it makes
    "MakeShapeFromPartialTensorShape": lambda p, args, tok: (
        Expr(_args(p, args, "a", tok)[0].code, "shape"), ("shape",)),
    "GetAttr": None,  # handled by `status_call` (the out-param's type says the attr's)
    # the shapes of a named input or output arg (a list of any length), by its OpDef name
    "input": _by_types((("str",), "input_list", "t", ("list_shape",))),
    "output": _by_types((("str",), "output_list", "t", ("list_shape",))),
    "set_output": _by_types((("str", "list_shape"), "set_output_list", "tl", ())),
}


_PARAM_TYPES = {"int", "bool", "str", "float", "dtype", "shape", "dim", "attrshape"}

# The public methods of TF's InferenceContext (tensorflow/core/framework/shape_inference.h),
# translated or not: a call of another name is a typo, worth a "did you mean".
_CONTEXT_METHODS = frozenset({
    "Add", "Concatenate", "DebugString", "Dim", "DimKnownRank", "Divide", "ExpandOutputs", "FullyDefined",
    "GetAttr", "GetScalarFromTensor", "MakeDim", "MakeDimForScalarInput",
    "MakeDimForScalarInputWithNegativeIndexing", "MakeShape", "MakeShapeFromPartialTensorShape",
    "MakeShapeFromShapeProto", "MakeShapeFromShapeTensor", "MakeShapeFromShapeTensorTreatScalarAsUnknownShape",
    "MakeShapeFromTensor", "MakeShapeFromTensorShape", "Matrix", "Max", "Merge", "MergeInput",
    "MergeInputHandleShapesAndTypes", "MergeOutputHandleShapesAndTypes", "MergePrefix", "Min", "Multiply",
    "NumElements", "Rank", "RankKnown", "RelaxInput", "RelaxInputHandleShapesAndMergeTypes",
    "RelaxOutputHandleShapesAndMergeTypes", "ReplaceDim", "Scalar", "SetInput", "ShapeHandleToProto", "Subshape",
    "Subtract", "UnknownDim", "UnknownShape", "UnknownShapeOfRank", "Value", "ValueKnown", "Vector", "WithRank",
    "WithRankAtLeast", "WithRankAtMost", "WithValue", "construction_status", "graph_def_version", "input",
    "input_handle_shapes_and_types", "input_tensor", "input_tensors_as_shapes", "num_inputs", "num_outputs",
    "output", "output_handle_shapes_and_types", "request_input_tensor", "request_input_tensor_as_partial_shape",
    "requested_input_tensor", "requested_input_tensor_as_partial_shape", "ret_types",
    "set_input_handle_shapes_and_types", "set_input_tensors", "set_input_tensors_as_shapes", "set_output",
    "set_output_handle_shapes_and_types",
})


class _Param(NamedTuple):
    """A parameter of a project function after its context."""

    tok: Token  # its name
    type: str
    int32: bool  # a 32-bit int (or a vector of them): an argument is narrowed to it
    unsigned: bool = False  # a 64-bit unsigned int (or a vector of them)
    exact: str | None = None  # its C++ type, as `_Parser.exact_type` spells it
    reference: bool = False  # a const reference (else a value: a vector argument is copied)


def _params(tokens: Sequence[Token], i: int, constants: UnitConstants) -> tuple[str, list[_Param], int]:
    """`(InferenceContext* c[, more])` at i -> ("c", the others, index after `)`); the others
    are values or const references of the local types."""
    if tokens[i][TEXT] != "(":
        raise Untranslatable(tokens[i][TEXT], tokens[i])
    j = i + 1
    names = []
    while tokens[j][TEXT] not in ("*", ")"):
        names.append(tokens[j][TEXT])
        j += 1
    if [n for n in names if n not in ("::", "const")][-1:] != ["InferenceContext"] or tokens[j][TEXT] != "*":
        raise Untranslatable("a shape function whose parameter is not InferenceContext*", tokens[i])
    name = tokens[j + 1]
    if name[KIND] != "id" or not _IDENT.match(name[TEXT]) or tokens[j + 2][TEXT] not in (")", ","):
        raise Untranslatable("a shape function whose parameter is not InferenceContext*", name)
    j += 2
    params: list[_Param] = []
    while tokens[j][TEXT] == ",":
        p = _Parser(tokens, j + 1, len(tokens), name[TEXT], _Helpers(tokens, constants))
        const = p.text() == "const"
        type_ = p.try_type(named=False)
        reference = p.text() == "&" and const
        if reference:
            p.next()
        param = p.next()
        if type_ is not None and param[KIND] == "id" and p.text() == "=":
            raise Untranslatable("a parameter with a default argument", p.peek())
        if type_ is None or type_.removeprefix("list_") not in _PARAM_TYPES or param[KIND] != "id" \
                or not _IDENT.match(param[TEXT]) or p.text() not in (",", ")"):
            raise Untranslatable("a parameter of this type", tokens[j + 1])
        ints = type_ in ("int", "list_int")
        params.append(_Param(param, type_, p.int32_type and ints, p.unsigned_type and ints, p.exact_type, reference))
        j = p.i
    return name[TEXT], params, j + 1


def _translation(tokens: Sequence[Token], brace: int, ctx: str, constants: UnitConstants,
                 bound: Mapping[str, Expr] | None = None) -> Translation:
    """The shape function whose body's `{` is tokens[brace], with the project functions it
    calls nested at its top; `constants`: the unit's; `bound`: a function template's parameters' values."""
    helpers = _Helpers(tokens, constants)
    lines = _body(tokens, brace, ctx, helpers, bound=bound)
    return Translation((*helpers.lines, *lines), indices=tuple(helpers.indices), attrs=tuple(helpers.attrs))


def _body(tokens: Sequence[Token], i: int, ctx: str, helpers: _Helpers,
          params: Sequence[_Param] = (), depth: int = 1, bound: Mapping[str, Expr] | None = None) -> tuple[str, ...]:
    """The function body whose `{` is tokens[i], translated; `helpers`: the project
    functions translated so far; `bound`: a function template's parameters' values."""
    depth_ = 0
    for j in range(i, len(tokens)):
        depth_ += {"{": 1, "}": -1}.get(tokens[j][TEXT], 0) if tokens[j][KIND] == "op" else 0
        if depth_ == 0:
            break
    else:
        raise Untranslatable("an unclosed body", tokens[i])
    p = _Parser(tokens, i + 1, j + 1, ctx, helpers, depth, bound)
    p.constants = {}
    for param in params:
        py = p.declare(param.tok, param.type, param.unsigned, param.exact)
        if param.int32:
            p.int32_vars.add(py)
    p.block_body()
    lines = p.finished_lines()
    indent = "    " * depth
    if lines and lines[-1] == indent + "return":  # falling off the end does the same
        lines.pop()
    # The template parameters and constants it reads, as locals (`v_N = 2`, `k_kRank = 3`): a
    # comparison of two literals is one mypy --strict and linters reject (`if 2 == 3:`).
    lines[:0] = [*(f"{indent}v_{name} = {value.code}" for name, value in p.bound.items() if f"v_{name}" in p.reads),
                 *(f"{indent}{py} = {value.code}" for py, value in p.constants.values())]
    return tuple(lines or [indent + "pass"])


def _token_in_its_line(tok: Token) -> str:
    """A token the translation stops at, quoted with its source line (a bare `;` or `.` says
    little): `` `.` in `if (dims.back() > 2) {` ``."""
    text = tok[SRC].text
    start = text.rfind("\n", 0, tok[POS]) + 1
    end = text.find("\n", tok[POS])
    line = text[start : end if end >= 0 else len(text)]
    comment = line.find("//", tok[POS] - start)
    line = " ".join((line if comment < 0 else line[:comment]).split())
    if line == tok[TEXT] or len(line) > 80:
        return tok[TEXT]
    return f"`{tok[TEXT]}` in `{line}`"


class _Helpers:
    """The project functions a shape function calls (`SplitShape(c, 1)`), each translated
    once, on first use, as a nested function at the top of the translation: `def f_Name(c, ...)`;
    with the unit's constants they read (`constants`)."""

    def __init__(self, tokens: Sequence[Token], constants: UnitConstants):
        self.tokens = tokens
        self.constants = constants
        # By name and signature (`_Function.signature`): (Python name, parameters after the context)
        self.found: dict[tuple[str, tuple[str, ...]], tuple[str, tuple[_Param, ...]]] = {}
        self.active: set[tuple[str, tuple[str, ...]]] = set()
        self.lines: list[str] = []
        self.indices: list[tuple[str, int, Location]] = []  # Translation.indices
        self.attrs: list[tuple[str, Location]] = []  # Translation.attrs

    def helper(self, caller: _Parser, name: str, tok: Token,
               arg_types: Sequence[str | None]) -> tuple[str, tuple[_Param, ...]]:
        """(Python name, parameters after the context) of the function `name` called with
        arguments of the C++ types `arg_types` (after the context; None: not known exactly);
        a qualified name (`util::RequireMatrix`) is found by its last name, as an unqualified
        one is: the unit's `Status RequireMatrix(` whatever namespace holds it. Of an
        overloaded name, the overload C++ calls (`_overload`), else a located refusal."""
        name = name.rsplit("::", 1)[-1].strip()
        functions = _functions(self.tokens, name, self.constants) if _IDENT.match(name) else []
        if not functions:
            raise caller.fail(name, tok)
        if len(functions) == 1 and functions[0].template:  # (its template arguments deduced: not modelled)
            raise caller.fail(f"a call of the function template {name}", tok)
        namespaces = sorted({f.namespace for f in functions})
        if len(namespaces) > 1:  # (which of them C++'s name lookup finds from the call is not modelled)
            listed = ", ".join("::".join(n) or "the global namespace" for n in namespaces)
            raise caller.fail(f"{name}, a function of {len(namespaces)} namespaces ({listed}): opgen does not tell "
                              "which one the call names", tok, "give the functions different names")
        function = functions[0] if len(functions) == 1 else _overload(functions, arg_types)
        if function is None:
            listed = ", ".join(_written(self.tokens, f.at[-1], tok) for f in functions)
            raise caller.fail(f"a call of {name}, which is overloaded ({listed}): opgen picks an overload only when "
                              "one has exactly the arguments' C++ types", tok,
                              "give the overloads different names, or pass arguments of the types of one "
                              "(static_cast<int64_t>(...), a local of that type)")
        key = (name, function.signature)
        if key in self.found:
            return self.found[key]
        if key in self.active:
            raise caller.fail(f"a recursive call of {name}", tok)
        if len(self.active) >= _MAX_CALL_DEPTH:  # each level is a nested def in the translation and a deeper recursion
            raise caller.fail(f"project functions calling each other more than {_MAX_CALL_DEPTH} deep", tok)
        bodies = [i for i in function.at if _text_at(self.tokens, _after_parameters(self.tokens, i + 1)) == "{"]
        if not bodies:
            raise caller.fail(name, tok)
        if len(bodies) > 1:  # (one a class's member, say)
            raise caller.fail(f"{name}, defined {len(bodies)} times: opgen does not tell which one the call names", tok)
        ctx, params, body = _params(self.tokens, bodies[0] + 1, self.constants)
        self.active.add(key)
        lines = _body(self.tokens, body, ctx, self, params, depth=2)
        self.active.discard(key)
        py = "f_" + name if len(functions) == 1 else f"f_{name}_{functions.index(function) + 1}"
        while any(py == taken for taken, _ in self.found.values()):  # (`f_F_2` of the overload F and of F_2)
            py += "_"
        # typed for `mypy --strict` over generated modules: the context, and Any for values
        # (ints, shape and dimension handles, attr values: the runtime's own types)
        args = ["c: _api_types.InferenceContext", *(f"v_{param.tok[TEXT]}: Any" for param in params)]
        head = Bracketed(f"def {py}(", tuple(args), ") -> None:", is_def=True)
        self.lines += [*("    " + layout(head, "    ")).split("\n"), *lines, ""]
        self.found[key] = (py, tuple(params))
        return self.found[key]


def _text_at(tokens: Sequence[Token], i: int) -> str:
    """The text of tokens[i], "" past the end."""
    return tokens[i][TEXT] if i < len(tokens) else ""


class _Function(NamedTuple):
    """A function of the unit returning a Status: its declarations and its definition, which
    share its parameters' types."""

    namespace: tuple[str, ...]  # the namespace declaring it (`Namespaces.at`)
    template: bool  # a function template (never translated from a call: `helper`)
    signature: tuple[str, ...]  # its parameters' types (`_param_type`), the context's first
    fewest: int  # the fewest arguments a call passes (the parameters before a default argument)
    most: int | None  # the most (None: after a `...`, any number)
    at: tuple[int, ...]  # the indices of its names in the tokens, in order


def _functions(tokens: Sequence[Token], name: str, constants: UnitConstants) -> list[_Function]:
    """The functions `Status name(...)` of the tokens, one per namespace and distinct signature
    (C++'s overloads, a function template of that name, another namespace's functions), in the
    order of their first declarations."""
    found: dict[tuple[tuple[str, ...], bool, tuple[str, ...]], _Function] = {}
    namespaces = constants.namespaces
    for i in _status_functions(tokens).get(name, ()):
        close = _after_parameters(tokens, i + 1) - 1
        types: list[str] = []
        fewest: int | None = None
        most: int | None = 0
        for a, b in _items(tokens, i + 2, close):
            eq = next((k for k in range(a, b) if tokens[k][TEXT] == "="), b)
            if eq < b and fewest is None:
                fewest = len(types)
            if tokens[a][TEXT] == "..." and b == a + 1:
                most = None
                continue
            types.append(_param_type(tokens, a, eq, constants))
        if types == ["void"]:
            types = []
        if most is not None:
            most = len(types)
        key = (namespaces.at(i), _template_head(tokens, i) is not None, tuple(types))
        known = found.get(key)
        if known is None:
            found[key] = _Function(*key, len(types) if fewest is None else fewest, most, (i,))
        else:  # (a default argument given by either declaration holds for the function)
            found[key] = known._replace(fewest=min(known.fewest, len(types) if fewest is None else fewest),
                                        at=(*known.at, i))
    return list(found.values())


def _param_type(tokens: Sequence[Token], start: int, end: int, constants: UnitConstants) -> str:
    """The type of the parameter tokens[start:end] (its default argument left out), its name
    and any top-level `const` dropped: `int64_t` for `const int64 n`, `const vector<int64_t>&`;
    a type opgen does not read, as written (its namespaces dropped: `InferenceContext *`)."""
    words = [t[TEXT] for t in tokens[start:end]]
    p = _Parser(tokens, start, end, "", _Helpers(tokens, constants))
    try:
        known = p.try_type(named=False) is not None and p.exact_type is not None
    except Untranslatable:  # (a narrow unsigned type)
        known = False
    if known:
        suffix = p.next()[TEXT] if p.text() in ("&", "&&", "*") else ""
        if p.i == end or (p.i == end - 1 and tokens[p.i][KIND] == "id"):
            return ("const " if suffix and "const" in words else "") + f"{p.exact_type}{suffix}"
    if len(words) > 1 and tokens[end - 1][KIND] == "id" and words[-1] not in (*_INT_KEYWORDS, "const") \
            and words[-2] != "::":
        words.pop()  # its name
    if not {"&", "&&", "*"} & set(words):
        words = [w for w in words if w != "const"]
    kept: list[str] = []
    for k, w in enumerate(words):
        if (w == "::" and (not kept or words[k - 1] in _NAMESPACES)) \
                or (w in _NAMESPACES and words[k + 1 : k + 2] == ["::"]):
            continue
        kept.append(_SAME_TYPES.get(w, w))
    return " ".join(kept)


_CONTEXT_PARAM = "InferenceContext *"


def _overload(functions: Sequence[_Function], arg_types: Sequence[str | None]) -> _Function | None:
    """The function of `functions` (a name's overloads) that C++ calls with the context and
    arguments of the C++ types `arg_types` (None: not known exactly), when opgen can tell:
    the only one taking that many arguments, or the only one whose parameters are exactly
    the arguments' types (then each other differs from it in the type of an argument, which
    needs a conversion there that this one does not: C++ [over.match.best]); else None."""
    count = len(arg_types) + 1
    viable = [f for f in functions if f.fewest <= count and (f.most is None or count <= f.most)]
    if len(viable) == 1:
        return None if viable[0].template else viable[0]
    if any(t is None for t in arg_types):
        return None
    wanted = (_CONTEXT_PARAM, *arg_types)
    exact = [f for f in viable if not f.template and len(f.signature) >= count
             and all(_bound_type(param) == arg for param, arg in zip(f.signature, wanted))]
    return exact[0] if len(exact) == 1 else None


def _bound_type(param: str) -> str:
    """The type of the arguments a parameter of type `param` takes without a conversion: a
    const reference's (`const T&`: T), a value's."""
    if param.startswith("const ") and param.endswith("&") and not param.endswith("&&"):
        return param[len("const ") : -1]
    return param


def _written(tokens: Sequence[Token], i: int, near: Token) -> str:
    """The declaration whose name is tokens[i] as written (`F(InferenceContext* c, bool b)`), and
    where: its line (in `near`'s file), else its file and line."""
    text = _text(tokens, i, _after_parameters(tokens, i + 1))
    loc = tokens[i][SRC].location(tokens[i][POS])
    return f"{text} at line {loc.line}" if tokens[i][SRC] is near[SRC] else f"{text} at {loc.path}:{loc.line}"


_indexed: list[tuple[Sequence[Token], dict[str, list[int]]]] = []  # the last token list's index


def _status_functions(tokens: Sequence[Token]) -> dict[str, list[int]]:
    """Where each `Status Name(` of the tokens stands, by name: one pass over a translation
    unit, kept for the next lookup in it (gathering translates each of its shape functions, and
    each of those looks up the functions it calls)."""
    if _indexed and _indexed[0][0] is tokens:
        return _indexed[0][1]
    found: dict[str, list[int]] = {}
    for i in range(1, len(tokens) - 1):
        if tokens[i][KIND] == "id" and tokens[i + 1][TEXT] == "(" and tokens[i - 1][TEXT] == "Status":
            found.setdefault(tokens[i][TEXT], []).append(i)
    _indexed[:] = [(tokens, found)]
    return found


_using_scanned: list[tuple[Sequence[Token], bool]] = []  # the last token list's `_uses_errors`


def _uses_errors(tokens: Sequence[Token]) -> bool:
    """The unit brings TF's `errors::InvalidArgument` in unqualified: `using
    [::][tensorflow::|tsl::]errors::InvalidArgument;` or `using namespace ...errors;` somewhere
    (g++ compiled the unqualified call, so it names what the using names). Kept for the next
    shape function of the same unit, as `_status_functions` is."""
    if _using_scanned and _using_scanned[0][0] is tokens:
        return _using_scanned[0][1]
    found = False
    for i, t in enumerate(tokens):
        if t[TEXT] != "using" or t[KIND] != "id":
            continue
        words = []
        for tok in tokens[i + 1 : i + 12]:
            if tok[TEXT] == ";":
                break
            if tok[TEXT] != "::":
                words.append(tok[TEXT])
        if words[:1] == ["namespace"]:
            words = [*words[1:], "InvalidArgument"]  # the namespace's function, as a declaration names it
        if words[-2:] == ["errors", "InvalidArgument"] and words[:-2] in ([], ["tensorflow"], ["tsl"]):
            found = True
            break
    _using_scanned[:] = [(tokens, found)]
    return found


def _located(e: Untranslatable) -> Translation:
    loc = e.tok[SRC].location(e.tok[END] if e.after else e.tok[POS]) if e.tok is not None else None
    return Translation(None, f"shape function not translated: {e.construct}", loc, e.hint)


def translate_lambda(tokens: Sequence[Token], start: int, namespaces: Namespaces | None = None) -> Translation:
    """The lambda `[...](InferenceContext* c) [-> Status] { ... }` at tokens[start];
    `namespaces`: the unit's (`Namespaces`, walked for its constants when none is given)."""
    constants = unit_constants(namespaces or Namespaces(tokens))
    try:
        i = start
        if tokens[i][TEXT] != "[":
            raise Untranslatable(tokens[i][TEXT], tokens[i])
        while tokens[i][TEXT] != "]":
            i += 1
        if i != start + 1:
            raise Untranslatable("a lambda with captures", tokens[start])
        ctx, params, i = _params(tokens, i + 1, constants)
        if params:
            raise Untranslatable("a shape function with parameters after InferenceContext*", tokens[start])
        if tokens[i][TEXT] == "->":
            i += 1
            while tokens[i][TEXT] != "{":
                i += 1
        if tokens[i][TEXT] != "{":
            raise Untranslatable(tokens[i][TEXT], tokens[i])
        return _translation(tokens, i, ctx, constants)
    except Untranslatable as e:
        return _located(e)
    except IndexError:
        return _located(Untranslatable("an incomplete lambda", tokens[start]))
    except RecursionError:
        return _located(Untranslatable(_TOO_DEEP, tokens[start]))


def translate_function(tokens: Sequence[Token], name_index: int, constants: UnitConstants,
                       bound: Mapping[str, Expr] | None = None) -> Translation | None:
    """The definition `Status Name(InferenceContext* c) { ... }` whose name is
    tokens[name_index] (or the `>` ending an explicit specialization's `Name<...>`); None for
    a declaration (no body). `constants`: the unit's; `bound`: a function template's
    parameters' values, by name."""
    try:
        ctx, params, i = _params(tokens, name_index + 1, constants)
        if params:
            raise Untranslatable("a shape function with parameters after InferenceContext*", tokens[name_index])
        if tokens[i][TEXT] == ";":
            return None
        if tokens[i][TEXT] != "{":
            raise Untranslatable(tokens[i][TEXT], tokens[i])
        return _translation(tokens, i, ctx, constants, bound)
    except Untranslatable as e:
        return _located(e)
    except IndexError:
        return _located(Untranslatable("an incomplete function", tokens[name_index]))
    except RecursionError:
        return _located(Untranslatable(_TOO_DEEP, tokens[name_index]))


# Words a function template's return type may have between its `template <...>` and its name
_RETURN_TYPE_WORDS = frozenset(("Status", "tensorflow", "absl", "tsl", "static", "inline", "constexpr", "::"))


def _fold(code: str) -> int | None:
    """The value of a translated integer expression of literals, `+`, `-` and `*` only (where
    Python computes what C++ does: no division, no narrowing call), within int64's range."""
    def value(node: ast.expr) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = value(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = value(node.left), value(node.right)
            return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) else a * b
        raise ValueError(code)

    try:
        result = value(ast.parse(code, mode="eval").body)
    except (SyntaxError, ValueError):
        return None
    return result if -(1 << 63) <= result < 1 << 63 else None


def _literal(e: Expr) -> Expr | None:
    """`e` as a literal of its type (an int expression of literals folded), or None when its
    value is not known before the shape function runs."""
    if e.type == "int":
        v = _fold(e.code)
        return None if v is None else Expr(str(v), "int", 20 if v >= 0 else _UNARY, narrow=-(1 << 31) <= v < 1 << 31)
    if (e.type == "bool" and e.code in ("True", "False")) or (e.type == "dtype" and e.code.isdigit()) \
            or (e.type == "str" and _literal_str(e.code) is not None) \
            or (e.type == "float" and _FLOAT_LITERAL.match(e.code)):
        return e
    return None


# A float literal as the translator writes one (`0.5f` -> `0.5`, `1e-3`)
_FLOAT_LITERAL = re.compile(r"-?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?\Z")


def _typed(e: Expr, type_: str, int32: bool = False, unsigned: bool = False) -> Expr | None:
    """The literal `e` converted to a constant of `type_` as C++ converts a constant expression
    (a template argument, a constant's initializer) without narrowing; None when it is not
    (out of a 32-bit or unsigned type's range, or another type)."""
    if type_ == "int" and e.type == "bool":
        e = Expr("1" if e.code == "True" else "0", "int", narrow=True)
    if type_ == "bool" and e.type == "int" and e.code in ("0", "1"):
        return Expr("True" if e.code == "1" else "False", "bool")
    if e.type != type_:
        return None
    if type_ == "int":
        v = int(e.code)
        if (int32 and not -(1 << 31) <= v < 1 << 31) or (unsigned and v < 0):
            return None
        return dataclasses.replace(e, unsigned=unsigned)
    return e


def _constant(table: UnitConstants, qualified: str, written: str, tok: Token) -> Expr:
    """The value of the unit's constant `qualified`, written `written` at `tok`: a literal, computed
    once; a located refusal (at `tok`) saying why when opgen does not compute it."""
    known = table.values.get(qualified)
    if isinstance(known, Expr):
        return known
    if isinstance(known, str):
        raise Untranslatable(f"the constant {written}: {known}", tok)
    if qualified in table.reading:
        raise Untranslatable(f"the constant {written}: defined by itself", tok)
    table.reading.add(qualified)
    try:
        value = _declared_value(table, qualified)
    except Untranslatable as e:
        table.values[qualified] = e.construct
        raise Untranslatable(f"the constant {written}: {e.construct}", tok) from None
    finally:
        table.reading.discard(qualified)
    table.values[qualified] = value
    return value


def _declared_value(table: UnitConstants, qualified: str) -> Expr:
    """The value of a `const`/`constexpr` variable of an integer type, `bool`, `DataType` or a
    string type, from its initializer; of an enumerator, from its own or as its predecessor's
    plus 1 (counted back to the last initializer, without recursion), 0 for the first."""
    toks = table.tokens
    declared = table.declared[qualified]
    if declared.type is not None:
        a, b = declared.type
        if not {"const", "constexpr"} & {t[TEXT] for t in toks[a:b]}:
            raise Untranslatable("a variable, not const", None)
        p = _Parser(toks, a, b, "", _Helpers(toks, table))
        type_ = p.try_type(named=False)
        if type_ not in ("int", "bool", "dtype", "str") or p.i != b:
            raise Untranslatable("a constant of a type opgen does not read", None)
        assert declared.value is not None  # (a variable's `=` has one)
        value = _typed(_initializer(toks, *declared.value, table), type_, p.int32_type, p.unsigned_type)
        if value is None:
            raise Untranslatable(f"a value out of its type's range: {_text(toks, *declared.value)}", None)
        return value
    steps = 0
    while declared.value is None and declared.previous is not None:
        steps += 1
        known = table.values.get(declared.previous)
        if isinstance(known, Expr):
            return _typed_int(int(known.code) + steps)
        declared = table.declared[declared.previous]
    if declared.value is None:
        return _typed_int(steps)
    value = _typed(_initializer(toks, *declared.value, table), "int")
    if value is None:
        raise Untranslatable(f"an enumerator whose value is no integer: {_text(toks, *declared.value)}", None)
    return _typed_int(int(value.code) + steps)


def _typed_int(v: int) -> Expr:
    e = _literal(Expr(str(v), "int"))
    if e is None:
        raise Untranslatable(f"an enumerator of the value {v}, out of int64's range", None)
    return e


def _text(tokens: Sequence[Token], start: int, end: int) -> str:
    """The source text of tokens[start:end], its spaces collapsed (`k2 + 1`, `ns::k2`); their
    texts joined by spaces where they do not stand in one file (from a macro's expansion)."""
    first, last = tokens[start], tokens[end - 1]
    if first[SRC] is last[SRC] and first[POS] <= last[POS] and all(t[SRC] is first[SRC] for t in tokens[start:end]):
        return " ".join(first[SRC].text[first[POS] : last[END]].split())
    return " ".join(t[TEXT] for t in tokens[start:end])


def _initializer(tokens: Sequence[Token], start: int, end: int, constants: UnitConstants,
                 bound: Mapping[str, Expr] | None = None) -> Expr:
    """The literal value of the expression tokens[start:end] (a constant's initializer, a
    template argument, a static constant's in a function template's instantiation: `bound`),
    read as the translator reads expressions (names of the unit's constants, `DT_FLOAT`, ...);
    a refusal naming it when its value is not known before run time."""
    p = _Parser(tokens, start, end, "", _Helpers(tokens, constants), bound=bound)
    try:
        e = p.expression()
        if p.i != end:
            raise p.fail()
    except Untranslatable as refused:
        if refused.construct.startswith("the constant "):  # (why that constant has no value)
            raise
        text = _text(tokens, start, end)
        if all(t[KIND] == "id" or t[TEXT] == "::" for t in tokens[start:end]):
            if " " in refused.construct:  # (why the name has no value: `k, which may name a::k or b::k`)
                raise
            raise Untranslatable(f"{text}, which names no constant opgen reads (an enumerator, a const variable "
                                 "of the translation unit)", tokens[start]) from None
        raise Untranslatable(f"`{text}`, which opgen does not compute", refused.tok) from None
    value = _literal(e)
    if value is None:
        raise Untranslatable(f"`{_text(tokens, start, end)}`, which opgen does not compute", tokens[start])
    return value


def _items(tokens: Sequence[Token], start: int, end: int) -> list[tuple[int, int]]:
    """The comma-separated items of tokens[start:end], outside brackets (a template's
    parameters or arguments): their (start, end)."""
    items = []
    depth = 0
    first = start
    for k in range(start, end):
        text = tokens[k][TEXT]
        depth += {"(": 1, "[": 1, "{": 1, "<": 1, ")": -1, "]": -1, "}": -1, ">": -1, ">>": -2}.get(text, 0)
        if text == "," and depth == 0:
            items.append((first, k))
            first = k + 1
    if first < end:
        items.append((first, end))
    return items


class _TemplateArgument(NamedTuple):
    value: Expr  # a literal
    tok: Token  # where it is written
    text: str


@dataclass(frozen=True)
class TemplateArguments:
    """The template arguments a `SetShapeFn(F<k2, true>)` instantiates a function template with,
    each resolved where it is written (`template_arguments`)."""

    at: Token  # the `<`
    values: tuple[_TemplateArgument, ...]


def template_arguments(tokens: Sequence[Token], less: int, greater: int,
                       namespaces: Namespaces | None = None) -> TemplateArguments | Translation:
    """The arguments between tokens[less] (`<`) and tokens[greater] (`>`) of a template-id: each
    a literal, or a constant of the unit (an enumerator, a const variable; `namespaces`: the
    unit's, as `translate_lambda` takes it), or an expression of them that the translator
    folds; else a located refusal."""
    constants = unit_constants(namespaces or Namespaces(tokens))
    try:
        values = []
        for a, b in _items(tokens, less + 1, greater):
            try:
                value = _initializer(tokens, a, b, constants)
            except Untranslatable as e:
                if e.construct.startswith("the constant "):
                    raise
                raise Untranslatable(f"the template argument {e.construct}", e.tok or tokens[a]) from None
            values.append(_TemplateArgument(value, tokens[a], _text(tokens, a, b)))
        return TemplateArguments(tokens[less], tuple(values))
    except Untranslatable as e:
        return _located(e)
    except RecursionError:
        return _located(Untranslatable(_TOO_DEEP, tokens[less]))


class _TemplateParam(NamedTuple):
    """A function template's non-type parameter."""

    name: str | None  # None: unnamed
    written: str  # its declaration (`SpatialDims d`), for messages
    type: str  # int (an enum's too), bool or dtype
    int32: bool  # of a 32-bit integer type: an argument must fit it
    unsigned: bool  # of a 64-bit unsigned type
    default: tuple[int, int] | None  # its default argument's tokens


def _template_head(tokens: Sequence[Token], name_index: int) -> int | None:
    """The index of the `<` of the `template <...>` heading the function whose name is
    tokens[name_index] (returning `[::tensorflow::]Status`); None for a function that is no template."""
    j = name_index - 1
    while j >= 0 and tokens[j][TEXT] in _RETURN_TYPE_WORDS:
        j -= 1
    if j < 0 or tokens[j][TEXT] not in (">", ">>"):
        return None
    depth = 0
    while j >= 0:
        depth += {">": 1, ">>": 2, "<": -1}.get(tokens[j][TEXT], 0)
        if depth <= 0:
            break
        j -= 1
    return j if j >= 1 and depth == 0 and tokens[j - 1][TEXT] == "template" else None


def _template_params(tokens: Sequence[Token], less: int, constants: UnitConstants) -> tuple[_TemplateParam, ...]:
    """The parameters of `template <...>` whose `<` is tokens[less]: non-type ones of an integer
    type, an enum of the unit, `bool` or `DataType`; another kind is refused where it stands."""
    depth = 0
    greater = less
    for greater in range(less, len(tokens)):
        depth += {"<": 1, ">": -1, ">>": -2}.get(tokens[greater][TEXT], 0)
        if depth <= 0:
            break
    params = []
    for a, b in _items(tokens, less + 1, greater):
        first = tokens[a]
        if first[TEXT] in ("typename", "class"):
            raise Untranslatable("a function template with a type parameter", first)
        if first[TEXT] == "template":
            raise Untranslatable("a function template with a template template parameter", first)
        eq = next((k for k in range(a, b) if tokens[k][TEXT] == "="), b)
        if any(t[TEXT] == "..." for t in tokens[a:eq]):
            raise Untranslatable("a function template with a parameter pack", first)
        p = _Parser(tokens, a, eq, "", _Helpers(tokens, constants))
        type_ = p.try_type(named=False)
        int32, unsigned = p.int32_type and type_ == "int", p.unsigned_type and type_ == "int"
        if type_ is None and (first[KIND] == "id" or first[TEXT] == "::"):  # an enum's name?
            p.qualified()
            written = _text(tokens, a, p.i)
            try:
                type_ = "int" if constants.find_enum(written, a) else None
            except AmbiguousName:
                type_ = None
        written = _text(tokens, a, eq)
        if type_ not in ("int", "bool", "dtype"):
            raise Untranslatable(f"a template parameter of a type opgen does not bind: `{written}`", first)
        name = None
        if p.i < eq:
            t = p.next()
            if t[KIND] != "id" or p.i != eq or not _IDENT.match(t[TEXT]):
                raise Untranslatable(f"a template parameter of a type opgen does not bind: `{written}`", first)
            name = t[TEXT]
        params.append(_TemplateParam(name, written, type_, int32, unsigned, (eq + 1, b) if eq < b else None))
    return tuple(params)


def _after_parameters(tokens: Sequence[Token], paren: int) -> int:
    """The index after the `)` closing the `(` at tokens[paren] (the end when none does)."""
    depth = 0
    for k in range(paren, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[k][TEXT], 0)
        if depth == 0:
            return k + 1
    return len(tokens)


class ShapeFnTemplate:
    """A function template defined in a unit, `template <SpatialDims d> Status F(InferenceContext*
    c) { ... }`: `instantiate` translates it with its non-type parameters bound to the values of a
    `SetShapeFn(F<k2>)`'s template arguments (literals in the Python), once per distinct
    instantiation; an explicit specialization `template <> Status F<k3>(...) { ... }` of the unit
    is translated instead for its arguments."""

    def __init__(self, tokens: Sequence[Token], name_index: int, less: int, namespaces: Namespaces):
        self.tokens = tokens
        self.name_index = name_index
        self.less = less
        self.namespaces = namespaces  # the unit's (instantiated by another unit's SetShapeFn after it too)
        self._instances: dict[tuple[str, ...], Translation] = {}

    @property
    def _constants(self) -> UnitConstants:
        # (asked again at each use: the one kept for the unit, whose values its other
        # translations computed, while it is the unit being translated)
        return unit_constants(self.namespaces)

    def instantiate(self, args: TemplateArguments | Translation) -> Translation:
        """The instantiation for `args`; a refusal of them (`template_arguments`) once the
        template itself is one opgen instantiates (a type parameter says more than its argument)."""
        try:
            params = self._params()
            if isinstance(args, Translation):
                return args
            values = self._bind(params, args)
            key = tuple(v.code for v in values)
            if key not in self._instances:
                self._instances[key] = self._translate(params, values)
            return self._instances[key]
        except Untranslatable as e:
            return _located(e)
        except RecursionError:
            return _located(Untranslatable(_TOO_DEEP, self.tokens[self.name_index]))

    def _params(self) -> tuple[_TemplateParam, ...]:
        """The template's parameters, with the default arguments its other declarations give
        (C++ merges them; a definition after a declaration with a default may not repeat it)."""
        tokens = self.tokens
        params = _template_params(tokens, self.less, self._constants)
        for i in _status_functions(tokens).get(tokens[self.name_index][TEXT], ()):
            less = _template_head(tokens, i)
            if less is None or less == self.less:
                continue
            try:
                declared = _template_params(tokens, less, self._constants)
            except Untranslatable:
                continue
            if len(declared) == len(params):
                params = tuple(p if p.default else p._replace(default=d.default) for p, d in zip(params, declared))
        return params

    def _bind(self, params: Sequence[_TemplateParam], args: TemplateArguments) -> tuple[Expr, ...]:
        """Each parameter's value: its argument's, or its default's (resolved where the template is
        defined), converted to its type as C++ converts a template argument (no narrowing)."""
        tokens = self.tokens
        given = len(args.values)
        if given > len(params) or any(p.default is None for p in params[given:]):
            raise Untranslatable(f"{tokens[self.name_index][TEXT]}<...> with {plural(given, 'template argument')} "
                                 f"for {plural(len(params), 'parameter')}", args.at)
        values = []
        for k, param in enumerate(params):
            if k < given:
                arg = args.values[k]
            else:
                start, end = param.default  # type: ignore[misc]  # (checked above)
                try:
                    arg = _TemplateArgument(_initializer(tokens, start, end, self._constants), tokens[start],
                                            _text(tokens, start, end))
                except Untranslatable as e:
                    raise Untranslatable(f"the default template argument {e.construct}", e.tok) from None
            value = _typed(arg.value, param.type, param.int32, param.unsigned)
            if value is None:
                raise Untranslatable(f"the template argument {arg.text} for `{param.written}`: of another type, "
                                     "or out of its range", arg.tok)
            values.append(value)
        return tuple(values)

    def _translate(self, params: Sequence[_TemplateParam], values: tuple[Expr, ...]) -> Translation:
        """The instantiation with these values: the unit's explicit specialization for them
        (`template <> Status F<k3>(InferenceContext* c) {`), or the template's body with its
        parameters bound."""
        tokens = self.tokens
        name = tokens[self.name_index][TEXT]
        for i in range(1, len(tokens) - 1):
            if tokens[i][TEXT] != name or tokens[i + 1][TEXT] != "<" or tokens[i - 1][TEXT] != "Status":
                continue
            paren = next((k for k in range(i + 2, len(tokens)) if tokens[k][TEXT] in ("(", ";", "{")), len(tokens) - 1)
            body = _after_parameters(tokens, paren)
            if tokens[paren][TEXT] != "(" or tokens[paren - 1][TEXT] != ">" or body >= len(tokens) \
                    or tokens[body][TEXT] != "{":
                continue  # (an explicit instantiation, or a declaration: no body)
            args = template_arguments(tokens, i + 1, paren - 1, self.namespaces)
            try:
                if isinstance(args, Translation):
                    raise Untranslatable(args.problem or "", None)
                specialized = self._bind(params, args)
            except Untranslatable:
                raise Untranslatable(f"an explicit specialization of {name} whose template arguments opgen does "
                                     "not compute", tokens[i]) from None
            if tuple(v.code for v in specialized) == tuple(v.code for v in values):
                return translate_function(tokens, paren - 1, self._constants)  # type: ignore[return-value]  # (a definition)
        bound = {p.name: v for p, v in zip(params, values) if p.name is not None}
        return translate_function(tokens, self.name_index, self._constants, bound)  # type: ignore[return-value]


def definition_at(tokens: Sequence[Token], name_index: int,
                  namespaces: Namespaces | None = None) -> Translation | ShapeFnTemplate | None:
    """The function `Status Name(InferenceContext* c) { ... }` whose name is tokens[name_index]:
    its translation, or for a function template its `ShapeFnTemplate`; None for a declaration.
    `namespaces`: the unit's, as `translate_lambda` takes it."""
    namespaces = namespaces or Namespaces(tokens)
    less = _template_head(tokens, name_index)
    if less is None:
        return translate_function(tokens, name_index, unit_constants(namespaces))
    after = _after_parameters(tokens, name_index + 1)
    if after >= len(tokens) or tokens[after][TEXT] != "{":
        return None
    return ShapeFnTemplate(tokens, name_index, less, namespaces)
