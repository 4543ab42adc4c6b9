"""`SetTypeConstructor(full_type::...)`: TF 2.21's type-constructor helpers, evaluated.

TF's helpers (tensorflow/core/framework/full_type_util.h) return a function that writes
`output_arg(0).experimental_full_type` during Finalize (after the Doc):

| helper | output 0 full type |
|---|---|
| `NoOp()` | nothing (no constructor at all) |
| `NoOutputs()` | nothing |
| `Nullary(T)` | `T` |
| `Unary(T, "v")` | `T[VAR "v"]` |
| `UnaryGeneric(T)` | `T[ANY]` |
| `UnaryTensorContainer(T, D)` | `T[TENSOR[D]]` (D a FullTypeId) |
| `UnaryTensorContainer(T, "v")` | `T[TENSOR[VAR "v"]]` |
| `VariadicTensorContainer(T, "v")` | `T[FOR_EACH[PRODUCT, TENSOR[VAR "v"], VAR "v"]]` |

We read the C++ expression text (`full_type::Unary(TFT_RAGGED, "Tvalues")`, optionally
`tensorflow::`-qualified), evaluate it, and can print it back (`to_cc`) from a FullTypeDef.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.tf_text.proto_text import ParseError, c_escape, c_unescape
from opgen_runtime.proto import full_type_pb2, op_def_pb2

_IDS = full_type_pb2.FullTypeId.DESCRIPTOR.values_by_name
_NAMES = full_type_pb2.FullTypeId.DESCRIPTOR.values_by_number
TFT_VAR, TFT_ANY, TFT_PRODUCT, TFT_FOR_EACH, TFT_TENSOR = (
    _IDS[n].number for n in ("TFT_VAR", "TFT_ANY", "TFT_PRODUCT", "TFT_FOR_EACH", "TFT_TENSOR"))

# helper name -> accepted argument signatures ("id" = FullTypeId, "str" = string)
HELPERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "NoOp": ((),),
    "NoOutputs": ((),),
    "Nullary": (("id",),),
    "Unary": (("id", "str"),),
    "UnaryGeneric": (("id",),),
    "UnaryTensorContainer": (("id", "id"), ("id", "str")),
    "VariadicTensorContainer": (("id", "str"),),
}

_RE_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\\n]|\\.)*")|(?P<name>(?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)'
    r"|(?P<punct>[(),]))")
_QUALIFIERS = ("tensorflow::", "full_type::", "FullTypeId::")


class TypeConstructorError(ValueError):
    """The SetTypeConstructor argument is not one of TF's full_type helpers."""


@dataclass(frozen=True)
class TypeConstructor:
    """An evaluated `full_type::<helper>(args)` call."""

    helper: str
    args: tuple[int | str, ...] = ()

    def output_type(self) -> full_type_pb2.FullTypeDef | None:
        """The FullTypeDef the helper writes into output 0 (None: writes nothing)."""
        if self.helper in ("NoOp", "NoOutputs"):
            return None
        t = full_type_pb2.FullTypeDef(type_id=self.args[0])  # type: ignore[arg-type]
        if self.helper == "Unary":
            t.args.add(type_id=TFT_VAR, s=self.args[1])
        elif self.helper == "UnaryGeneric":
            t.args.add(type_id=TFT_ANY)
        elif self.helper == "UnaryTensorContainer":
            tensor = t.args.add(type_id=TFT_TENSOR)
            if isinstance(self.args[1], str):
                tensor.args.add(type_id=TFT_VAR, s=self.args[1])
            else:
                tensor.args.add(type_id=self.args[1])
        elif self.helper == "VariadicTensorContainer":
            for_each = t.args.add(type_id=TFT_FOR_EACH)
            for_each.args.add(type_id=TFT_PRODUCT)
            for_each.args.add(type_id=TFT_TENSOR).args.add(type_id=TFT_VAR, s=self.args[1])
            for_each.args.add(type_id=TFT_VAR, s=self.args[1])
        return t

    def apply(self, op_def: op_def_pb2.OpDef) -> str | None:
        """Run the constructor on `op_def` (as Finalize does); an error text or None."""
        t = self.output_type()
        if t is None:
            return None
        if not op_def.output_arg:
            # TF indexes output_arg(0) unchecked and crashes; we report it instead.
            return (f"SetTypeConstructor(full_type::{self.helper}(...)) sets the type of the first "
                    f"output, but Op {op_def.name} has no outputs")
        op_def.output_arg[0].experimental_full_type.CopyFrom(t)
        return None

    def to_cc(self) -> str:
        """The C++ call, e.g. `full_type::Unary(TFT_RAGGED, "Tvalues")`."""
        args = ", ".join(f'"{c_escape(a)}"' if isinstance(a, str) else _NAMES[a].name for a in self.args)
        return f"full_type::{self.helper}({args})"


def parse_type_constructor(text: str) -> TypeConstructor:
    """Evaluate the C++ expression given to SetTypeConstructor; TypeConstructorError if unknown."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _RE_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise TypeConstructorError(_unsupported(text))
        kind = m.lastgroup or ""
        tokens.append((kind, m.group(kind)))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    if len(tokens) < 3 or tokens[0][0] != "name" or tokens[1] != ("punct", "(") or tokens[-1] != ("punct", ")"):
        raise TypeConstructorError(_unsupported(text))
    helper = _unqualified(tokens[0][1])
    if helper not in HELPERS:
        raise TypeConstructorError(_unsupported(text))
    args: list[int | str] = []
    kinds: list[str] = []
    expect_value = True
    for kind, value in tokens[2:-1]:
        if kind == "punct" and value == "," and not expect_value:
            expect_value = True
            continue
        if kind == "str" and kinds and kinds[-1] == "str" and not expect_value:
            args[-1] = str(args[-1]) + _unquote(value, text)  # adjacent literals concatenate
            continue
        if not expect_value or kind == "punct":
            raise TypeConstructorError(_unsupported(text))
        if kind == "str":
            args.append(_unquote(value, text))
            kinds.append("str")
        else:
            name = _unqualified(value)
            if name not in _IDS:
                raise TypeConstructorError(f"unknown FullTypeId '{value}' in SetTypeConstructor({text})")
            args.append(_IDS[name].number)
            kinds.append("id")
        expect_value = False
    if args and expect_value:
        raise TypeConstructorError(_unsupported(text))
    if tuple(kinds) not in HELPERS[helper]:
        wanted = " or ".join("(" + ", ".join(sig) + ")" for sig in HELPERS[helper])
        raise TypeConstructorError(f"full_type::{helper} takes {wanted}, got ({', '.join(kinds)}) "
                                   f"in SetTypeConstructor({text})")
    return TypeConstructor(helper, tuple(args))


def _unqualified(name: str) -> str:
    name = re.sub(r"\s+", "", name).lstrip(":")
    changed = True
    while changed:
        changed = False
        for q in _QUALIFIERS:
            if name.startswith(q):
                name, changed = name[len(q):], True
    return name


def _unquote(literal: str, text: str) -> str:
    try:
        return c_unescape(literal[1:-1].encode("utf-8")).decode("utf-8")
    except (ParseError, UnicodeDecodeError):
        raise TypeConstructorError(f"bad string literal {literal} in SetTypeConstructor({text})") from None


def _unsupported(text: str) -> str:
    return (f"unsupported type constructor '{text}': opgen evaluates only TF's helpers "
            f"full_type::{', full_type::'.join(HELPERS)}")


def match_type_constructor(t: full_type_pb2.FullTypeDef) -> TypeConstructor | None:
    """The helper call whose output is exactly `t`, or None (inverse of output_type)."""
    candidates: list[TypeConstructor] = [TypeConstructor("Nullary", (t.type_id,))]
    if len(t.args) == 1:
        a = t.args[0]
        candidates.append(TypeConstructor("Unary", (t.type_id, a.s)))
        candidates.append(TypeConstructor("UnaryGeneric", (t.type_id,)))
        if len(a.args) == 1:
            inner = a.args[0]
            candidates.append(TypeConstructor("UnaryTensorContainer", (t.type_id, inner.s)))
            candidates.append(TypeConstructor("UnaryTensorContainer", (t.type_id, inner.type_id)))
        if len(a.args) == 3:
            candidates.append(TypeConstructor("VariadicTensorContainer", (t.type_id, a.args[2].s)))
    for candidate in candidates:
        if candidate.output_type() == t:
            return candidate
    return None
