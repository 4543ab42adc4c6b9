"""REGISTER_OP chains in a preprocessed token list -> `Registration`s.

A chain is `REGISTER_OP("Name")` (or `REGISTER_SYSTEM_OP`) followed by `.Method(args)`
calls up to `;`. Arguments become CallArgs: adjacent string literals concatenated and
unescaped ("string"), integer literals ("int"), helper calls and string constants or
literal-returning functions of the file resolved to their strings ("string"), anything else its source text ("expr":
lambdas, function names).
Errors are collected per chain; scanning resumes after the broken chain.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from opgen.errors import Location, OpgenError, did_you_mean
from opgen.model import BuilderCall, CallArg, Registration
from opgen.spec.cpp_lexer import (
    BOL,
    END,
    HIDE,
    KIND,
    ORIGIN,
    POS,
    SPACE,
    SRC,
    TEXT,
    TextRun,
    Token,
    check_decoded,
    decode_escapes,
    decode_simple_escapes,
    has_undecoded,
    literal_body,
    literal_runs,
    needs_bytes,
    parse_int_literal,
    token_error,
    token_location,
)
from opgen.spec.cpp_namespaces import AmbiguousName, Namespaces

REGISTER_MACROS = {"REGISTER_OP": False, "REGISTER_SYSTEM_OP": True}
# Builder methods whose arguments are std::strings (Deprecated: its second argument).
_STRING_METHODS = {"Attr", "Input", "Output", "Doc", "ControlOutput"}
_CLOSER = {"(": ")", "[": "]", "{": "}"}
_OPENER = {v: k for k, v in _CLOSER.items()}
_BRACKETS = {*_CLOSER, *_OPENER}
_LITERAL_KINDS = ("str", "raw")
_OPERATOR_CHARS = set("+-*/%<>=&|!^.#")
_SCAN_TEXTS = {*REGISTER_MACROS, "=", "return"}
_CONST_KEYWORDS = {"const", "constexpr"}


class UndefinedNameError(OpgenError):
    """A chain needs `name`, an identifier that is neither a macro nor a string constant or
    helper (a header that could not be found may be what defines it)."""

    def __init__(self, at: Token, name: str, message: str):
        super().__init__(message, token_location(at))
        self.name = name


def extract_registrations(
    tokens: list[Token], helpers: Mapping[str, str], warnings: list[OpgenError] | None = None,
    namespaces: Namespaces | None = None,
) -> tuple[list[Registration], list[OpgenError]]:
    """Every REGISTER_OP chain of a translation unit, in source order, and the errors of
    the chains that could not be read. String constants and functions returning a
    literal defined before a chain (`constexpr char kAttrs[] = "...";`,
    `std::string Attrs() { return "..."; }`) resolve like helpers inside it. `warnings`
    gets the text the chains' literals lose after a NUL (`ChainReader.string`)."""
    regs: list[Registration] = []
    errors: list[OpgenError] = []
    reader = ChainReader(tokens, helpers, [] if warnings is None else warnings, namespaces)
    n = len(tokens)
    resume = 0
    for start in [i for i, t in enumerate(tokens) if t[TEXT] in _SCAN_TEXTS]:
        if tokens[start][TEXT] == "=":
            reader.note_constant(start, errors)
            continue
        if tokens[start][TEXT] == "return":
            reader.note_function(start, errors)
            continue
        if start < resume or start + 1 >= n or tokens[start + 1][TEXT] != "(":
            continue
        try:
            reg, resume = reader.read(start)
            regs.append(reg)
        except OpgenError as e:
            errors.append(e)
            resume = _next_statement(tokens, start + 1)
    return regs, errors


def check_brackets(tokens: list[Token]) -> OpgenError | None:
    """The first unbalanced `()[]{}` of a preprocessed translation unit (g++ would reject
    the file), as a located error; None when all are balanced."""
    stack: list[Token] = []
    for t in [t for t in tokens if t[TEXT] in _BRACKETS]:
        text = t[TEXT]
        if text in _CLOSER:
            stack.append(t)
        elif not stack:
            return token_error(t, f"unbalanced '{text}': no matching '{_OPENER[text]}' before it")
        else:
            top = stack.pop()
            if _CLOSER[top[TEXT]] != text:
                loc = token_location(top)
                return token_error(t, f"expected '{_CLOSER[top[TEXT]]}' to close '{top[TEXT]}' from line "
                                   f"{loc.line}:{loc.col}, found '{text}'")
    if stack:
        return token_error(stack[-1], f"'{stack[-1][TEXT]}' is never closed")
    return None


def undefined_registration_macros(tokens: list[Token]) -> list[UndefinedNameError]:
    """Statements shaped like a registration through an undefined macro,
    `MY_REGISTER_OP(...).Input(...)...;`: no C++ statement starts with a call of an
    upper-case name chained with `.Method(`, so an unexpanded one means the macro (which
    would register ops) is missing."""
    errors: list[UndefinedNameError] = []
    n = len(tokens)
    for i, t in enumerate(tokens):
        text = t[TEXT]
        if (t[KIND] != "id" or text in REGISTER_MACROS or not text.isupper() or i + 1 >= n
                or tokens[i + 1][TEXT] != "(" or (i > 0 and tokens[i - 1][TEXT] not in (";", "{", "}"))):
            continue
        depth = 0
        for j in range(i + 1, n):
            if tokens[j][TEXT] == "(":
                depth += 1
            elif tokens[j][TEXT] == ")":
                depth -= 1
                if depth == 0:
                    break
            elif tokens[j][TEXT] == ";":
                break
        if j + 3 < n and tokens[j + 1][TEXT] == "." and tokens[j + 2][KIND] == "id" and tokens[j + 3][TEXT] == "(":
            errors.append(UndefinedNameError(t, text, f"'{text}(...).{tokens[j + 2][TEXT]}(...)' looks like an op "
                                             f"registration through the macro '{text}', which is not defined"))
    return errors


# Macros of TensorFlow and its dependencies, whose headers opgen does not read: a file-scope
# call of one is not a project macro gone missing (`REGISTER_...` ones have checks of their own).
_LIBRARY_MACRO_PREFIXES = ("TF_", "TSL_", "EIGEN_", "ABSL_", "XLA_", "REGISTER_", "SHOULD_REGISTER_", "GTEST_", "TEST")


def registrations_in_bodies(tokens: list[Token], calls: list[tuple[int, bool]]) -> list[OpgenError]:
    """A warning at each `REGISTER_OP(` not at file scope (`calls`: `Namespaces.file_scope_calls`):
    in a function, lambda or class body TF's macro declares a static local, which registers the
    op only when that code runs (trial31 #9: a library loaded lacks the op of a function never
    called); opgen still reads the op as registered."""
    at_file_scope = {i for i, _ in calls}
    return [OpgenError(f"{t[TEXT]} inside a function, lambda or class body registers its op only when that code "
                       "runs (the macro declares a static local), not when the library loads; opgen reads it as "
                       "registered", token_location(t),
                       hint=f"move the {t[TEXT]} chain to file scope (inside namespaces is fine)")
            for i, t in enumerate(tokens)
            if t[TEXT] in REGISTER_MACROS and t[KIND] == "id" and i not in at_file_scope and _is_call(tokens, i)]


def undefined_file_scope_macros(tokens: list[Token], calls: list[tuple[int, bool]],
                                defined: Collection[str]) -> list[UndefinedNameError]:
    """Statements at file scope (`calls`: `Namespaces.file_scope_calls`) that call an undefined
    upper-case name (`FW_REGISTER_UNARY(Gelu);` whose header was not found), each name once,
    at its first call: what the macro registers is
    missing. Those a letter or two off a function-like macro of `defined` (`FW_REGISTER_UNRAY`
    for `FW_REGISTER_UNARY`) carry the did-you-mean hint. TF's own macros (from the headers opgen
    skips) are not reported."""
    found: list[UndefinedNameError] = []
    seen: set[str] = set()
    for i, starts in calls:
        text = tokens[i][TEXT]
        if not starts or text in seen or not text.isupper() or text in defined or text in REGISTER_MACROS:
            continue
        seen.add(text)
        nearest = did_you_mean(text, defined, "'", cutoff=0.85)
        if nearest is None and text.startswith(_LIBRARY_MACRO_PREFIXES):
            continue
        error = UndefinedNameError(tokens[i], text, f"'{text}(...)' calls '{text}', which is not defined: "
                                   "whatever it registers is missing")
        if nearest:
            error.hint = f"{nearest} (a macro of this file or its headers; g++ rejects this line)"
        found.append(error)
    return found


def _next_statement(tokens: list[Token], i: int) -> int:
    """Index after the next `;` or before the next REGISTER_OP (error recovery)."""
    while i < len(tokens):
        t = tokens[i]
        if t[TEXT] == ";":
            return i + 1
        if t[TEXT] in REGISTER_MACROS:
            return i
        i += 1
    return i


def _is_call(toks: list[Token], i: int) -> bool:
    """Whether toks[i] is a name followed by `(`."""
    return toks[i][KIND] == "id" and i + 1 < len(toks) and toks[i + 1][TEXT] == "("


def _starts_statement(toks: list[Token], i: int) -> bool:
    """Whether toks[i], found where a chain goes on, starts the next statement (a `;` left
    out) rather than continues the chain: it opens a line and is no call of a CamelCase name
    (`Output(...)` there is a builder call whose `.` was left out; `REGISTER_OP(` is a macro)."""
    t = toks[i]
    return t[BOL] and (not _is_call(toks, i) or t[TEXT].isupper())


def _missing_semicolon(last: Token, message: str) -> OpgenError:
    """A `;` left out after `last`: located right after it, where the `;` belongs."""
    return OpgenError(message, last[SRC].location(last[END]), hint=f"add ';' after '{last[TEXT]}' to end the chain")


class ChainReader:
    """Reads builder chains of one token list: balanced argument lists, string literals,
    and helper or constant names resolved to their strings (REGISTER_OP chains here,
    REGISTER_KERNEL_BUILDER chains in kernels.py)."""

    def __init__(self, tokens: list[Token], helpers: Mapping[str, str], warnings: list[OpgenError] | None = None,
                 namespaces: Namespaces | None = None):
        self.tokens = tokens
        self.helpers = helpers
        self.warnings = [] if warnings is None else warnings  # literals cut at a NUL (`string`)
        # String constants and `std::string F() { return "..."; }` of this file, by name
        # qualified with their namespace (`mine::kAttrs`: `lookup` finds what a use means).
        self.constants: dict[str, str] = {}
        self.functions: dict[str, str] = {}
        # Where each constant's (`kName`) and function's (`F()`) text is written, for the
        # locations of what is read from it (errors' notes, a review's changed line), and where
        # each of its characters is, as far as known (an error about a word of the text).
        self.written_at: dict[str, Location] = {}
        self.written_runs: dict[str, list[TextRun]] = {}
        self.namespaces = namespaces or Namespaces(tokens)  # (the translation unit's, when given)
        self.reading_at = 0  # the token index of the registration being read: where its names are looked up

    def note_constant(self, eq: int, errors: list[OpgenError]) -> None:
        """Record `[static] const[expr] <type> NAME[[]] = "lit" "lit";` whose `=` is at `eq`."""
        toks = self.tokens
        j = eq + 1
        while j < len(toks) and toks[j][KIND] in _LITERAL_KINDS:
            j += 1
        if j == eq + 1 or j >= len(toks) or toks[j][TEXT] != ";":
            return
        k = eq - 1
        if k >= 1 and toks[k][TEXT] == "]" and toks[k - 1][TEXT] == "[":
            k -= 2
        if k < 0 or toks[k][KIND] != "id":
            return
        back = k - 1
        while back >= 0 and back >= k - 8 and toks[back][TEXT] not in (";", "{", "}"):
            if toks[back][TEXT] in _CONST_KEYWORDS:
                name = "::".join((*self.namespaces.at(k), toks[k][TEXT]))
                try:
                    self.constants[name] = self.string(toks[eq + 1 : j], toks[k][TEXT])
                    self.written_at[name] = token_location(toks[eq + 1])
                    self.written_runs[name] = literal_runs(toks[eq + 1 : j])
                except OpgenError as e:
                    errors.append(e)
                return
            back -= 1

    def note_function(self, ret: int, errors: list[OpgenError]) -> None:
        """Record `<type> NAME() { return "lit" "lit"; }` whose `return` is at `ret`."""
        toks = self.tokens
        j = ret + 1
        while j < len(toks) and toks[j][KIND] in _LITERAL_KINDS:
            j += 1
        if (j == ret + 1 or j + 1 >= len(toks) or toks[j][TEXT] != ";" or toks[j + 1][TEXT] != "}" or ret < 4
                or [t[TEXT] for t in toks[ret - 3 : ret]] != ["(", ")", "{"] or toks[ret - 4][KIND] != "id"):
            return
        name = "::".join((*self.namespaces.at(ret - 4), toks[ret - 4][TEXT]))
        try:
            self.functions[name] = self.string(toks[ret + 1 : j], toks[ret - 4][TEXT])
            self.written_at[name + "()"] = token_location(toks[ret + 1])
            self.written_runs[name + "()"] = literal_runs(toks[ret + 1 : j])
        except OpgenError as e:
            errors.append(e)

    def read(self, start: int) -> tuple[Registration, int]:
        toks = self.tokens
        self.reading_at = start
        reg_tok = toks[start]
        macro = reg_tok[TEXT]
        args, i = self.paren_args(start + 1, macro)
        name_toks = _without_enclosing_parens(args[0]) if len(args) == 1 else []
        # TF's macro takes any `const char*`: a string constant (`REGISTER_OP(kOpName)`)
        # resolves as it does in a builder call.
        name = None
        if name_toks and all(t[KIND] in _LITERAL_KINDS for t in name_toks):
            name = self.string(name_toks, macro)
        elif name_toks:
            name = self.helper_string(macro, name_toks)
        if name is None:
            at = next((t for t in name_toks if t[KIND] not in _LITERAL_KINDS), None) if name_toks else None
            at = at or (args[0][0] if args and args[0] else toks[start + 1])
            message = f"{macro} expects the op name as a string literal, e.g. {macro}(\"MyOp\")"
            raise UndefinedNameError(at, at[TEXT], message) if at[KIND] == "id" else token_error(at, message)
        calls: list[BuilderCall] = []
        while True:
            if i >= len(toks) or (toks[i][TEXT] not in (".", ";") and _starts_statement(toks, i)):
                found = f"'{toks[i][TEXT]}'" if i < len(toks) else "end of file"
                message = f"expected ';' after the {macro}(\"{name}\") chain, found {found}"
                raise _missing_semicolon(toks[i - 1], message)
            t = toks[i]
            if t[TEXT] == ";" and t[KIND] == "op":
                return Registration(name, token_location(reg_tok), tuple(calls), REGISTER_MACROS[macro]), i + 1
            if t[TEXT] != "." or t[KIND] != "op":
                raise OpgenError(f"expected '.' or ';' in the {macro}(\"{name}\") chain, found '{t[TEXT]}'",
                                 token_location(t), hint=f"add '.' before '{t[TEXT]}' to call it on the op, or "
                                 "';' before it to end the chain" if _is_call(toks, i) else None)
            if i + 1 >= len(toks) or toks[i + 1][KIND] != "id":
                raise token_error(t, f"expected a builder method name after '.' in the {macro}(\"{name}\") chain")
            method_tok = toks[i + 1]
            method = method_tok[TEXT]
            if method_tok[HIDE] is not None and method in method_tok[HIDE]:
                raise token_error(method_tok, f"macro \"{method}\" expands to itself; a recursive macro is not "
                                  "expanded again, so it cannot supply builder calls")
            if i + 2 >= len(toks) or toks[i + 2][TEXT] != "(":
                raise token_error(method_tok, f"expected '(' after builder method '{method}'")
            # SetShapeFn takes one function: a comma in it is a template-id's (`F<k2, true>`)
            arg_toks, i = self.paren_args(i + 2, method, whole=method == "SetShapeFn")
            call_args = tuple([self._arg(method, k, a) for k, a in enumerate(arg_toks)])
            calls.append(BuilderCall(method, call_args, token_location(method_tok)))

    def paren_args(self, i: int, what: str, whole: bool = False) -> tuple[list[list[Token]], int]:
        """Split the balanced `( ... )` at `i` into top-level comma-separated arguments (one
        argument of all with `whole`); returns them and the index after `)`."""
        toks = self.tokens
        if i + 2 < len(toks) and toks[i + 2][TEXT] == ")" and toks[i + 1][KIND] != "op":
            return [[toks[i + 1]]], i + 3  # `(x)`: one token, the common case
        open_tok = toks[i]
        stack: list[Token] = []
        args: list[list[Token]] = [[]]
        j = i + 1
        n = len(toks)
        while j < n:
            t = toks[j]
            j += 1
            if t[KIND] == "op":
                text = t[TEXT]
                if text in _CLOSER:
                    stack.append(t)
                elif text in (")", "]", "}"):
                    if not stack:
                        if text == ")":
                            return self._check_args(args, what, open_tok), j
                        raise token_error(t, f"unbalanced '{text}' in the arguments of {what}()")
                    top = stack.pop()
                    if _CLOSER[top[TEXT]] != text:
                        loc = token_location(top)
                        raise token_error(t, f"expected '{_CLOSER[top[TEXT]]}' to close '{top[TEXT]}' "
                                          f"from line {loc.line}:{loc.col}, found '{text}'")
                elif text == "," and not stack and not whole:
                    args.append([])
                    continue
                elif text == ";" and not stack:
                    raise token_error(open_tok, f"missing ')' to close '(' of {what}() before ';'")
            args[-1].append(t)
        if stack:
            top = stack[-1]
            raise token_error(top, f"'{top[TEXT]}' is never closed (in the arguments of {what}())")
        raise token_error(open_tok, f"missing ')' to close '(' of {what}() before end of file")

    @staticmethod
    def _check_args(args: list[list[Token]], what: str, open_tok: Token) -> list[list[Token]]:
        if args == [[]]:
            return []
        for k, a in enumerate(args):
            if not a:
                raise token_error(open_tok, f"empty argument {k + 1} in {what}()")
        return args

    def _arg(self, method: str, index: int, toks: list[Token]) -> CallArg:
        check_decoded(toks)  # what reaches the OpList, literals and expressions alike
        if toks[0][TEXT] == "(" and toks[-1][TEXT] == ")":  # `(("x: float"))` has its operand's value
            toks = _without_enclosing_parens(toks) or toks
        first = toks[0]
        loc = token_location(first)
        if len(toks) == 1:
            kind, text = first[KIND], first[TEXT]
            if kind == "str" and text[0] == '"' and "\\" not in text:  # the common case, decoded by hand
                src, pos = first[SRC], first[POS]
                if first[ORIGIN] is None and src.text.startswith(text, pos):  # written as it reads: one run
                    return CallArg("string", text[1:-1], loc, (TextRun(0, len(text) - 2, src, pos + 1),))
                return CallArg("string", text[1:-1], loc, tuple(literal_runs(toks)))
        if all(t[KIND] in _LITERAL_KINDS for t in toks):
            return CallArg("string", self.string(toks, method), loc, tuple(literal_runs(toks)))
        if len(toks) <= 2 and toks[-1][KIND] == "num" and (len(toks) == 1 or toks[0][TEXT] == "-"):
            value = parse_int_literal(toks[-1][TEXT])
            if value is not None:
                return CallArg("int", -value if len(toks) == 2 else value, loc)
        if method in _STRING_METHODS or (method == "Deprecated" and index == 1):
            used: list[str] = []
            read: list[tuple[str, Location]] = []
            runs: list[TextRun] = []
            resolved = self.helper_string(method, toks, used, read, runs)
            if resolved is not None:
                if read:  # the text is written at the (first) constant or function it reads
                    name, written = read[0]
                    loc = replace(loc, expanded_from=(_written_in(name), written))
                return CallArg("string", resolved, loc, tuple(runs), tuple(used))
        return CallArg("expr", _source_text(toks), loc)

    def helper_string(self, method: str, toks: list[Token], used: list[str] | None = None,
                      read: list[tuple[str, Location]] | None = None, runs: list[TextRun] | None = None,
                      ) -> str | None:
        """`Helper()`, `ns::Helper()`, `kName` or `+`-joined mixes with literals -> the
        string, via the helper table (the keys it takes are appended to `used`; the file's
        constants and functions it reads, `kName` or `F()`, and where each is written, to
        `read`; where the characters of its literals and of those constants are written, to
        `runs`); None when the argument is not of that shape."""
        try:
            return self._helper_string(method, toks, used, read, runs, 0)
        except RecursionError:  # `absl::StrCat(absl::StrCat(...))` hundreds deep: no macro limit applies
            raise token_error(toks[0], f"the argument of {method}() nests string-building calls too deeply for "
                                       "opgen to read") from None

    def _helper_string(self, method: str, toks: list[Token], used: list[str] | None,
                       read: list[tuple[str, Location]] | None, runs: list[TextRun] | None,
                       start: int) -> str | None:
        """helper_string of `toks`, whose text starts at offset `start` of the argument's."""
        pieces: list[str] = []
        at = start  # where the next piece starts in the argument's text
        for part in split_top_level(toks, "+"):
            if part and all(t[KIND] in _LITERAL_KINDS for t in part):
                pieces.append(self.string(part, method))
                if runs is not None:  # (not past a NUL that cut the text)
                    runs += [r for r in literal_runs(part, at) if r.end <= at + len(pieces[-1])]
                at += len(pieces[-1])
                continue
            inner = _string_building_call(part)
            if inner is not None:  # `absl::StrCat(a, b)`, `std::string(a)`: the strings of their arguments, joined
                for arg in inner:
                    number = parse_int_literal(arg[0][TEXT]) if len(arg) == 1 and arg[0][KIND] == "num" else None
                    if number is not None:
                        pieces.append(str(number))  # StrCat formats an integer in decimal
                    else:
                        value = self._helper_string(method, arg, used, read, runs, at) if arg else None
                        if value is None:
                            return None
                        pieces.append(value)
                    at += len(pieces[-1])
                continue
            name_tok = _helper_name(part)
            if name_tok is None:
                head = part[0] if part else None
                if (head is not None and head[KIND] == "id" and head[TEXT].isupper() and len(part) > 2
                        and part[1][TEXT] == "(" and part[-1][TEXT] == ")"):
                    raise UndefinedNameError(head, head[TEXT], f"cannot resolve '{head[TEXT]}(...)' in {method}(): "
                                             f"'{head[TEXT]}' is not a macro (a string-building macro must be "
                                             "defined in the file or a header it includes)")
                return None
            is_call = part[-1][TEXT] == ")"
            written = "".join(t[TEXT] for t in (part[:-2] if is_call else part))
            qualified = written.lstrip(":")
            table = self.functions if is_call else self.constants
            try:
                found = self.namespaces.lookup(written, self.reading_at, table) if table else None
            except AmbiguousName as e:
                raise OpgenError(f"'{written}' in {method}() is ambiguous: it may mean {' or '.join(e.candidates)}",
                                 token_location(part[0]), hint="qualify it with its namespace") from None
            value = None if found is None else table[found]
            suffix = "()" if is_call else ""
            shown = qualified + suffix  # named as the use writes it
            if value is not None and read is not None:
                read.append((shown, self.written_at[f"{found}{suffix}"]))
            if value is not None and runs is not None:  # (a constant's own macro-expanded text: not followed)
                use = (token_location(name_tok), _written_in(shown))
                runs += [r._replace(start=at + r.start, end=at + r.end, use=use)
                         for r in self.written_runs[f"{found}{suffix}"] if r.use is None and r.end <= len(value)]
            if value is None:  # `[tool.opgen.helpers]` keys: `ns::Name` for this name alone, or `Name`
                key = qualified if qualified in self.helpers else name_tok[TEXT]
                value = self.helpers.get(key)
                if value is not None and used is not None:
                    used.append(key)
            if value is None:
                what = ("a built-in helper nor a function above returning a string literal" if is_call
                        else "a macro, a string constant above nor a helper")
                spelled = f'{name_tok[TEXT]} = "..."'
                if qualified != name_tok[TEXT]:
                    spelled = f'"{qualified}" = "..." or {spelled}'
                known = [*(name.rsplit("::", 1)[-1] for name in table), *self.helpers]
                meant = did_you_mean(name_tok[TEXT], known)
                raise UndefinedNameError(part[0], name_tok[TEXT], f"cannot resolve '{''.join(t[TEXT] for t in part)}' "
                                         f"in {method}(): not {what}" + (f" ({meant})" if meant else "")
                                         + f"; define its string under [tool.opgen.helpers] in pyproject.toml "
                                         f"({spelled})")
            pieces.append(value)
            at += len(value)
        return "".join(pieces)

    def string(self, toks: list[Token], method: str) -> str:
        """The text of adjacent literals `toks` as the `const char*` TF's builder methods take
        (`std::string` from a C string): up to a NUL, the rest dropped with a warning."""
        text = self._literal_text(toks, method)
        if "\0" not in text:
            return text
        kept, _, dropped = text.partition("\0")
        raw = next(((t, t[TEXT].index("\0")) for t in toks if "\0" in t[TEXT]), None)  # a NUL byte in the file
        if raw is None:
            what, at = "a NUL character", token_location(toks[0])
            hint = "remove the \\0 from the literal (write \\\\0 for a backslash and a 0)"
        else:
            tok, offset = raw
            as_written = tok[HIDE] is None and tok[SRC].text.startswith(tok[TEXT], tok[POS])  # not from a macro
            what = "a NUL byte (0x00, not the escape \\0)"
            at = tok[SRC].location(tok[POS] + offset) if as_written else token_location(tok)
            hint = ("delete the NUL byte from the file (editors may show it as ^@ or \\0, or not at all; "
                    "`tr -d '\\000'` deletes every NUL byte of a file)")
        self.warnings.append(OpgenError(
            f"the string literal in {method}() holds {what}: TensorFlow reads it as a C string, "
            f"so its text ends there ({kept[-20:]!r}) and {len(dropped) + 1} characters after it are dropped",
            at, hint=hint))
        return kept

    def _literal_text(self, toks: list[Token], method: str) -> str:
        check_decoded(toks)
        bodies: list[tuple[str, bool, Token]] = []  # (body, has escapes to resolve, token)
        for t in toks:
            prefix = t[TEXT][: t[TEXT].index('"')]
            if prefix not in ("", "u8", "R", "u8R"):
                raise token_error(t, f"{prefix}-prefixed string literal is not a narrow std::string; "
                                  f"use a plain \"...\" literal in {method}()")
            body, _, escaped = literal_body(t)  # (a raw string's: with the line splices the lexer kept)
            bodies.append((body, escaped, t))
        if not any(escaped and needs_bytes(body) for body, escaped, _ in bodies):
            return "".join(decode_simple_escapes(body, t) if escaped else body for body, escaped, t in bodies)
        data = bytearray()
        for body, escaped, t in bodies:
            data += decode_escapes(body, t) if escaped else body.encode("utf-8")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise token_error(toks[0], f"string literal in {method}() is not valid UTF-8 after escapes") from None


def _written_in(name: str) -> str:
    """What wrote text read from the file constant or function `name` (`kName`, `F()`), as
    errors' notes name it."""
    return f"{'function' if name.endswith('()') else 'constant'} '{name}'"


def _without_enclosing_parens(toks: list[Token]) -> list[Token]:
    """`(("a" "b"))` -> `"a" "b"`: a parenthesised expression has the value of its operand,
    so `REGISTER_OP(("Name"))` names the op like `REGISTER_OP("Name")`."""
    # One pass: the `(` of each `)`, then as many leading `(` as close at the mirrored end
    # (`("a") ("b")`: the first closes early), so thousands of parentheses take linear time.
    opened: list[int] = []
    closes: dict[int, int] = {}
    for k, t in enumerate(toks):
        if t[KIND] == "op" and t[TEXT] == "(":
            opened.append(k)
        elif t[KIND] == "op" and t[TEXT] == ")" and opened:
            closes[opened.pop()] = k
    layers = 0
    while layers < len(toks) // 2 and toks[layers][TEXT] == "(" and closes.get(layers) == len(toks) - 1 - layers:
        layers += 1
    return toks[layers : len(toks) - layers]


# The calls that build a std::string from their arguments' strings: abseil's and TF's StrCat
# (`tensorflow::strings::StrCat` is abseil's under another name) and std::string's constructor.
_STRING_BUILDERS = {
    ("absl", "StrCat"), ("strings", "StrCat"), ("tensorflow", "strings", "StrCat"), ("StrCat",),
    ("std", "string"), ("string",),
}


def split_top_level(toks: list[Token], separator: str = ",", angles: bool = False) -> list[list[Token]]:
    """`toks` split at each `separator` outside parentheses, brackets and braces (and template
    angle brackets when `angles`: in a type, where `<` is never less-than)."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        text = t[TEXT]
        if t[KIND] == "op" and text in _CLOSER:
            depth += 1
        elif t[KIND] == "op" and text in (")", "]", "}"):
            depth -= 1
        elif angles and text in _ANGLE_DEPTH:
            depth += _ANGLE_DEPTH[text]
        elif text == separator and depth == 0:
            parts.append([])
            continue
        parts[-1].append(t)
    return parts


_ANGLE_DEPTH = {"<": 1, ">": -1, ">>": -2}


def matching_close(toks: Sequence[Token], i: int) -> int | None:
    """The index of the bracket closing the `(`, `[` or `{` at `i`, None if it is never closed."""
    stack = []
    for j in range(i, len(toks)):
        t = toks[j]
        if t[KIND] != "op":
            continue
        if t[TEXT] in _CLOSER:
            stack.append(_CLOSER[t[TEXT]])
        elif stack and t[TEXT] == stack[-1]:
            stack.pop()
            if not stack:
                return j
    return None


def _string_building_call(part: list[Token]) -> list[list[Token]] | None:
    """The arguments of `[::]absl::StrCat(...)`, `std::string(...)` and the like (`_STRING_BUILDERS`),
    else None."""
    k = 1 if part and part[0][TEXT] == "::" else 0
    name: list[str] = []
    while k < len(part) and part[k][KIND] == "id":
        name.append(part[k][TEXT])
        if k + 1 < len(part) and part[k + 1][TEXT] == "::":
            k += 2
            continue
        k += 1
        break
    if tuple(name) not in _STRING_BUILDERS or k >= len(part) - 1 or part[k][TEXT] not in ("(", "{"):
        return None
    if matching_close(part, k) != len(part) - 1:
        return None  # `StrCat(a)(b)`: the call ends early
    args = split_top_level(part[k + 1 : -1])
    return [] if args == [[]] else args


def _helper_name(part: list[Token]) -> Token | None:
    """The name token of `[::]a::b::Name` or `[::]a::b::Name()`, else None."""
    if part and part[-1][TEXT] == ")":
        if len(part) < 3 or part[-2][TEXT] != "(":
            return None
        part = part[:-2]
    if not part:
        return None
    if part[0][TEXT] == "::":
        part = part[1:]
    if len(part) % 2 == 0:
        return None
    for k, t in enumerate(part):
        if (k % 2 == 0 and t[KIND] != "id") or (k % 2 == 1 and t[TEXT] != "::"):
            return None
    return part[-1]


def _source_text(toks: list[Token]) -> str:
    """The argument as written when it comes straight from one file, else its tokens
    joined (after macro expansion there is no source text), with a space where one
    was written or where two tokens would otherwise run together."""
    first = toks[0]
    src = first[SRC]
    if all(t[HIDE] is None and t[SRC] is src for t in toks):
        text = src.text[first[POS] : toks[-1][END]]
        if not has_undecoded(text):  # else a comment holds bytes that are not UTF-8: leave comments out
            return text
    parts = [first[TEXT]]
    for prev, t in itertools.pairwise(toks):
        a, b = prev[TEXT][-1], t[TEXT][0]
        if t[SPACE] or ((a.isalnum() or a == "_") and (b.isalnum() or b == "_" or b in "\"'")) or (
            a in _OPERATOR_CHARS and b in _OPERATOR_CHARS
        ):
            parts.append(" ")
        parts.append(t[TEXT])
    return "".join(parts)
