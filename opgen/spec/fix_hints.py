"""How-to-fix hints for TF's most common Attr/Input/Output messages.

The messages stay TF's word for word (`op_def_builder.cc` FinalizeAttr, ProcessCompoundType,
FinalizeInputOrOutput); a hint says what TF expects instead: `T: type = float` ->
`T: type = DT_FLOAT`, `{float, int}` -> `int32`, `strin` -> `string`. An input's
"Reference to attr 'T' with type  that isn't type" after `T`'s own error follows from it:
TF reports both, and the hint says so.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

from opgen.errors import did_you_mean, with_article
from opgen.spec.attr_grammar import COMPOUND_TYPES, TOP_LEVEL_COMPOUND
from opgen.spec.chains import REGISTER_MACROS
from opgen.spec.kernels import KERNEL_MACROS
from opgen_runtime.proto.datatypes import BY_ENUM, data_type_from_string

_DEFAULT = re.compile(r"Could not parse default value '(?P<value>.*)' from Attr\(\"(?P<spec>.*)\"\) for Op ", re.S)
_TYPE_NAME = re.compile(r"Unrecognized type string '(?P<name>.*)' from ")
_UNKNOWN_ATTR = re.compile(r"Reference to unknown attr '(?P<name>[^']*)' from (?P<method>Input|Output)\(")
_UNKNOWN_LENGTH = re.compile(r"No attr with name '(?P<name>[^']*)' for (?:input|output) ")
_NAME_COLON = re.compile(r"Trouble parsing 'name:' from (?P<method>Input|Output)\(\"(?P<spec>.*)\"\) for Op ", re.S)
_ATTR_NAME_COLON = re.compile(r"Trouble parsing '<name>:' from Attr\(\"(?P<spec>.*)\"\) for Op ", re.S)
_DUPLICATE_NAME = re.compile(r"Duplicate name: (?P<name>.*)")
_ATTR_TYPE = re.compile(r"Trouble parsing type string at '(?P<rest>[^']*)' from Attr\(\"(?P<spec>.*)\"\) for Op ", re.S)
_EXTRA = re.compile(r"Extra '[^']*' unparsed at the end from Attr\(\"(?P<spec>.*)\"\) for Op ", re.S)
_NOT_ALLOWED = re.compile(r"Value for attr '[^']*' of (?P<value>.*) is not in the list of allowed values: "
                          r"(?P<allowed>[^\n]*)\n\t in Op ", re.S)
_OP_NAME = re.compile(r"Invalid name: (?P<name>.*) \(Did you use CamelCase\?\)", re.S)
_FOLLOW_ON = re.compile(r"Reference to attr '(?P<attr>[^']*)' with type  that isn't ")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

ATTR_TYPES = ("string", "int", "float", "bool", "type", "shape", "tensor", "func")
# Spellings from C++, Python and numpy that are not TF's (`DataTypeFromString`) names.
_TYPE_ALIASES = {"int": "int32", "long": "int64", "str": "string", "boolean": "bool", "complex": "complex64",
                 "float32": "float", "float64": "double", "float16": "half", "uint": "uint32", "char": "int8",
                 "short": "int16", "unsigned": "uint32", "size_t": "uint64", "int64_t": "int64", "int32_t": "int32"}
_DATA_TYPE_NAMES = tuple(n.cpp for n in BY_ENUM.values())
_ENUM_NAMES = tuple(n.enum_name for n in BY_ENUM.values())
_LITERALS = {
    "int": "an integer (`n: int = 3`)",
    "float": "a number (`x: float = 0.5`)",
    "bool": "`true` or `false`",
    "string": "a quoted string (`s: string = 'text'`)",
    "shape": "a shape (`s: shape = { dim { size: 2 } }`)",
}


def nearest_data_type(name: str) -> str | None:
    """TF's name for a type spelt the C++, Python or numpy way, or the closest TF name (none
    for the head of a longer name, `float8` of `float8_e4m3fn`: TF's reader stops there)."""
    if name.lower() in _TYPE_ALIASES:
        return _TYPE_ALIASES[name.lower()]
    if any(n.startswith(name + "_") for n in _DATA_TYPE_NAMES):
        return None
    lowered = name.lower()
    # two neighbouring characters swapped is the likeliest slip (`int46`), though a shorter
    # name may be closer by difflib's measure (`int4`)
    swapped = {lowered[:i] + lowered[i + 1] + lowered[i] + lowered[i + 2:] for i in range(len(lowered) - 1)}
    close = [n for n in _DATA_TYPE_NAMES if n in swapped] or difflib.get_close_matches(lowered, _DATA_TYPE_NAMES,
                                                                                      n=1, cutoff=0.6)
    return close[0] if close else None


def misspelt_macro(name: str) -> str | None:
    """"did you mean 'REGISTER_OP'?" when `name` misspells an op or kernel registration macro
    (a letter or two off); None otherwise."""
    return did_you_mean(name, [*REGISTER_MACROS, *KERNEL_MACROS], "'", cutoff=0.9)


def _data_type_hint(name: str) -> str:
    names = "types are TF's names: float, double, int32, int64, string, bool, ..."
    nearest = nearest_data_type(name)
    return f"did you mean '{nearest}'? ({names})" if nearest else names


def _attr_type_hint(word: str | None) -> str:
    choices = f"attr types: {', '.join(ATTR_TYPES)}, list(...) of one, or a set of allowed values ({{float, int32}})"
    close = difflib.get_close_matches(word, (*ATTR_TYPES, *_TYPE_SETS), n=1, cutoff=0.6) if word else []
    if close and close[0] in _TYPE_SETS:  # `T: realnumbertypes`
        return (f"did you mean '{close[0]}'? (a type attr allowing one of TensorFlow's sets of types: "
                f"{', '.join(_TYPE_SETS)})")
    return f"did you mean '{close[0]}'? ({choices})" if close else choices


# TF's named sets of types an attr's type may be (`T: realnumbertype`), as the top level of a
# spec accepts them (not its misspelt `realnumberictype`).
_TYPE_SETS = tuple(name for name in COMPOUND_TYPES if name in TOP_LEVEL_COMPOUND)


def _enum_spelling(word: str) -> str | None:
    """`float` -> `DT_FLOAT` (also through an alias: `int` -> `DT_INT32`)."""
    for candidate in (word, nearest_data_type(word)):
        enum = data_type_from_string(candidate) if candidate else None
        if enum is not None:
            return BY_ENUM[enum].enum_name
    return None


def _default_hint(value: str, spec: str) -> str | None:
    name, _, rest = spec.partition(":")
    type_text = rest.split("=", 1)[0].strip()
    is_list = type_text.startswith("list(") and type_text.endswith(")")
    element = type_text[5:-1].strip() if is_list else type_text
    if element == "type" or (element.startswith("{") and not element.startswith("{'") and not element.startswith('{"')):
        words = _WORD.findall(value)
        if words and all(w.startswith("DT_") for w in words):
            unknown = [w for w in words if w not in _ENUM_NAMES]
            close = difflib.get_close_matches(unknown[0], _ENUM_NAMES, n=1, cutoff=0.6) if unknown else []
            if close:
                return f"did you mean {close[0]}? (a type default is a DataType enum such as DT_FLOAT or DT_INT32)"
            return None  # the enums are right; the syntax around them is not
        fixed = _WORD.sub(lambda m: _enum_spelling(m.group()) or m.group(), value)
        if fixed != value:
            return f"a type default is a DataType enum: Attr(\"{name.strip()}: {type_text} = {fixed}\")"
        return "a type default is a DataType enum such as DT_FLOAT or DT_INT32"
    literal: str | None
    if element.startswith("{"):  # a set of allowed strings
        literal = "one of the allowed values, quoted (`e: {'a', 'b'} = 'a'`)"
    else:
        literal = _LITERALS.get(element)
    if is_list:
        return "a list default is bracketed, `= [v1, v2]` (`= []` when empty)" + (
            f", each value {literal}" if literal else ""
        )
    return f"the default of {with_article(element)} attr is {literal}" if literal else None


def fix_hint(message: str, failed_attrs: set[str], unread_attr: str | None = None) -> str | None:
    """A hint for TF's `message`; `failed_attrs`: the op's attrs whose own spec failed;
    `unread_attr`: the op's call that may have declared an unknown attr, and did not (an Attr()
    whose argument opgen could not read, a misspelt Attr), as a phrase naming its location."""
    if unread_attr is not None and (_UNKNOWN_ATTR.match(message) or _UNKNOWN_LENGTH.match(message)):
        return f"may follow from {unread_attr}: fix that one first"
    m = _DEFAULT.match(message)
    if m:
        return _default_hint(m.group("value"), m.group("spec"))
    m = _TYPE_NAME.match(message)
    if m:
        return _data_type_hint(m.group("name"))
    m = _ATTR_TYPE.match(message)
    if m:
        word = _WORD.match(m.group("rest"))
        type_text = m.group("spec").partition(":")[2].strip()
        if word and type_text.startswith(("{", "list({")):  # a member of a set of types
            return _data_type_hint(word.group())
        return _attr_type_hint(word.group() if word else None)
    m = _EXTRA.match(message)
    if m:  # `n: integer`: TF reads the type `int`, then finds `eger` left over
        word = _WORD.match(m.group("spec").partition(":")[2].strip())
        if word and word.group() not in (*ATTR_TYPES, "list"):
            return _attr_type_hint(word.group())
    m = _UNKNOWN_ATTR.match(message)
    if m:  # `y: flaot`: a misspelt type reads as a type attr's name
        name = m.group("name")
        if name == "ref":
            return f"a reference {m.group('method').lower()} is written Ref(type): x: Ref(float)"
        nearest = nearest_data_type(name)
        declare = f'or declare the type attr: .Attr("{name}: type")'
        if nearest:
            return f"did you mean the type '{nearest}'? ({declare})"
        return f"use a type name (float, int32, ...) {declare}"
    m = _UNKNOWN_LENGTH.match(message)
    if m:
        return f'declare the length attr: .Attr("{m.group("name")}: int >= 1")'
    m = _NAME_COLON.match(message)
    if m:
        what, method = m.group("method").lower(), m.group("method")
        if ":" in m.group("spec"):  # the name before it is not TF's
            return (f"an {what}'s name is lower-case letters, digits and _, starting with a letter: "
                    f'{method}("x: float")')
        return f'an {what} is declared as "name: type": {method}("x: float")'
    m = _ATTR_NAME_COLON.match(message)
    if m:  # `scale float = 1.0`: the colon after the name left out
        spec = m.group("spec").strip()
        name, _, rest = spec.partition(" ")
        # (the spec echoed only when it is one short printable line: the hint is one line)
        plain = spec.isprintable() and len(spec) <= 80 and _WORD.fullmatch(name) and rest.strip()
        example = f'Attr("{name}: {rest.strip()}")' if plain else 'Attr("n: int = 1")'
        return f'an attr is declared as "name: type" with an optional "= default": {example}'
    m = _DUPLICATE_NAME.match(message)
    if m:  # (ValidateOpDef: inputs, outputs and attrs share one namespace)
        return (f"an op's inputs, outputs and attrs need different names: rename one of the '{m.group('name')}'s "
                "in REGISTER_OP")
    m = _NOT_ALLOWED.match(message)
    if m:  # (ValidateOpDef checks an attr's default against its allowed values)
        allowed, value = m.group("allowed"), m.group("value")
        return f"the default must be one of the allowed values: {allowed} (or add {value} to them)"
    m = _OP_NAME.match(message)
    if m:
        # (NFKC first: a name in fullwidth letters means the ASCII one, not a word boundary)
        name = unicodedata.normalize("NFKC", m.group("name"))
        camel = "".join(word[:1].upper() + word[1:] for word in re.split(r"[^A-Za-z0-9]+", name))
        example = f': REGISTER_OP("{camel}")' if camel[:1].isalpha() else ""
        return f"an op name is CamelCase: a capital letter, then letters, digits and _{example}"
    m = _FOLLOW_ON.match(message)
    if m and m.group("attr") in failed_attrs:
        return f"follows from the error in attr '{m.group('attr')}' (TensorFlow reports both): fix that one first"
    return None


__all__ = ["fix_hint", "misspelt_macro", "nearest_data_type"]
