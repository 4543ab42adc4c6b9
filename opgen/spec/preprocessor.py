"""Just enough of the C preprocessor for op libraries, aware of strings, raw strings and
comments (the lexer never looks inside them, so a doc line starting with `#` inside
`R"doc(...)doc"` is text, not a directive).

Handled: object- and function-like `#define` (with `#` stringizing, `##` pasting and
variadic `...`/`__VA_ARGS__`), `#undef`, `#if/#ifdef/#ifndef/#elif/#elifdef/#elifndef/
#else/#endif` with `defined` and integer expressions, `#include "x.h"` of local headers
(`-I` directories; `<...>` system headers and TensorFlow's own headers are skipped),
`#pragma once`, `#error`. Macros expand with hide sets as in C, so a macro never expands
inside itself; tokens produced by an expansion are located at the macro's use site.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from opgen.errors import Location, OpgenError
from opgen.limits import MAX_MACRO_EXPANSION_TOKENS, MAX_MACRO_NESTING, decode_utf8, read_input_bytes
from opgen.spec.cpp_lexer import (
    BOL,
    END,
    HIDE,
    KIND,
    POS,
    SPACE,
    SRC,
    TEXT,
    SourceFile,
    Token,
    relex,
    token_error,
    tokenize,
)
from opgen.spec.pp_expr import evaluate_if_expression

MAX_INCLUDE_DEPTH = 200

# Headers of TensorFlow and its dependencies: an op library includes them for the C++
# declarations; they define no macro a REGISTER_OP chain needs. TF's framework headers
# are never read, even when an include directory (say TF's own) holds them; other
# `tensorflow/...` headers are read when found (op libraries inside a TF checkout) and
# skipped otherwise.
_NEVER_READ_PREFIXES = (
    "tensorflow/core/framework/", "tensorflow/core/platform/", "tensorflow/core/lib/",
    "tensorflow/core/util/", "tensorflow/core/public/", "tsl/", "xla/", "absl/", "third_party/",
    "Eigen/", "unsupported/", "google/protobuf/", "external/",
)
_EXTERNAL_INCLUDE_PREFIXES = ("tensorflow/", *_NEVER_READ_PREFIXES)
_PREDEFINED = {"__cplusplus": "201703L"}
_DEFINE_OPTION_NAME = re.compile(r"([^\W\d]\w*)(\([^()]*\))?\Z")


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...] | None  # None: object-like
    variadic: bool
    body: tuple[Token, ...]


def parse_define_option(option: str) -> tuple[str, str]:
    """`-D NAME[=VALUE]` or `-D NAME(PARAMS)[=BODY]` -> (name with its parameter list,
    value); VALUE defaults to 1 as in g++."""
    name, eq, value = option.partition("=")
    m = _DEFINE_OPTION_NAME.match(name)
    if not m or m.group(1) == "defined":
        raise OpgenError(f"-D {option!r}: macro names must be identifiers (use -D NAME or -D NAME=VALUE)",
                         Location("<command-line>"))
    return name, (value if eq else "1")


class _Stream:
    """Tokens still to read: macro expansions pushed back (`pending`, a stack) in front
    of the rest of the file. A file's stream also carries its conditional state, so
    directives between the arguments of a macro invocation work as in g++."""

    __slots__ = ("active", "conds", "i", "pending", "toks")

    def __init__(self, toks: list[Token]):
        self.toks = toks
        self.i = 0
        self.pending: list[Token] = []
        self.conds: list[_Cond] | None = None  # None: not a file (a macro argument, an #if line)
        self.active = True

    def next(self) -> Token | None:
        if self.pending:
            return self.pending.pop()
        if self.i < len(self.toks):
            self.i += 1
            return self.toks[self.i - 1]
        return None

    def peek(self) -> Token | None:
        if self.pending:
            return self.pending[-1]
        return self.toks[self.i] if self.i < len(self.toks) else None


@dataclass
class _Cond:
    tok: Token  # the `#` of the #if, for "unterminated" errors
    name: str  # "if", "ifdef" or "ifndef"
    active: bool  # this group's tokens are kept
    taken: bool  # some branch of this #if chain was taken
    seen_else: bool
    parent_active: bool


class Preprocessor:
    """Preprocesses one translation unit at a time; `run(path)` returns its active tokens
    (directives removed, macros expanded)."""

    def __init__(self, defines: Iterable[str] = (), include_dirs: Iterable[str] = ()):
        self.include_dirs = [str(d) for d in include_dirs]
        self._cmdline = [parse_define_option(d) for d in defines]
        self.files_read: list[str] = []  # every file the last run() read, headers included
        self._nesting = 0
        self._expansion_budget = MAX_MACRO_EXPANSION_TOKENS

    def run(self, path: str) -> list[Token]:
        self._nesting = 0  # expand_list calls on the Python stack (macro arguments within arguments)
        self._expansion_budget = MAX_MACRO_EXPANSION_TOKENS  # tokens all expansions of this file may produce
        self.macros: dict[str, Macro] = {}
        self._once: set[str] = set()
        self.files_read = []
        for name, value in [*_PREDEFINED.items(), *self._cmdline]:
            define = SourceFile("<command-line>", f"{name} {value}")  # as `#define NAME VALUE`
            toks = tokenize(define)
            self._define(toks[0], toks)
        out: list[Token] = []
        self._file(path, self._read(path, None), out, 0)
        return out

    # ---------------------------------------------------------------- files

    def _read(self, path: str, at: Token | None) -> str:
        try:
            data = read_input_bytes(path, "source file")  # regular files only, size-limited
        except OpgenError as e:
            raise OpgenError(e.message, _at(at, path) if at is not None else e.location, e.hint) from None
        return decode_utf8(data, path, "source file").replace("\r\n", "\n").replace("\r", "\n")

    def _file(self, path: str, text: str, out: list[Token], depth: int) -> None:
        self.files_read.append(path)
        src = SourceFile(path, text)
        stream = _Stream(tokenize(src))
        conds: list[_Cond] = []
        stream.conds = conds
        macros = self.macros
        append = out.append
        while True:
            if stream.pending:
                tok = stream.pending.pop()
            elif stream.i < len(stream.toks):
                tok = stream.toks[stream.i]
                stream.i += 1
                if tok[BOL] and tok[TEXT] == "#" and tok[KIND] == "op":
                    stream.active = self._directive(tok, stream, conds, stream.active, out, depth)
                    continue
                if not stream.active:
                    continue
            else:
                break
            kind = tok[KIND]
            if kind == "id":
                macro = macros.get(tok[TEXT])
                hide = tok[HIDE]
                if macro is not None and (hide is None or macro.name not in hide) and self._expand(tok, macro, stream):
                    continue
            elif kind == "bad":
                raise token_error(tok, _bad_literal_message(tok))
            append(tok)
        if conds:
            raise token_error(conds[-1].tok, f"unterminated #{conds[-1].name}: no matching #endif")

    # ---------------------------------------------------------------- directives

    def _directive(self, hash_tok: Token, stream: _Stream, conds: list[_Cond], active: bool,
                   out: list[Token] | None, depth: int) -> bool:
        """Consume one directive line (`hash_tok` is its `#`); returns whether the
        following tokens are active. `out` is None between macro arguments."""
        toks = stream.toks
        start = stream.i
        n = len(toks)
        end = start
        while end < n and not toks[end][BOL]:
            end += 1
        stream.i = end
        line = toks[start:end]
        if not line:
            return active  # the null directive
        name_tok = line[0]
        name = name_tok[TEXT]
        rest = line[1:]
        if name in ("if", "ifdef", "ifndef"):
            if not active:
                conds.append(_Cond(hash_tok, name, False, True, False, False))
                return False
            value = self._condition(name, name_tok, rest)
            conds.append(_Cond(hash_tok, name, value, value, False, True))
            return value
        if name in ("elif", "elifdef", "elifndef", "else"):
            if not conds:
                raise token_error(name_tok, f"#{name} without #if")
            c = conds[-1]
            if c.seen_else:
                raise token_error(name_tok, f"#{name} after #else")
            if name == "else":
                c.seen_else = True
                c.active = c.parent_active and not c.taken
            elif c.parent_active and not c.taken:
                c.active = self._condition(name[2:] if name != "elif" else "if", name_tok, rest)
            else:
                c.active = False
            c.taken = c.taken or c.active
            return c.active
        if name == "endif":
            if not conds:
                raise token_error(name_tok, "#endif without #if")
            return conds.pop().parent_active
        if not active:
            return False
        if name == "define":
            self._define(name_tok, rest)
        elif name == "undef":
            if not rest or rest[0][KIND] != "id":
                raise token_error(rest[0] if rest else name_tok, "macro names must be identifiers")
            self.macros.pop(rest[0][TEXT], None)
        elif name == "include":
            if out is None:
                raise token_error(name_tok, "#include inside the arguments of a macro invocation")
            self._include(name_tok, rest, out, depth)
        elif name == "pragma":
            if rest and rest[0][TEXT] == "once":
                self._once.add(os.path.realpath(hash_tok[SRC].path))
        elif name == "error":
            text = hash_tok[SRC].text[rest[0][POS] : rest[-1][END]] if rest else ""
            raise token_error(hash_tok, f"#error {text}".rstrip())
        elif name not in ("warning", "line", "ident", "sccs", "include_next", "import"):
            raise token_error(name_tok, f"invalid preprocessing directive #{name}")
        return True

    def _condition(self, name: str, name_tok: Token, rest: list[Token]) -> bool:
        if name in ("ifdef", "ifndef", "def", "ndef"):
            if not rest or rest[0][KIND] != "id":
                raise token_error(rest[0] if rest else name_tok, f"no macro name given in #{name_tok[TEXT]} directive")
            return (rest[0][TEXT] in self.macros) == (name in ("ifdef", "def"))
        if not rest:
            raise token_error(name_tok, f"#{name_tok[TEXT]} with no expression")
        return evaluate_if_expression(self._resolve_defined(rest), name_tok) != 0

    def _resolve_defined(self, toks: list[Token]) -> list[Token]:
        """Replace `defined X` / `defined(X)` by 1 or 0, then macro-expand, then turn the
        remaining identifiers into 0 (`true` into 1) as #if does."""
        resolved: list[Token] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t[TEXT] == "__has_include" and t[KIND] == "id":
                value, i = self._has_include(toks, i)
                resolved.append(("num", value) + t[2:])
                continue
            if t[TEXT] == "defined" and t[KIND] == "id":
                j = i + 1
                paren = j < len(toks) and toks[j][TEXT] == "("
                if paren:
                    j += 1
                if j >= len(toks) or toks[j][KIND] != "id":
                    raise token_error(t, "operator \"defined\" requires an identifier")
                value = "1" if toks[j][TEXT] in self.macros else "0"
                if paren:
                    j += 1
                    if j >= len(toks) or toks[j][TEXT] != ")":
                        raise token_error(t, "missing ')' after \"defined\"")
                resolved.append(("num", value) + t[2:])
                i = j + 1
                continue
            resolved.append(t)
            i += 1
        expanded = self.expand_list(resolved)
        return [("num", "1" if t[TEXT] == "true" else "0") + t[2:] if t[KIND] == "id" else t for t in expanded]

    def _has_include(self, toks: list[Token], i: int) -> tuple[str, int]:
        """`__has_include("x.h")` / `__has_include(<x>)` at `i` -> ("1" or "0", index after).
        System and TensorFlow headers count as present: g++ would find them."""
        t = toks[i]
        j = i + 1
        if j >= len(toks) or toks[j][TEXT] != "(":
            raise token_error(t, "missing '(' after \"__has_include\"")
        close = next((k for k in range(j + 1, len(toks)) if toks[k][TEXT] == ")"), None)
        if close is None or close == j + 1:
            raise token_error(t, "missing '(\"FILENAME\")' or '(<FILENAME>)' after \"__has_include\"")
        inner = toks[j + 1 : close]
        if inner[0][KIND] == "str":
            target = inner[0][TEXT][1:-1]
            here = os.path.dirname(t[SRC].path)
            found = target.startswith(_EXTERNAL_INCLUDE_PREFIXES) or any(
                os.path.isfile(os.path.join(d, target)) for d in [here, *self.include_dirs])
        else:
            found = True
        return ("1" if found else "0"), close + 1

    def _define(self, name_tok: Token, rest: list[Token]) -> None:
        if not rest or rest[0][KIND] != "id":
            raise token_error(rest[0] if rest else name_tok, "macro names must be identifiers")
        name_t = rest[0]
        name = name_t[TEXT]
        if name == "defined":
            raise token_error(name_t, "\"defined\" cannot be used as a macro name")
        body = rest[1:]
        params: tuple[str, ...] | None = None
        variadic = False
        if body and body[0][TEXT] == "(" and body[0][POS] == name_t[4]:
            plist: list[str] = []
            i = 1
            while True:
                if i >= len(body):
                    raise token_error(body[0], f"missing ')' in parameter list of macro \"{name}\"")
                t = body[i]
                if t[TEXT] == ")" and not plist:
                    i += 1
                    break
                if t[TEXT] == "...":
                    variadic = True
                    plist.append("__VA_ARGS__")
                    i += 1
                elif t[KIND] == "id" and t[TEXT] not in plist:
                    plist.append(t[TEXT])
                    i += 1
                    if i < len(body) and body[i][TEXT] == "...":
                        variadic = True
                        i += 1
                else:
                    what = "duplicate macro parameter" if t[KIND] == "id" else "expected parameter name, found"
                    raise token_error(t, f"{what} \"{t[TEXT]}\" in macro \"{name}\"")
                if i < len(body) and body[i][TEXT] == ")":
                    i += 1
                    break
                if i >= len(body) or body[i][TEXT] != "," or variadic:
                    found = body[i][TEXT] if i < len(body) else "end of line"
                    raise token_error(body[i] if i < len(body) else t,
                                      f"expected ',' or ')' in parameter list of macro \"{name}\", found \"{found}\"")
                i += 1
            params = tuple(plist)
            body = body[i:]
        for t in body:
            if t[KIND] == "bad":
                raise token_error(t, _bad_literal_message(t))
        if body and body[0][TEXT] == "##":
            raise token_error(body[0], "'##' cannot appear at either end of a macro expansion")
        if body and body[-1][TEXT] == "##":
            raise token_error(body[-1], "'##' cannot appear at either end of a macro expansion")
        if params is not None:
            for i, t in enumerate(body):
                if t[TEXT] == "#" and t[KIND] == "op" and (i + 1 >= len(body) or body[i + 1][TEXT] not in params):
                    raise token_error(t, "'#' is not followed by a macro parameter")
        self.macros[name] = Macro(name, params, variadic, tuple(body))

    def _include(self, name_tok: Token, rest: list[Token], out: list[Token], depth: int) -> None:
        if not rest:
            raise token_error(name_tok, "#include expects \"FILENAME\" or <FILENAME>")
        if rest[0][KIND] == "id":  # a computed include: `#include MACRO`
            rest = self.expand_list(rest)
        first = rest[0] if rest else name_tok
        if first[KIND] == "str" and first[TEXT].startswith('"'):
            target, system = first[TEXT][1:-1], False
        elif first[TEXT] == "<":
            target, system = "".join(t[TEXT] for t in rest[1:] if t[TEXT] != ">"), True
        else:
            raise token_error(first, "#include expects \"FILENAME\" or <FILENAME>")
        if target.startswith(_NEVER_READ_PREFIXES):
            return
        here = os.path.dirname(name_tok[SRC].path)
        dirs = self.include_dirs if system else [here, *self.include_dirs]
        for d in dirs:
            candidate = os.path.join(d, target) if d else target
            if os.path.isfile(candidate):
                break
        else:
            if system or target.startswith(_EXTERNAL_INCLUDE_PREFIXES):
                return
            searched = ", ".join(d or "." for d in dirs)
            raise token_error(first, f"cannot find include file \"{target}\" (searched: {searched}); "
                              "add its directory with -I DIR or [tool.opgen] include_dirs")
        candidate = os.path.normpath(candidate) if not candidate.startswith("./") else candidate[2:]
        if os.path.realpath(candidate) in self._once:
            return
        if depth + 1 >= MAX_INCLUDE_DEPTH:
            raise token_error(name_tok, f"#include nested depth {depth + 1} exceeds maximum of {MAX_INCLUDE_DEPTH}")
        self._file(candidate, self._read(candidate, first), out, depth + 1)

    # ---------------------------------------------------------------- macro expansion

    def expand_list(self, toks: list[Token]) -> list[Token]:
        """Fully macro-expand a token list on its own (macro arguments, #if lines)."""
        stream = _Stream(toks)
        out: list[Token] = []
        macros = self.macros
        self._nesting += 1
        try:
            while (tok := stream.next()) is not None:
                if tok[KIND] == "id":
                    macro = macros.get(tok[TEXT])
                    hide = tok[HIDE]
                    if macro is not None and (hide is None or macro.name not in hide):
                        if self._nesting > MAX_MACRO_NESTING:
                            raise token_error(tok, f"macro calls nested more than {MAX_MACRO_NESTING} deep "
                                              "in arguments (opgen's limit)")
                        if self._expand(tok, macro, stream):
                            continue
                out.append(tok)
        finally:
            self._nesting -= 1
        return out

    def _expand(self, name_tok: Token, macro: Macro, stream: _Stream) -> bool:
        """Push the expansion of `macro` (invoked by `name_tok`) back onto `stream`;
        False when a function-like macro's name is not followed by `(`."""
        site = name_tok[2:5]
        result: list[Token]
        if macro.params is None:
            hide: frozenset[str] = (name_tok[HIDE] or frozenset()) | {macro.name}
            result = [(t[0], t[1], *site, False, hide, t[SPACE]) for t in macro.body]
            result = self._paste(result, hide)
        else:
            nxt = stream.peek()
            if nxt is None or nxt[TEXT] != "(":
                return False
            stream.next()
            args, rparen = self._collect_args(name_tok, macro, stream)
            # Prosser's rule: names hidden at both the macro name and its `)` stay hidden.
            hide = (name_tok[HIDE] or frozenset()) & (rparen[HIDE] or frozenset()) | {macro.name}
            result = self._substitute(name_tok, macro, args, site, hide)
        self._expansion_budget -= len(result)
        if self._expansion_budget < 0:
            raise token_error(name_tok, f"macro expansion of this file exceeds {MAX_MACRO_EXPANSION_TOKENS} tokens "
                              f"(opgen's limit) while expanding \"{macro.name}\"")
        stream.pending.extend(reversed(result))
        return True

    def _collect_args(self, name_tok: Token, macro: Macro, stream: _Stream) -> tuple[list[list[Token]], Token]:
        """The arguments of an invocation (after its `(`) and the closing `)`."""
        args: list[list[Token]] = [[]]
        depth = 0
        nparams = len(macro.params or ())
        while True:
            t = stream.next()
            if t is None:
                raise token_error(name_tok, f"unterminated argument list invoking macro \"{macro.name}\"")
            text = t[TEXT]
            if stream.conds is not None and t[HIDE] is None:  # a token of the file itself
                if t[BOL] and text == "#" and t[KIND] == "op":
                    stream.active = self._directive(t, stream, stream.conds, stream.active, None, 0)
                    continue
                if not stream.active:
                    continue
            if t[KIND] == "op":
                if text == "(":
                    depth += 1
                elif text == ")":
                    if depth == 0:
                        rparen = t
                        break
                    depth -= 1
                elif text == "," and depth == 0 and not (macro.variadic and len(args) == nparams):
                    args.append([])
                    continue
            elif t[KIND] == "bad":
                raise token_error(t, _bad_literal_message(t))
            args[-1].append(t)
        if nparams == 0 and args == [[]]:
            return [], rparen
        if len(args) < nparams:
            if macro.variadic and len(args) == nparams - 1:
                return [*args, []], rparen
            raise token_error(name_tok, f"macro \"{macro.name}\" requires {nparams} arguments, but only {len(args)} given")
        if len(args) > nparams:
            raise token_error(name_tok, f"macro \"{macro.name}\" passed {len(args)} arguments, but takes just {nparams}")
        return args, rparen

    def _substitute(self, name_tok: Token, macro: Macro, args: list[list[Token]], site: tuple,
                    hide: frozenset[str]) -> list[Token]:
        params = {p: i for i, p in enumerate(macro.params or ())}
        body = macro.body
        result: list[Token] = []
        expanded: dict[int, list[Token]] = {}
        i = 0
        while i < len(body):
            t = body[i]
            text = t[TEXT]
            if text == "#" and t[KIND] == "op" and i + 1 < len(body) and body[i + 1][TEXT] in params:
                arg = args[params[body[i + 1][TEXT]]]
                result.append(("str", _stringize(arg), *site, False, hide, t[SPACE]))
                i += 2
                continue
            if t[KIND] == "id" and text in params:
                idx = params[text]
                pasted = (i > 0 and body[i - 1][TEXT] == "##") or (i + 1 < len(body) and body[i + 1][TEXT] == "##")
                if pasted:
                    arg = args[idx] or [("placemarker", "", *site, False, hide, t[SPACE])]
                else:
                    if idx not in expanded:
                        expanded[idx] = self.expand_list(args[idx])
                    arg = expanded[idx]
                # The argument's first token takes the parameter's spacing, as in g++.
                result.extend((a[0], a[1], a[2], a[3], a[4], False, (a[HIDE] or frozenset()) | hide,
                               t[SPACE] if k == 0 else a[SPACE]) for k, a in enumerate(arg))
            else:
                result.append((t[0], text, *site, False, hide, t[SPACE]))
            i += 1
        return [t for t in self._paste(result, hide) if t[KIND] != "placemarker"]

    def _paste(self, toks: list[Token], hide: frozenset[str]) -> list[Token]:
        if not any(t[TEXT] == "##" and t[KIND] == "op" for t in toks):
            return toks
        out: list[Token] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t[TEXT] == "##" and t[KIND] == "op" and out and i + 1 < len(toks):
                left = out.pop()
                right = toks[i + 1]
                if left[KIND] == "placemarker":
                    out.append(right)
                elif right[KIND] == "placemarker":
                    out.append(left)
                else:
                    pasted = relex(left[TEXT] + right[TEXT], left)
                    if len(pasted) != 1:
                        raise token_error(left, f"pasting \"{left[TEXT]}\" and \"{right[TEXT]}\" "
                                          "does not give a valid preprocessing token")
                    out.append((*pasted[0][:6], hide, left[SPACE]))
                i += 2
                continue
            out.append(t)
            i += 1
        return out


def _stringize(arg: list[Token]) -> str:
    parts: list[str] = []
    prev: Token | None = None
    for t in arg:
        if prev is not None and t[SPACE]:
            parts.append(" ")
        text = t[TEXT]
        if t[KIND] in ("str", "raw", "chr", "bad"):
            text = text.replace("\\", "\\\\").replace('"', '\\"')
        parts.append(text)
        prev = t
    return '"' + "".join(parts) + '"'


def _bad_literal_message(tok: Token) -> str:
    if tok[TEXT] == "\\":
        return "stray '\\' in program"
    quote = "'" if "'" in tok[TEXT][:3] else '"'
    what = "character" if quote == "'" else "string"
    return f"unterminated {what} literal: missing terminating {quote} character"


def _at(tok: Token | None, path: str) -> Location:
    return tok[SRC].location(tok[POS]) if tok is not None else Location(path)
