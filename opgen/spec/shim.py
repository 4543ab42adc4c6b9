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
from dataclasses import dataclass

from opgen.errors import OpgenError
from opgen.model import BuilderCall, CallArg, Registration
from opgen.spec.chains import REGISTER_MACROS, ChainReader, UndefinedNameError, matching_close, split_top_level
from opgen.spec.cpp_lexer import KIND, TEXT, Token, token_location
from opgen.spec.cpp_namespaces import Namespaces

SHIM_MACRO = "REGISTER_TF_OP_SHIM"
# The members CreateOpDefBuilderWrapper reads, in its call order.
_SPEC_LISTS = (("Inputs", "Input"), ("Outputs", "Output"), ("Attrs", "Attr"))
_MAX_TYPE_HOPS = 16  # aliases and base classes followed from the macro's class to TfOpKernel
_MAX_HEAD_TOKENS = 512  # tokens of a class head, alias or template argument list looked at
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


class _Unreadable(Exception):
    """Why a shim registration cannot be read, at the token that says so."""

    def __init__(self, at: Token, reason: str, undefined: str | None = None):
        super().__init__(reason)
        self.at = at
        self.reason = reason
        self.undefined = undefined  # a name nothing defines (a missing header may)

    def where(self, site: Token) -> str:
        """The reason, with where it stands when that is not on the line of `site` (the macro)."""
        at, here = token_location(self.at), token_location(site)
        return self.reason if (at.path, at.line) == (here.path, here.line) else f"{self.reason} ({at})"


def extract_shim_registrations(tokens: list[Token], helpers: Mapping[str, str], namespaces: Namespaces | None = None,
                               ) -> tuple[list[Registration], list[OpgenError]]:
    """The op of each `REGISTER_TF_OP_SHIM(Kernel)` of a translation unit, in source order,
    and a warning for each one that cannot be read (an UndefinedNameError when a name it
    needs is defined nowhere)."""
    sites = [i for i, t in enumerate(tokens)
             if t[TEXT] == SHIM_MACRO and t[KIND] == "id" and i + 1 < len(tokens) and tokens[i + 1][TEXT] == "("]
    if not sites:
        return [], []
    reader = ChainReader(tokens, helpers, namespaces=namespaces)
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
        reader.reading_at = i
        try:
            regs.append(shims.read(i))
        except _Unreadable as e:
            message = f"cannot read the op {SHIM_MACRO} registers here: {e.where(tokens[i])}; the op is skipped"
            if e.undefined is not None:
                warnings.append(UndefinedNameError(tokens[i], e.undefined, message))
            else:
                warnings.append(OpgenError(message, token_location(tokens[i]),
                                           hint=f"opgen reads {SHIM_MACRO}(Kernel) where Kernel is a "
                                           "tflite::shim::TfOpKernel<Impl> whose Impl defines OpName() or kOpName, "
                                           "kDoc, Inputs(), Outputs() and Attrs() returning braced lists of strings"))
    return regs, warnings


class ShimOpNames:
    """The op of a kernel registration's `Name(Kernel::OpName())`, `Kernel` a shim kernel class
    (tensorflow-text registers its shim ops' kernels so): what `TfOpKernel::OpName()` returns."""

    def __init__(self, tokens: list[Token], reader: ChainReader):
        self._tokens = tokens
        self._reader = reader
        self._shims: _ShimReader | None = None  # built at the first `Kernel::OpName()`

    def op_name(self, toks: list[Token]) -> str | None:
        """The op name when `toks` is `Kernel::OpName()`, None when it is not of that shape;
        a located error when `Kernel` is not a shim kernel opgen can read."""
        if len(toks) < 5 or [t[TEXT] for t in toks[-4:]] != ["::", "OpName", "(", ")"]:
            return None
        if self._shims is None:
            self._shims = _ShimReader(self._tokens, self._reader)
        try:
            return self._shims.shim_class(toks[:-4])[0].op_name
        except _Unreadable as e:
            message = f"cannot read the op '{_text(toks)}' names: {e.where(toks[0])}"
            if e.undefined is not None:
                raise UndefinedNameError(toks[0], e.undefined, message) from None
            raise OpgenError(message, token_location(toks[0])) from None


def unread_registration_macros(tokens: list[Token], calls: list[tuple[int, bool]]) -> list[UndefinedNameError]:
    """Calls at file scope (`calls`: `Namespaces.file_scope_calls`) of an undefined macro
    named like an op registration (`REGISTER_MY_OP(...)`, `REGISTER_RESOURCE_HANDLE_OP(T)`),
    each macro once: opgen cannot see what it registers. Macros opgen reads and TF's that
    register no op are left alone."""
    found: list[UndefinedNameError] = []
    seen: set[str] = set()
    for i, _ in calls:
        text = tokens[i][TEXT]
        if (text in seen or text in REGISTER_MACROS or text == SHIM_MACRO
                or _unique_suffixless(text) in _NOT_OP_REGISTRATIONS or not _REGISTRATION_NAME.search(text)):
            continue
        seen.add(text)
        found.append(UndefinedNameError(tokens[i], text, f"'{text}(...)' looks like a registration through the macro "
                                        f"'{text}', which is not defined: opgen cannot read what it registers"))
    return found


def _unique_suffixless(name: str) -> str:
    return re.sub(r"_UNIQ(?:_HELPER)?\Z", "", name)


class _ShimReader:
    """Resolves kernel classes to their shim implementation and reads its static members.

    Every lookup starts from the occurrences of a name (an index built once), and looks at
    most _MAX_HEAD_TOKENS around them, and classes are read once: a translation unit of any
    size or number of registrations is read in time linear in its length."""

    def __init__(self, tokens: list[Token], reader: ChainReader):
        self.tokens = tokens
        self.reader = reader
        self.occurrences: dict[str, list[int]] = {}  # identifier -> its token indices
        for i, t in enumerate(tokens):
            if t[KIND] == "id":
                self.occurrences.setdefault(t[TEXT], []).append(i)
        self._impls: dict[str, str | _Unreadable] = {}  # kernel type name -> its shim class's name
        self._classes: dict[str, _ShimClass | _Unreadable] = {}

    def read(self, site: int) -> Registration:
        toks = self.tokens
        macro_tok = toks[site]
        args, _ = self._paren_args(site + 1)
        if len(args) != 1:
            raise _Unreadable(macro_tok, f"{SHIM_MACRO} takes one kernel class, got {len(args)} arguments")
        shim, kernel = self.shim_class(args[0])
        calls = [
            *shim.calls,
            BuilderCall(
                "SetShapeFn",
                (CallArg("expr", f"{kernel[TEXT]}::ShapeInference", token_location(kernel)),),
                token_location(kernel),
            ),
            shim.doc,
        ]
        return Registration(shim.op_name, token_location(macro_tok), tuple(calls))

    def shim_class(self, kernel_type: list[Token]) -> tuple[_ShimClass, Token]:
        """The shim class of the kernel type `kernel_type` (tokens), and the type's name token."""
        kernel = _type_name(kernel_type)
        if kernel is None:
            raise _Unreadable(kernel_type[0], f"'{_text(kernel_type)}' is not a class name")
        impl = self._impls.get(kernel[TEXT])
        if impl is None:
            try:
                impl = self._shim_impl(kernel_type, 0, set())[TEXT]
            except _Unreadable as e:
                impl = e
            self._impls[kernel[TEXT]] = impl
        if isinstance(impl, _Unreadable):
            raise impl
        shim = self._classes.get(impl)
        if shim is None:
            try:
                shim = self._read_class(impl)
            except _Unreadable as e:
                shim = e
            self._classes[impl] = shim
        if isinstance(shim, _Unreadable):
            raise shim
        return shim, kernel

    # ------------------------------------------------------------- classes

    def _shim_impl(self, type_toks: list[Token], hops: int, tried: set[str]) -> Token:
        """The name token of the implementation class (`Impl` of `TfOpKernel<Impl, ...>`) of
        the kernel type `type_toks`: through aliases and base classes (each name once: the
        `tried` ones led nowhere)."""
        name_tok = _type_name(type_toks)
        if name_tok is None:
            raise _Unreadable(type_toks[0], f"'{_text(type_toks)}' is not a class name")
        if hops > _MAX_TYPE_HOPS:
            raise _Unreadable(name_tok, f"more than {_MAX_TYPE_HOPS} aliases and base classes lead from the kernel "
                              "class")
        name = name_tok[TEXT]
        if name in tried:
            raise _Unreadable(name_tok, f"'{name}' leads back to itself")
        tried.add(name)
        if name == "TfOpKernel":
            args = _template_args(type_toks)
            impl = _type_name(args[0]) if args else None
            if impl is None:
                raise _Unreadable(name_tok, "TfOpKernel's first template argument is not a class name")
            return impl
        target = self._alias_target(name)
        if target is not None:
            return self._shim_impl(target, hops + 1, tried)
        for base in self._base_classes(name):
            try:
                return self._shim_impl(base, hops + 1, tried)
            except _Unreadable:
                continue
        raise _Unreadable(name_tok, f"'{name}' is not a tflite::shim::TfOpKernel (no alias of one, nor a class "
                          "deriving from one, is defined)", name)

    def _alias_target(self, name: str) -> list[Token] | None:
        """The type (its tokens) that `using name = T;` or `typedef T name;` names."""
        toks = self.tokens
        for i in self.occurrences.get(name, ()):
            if 0 < i < len(toks) - 2 and toks[i - 1][TEXT] == "using" and toks[i + 1][TEXT] == "=":
                return toks[i + 2 : _statement_end(toks, i + 2, _MAX_HEAD_TOKENS)] or None
            if i + 1 < len(toks) and toks[i + 1][TEXT] == ";":
                begin = next((k for k in range(i - 1, max(-1, i - _MAX_HEAD_TOKENS), -1)
                              if toks[k][TEXT] in ("typedef", ";", "{", "}")), None)
                if begin is not None and toks[begin][TEXT] == "typedef":
                    return toks[begin + 1 : i] or None
        return None

    def _class_head(self, name: str) -> tuple[int, int] | None:
        """(index of the name, index of `{`) of the definition of class or struct `name`."""
        toks = self.tokens
        for i in self.occurrences.get(name, ()):
            if i == 0 or toks[i - 1][TEXT] not in ("class", "struct"):
                continue
            for j in range(i + 1, min(len(toks), i + _MAX_HEAD_TOKENS)):
                text = toks[j][TEXT]
                if text == "{":
                    return i, j
                if text in (";", "(", ")", "="):
                    break
        return None

    def _base_classes(self, name: str) -> list[list[Token]]:
        """The types (their tokens) of class `name`'s base classes."""
        head = self._class_head(name)
        if head is None:
            return []
        i, brace = head
        k = i + 1
        while k < brace and self.tokens[k][TEXT] == "final":
            k += 1
        if k >= brace or self.tokens[k][TEXT] != ":":
            return []
        return [[t for t in part if t[TEXT] not in ("public", "protected", "private", "virtual")]
                for part in split_top_level(self.tokens[k + 1 : brace], angles=True) if part]

    def _read_class(self, impl: str) -> _ShimClass:
        """The op calls of the shim class `impl`: its members as CreateOpDefBuilderWrapper reads them."""
        toks = self.tokens
        head = self._class_head(impl)
        close = matching_close(toks, head[1]) if head is not None else None
        if head is None or close is None:
            # located at the first mention of the class
            raise _Unreadable(toks[self.occurrences[impl][0]], f"the definition of the shim class '{impl}' was not "
                              "found", impl)
        impl_tok = toks[head[0]]
        members = _ShimMembers(self, impl, (head[1], close))
        op_name_expr = members.function("OpName", required=False)
        if op_name_expr is not None:
            op_name = members.string(op_name_expr, "OpName()")
        elif "kOpName" in members.constants:
            op_name = members.constants["kOpName"][0]
        else:
            raise _Unreadable(impl_tok, f"'{impl}' defines neither OpName() nor a string constant kOpName")
        calls: list[BuilderCall] = []
        for function, method in _SPEC_LISTS:
            expr = members.function(function, required=True)
            assert expr is not None
            for element in _braced_list(expr, impl, function):
                loc = token_location(element[0])
                calls.append(BuilderCall(method, (CallArg("string", members.string(element, f"{function}()"), loc),),
                                         loc))
        if "kDoc" not in members.constants:
            raise _Unreadable(impl_tok, f"'{impl}' defines no string constant kDoc (the shim passes {impl}::kDoc "
                              "to Doc())")
        doc, doc_tok = members.constants["kDoc"]
        doc_call = BuilderCall("Doc", (CallArg("string", doc, token_location(doc_tok)),), token_location(doc_tok))
        return _ShimClass(op_name, tuple(calls), doc_call)

    def _paren_args(self, i: int) -> tuple[list[list[Token]], int]:
        try:
            return self.reader.paren_args(i, SHIM_MACRO)
        except OpgenError as e:
            raise _Unreadable(self.tokens[i], e.message) from None


@dataclass(frozen=True)
class _ShimClass:
    op_name: str
    calls: tuple[BuilderCall, ...]  # Input(...)s, Output(...)s, Attr(...)s
    doc: BuilderCall


class _ShimMembers:
    """The static members of one shim class: string constants and `{ return ...; }` functions,
    defined in the class body (`body`: the indices of its braces) or out of it."""

    def __init__(self, shims: _ShimReader, impl: str, body: tuple[int, int]):
        self.shims = shims
        self.toks = shims.tokens
        self.impl = impl
        self.body = body
        toks = self.toks
        self.in_class: dict[str, list[int]] = {}  # name -> where `name(` or `name[] =`/`name =` stands at depth 0
        depth = 0
        for i in range(body[0] + 1, body[1]):
            text = toks[i][TEXT]
            if text in ("{", "(", "["):
                if depth == 0 and text == "(" and toks[i - 1][KIND] == "id":
                    self.in_class.setdefault(toks[i - 1][TEXT], []).append(i - 1)
                depth += 1
            elif text in ("}", ")", "]"):
                depth -= 1
            elif text == "=" and depth == 0:
                k = _name_index(toks, i)
                if toks[k][KIND] == "id":
                    self.in_class.setdefault(toks[k][TEXT], []).append(k)
        # name -> where `impl[<...>]::name` stands outside the body
        self.out_of_class: dict[str, list[int]] = {}
        for i in shims.occurrences.get(impl, ()):
            if body[0] < i < body[1]:
                continue
            k = i + 1
            if k < len(toks) and toks[k][TEXT] == "<":
                close = _angle_close(toks, k)
                if close is None:
                    continue
                k = close + 1
            if k + 1 < len(toks) and toks[k][TEXT] == "::" and toks[k + 1][KIND] == "id":
                self.out_of_class.setdefault(toks[k + 1][TEXT], []).append(k + 1)
        self.constants: dict[str, tuple[str, Token]] = {}  # name -> (value, its first token)
        for name, sites in [*self.in_class.items(), *self.out_of_class.items()]:
            for k in sites:
                value = self._constant_at(k)
                if value is not None:
                    self.constants[name] = value

    def _constant_at(self, k: int) -> tuple[str, Token] | None:
        """The value of `name[] = "literals";` / `name = "literals";` whose name is at `k`."""
        toks = self.toks
        eq = k + 3 if k + 3 < len(toks) and toks[k + 1][TEXT] == "[" and toks[k + 2][TEXT] == "]" else k + 1
        if eq >= len(toks) or toks[eq][TEXT] != "=":
            return None
        end = eq + 1
        while end < len(toks) and toks[end][KIND] in ("str", "raw"):
            end += 1
        if end == eq + 1 or end >= len(toks) or toks[end][TEXT] != ";":
            return None
        try:
            return self.shims.reader.string(toks[eq + 1 : end], toks[k][TEXT]), toks[eq + 1]
        except OpgenError:
            return None  # a bad literal: reported where REGISTER_OP chains are read

    def function(self, name: str, required: bool) -> list[Token] | None:
        """The returned expression of the static member function `name()` whose body is
        `{ return EXPR; }`, defined in the class or out of it (`impl<...>::name() {...}`)."""
        toks, impl = self.toks, self.impl
        sites = [k for k in [*self.in_class.get(name, ()), *self.out_of_class.get(name, ())]
                 if k + 1 < len(toks) and toks[k + 1][TEXT] == "("]
        for k in sites:
            close = matching_close(toks, k + 1)
            if close is None:
                continue
            j = close + 1
            while j < len(toks) and toks[j][TEXT] in ("const", "noexcept", "override", "final"):
                j += 1
            if j >= len(toks) or toks[j][TEXT] != "{":
                continue  # a declaration: the definition is elsewhere
            end = matching_close(toks, j)
            if end is None or end < j + 3 or toks[j + 1][TEXT] != "return" or toks[end - 1][TEXT] != ";":
                raise _Unreadable(toks[j], f"{impl}::{name}() is not `{{ return ...; }}`")
            return toks[j + 2 : end - 1]
        if not required and not sites:
            return None
        at = toks[sites[0]] if sites else toks[self.body[0]]
        raise _Unreadable(at, f"no definition of {impl}::{name}() was found" if sites
                          else f"'{impl}' has no static member function {name}()")

    def string(self, toks: list[Token], what: str) -> str:
        """A string-valued expression: literals, the class's constants, file constants and
        helpers, joined by `+`, `absl::StrCat(...)` or `std::string(...)`."""
        impl = self.impl
        if not toks:
            raise _Unreadable(self.toks[self.body[0]], f"an empty value in {impl}::{what}")
        inner = _call_args(toks, ("absl", "::", "StrCat")) or _call_args(toks, ("std", "::", "string"))
        if inner is not None:
            return "".join(self.string(part, what) for part in inner)
        parts = split_top_level(toks, "+", angles=True)
        if len(parts) > 1:
            return "".join(self.string(part, what) for part in parts)
        member = _member_name(toks, impl)
        if member in self.constants:
            return self.constants[member][0]
        reader = self.shims.reader
        try:
            if all(t[KIND] in ("str", "raw") for t in toks):
                return reader.string(toks, what)
            value = reader.helper_string("Attr", toks)  # file constants and helpers, as in a chain's Attr()
        except UndefinedNameError as e:
            raise _Unreadable(toks[0], f"in {impl}::{what}: {e.message}", e.name) from None
        except OpgenError as e:
            raise _Unreadable(toks[0], f"in {impl}::{what}: {e.message}") from None
        if value is None:
            raise _Unreadable(toks[0], f"'{_text(toks)}' in {impl}::{what} is not a string opgen can evaluate")
        return value


def _braced_list(expr: list[Token], impl: str, function: str) -> list[list[Token]]:
    """The elements of `{a, b}` (also `std::vector<std::string>{a, b}` and `(...)`-wrapped)."""
    if expr and expr[0][TEXT] != "{" and expr[-1][TEXT] == "}":
        open_at = next((k for k, t in enumerate(expr) if t[TEXT] == "{"), None)
        expr = expr[open_at:] if open_at is not None else expr
    if len(expr) < 2 or expr[0][TEXT] != "{" or expr[-1][TEXT] != "}":
        raise _Unreadable(expr[0], f"{impl}::{function}() does not return a braced list of strings")
    return [part for part in split_top_level(expr[1:-1], angles=True) if part]


def _call_args(toks: list[Token], callee: tuple[str, ...]) -> list[list[Token]] | None:
    """The arguments of `callee(...)` when `toks` is exactly that call (a leading `::` allowed)."""
    if toks and toks[0][TEXT] == "::":
        toks = toks[1:]
    n = len(callee)
    if (len(toks) < n + 2 or tuple(t[TEXT] for t in toks[:n]) != callee or toks[n][TEXT] != "("
            or matching_close(toks, n) != len(toks) - 1):
        return None
    return [part for part in split_top_level(toks[n + 1 : -1], angles=True) if part]


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


def _name_index(toks: list[Token], eq: int) -> int:
    """The index of the name declared by `NAME[] =` or `NAME =` whose `=` is at `eq`."""
    k = eq - 1
    if k >= 1 and toks[k][TEXT] == "]" and toks[k - 1][TEXT] == "[":
        k -= 2
    return k


def _member_name(toks: list[Token], impl: str) -> str | None:
    """NAME when `toks` is `NAME` or `impl[<...>]::NAME`."""
    if len(toks) == 1 and toks[0][KIND] == "id":
        return toks[0][TEXT]
    if len(toks) >= 3 and toks[0][TEXT] == impl and toks[-2][TEXT] == "::" and toks[-1][KIND] == "id":
        return toks[-1][TEXT]
    return None


def _angle_close(toks: list[Token], i: int) -> int | None:
    """The index of the `>` closing the template argument list opened by the `<` at `i`
    (a `>>` closes two), looking at most _MAX_HEAD_TOKENS ahead."""
    if i >= len(toks) or toks[i][TEXT] != "<":
        return None
    depth = 0
    for j in range(i, min(len(toks), i + _MAX_HEAD_TOKENS)):
        text = toks[j][TEXT]
        depth += {"<": 1, ">": -1, ">>": -2}.get(text, 0)
        if depth <= 0:
            return j
        if text in (";", "{", "}"):
            return None
    return None


def _template_args(type_toks: list[Token]) -> list[list[Token]]:
    """The template arguments of the type `X<a, b>` (its tokens), split at top level."""
    start = next((k for k, t in enumerate(type_toks) if t[TEXT] == "<"), None)
    close = _angle_close(type_toks, start) if start is not None else None
    return [] if start is None or close is None else split_top_level(type_toks[start + 1 : close], angles=True)


def _statement_end(toks: list[Token], i: int, limit: int) -> int:
    """The index of the `;` ending the statement that goes on at `i` (brackets skipped), or
    where it stops: at most `limit` tokens on."""
    depth = 0
    end = min(len(toks), i + limit)
    for j in range(i, end):
        text = toks[j][TEXT]
        if text in ("(", "[", "{"):
            depth += 1
        elif text in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return j
        elif text == ";" and depth == 0:
            return j
    return end


def _text(toks: list[Token]) -> str:
    return " ".join(t[TEXT] for t in toks)


__all__ = ["SHIM_MACRO", "ShimOpNames", "extract_shim_registrations", "unread_registration_macros"]
