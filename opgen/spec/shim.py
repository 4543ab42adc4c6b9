"""Registrations that are not REGISTER_OP chains: TF Lite's shim ops, and a located warning
for every other registration-like macro opgen cannot read.

`REGISTER_TF_OP_SHIM(Kernel)` (TF's `tensorflow/lite/kernels/shim/tf_op_shim.h`) registers
the op of a kernel class `Kernel`: a `tflite::shim::TfOpKernel<Impl, Ts...>` (directly, through
`using`/`typedef`, or as a base class) whose `Impl` (a `tflite::shim::OpKernelShim`) holds
the op as static members. `CreateOpDefBuilderWrapper<Kernel>()` builds it as

    OpDefBuilderWrapper(Impl::OpName())  .Input(s) for s in Impl::Inputs()
        .Output(s) for s in Impl::Outputs()  .Attr(s) for s in Impl::Attrs()
        .SetShapeFn(Kernel::ShapeInference).Doc(Impl::kDoc)

and registers it like REGISTER_OP (subject to selective registration). Here the same calls
become a `Registration` located at the macro, each spec string located where it is written,
so the builder and every check treat a shim op like a chain. `Impl::OpName()` returns
`kOpName` in tensorflow-text (before TF 2.16 OpKernelShim itself did, so a class without
`OpName()` falls back to `kOpName`). The members may be defined in the class or out of it
(`template <Runtime Rt> const char Impl<Rt>::kOpName[] = "...";`); each list is a braced list
of string literals, string constants, helpers, `+` and `absl::StrCat(...)` of those. What
opgen cannot read is a located warning naming the macro, and that op is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from opgen.errors import OpgenError
from opgen.spec.chains import REGISTER_MACROS, ChainReader, UndefinedNameError
from opgen.spec.cpp_lexer import KIND, TEXT, Token, token_location
from opgen.spec.model import BuilderCall, CallArg, Registration

SHIM_MACRO = "REGISTER_TF_OP_SHIM"
# The members CreateOpDefBuilderWrapper reads, in its call order.
_SPEC_LISTS = (("Inputs", "Input"), ("Outputs", "Output"), ("Attrs", "Attr"))
_MAX_TYPE_HOPS = 16  # aliases and base classes followed from the macro's class to TfOpKernel
# A macro named like an op registration: a REGISTER word, later an OP or OPS word.
_REGISTRATION_NAME = re.compile(r"(?:^|_)REGISTER(?:_[A-Z0-9]+)*?_OPS?(?:_|$)")
# TF's macros of that shape that register no op: gradients, XLA and linalg kernels, variant
# functions, dataset names (`function.h`, `grad_op_registry.h`, `xla_op_registry.h`,
# `linalg_ops_common.h`, `variant_op_registry.h`, `dataset.h`), and the selective
# registration predicates (`selective_registration.h`). Their `_UNIQ` helpers likewise.
_NOT_OP_REGISTRATIONS = frozenset({
    "REGISTER_OP_GRADIENT", "REGISTER_OP_NO_GRADIENT", "REGISTER_GRADIENT_OP", "REGISTER_NO_GRADIENT_OP",
    "REGISTER_XLA_OP", "REGISTER_XLA_CONV_OP", "REGISTER_LINALG_OP", "REGISTER_LINALG_OP_CPU",
    "REGISTER_LINALG_OP_GPU", "REGISTER_UNARY_VARIANT_BINARY_OP_FUNCTION",
    "REGISTER_UNARY_VARIANT_UNARY_OP_FUNCTION", "REGISTER_DATASET_OP_NAME", "SHOULD_REGISTER_OP",
    "SHOULD_REGISTER_OP_GRADIENT", "SHOULD_REGISTER_OP_KERNEL",
})
_NAMESPACE_OPENERS = ("namespace", "extern")


class _Unreadable(Exception):
    """Why a shim registration cannot be read, at the token that says so."""

    def __init__(self, at: Token, reason: str, undefined: str | None = None):
        super().__init__(reason)
        self.at = at
        self.reason = reason
        self.undefined = undefined  # a name nothing defines (a missing header may)


def extract_shim_registrations(tokens: list[Token], helpers: Mapping[str, str]
                               ) -> tuple[list[Registration], list[OpgenError]]:
    """The op of each `REGISTER_TF_OP_SHIM(Kernel)` of a translation unit, in source order,
    and a warning for each one that cannot be read (an UndefinedNameError when a name it
    needs is defined nowhere)."""
    sites = [i for i, t in enumerate(tokens)
             if t[TEXT] == SHIM_MACRO and t[KIND] == "id" and i + 1 < len(tokens) and tokens[i + 1][TEXT] == "("]
    if not sites:
        return [], []
    reader = ChainReader(tokens, helpers)
    ignored: list[OpgenError] = []  # a bad constant is reported where REGISTER_OP chains are read
    for i, t in enumerate(tokens):
        if t[TEXT] == "=":
            reader.note_constant(i, ignored)
        elif t[TEXT] == "return":
            reader.note_function(i, ignored)
    shims = _ShimReader(tokens, reader)
    regs: list[Registration] = []
    warnings: list[OpgenError] = []
    for i in sites:
        try:
            regs.append(shims.read(i))
        except _Unreadable as e:
            message = f"cannot read the op {SHIM_MACRO} registers here: {e.reason}; the op is skipped"
            if e.undefined is not None:
                warnings.append(UndefinedNameError(tokens[i], e.undefined, message))
            else:
                warnings.append(OpgenError(message, token_location(tokens[i]),
                                           hint=f"opgen reads {SHIM_MACRO}(Kernel) where Kernel is a "
                                           "tflite::shim::TfOpKernel<Impl> whose Impl defines OpName() or kOpName, "
                                           "kDoc, Inputs(), Outputs() and Attrs() returning braced lists of strings"))
    return regs, warnings


def unread_registration_macros(tokens: list[Token]) -> list[OpgenError]:
    """Calls at file scope of an undefined macro named like an op registration
    (`REGISTER_MY_OP(...)`, `REGISTER_RESOURCE_HANDLE_OP(T)`), each macro once: opgen cannot
    see what it registers. Macros opgen reads and TF's that register no op are left alone."""
    found: list[OpgenError] = []
    seen: set[str] = set()
    scopes: list[bool] = []  # per open brace: a namespace's or `extern "C"`'s (still file scope)
    statement_start = 0  # index of the first token of the current statement or declaration
    for i, t in enumerate(tokens):
        text = t[TEXT]
        if t[KIND] == "op":
            if text == "{":
                head = [u[TEXT] for u in tokens[statement_start:i]]
                scopes.append(bool(head) and head[0] in _NAMESPACE_OPENERS)
                statement_start = i + 1
            elif text == "}":
                if scopes:
                    scopes.pop()
                statement_start = i + 1
            elif text == ";":
                statement_start = i + 1
            continue
        if (t[KIND] != "id" or text in seen or text in REGISTER_MACROS or text == SHIM_MACRO or not all(scopes)
                or _unique_suffixless(text) in _NOT_OP_REGISTRATIONS or not _REGISTRATION_NAME.search(text)
                or i + 1 >= len(tokens) or tokens[i + 1][TEXT] != "("
                or (i > 0 and tokens[i - 1][TEXT] in (".", "->", "::"))):
            continue
        seen.add(text)
        found.append(UndefinedNameError(t, text, f"'{text}(...)' looks like a registration through the macro "
                                        f"'{text}', which is not defined: opgen cannot read what it registers"))
    return found


def _unique_suffixless(name: str) -> str:
    return re.sub(r"_UNIQ(?:_HELPER)?\Z", "", name)


class _ShimReader:
    """Resolves kernel classes to their shim implementation and reads its static members."""

    def __init__(self, tokens: list[Token], reader: ChainReader):
        self.tokens = tokens
        self.reader = reader
        self.file_constants = dict(reader.constants)

    def read(self, site: int) -> Registration:
        toks = self.tokens
        macro_tok = toks[site]
        args, _ = self._paren_args(site + 1)
        if len(args) != 1:
            raise _Unreadable(macro_tok, f"{SHIM_MACRO} takes one kernel class, got {len(args)} arguments")
        kernel = _type_name(args[0])
        if kernel is None:
            raise _Unreadable(args[0][0], f"'{_text(args[0])}' is not a class name")
        impl_tok = self._shim_impl(kernel, 0)
        impl = impl_tok[TEXT]
        body = self._class_body(impl)
        if body is None:
            raise _Unreadable(impl_tok, f"the definition of the shim class '{impl}' was not found", impl)
        members = self._member_constants(impl, body)
        self.reader.constants = {**self.file_constants, **{k: value for k, (value, _) in members.items()}}
        op_name_expr = self._member_function(impl, body, "OpName", required=False)
        if op_name_expr is not None:
            name = self._string(op_name_expr, impl, "OpName()")
        elif "kOpName" in members:
            name = members["kOpName"][0]
        else:
            raise _Unreadable(impl_tok, f"'{impl}' defines neither OpName() nor a string constant kOpName")
        calls: list[BuilderCall] = []
        for function, method in _SPEC_LISTS:
            expr = self._member_function(impl, body, function, required=True)
            assert expr is not None
            for element in _braced_list(expr, impl, function):
                loc = token_location(element[0])
                calls.append(BuilderCall(method, (CallArg("string", self._string(element, impl, f"{function}()"), loc),),
                                         loc))
        calls.append(BuilderCall("SetShapeFn", (CallArg("expr", f"{kernel[TEXT]}::ShapeInference",
                                                        token_location(kernel)),), token_location(kernel)))
        if "kDoc" not in members:
            raise _Unreadable(impl_tok, f"'{impl}' defines no string constant kDoc (the shim passes {impl}::kDoc "
                              "to Doc())")
        doc, doc_tok = members["kDoc"]
        calls.append(BuilderCall("Doc", (CallArg("string", doc, token_location(doc_tok)),), token_location(doc_tok)))
        return Registration(name, token_location(macro_tok), tuple(calls))

    # ------------------------------------------------------------- classes

    def _shim_impl(self, type_tok: Token, hops: int) -> Token:
        """The implementation class (`Impl` of `TfOpKernel<Impl, ...>`) behind the kernel type
        named at `type_tok`: through aliases and base classes."""
        if hops > _MAX_TYPE_HOPS:
            raise _Unreadable(type_tok, f"more than {_MAX_TYPE_HOPS} aliases and base classes lead from the kernel class")
        name = type_tok[TEXT]
        if name == "TfOpKernel":
            impl = self._template_args(type_tok)
            if not impl or _type_name(impl[0]) is None:
                raise _Unreadable(type_tok, "TfOpKernel's first template argument is not a class name")
            found = _type_name(impl[0])
            assert found is not None
            return found
        target = self._alias_target(name)
        if target is not None:
            return self._shim_impl(target, hops + 1)
        for base in self._base_classes(name):
            try:
                return self._shim_impl(base, hops + 1)
            except _Unreadable:
                continue
        raise _Unreadable(type_tok, f"'{name}' is not a tflite::shim::TfOpKernel (no alias of one, nor a class "
                          "deriving from one, is defined)", name)

    def _alias_target(self, name: str) -> Token | None:
        """The type `using name = T;` or `typedef T name;` names (T's name token)."""
        toks = self.tokens
        for i, t in enumerate(toks):
            if t[TEXT] == "using" and i + 3 < len(toks) and toks[i + 1][TEXT] == name and toks[i + 2][TEXT] == "=":
                end = _statement_end(toks, i + 3)
                return _type_name(toks[i + 3 : end])
            if t[TEXT] == "typedef":
                end = _statement_end(toks, i + 1)
                if end - 1 > i + 1 and toks[end - 1][TEXT] == name:
                    return _type_name(toks[i + 1 : end - 1])
        return None

    def _class_head(self, name: str) -> tuple[int, int] | None:
        """(index of the name, index of `{`) of the definition of class or struct `name`."""
        toks = self.tokens
        for i in range(1, len(toks) - 1):
            if toks[i][TEXT] != name or toks[i - 1][TEXT] not in ("class", "struct"):
                continue
            j = i + 1
            while j < len(toks) and toks[j][TEXT] not in ("{", ";", "(", ")", "="):
                j += 1
            if j < len(toks) and toks[j][TEXT] == "{":
                return i, j
        return None

    def _base_classes(self, name: str) -> list[Token]:
        head = self._class_head(name)
        if head is None:
            return []
        i, brace = head
        clause = self.tokens[i + 1 : brace]
        while clause and clause[0][TEXT] == "final":
            clause = clause[1:]
        if not clause or clause[0][TEXT] != ":":
            return []
        bases = []
        for part in _split_top_level(clause[1:]):
            part = [t for t in part if t[TEXT] not in ("public", "protected", "private", "virtual")]
            base = _type_name(part)
            if base is not None:
                bases.append(base)
        return bases

    def _class_body(self, name: str) -> tuple[int, int] | None:
        """Indices of the `{` and `}` of class `name`'s body."""
        head = self._class_head(name)
        if head is None:
            return None
        close = _matching(self.tokens, head[1])
        return None if close is None else (head[1], close)

    def _template_args(self, name_tok: Token) -> list[list[Token]]:
        """The template arguments after the name token `name_tok` (`X<a, b>`), split at top level."""
        toks = self.tokens
        i = _index_of(toks, name_tok)
        if i + 1 >= len(toks) or toks[i + 1][TEXT] != "<":
            return []
        depth = 0
        for j in range(i + 1, len(toks)):
            text = toks[j][TEXT]
            depth += {"<": 1, ">": -1, ">>": -2}.get(text, 0)
            if depth <= 0:
                return _split_top_level(toks[i + 2 : j])
            if text in (";", "{"):
                break
        return []

    # ------------------------------------------------------------- members

    def _member_constants(self, impl: str, body: tuple[int, int]) -> dict[str, tuple[str, Token]]:
        """The string constants of class `impl` (value, its first token): `static constexpr char
        NAME[] = "...";` in its body, or defined out of it (`const char impl<Rt>::NAME[] = "...";`)."""
        constants: dict[str, tuple[str, Token]] = {}
        for name, (value_start, value_end) in self._member_definitions(impl, body).items():
            literal = self.tokens[value_start:value_end]
            if literal and all(t[KIND] in ("str", "raw") for t in literal):
                try:
                    constants[name] = (self.reader.string(literal, name), literal[0])
                except OpgenError:
                    continue  # a bad literal: reported where REGISTER_OP chains are read
        return constants

    def _member_definitions(self, impl: str, body: tuple[int, int]) -> dict[str, tuple[int, int]]:
        """NAME -> the token range of its initializer, for `NAME[] = init;` / `NAME = init;` at
        the top level of the class body and `impl[<...>]::NAME[] = init;` anywhere."""
        toks = self.tokens
        found: dict[str, tuple[int, int]] = {}
        depth = 0
        for i in range(body[0] + 1, body[1]):
            text = toks[i][TEXT]
            if text in ("{", "(", "["):
                depth += 1
            elif text in ("}", ")", "]"):
                depth -= 1
            elif text == "=" and depth == 0:
                name = _declared_name(toks, i)
                if name is not None:
                    found.setdefault(name, (i + 1, _statement_end(toks, i + 1)))
        for i, t in enumerate(toks):
            if t[TEXT] == "=" and not body[0] < i < body[1]:
                name = _declared_name(toks, i)
                if name is not None and _qualifier(toks, _name_index(toks, i)) == impl:
                    found[name] = (i + 1, _statement_end(toks, i + 1))
        return found

    def _member_function(self, impl: str, body: tuple[int, int], name: str, required: bool) -> list[Token] | None:
        """The returned expression of `impl`'s static member function `name()` whose body is
        `{ return EXPR; }`: defined in the class or out of it (`impl<...>::name() {...}`)."""
        toks = self.tokens
        declared = False
        candidates = []
        depth = 0  # inside the body of a member function, or any other brackets
        for i in range(body[0] + 1, body[1] - 2):
            text = toks[i][TEXT]
            if text in ("{", "(", "["):
                depth += 1
            elif text in ("}", ")", "]"):
                depth -= 1
            elif depth == 0 and text == name and toks[i + 1][TEXT] == "(":
                declared = True
                candidates.append(i)
        for i, t in enumerate(toks):
            if (t[TEXT] == name and not body[0] < i < body[1] and i + 1 < len(toks) and toks[i + 1][TEXT] == "("
                    and _qualifier(toks, i) == impl):
                declared = True
                candidates.append(i)
        for i in candidates:
            close = _matching(toks, i + 1)
            if close is None or close + 1 >= len(toks):
                continue
            j = close + 1
            while j < len(toks) and toks[j][TEXT] in ("const", "noexcept", "override", "final"):
                j += 1
            if j >= len(toks) or toks[j][TEXT] != "{":
                continue  # a declaration: the definition is elsewhere
            end = _matching(toks, j)
            if end is None or end < j + 3 or toks[j + 1][TEXT] != "return" or toks[end - 1][TEXT] != ";":
                raise _Unreadable(toks[j], f"{impl}::{name}() is not `{{ return ...; }}`")
            return toks[j + 2 : end - 1]
        if not required and not declared:
            return None
        at = toks[candidates[0]] if candidates else toks[body[0]]
        raise _Unreadable(at, f"no definition of {impl}::{name}() was found" if declared
                          else f"'{impl}' has no static member function {name}()")

    # ------------------------------------------------------------- values

    def _string(self, toks: list[Token], impl: str, what: str) -> str:
        """A string-valued expression: literals, constants, helpers, `+`, `absl::StrCat(...)`,
        `std::string(...)`."""
        if not toks:
            raise _Unreadable(self.tokens[0], f"an empty value in {impl}::{what}")
        inner = _call_args(toks, ("absl", "::", "StrCat")) or _call_args(toks, ("std", "::", "string"))
        if inner is not None:
            return "".join(self._string(part, impl, what) for part in inner)
        try:
            if all(t[KIND] in ("str", "raw") for t in toks):
                return self.reader.string(toks, what)
            value = self.reader.helper_string("Attr", toks)  # constants, helpers and `+`, as in a chain's Attr()
        except UndefinedNameError as e:
            raise _Unreadable(toks[0], f"in {impl}::{what}: {e.message}", e.name) from None
        except OpgenError as e:
            raise _Unreadable(toks[0], f"in {impl}::{what}: {e.message}") from None
        if value is None:
            raise _Unreadable(toks[0], f"'{_text(toks)}' in {impl}::{what} is not a string opgen can evaluate")
        return value

    def _paren_args(self, i: int) -> tuple[list[list[Token]], int]:
        try:
            return self.reader.paren_args(i, SHIM_MACRO)
        except OpgenError as e:
            raise _Unreadable(self.tokens[i], e.message) from None


def _braced_list(expr: list[Token], impl: str, function: str) -> list[list[Token]]:
    """The elements of `{a, b}` (also `std::vector<std::string>{a, b}` and `(...)`-wrapped)."""
    if expr and expr[0][TEXT] != "{" and expr[-1][TEXT] == "}":
        open_at = next((k for k, t in enumerate(expr) if t[TEXT] == "{"), None)
        expr = expr[open_at:] if open_at is not None else expr
    if len(expr) < 2 or expr[0][TEXT] != "{" or expr[-1][TEXT] != "}":
        raise _Unreadable(expr[0], f"{impl}::{function}() does not return a braced list of strings")
    return [part for part in _split_top_level(expr[1:-1]) if part]


def _call_args(toks: list[Token], callee: tuple[str, ...]) -> list[list[Token]] | None:
    """The arguments of `callee(...)` when `toks` is exactly that call (a leading `::` allowed)."""
    if toks and toks[0][TEXT] == "::":
        toks = toks[1:]
    n = len(callee)
    if (len(toks) < n + 2 or tuple(t[TEXT] for t in toks[:n]) != callee or toks[n][TEXT] != "("
            or _matching(toks, n) != len(toks) - 1):
        return None
    return [part for part in _split_top_level(toks[n + 1 : -1]) if part]


def _type_name(toks: list[Token]) -> Token | None:
    """The name token of the type `[typename] [::]a::b::Name[<...>]`, else None."""
    toks = [t for t in toks if t[TEXT] not in ("typename", "class", "struct", "const")]
    if toks and toks[0][TEXT] == "::":
        toks = toks[1:]
    end = next((k for k, t in enumerate(toks) if t[TEXT] == "<"), len(toks))
    if end < len(toks) and toks[-1][TEXT] not in (">", ">>"):
        return None
    name = toks[:end]
    if not name or len(name) % 2 == 0:
        return None
    for k, t in enumerate(name):
        if (k % 2 == 0 and t[KIND] != "id") or (k % 2 == 1 and t[TEXT] != "::"):
            return None
    return name[-1]


def _declared_name(toks: list[Token], eq: int) -> str | None:
    """The name declared by `NAME[] =` or `NAME =` whose `=` is at `eq`."""
    k = _name_index(toks, eq)
    return toks[k][TEXT] if k >= 0 and toks[k][KIND] == "id" else None


def _name_index(toks: list[Token], eq: int) -> int:
    k = eq - 1
    if k >= 1 and toks[k][TEXT] == "]" and toks[k - 1][TEXT] == "[":
        k -= 2
    return k


def _qualifier(toks: list[Token], i: int) -> str | None:
    """`Impl` when the name at `i` is written `Impl::name` or `Impl<...>::name`."""
    if i < 2 or toks[i - 1][TEXT] != "::":
        return None
    k = i - 2
    if toks[k][TEXT] in (">", ">>"):
        depth = 0
        while k >= 0:
            depth += {">": 1, ">>": 2, "<": -1}.get(toks[k][TEXT], 0)
            if depth <= 0:
                break
            k -= 1
        k -= 1
    return toks[k][TEXT] if k >= 0 and toks[k][KIND] == "id" else None


def _matching(toks: list[Token], i: int) -> int | None:
    """The index of the bracket closing the `(`, `[` or `{` at `i`."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(i, len(toks)):
        text = toks[j][TEXT]
        if text in pairs and toks[j][KIND] == "op":
            stack.append(pairs[text])
        elif stack and text == stack[-1] and toks[j][KIND] == "op":
            stack.pop()
            if not stack:
                return j
    return None


def _split_top_level(toks: list[Token]) -> list[list[Token]]:
    """`toks` split at the commas outside brackets (template angle brackets included)."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        text = t[TEXT]
        if text in ("(", "[", "{", "<"):
            depth += 1
        elif text in (")", "]", "}", ">"):
            depth -= 1
        elif text == ">>":
            depth -= 2
        elif text == "," and depth == 0:
            parts.append([])
            continue
        parts[-1].append(t)
    return parts


def _statement_end(toks: list[Token], i: int) -> int:
    """The index of the `;` ending the statement that goes on at `i` (brackets skipped)."""
    depth = 0
    for j in range(i, len(toks)):
        text = toks[j][TEXT]
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return j
        elif text == ";" and depth == 0:
            return j
    return len(toks)


def _index_of(toks: list[Token], tok: Token) -> int:
    return next(k for k, t in enumerate(toks) if t is tok)


def _text(toks: list[Token]) -> str:
    return " ".join(t[TEXT] for t in toks)


__all__ = ["SHIM_MACRO", "extract_shim_registrations", "unread_registration_macros"]
