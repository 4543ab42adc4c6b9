"""Docstring text of a wrapper, laid out as TF's python_op_gen does
(`python_op_gen_internal.cc` GenPythonOp::AddDocString*, `python_op_gen.cc`).

The text is what `inspect.cleandoc(fn.__doc__)` returns for TF's wrapper: the summary on
the first line, `Args:`/`Returns:` at column 0, entries at 2, continuation lines at 4.
Type phrases name an input or attr by its Python parameter's name (TF names the OpDef's:
the two differ only where an override renames it or a builtin's name gets a trailing `_`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from opgen.python_api.literals import attr_value_doc, dtype_name
from opgen.python_api.names import avoid_reserved
from opgen_runtime.proto import op_def_pb2
from opgen_runtime.proto.datatypes import is_ref

if TYPE_CHECKING:
    from opgen_runtime.proto import attr_value_pb2

RIGHT_MARGIN = 74  # AppendWithinWidth's width for entries


@dataclass(frozen=True)
class DocContext:
    """What type phrases need: the op, and for each inferred attr the first input setting it."""

    op_def: op_def_pb2.OpDef
    inferred_from: dict[str, str]  # attr name -> OpDef name of the first input inferring it
    attrs: dict[str, op_def_pb2.OpDef.AttrDef]
    # attr name -> its Python parameter's name, for attrs an override renames: a phrase naming
    # such an attr (`A list of `N` ...`, `with type `T``) names the parameter the reader passes
    # (TF names the OpDef attr).
    renamed_attrs: dict[str, str] = field(default_factory=dict)
    # input name -> its Python parameter's name, where the two differ: "the same type as `x`"
    # names the parameter the reader passes.
    renamed_inputs: dict[str, str] = field(default_factory=dict)

    def input_param(self, input_name: str) -> str:
        return self.renamed_inputs.get(input_name) or avoid_reserved(input_name)


def _indent(initial: int, rest: int, text: str) -> str:
    """TF's Indent(): strip trailing whitespace, indent the first line and non-empty others."""
    text = text.rstrip()
    if "\n" not in text:  # most entries: one line
        return " " * initial + text
    lines = text.split("\n")
    out = [" " * initial + lines[0]]
    out.extend(" " * rest + line if line else "" for line in lines[1:])
    return "\n".join(out)


def _append_within_width(dest: str, text: str, width: int = RIGHT_MARGIN) -> str:
    first_line = text.split("\n", 1)[0]
    if len(dest) + len(first_line) + 1 > width:
        return dest + "\n" + text
    return dest + " " + text


def _type_list(types: Iterable[int]) -> str:
    return _type_list_of(tuple(types))


@functools.lru_cache(maxsize=1024)  # ops share a few dozen type constraints (TF_CALL_* sets)
def _type_list_of(types: tuple[int, ...]) -> str:
    return ", ".join(f"`{_mutable(t)}`" for t in types)


def _mutable(dtype: int) -> str:
    """A dtype name in a type phrase; ref types read `mutable <name>`."""
    name = dtype_name(dtype)
    if is_ref(dtype):
        return "mutable " + name[: -len("_ref")]
    return name


# TF's wording for an input (index False) and an output (True).
_SAME_AS = ("Must have the same type as", "Has the same type as")
_ONE_OF = ("Must be one of the following types:", "Has one of the following types:")


def arg_type_phrase(ctx: DocContext, arg: op_def_pb2.OpDef.ArgDef, is_output: bool) -> str:
    """The type sentence(s) of an input or output (TF's AddDocStringInputs/AddDocStringOutputs)."""
    inferred_from = ctx.inferred_from  # attr -> the OpDef name of the input it is inferred from
    # The input name an attr inferred from this argument maps to (None for an output: none is).
    this = None if is_output else arg.name
    number_attr, type_attr, type_list_attr = arg.number_attr, arg.type_attr, arg.type_list_attr

    if number_attr:
        n = number_attr
        source = inferred_from.get(n, "")
        if source == this:
            minimum = ctx.attrs[n].minimum if ctx.attrs[n].has_minimum else 0
            prefix = f"A list of at least {minimum}" if minimum > 0 else "A list of"
        elif source:
            prefix = f"A list with the same length as `{ctx.input_param(source)}` of"
        else:
            prefix = f"A list of `{ctx.renamed_attrs.get(n) or avoid_reserved(n)}`"
        if type_attr:
            t = type_attr
            prefix += " mutable" if arg.is_ref else ""
            source = inferred_from.get(t, "")
            if source == this:
                allowed = ctx.attrs[t].allowed_values.list.type if t in ctx.attrs else []
                if allowed:
                    return f"{prefix} `Tensor` objects with the same type in: {_type_list(allowed)}."
                return f"{prefix} `Tensor` objects with the same type."
            if source:
                return f"{prefix} `Tensor` objects with the same type as `{ctx.input_param(source)}`."
            return f"{prefix} `Tensor` objects with type `{ctx.renamed_attrs.get(t, t)}`."
        return f"{prefix} `Tensor` objects with type {_fixed(arg)}."
    if type_list_attr:
        t = type_list_attr
        source = inferred_from.get(t, "")
        if source == this:
            allowed = ctx.attrs[t].allowed_values.list.type if t in ctx.attrs else []
            if allowed:
                return f"A list of `Tensor` objects with types from: {_type_list(allowed)}."
            return "A list of `Tensor` objects."
        if source:
            return f"A list of `Tensor` objects. {_SAME_AS[is_output]} `{ctx.input_param(source)}`."
        return f"A list of `Tensor` objects of type `{ctx.renamed_attrs.get(t, t)}`."
    if type_attr:
        t = type_attr
        ref_word = "mutable " if arg.is_ref else ""
        source = inferred_from.get(t, "")
        if source == this:
            allowed = ctx.attrs[t].allowed_values.list.type if t in ctx.attrs else []
            if allowed:
                return f"A {ref_word}`Tensor`. {_ONE_OF[is_output]} {_type_list(allowed)}."
            return f"A {ref_word}`Tensor`."
        if source:
            return f"A {ref_word}`Tensor`. {_SAME_AS[is_output]} `{ctx.input_param(source)}`."
        return f"A {ref_word}`Tensor` of type `{ctx.renamed_attrs.get(t, t)}`."
    return f"A `Tensor` of type {_fixed(arg)}."


def _fixed(arg: op_def_pb2.OpDef.ArgDef) -> str:
    """A fixed dtype in a type phrase: `` `float32` ``, or ``mutable `float32` `` for a ref arg."""
    return _fixed_phrase(arg.type, arg.is_ref)


@functools.lru_cache(maxsize=256)  # a few dozen dtypes
def _fixed_phrase(dtype: int, ref_arg: bool) -> str:
    name = dtype_name(dtype)
    if is_ref(dtype):
        name = name[: -len("_ref")]
    return ("mutable " if ref_arg or is_ref(dtype) else "") + f"`{name}`"


_ATTR_WORDS = {
    "string": "`string`",
    "list(string)": "list of `strings`",
    "int": "`int`",
    "list(int)": "list of `ints`",
    "float": "`float`",
    "list(float)": "list of `floats`",
    "bool": "`bool`",
    "list(bool)": "list of `bools`",
    "type": "`tf.DType`",
    "list(type)": "list of `tf.DTypes`",
    "shape": "`tf.TensorShape` or list of `ints`",
    "list(shape)": "list of shapes (each a `tf.TensorShape` or list of `ints`)",
    "tensor": "`tf.TensorProto`",
    "list(tensor)": "list of `tf.TensorProto` objects",
    "func": "function decorated with @Defun",
    "list(func)": "list of functions decorated with @Defun",
}


def attr_type_phrase(attr: op_def_pb2.OpDef.AttrDef, default: attr_value_pb2.AttrValue | None) -> str:
    """`A`/`An` + type words + allowed values + minimum + `.` + default sentence (TF's AddDocStringAttrs)."""
    words = _ATTR_WORDS.get(attr.type, f"`{attr.type}`")
    if default is not None:
        words = "optional " + words
    article = "An" if words.startswith(("o", "`i", "`o")) else "A"
    phrase = f"{article} {words}"
    if attr.HasField("allowed_values"):
        allowed = attr_value_doc(attr.allowed_values)
        if allowed.startswith("[") and allowed.endswith("]"):
            allowed = allowed[1:-1]
        phrase += f" from: `{allowed}`"
    if attr.has_minimum:
        if attr.type == "int":
            phrase += f" that is `>= {attr.minimum}`"
        elif attr.type.startswith("list(") and attr.minimum > 0:
            phrase += f" that has length `>= {attr.minimum}`"
    phrase += "."
    if default is not None:
        phrase += f" Defaults to `{attr_value_doc(default)}`."
    return phrase


def arg_entry(name: str, type_phrase: str, description: str, *, is_input: bool) -> str:
    """One Args entry before indentation: `name: <type phrase> <desc>`; an input's `=desc`
    replaces the type phrase (`name:  desc`), an attr's is appended like any other."""
    if is_input and description.startswith("="):
        return _append_within_width(f"{name}: ", description[1:].lstrip(" "))
    line = f"{name}: {type_phrase}"
    return _append_within_width(line, description) if description else line


def returns_block(ctx: DocContext, out_args: dict[str, tuple[str, str]]) -> str:
    """The Returns section's body (indented as TF's, minus the base 2 spaces); `out_args` are the
    ApiDef's (`opgen.python_api.signature.ApiView.out_args`)."""
    outputs = list(ctx.op_def.output_arg)
    if not outputs:
        return "  The created Operation."

    def description(arg: op_def_pb2.OpDef.ArgDef) -> str:
        entry = out_args.get(arg.name)
        return entry[1] if entry is not None else arg.description

    if len(outputs) == 1:
        arg = outputs[0]
        desc = description(arg)
        if desc.startswith("="):
            return _indent(2, 2, desc[1:].lstrip(" "))
        text = arg_type_phrase(ctx, arg, is_output=True)
        if desc:
            text = _append_within_width(text, desc)
        return _indent(2, 2, text)
    # The namedtuple's field names (an override's out_arg rename_to): TF's GetReturns names
    # the OpDef's outputs even where its namedtuple uses rename_to; opgen documents the
    # fields the caller gets (docs/differences-from-tf.md).
    names = [(out_args[a.name][0] if a.name in out_args else "") or a.name or f"output{i}"
             for i, a in enumerate(outputs)]
    parts = [_indent(2, 2, f"A tuple of `Tensor` objects ({', '.join(names)}).")]
    parts.append("")
    for name, arg in zip(names, outputs):
        desc = description(arg)
        if desc.startswith("="):
            entry = f"{name}: {desc[1:].lstrip(' ')}"
        else:
            # TF joins a tuple member's description with one space, whatever its width.
            entry = f"{name}: {arg_type_phrase(ctx, arg, is_output=True)}"
            if desc:
                entry += " " + desc
        parts.append(_indent(2, 4, entry))
    return "\n".join(parts)


# TF's summary line of an op declared without one (GenPythonOp::Code).
TODO_SUMMARY = "TODO: add doc."


def docstring_text(summary: str, description: str, arg_entries: list[str], returns: str) -> str:
    """The whole docstring (GenPythonOp::Code) with `Args:` at column 0; `arg_entries` are unindented entries."""
    # TF: summary, blank line, Indent(description) (one line per line, nothing for an
    # all-whitespace description), blank line, Args. Ops without a summary get TODO.
    if not summary:
        head = TODO_SUMMARY + "\n"
    elif description:
        stripped = description.rstrip()
        head = summary + "\n\n" + (_indent(0, 0, stripped) + "\n" if stripped else "")
    else:
        head = summary + "\n"
    args = "\n".join([_indent(2, 4, e) for e in arg_entries])
    return f"{head}\nArgs:\n{args}\n\nReturns:\n{returns}"
