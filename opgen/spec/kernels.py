"""REGISTER_KERNEL_BUILDER registrations of C++ sources -> TF's KernelList.

`REGISTER_KERNEL_BUILDER(Name("Op").Device(DEVICE_CPU).TypeConstraint<float>("T")
.HostMemory("axis").Label("l").Priority(1), Kernel<float>);` is read after the same
preprocessing as REGISTER_OP (so inside macros too; gather.py predefines TF 2.21's
`TF_CALL_*` macros from register_types.py for the `-D` defines given). Each builder call is evaluated
as TF's KernelDefBuilder (kernel_def_builder.cc) would: `Device` sets device_type,
`TypeConstraint` adds a constraint whose `allowed_values.list.type` holds its types,
`AttrConstraint<T>` one whose list holds ints, strings or bools, `HostMemory` appends a
host_memory_arg, `Label` sets the label (once), `Priority` the priority.

A call opgen cannot evaluate (a type with no DataType, a type list in a variable, an
unknown method) is a located error of that registration; `gather` reports it as a located
warning and skips the registration (readers: snapshots, docstrings, builds), like a missing
include, or as an error with `strict_kernels` (`opgen kernels`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from opgen.errors import Location, OpgenError, did_you_mean
from opgen.model import KernelRegistration
from opgen.proto import kernel_def_pb2
from opgen.spec.chains import ChainReader, UndefinedNameError
from opgen.spec.cpp_lexer import (
    KIND,
    TEXT,
    Token,
    parse_int_literal,
    token_error,
    token_location,
)
from opgen.spec.cpp_namespaces import Namespaces
from opgen.spec.register_types import (
    DEVICE_NAMES,
    datatype_of_cpp_type,
    datatype_of_enum_name,
)
from opgen.spec.shim import ShimOpNames

KERNEL_MACROS = ("REGISTER_KERNEL_BUILDER", "REGISTER_SYSTEM_KERNEL_BUILDER")
# How projects name their REGISTER_KERNEL_BUILDER wrappers (REGISTER_CPU, REGISTER_KERNELS,
# REGISTER_GPU_KERNEL, CPU_REGISTER, ...); TF's own (its headers are never read) excepted.
_KERNEL_MACRO_NAME = re.compile(r"REGISTER\w*(KERNEL|CPU|GPU)|(KERNEL|CPU|GPU)\w*REGISTER")
_TF_KERNEL_MACRO_PREFIXES = ("REGISTER_RESOURCE_HANDLE_KERNEL", "REGISTER_XLA_", "REGISTER_KERNEL_BUILDER_IMPL")
_SCAN_TEXTS = {*KERNEL_MACROS, "=", "return"}
_LITERAL_KINDS = ("str", "raw")
KERNEL_BUILDER_METHODS = ("Device", "TypeConstraint", "AttrConstraint", "HostMemory", "Label", "Priority")
_QUALIFIERS = {"::", "tensorflow", "register_kernel"}
# AttrConstraint<T>: the AttrValue list field its values go to.
_ATTR_CONSTRAINT_FIELDS = {"int64_t": "i", "int64": "i", "string": "s", "std::string": "s", "constchar*": "s",
                           "bool": "b"}


def kernel_list(registrations: Iterable[KernelRegistration]) -> kernel_def_pb2.KernelList:
    out = kernel_def_pb2.KernelList()
    out.kernel.extend(r.kernel_def for r in registrations)
    return out


def extract_kernels(tokens: list[Token], helpers: Mapping[str, str], namespaces: Namespaces | None = None,
                    ) -> tuple[list[KernelRegistration],
                                                                                list[OpgenError]]:
    """Every REGISTER_KERNEL_BUILDER of a preprocessed translation unit, in source order,
    and the errors of those that could not be evaluated."""
    reader = ChainReader(tokens, helpers, namespaces=namespaces)
    shim_names = ShimOpNames(tokens, reader)
    regs: list[KernelRegistration] = []
    errors: list[OpgenError] = []
    resume = 0
    for start in [i for i, t in enumerate(tokens) if t[TEXT] in _SCAN_TEXTS]:
        text = tokens[start][TEXT]
        if text == "=":
            reader.note_constant(start, errors)
        elif text == "return":
            reader.note_function(start, errors)
        elif start >= resume and start + 1 < len(tokens) and tokens[start + 1][TEXT] == "(":
            try:
                reader.reading_at = start
                args, resume = reader.paren_args(start + 1, text)
                regs.append(_KernelChain(reader, tokens[start], args, shim_names).build())
            except OpgenError as e:
                errors.append(e)
    return regs, errors


def undefined_kernel_macros(tokens: list[Token]) -> list[OpgenError]:
    """Invocations, outside any parentheses, of an undefined macro named like a kernel
    registration (`REGISTER_CPU(float);`, also as `TF_CALL_*` stamps them): a wrapper of
    REGISTER_KERNEL_BUILDER from a header that could not be found, which registers nothing.
    Each macro once, at its first invocation. Only asked of files with missing includes."""
    errors: list[OpgenError] = []
    seen: set[str] = set()
    depth = 0
    for i, t in enumerate(tokens):
        text = t[TEXT]
        if t[KIND] == "op":
            depth += text in ("(", "[")
            depth -= text in (")", "]")
            continue
        if (depth == 0 and t[KIND] == "id" and text not in seen and text.isupper() and text not in KERNEL_MACROS
                and _KERNEL_MACRO_NAME.search(text) and not text.startswith(_TF_KERNEL_MACRO_PREFIXES)
                and i + 1 < len(tokens) and tokens[i + 1][TEXT] == "("
                and (i == 0 or tokens[i - 1][TEXT] not in (".", "->", "::"))):
            seen.add(text)
            errors.append(UndefinedNameError(t, text, f"'{text}(...)' looks like a kernel registration through the "
                                             f"macro '{text}', which is not defined: it registers nothing"))
    return errors


class _KernelChain:
    """`Name("Op").Method(...)...` (the first macro argument) evaluated into a KernelDef."""

    def __init__(self, reader: ChainReader, macro_tok: Token, args: list[list[Token]], shim_names: ShimOpNames):
        self.reader = reader
        self.shim_names = shim_names
        self.macro_tok = macro_tok
        self.macro = macro_tok[TEXT]
        if len(args) < 2:
            raise token_error(macro_tok, f"{self.macro} expects a kernel builder and a kernel class, "
                              f"e.g. {self.macro}(Name(\"MyOp\").Device(DEVICE_CPU), MyOpKernel)")
        self.toks = args[0]
        self.kernel = kernel_def_pb2.KernelDef()
        self.constraint_locations: list[Location] = []
        self.host_memory_locations: list[Location] = []

    def build(self) -> KernelRegistration:
        toks = self.toks
        i = 0
        while i < len(toks) and toks[i][TEXT] in _QUALIFIERS:
            i += 1
        if i + 1 >= len(toks) or toks[i][TEXT] != "Name" or toks[i + 1][TEXT] != "(":
            raise token_error(toks[min(i, len(toks) - 1)], f"{self.macro}'s first argument must be a "
                              "Name(\"Op\")... builder chain")
        args, i = self._args(i + 1, "Name")
        shim_op = self.shim_names.op_name(args[0]) if len(args) == 1 else None  # `Name(Kernel::OpName())`
        self.kernel.op = shim_op if shim_op is not None else self._string_arg(args, 0, "Name", 1)
        label_set = False
        while i < len(toks):
            if toks[i][TEXT] != "." or i + 1 >= len(toks) or toks[i + 1][KIND] != "id":
                raise token_error(toks[i], f"expected '.Method(...)' in the {self.macro}(Name(\"{self.kernel.op}\")"
                                  f"...) chain, found '{toks[i][TEXT]}'")
            method_tok = toks[i + 1]
            method = method_tok[TEXT]
            template, i = _template_args(toks, i + 2)
            if i >= len(toks) or toks[i][TEXT] != "(":
                raise token_error(method_tok, f"expected '(' after kernel builder method '{method}'")
            args, i = self._args(i, method)
            if method == "Device":
                self.kernel.device_type = self._device(args, method_tok)
            elif method == "TypeConstraint":
                self._type_constraint(method_tok, template, args)
            elif method == "AttrConstraint":
                self._attr_constraint(method_tok, template, args)
            elif method == "HostMemory":
                self.kernel.host_memory_arg.append(self._string_arg(args, 0, method, 1))
                self.host_memory_locations.append(token_location(args[0][0]))
            elif method == "Label":
                if label_set:  # KernelDefBuilder::Label CHECK-fails
                    raise token_error(method_tok, f"Label() set a second time on the {self.kernel.op} kernel "
                                      "(TensorFlow aborts at load: a kernel has one label)")
                self.kernel.label = self._string_arg(args, 0, method, 1)
                label_set = True
            elif method == "Priority":
                self.kernel.priority = self._int_arg(args, method, 32)
            else:
                error = token_error(method_tok, f"unknown kernel builder method '{method}' (KernelDefBuilder "
                                    f"has {', '.join(KERNEL_BUILDER_METHODS[:-1])} and {KERNEL_BUILDER_METHODS[-1]})")
                error.hint = did_you_mean(method, KERNEL_BUILDER_METHODS, "'")
                raise error
        if not self.kernel.device_type:
            raise token_error(self.macro_tok, f"the {self.kernel.op} kernel has no Device(...): say where it runs, "
                              "e.g. .Device(DEVICE_CPU)")
        return KernelRegistration(self.kernel, token_location(self.macro_tok), tuple(self.constraint_locations),
                                  tuple(self.host_memory_locations), self.macro == "REGISTER_SYSTEM_KERNEL_BUILDER")

    # ------------------------------------------------------------ arguments

    def _args(self, i: int, method: str) -> tuple[list[list[Token]], int]:
        """The arguments of the `(` at self.toks[i], and the index after `)`."""
        return ChainReader(self.toks, self.reader.helpers).paren_args(i, method)  # (brackets only: no name lookup)

    def _string_arg(self, args: list[list[Token]], index: int, method: str, count: int) -> str:
        if len(args) != count:
            at = args[0][0] if args else self.macro_tok
            raise token_error(at, f"{method}() takes {count} argument{'s' if count > 1 else ''}, got {len(args)}")
        toks = args[index]
        if all(t[KIND] in _LITERAL_KINDS for t in toks):
            return self.reader.string(toks, method)
        value = self.reader.helper_string(method, toks)
        if value is None:
            raise token_error(toks[0], f"cannot evaluate '{_text(toks)}' in {method}(): expected a string literal "
                              "or a string constant")
        return value

    def _int_arg(self, args: list[list[Token]], method: str, bits: int) -> int:
        toks = args[0] if len(args) == 1 else []
        value = _int_value(toks)
        if value is None:
            at = toks[0] if toks else self.macro_tok
            raise token_error(at, f"cannot evaluate '{_text(toks)}' in {method}(): expected one integer literal")
        if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
            raise token_error(toks[0], f"{value} in {method}() does not fit in int{bits}_t")
        return value

    def _device(self, args: list[list[Token]], method_tok: Token) -> str:
        if len(args) == 1:
            name = _text(args[0]).rsplit("::", 1)[-1]
            if name in DEVICE_NAMES and _is_qualified_name(args[0]):
                return DEVICE_NAMES[name]
        return self._string_arg(args, 0, "Device", 1)

    def _type_constraint(self, method_tok: Token, template: list[Token] | None, args: list[list[Token]]) -> None:
        if template is not None:
            if len(args) != 1:
                raise token_error(method_tok, "TypeConstraint<T>(attr) takes 1 argument")
            types = [self._cpp_type(template)]
        else:
            if len(args) != 2:
                raise token_error(method_tok, "TypeConstraint(attr, types) takes 2 arguments (or use "
                                  "TypeConstraint<T>(attr))")
            types = self._type_list(args[1])
        constraint = self.kernel.constraint.add()
        constraint.name = self._string_arg(args[:1], 0, "TypeConstraint", 1)
        constraint.allowed_values.list.type.extend(types)
        self.constraint_locations.append(token_location(args[0][0]))

    def _cpp_type(self, toks: list[Token]) -> int:
        dt = datatype_of_cpp_type(_text(toks))
        if dt is None:
            raise token_error(toks[0] if toks else self.macro_tok,
                              f"cannot tell which DataType the C++ type '{_text(toks)}' is (TensorFlow's "
                              "DataTypeToEnum knows float, double, int32_t, int64_t, Eigen::half, bfloat16, "
                              "complex64, tstring, bool, ...)")
        return dt

    def _type_list(self, toks: list[Token]) -> list[int]:
        """`DT_FLOAT`, `{DT_FLOAT, DT_INT32}`, `DataTypeToEnum<T>::v()` / `::value`."""
        if toks and toks[0][TEXT] == "{" and toks[-1][TEXT] == "}":
            items = _split_commas(toks[1:-1])
            return [self._one_type(item) for item in items if item]
        return [self._one_type(toks)]

    def _one_type(self, toks: list[Token]) -> int:
        text = _text(toks)
        dt = datatype_of_enum_name(text) if _is_qualified_name(toks) else None
        if dt is not None:
            return dt
        for k, t in enumerate(toks):
            if t[TEXT] == "DataTypeToEnum" and k + 1 < len(toks) and toks[k + 1][TEXT] == "<":
                inner, end = _template_args(toks, k + 1)
                rest = _text(toks[end:])
                if inner is not None and rest in ("::v()", "::value"):
                    return self._cpp_type(inner)
        raise token_error(toks[0] if toks else self.macro_tok,
                          f"cannot evaluate the type list '{text}' in TypeConstraint(): write DT_... names, "
                          "{DT_A, DT_B} or TypeConstraint<T>(attr)")

    def _attr_constraint(self, method_tok: Token, template: list[Token] | None, args: list[list[Token]]) -> None:
        if len(args) != 2:
            raise token_error(method_tok, "AttrConstraint(attr, allowed) takes 2 arguments")
        toks = args[1]
        items = _split_commas(toks[1:-1]) if toks[0][TEXT] == "{" and toks[-1][TEXT] == "}" else [toks]
        field_name = _ATTR_CONSTRAINT_FIELDS.get(_text(template).replace(" ", "")) if template else None
        values: list[bytes | bool | int] = []
        for item in items:
            if not item:
                continue
            if all(t[KIND] in _LITERAL_KINDS for t in item) and field_name in (None, "s"):
                field_name = "s"
                values.append(self.reader.string(item, "AttrConstraint").encode())
            elif _text(item) in ("true", "false") and field_name in (None, "b"):
                field_name = "b"
                values.append(_text(item) == "true")
            elif _int_value(item) is not None and field_name in (None, "i"):
                field_name = "i"
                values.append(self._int_arg([item], "AttrConstraint", 64))
            else:
                raise token_error(item[0], f"cannot evaluate '{_text(item)}' in AttrConstraint(): expected "
                                  "int, string or bool literals")
        constraint = self.kernel.constraint.add()
        constraint.name = self._string_arg(args[:1], 0, "AttrConstraint", 1)
        getattr(constraint.allowed_values.list, field_name or "i").extend(values)
        self.constraint_locations.append(token_location(args[0][0]))


def _template_args(toks: list[Token], i: int) -> tuple[list[Token] | None, int]:
    """`<...>` at toks[i] (nested, `>>` closing two) -> its tokens and the index after;
    (None, i) when there is none."""
    if i >= len(toks) or toks[i][TEXT] != "<":
        return None, i
    depth = 1
    out: list[Token] = []
    for j in range(i + 1, len(toks)):
        t = toks[j]
        if t[TEXT] == "<":
            depth += 1
        elif t[TEXT] == ">":
            depth -= 1
            if depth == 0:
                return out, j + 1
        elif t[TEXT] == ">>" and depth == 2:  # `<complex<float>>`
            return [*out, (t[KIND], ">", *t[2:])], j + 1
        out.append(t)
    raise token_error(toks[i], "'<' is never closed")


def _text(toks: list[Token] | None) -> str:
    out = ""
    for t in toks or []:
        if out and (out[-1].isalnum() or out[-1] == "_") and (t[TEXT][0].isalnum() or t[TEXT][0] == "_"):
            out += " "
        out += t[TEXT]
    return out


def _is_qualified_name(toks: list[Token]) -> bool:
    return bool(toks) and all(t[KIND] == "id" or t[TEXT] == "::" for t in toks)


def _int_value(toks: list[Token]) -> int | None:
    if len(toks) == 1 and toks[0][KIND] == "num":
        return parse_int_literal(toks[0][TEXT])
    if len(toks) == 2 and toks[0][TEXT] == "-" and toks[1][KIND] == "num":
        value = parse_int_literal(toks[1][TEXT])
        return None if value is None else -value
    return None


def _split_commas(toks: list[Token]) -> list[list[Token]]:
    items: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        if t[TEXT] in ("(", "[", "{", "<"):
            depth += 1
        elif t[TEXT] in (")", "]", "}", ">"):
            depth -= 1
        elif t[TEXT] == "," and depth == 0:
            items.append([])
            continue
        items[-1].append(t)
    return items
