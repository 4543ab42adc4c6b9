"""REGISTER_OP spec corpora for the differential tests against TF's OpDefBuilder.

A spec is `(op_name, [(method, args), ...])`. `to_registration` turns it into the
Registration opgen's builder takes; `to_oracle_calls` into the harness's SpecCalls.
`random_spec(r)` draws a spec reaching every grammar branch (type sets, compound names,
string sets, list(...), >= N, defaults of every type, N*T, type lists, Ref, resource,
implicit minimums, docs, flags, Deprecated, type constructors); with `broken=True` one
part is replaced by a known-bad variant so both builders must reject it.
"""

from __future__ import annotations

import random
import re

from opgen.model import Registration
from opgen.spec.builder import registration

Spec = tuple[str, list[tuple[str, tuple]]]

TYPE_NAMES = ["float", "double", "int32", "uint8", "int16", "int8", "string", "complex64", "int64",
              "bool", "qint8", "quint8", "qint32", "bfloat16", "qint16", "quint16", "uint16",
              "complex128", "half", "resource", "variant", "uint32", "uint64", "float32", "float64",
              "float16", "int4", "uint4", "int2", "uint2"]
DT_NAMES = ["DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_UINT8", "DT_INT16", "DT_INT8", "DT_STRING",
            "DT_COMPLEX64", "DT_INT64", "DT_BOOL", "DT_HALF", "DT_BFLOAT16", "DT_UINT32", "DT_UINT64",
            "DT_QINT8", "DT_VARIANT", "DT_RESOURCE", "DT_FLOAT8_E5M2", "DT_INT4"]
COMPOUND = ["numbertype", "numerictype", "realnumbertype", "quantizedtype"]
TFT_IDS = ["TFT_ARRAY", "TFT_DATASET", "TFT_OPTIONAL", "TFT_RAGGED", "TFT_TENSOR", "TFT_MUTEX_LOCK",
           "TFT_SHAPE_TENSOR", "TFT_ITERATOR", "TFT_STRING", "TFT_INT32", "TFT_FLOAT", "TFT_ANY"]
WS = ["", " ", "  ", "\t"]


def to_registration(spec: Spec) -> Registration:
    name, calls = spec
    converted = []
    for method, args in calls:
        if method == "SetTypeConstructor":
            helper, *rest = args
            texts = [a if a.startswith("TFT_") else '"' + a + '"' for a in rest]
            converted.append((method, (f"full_type::{helper}({', '.join(texts)})",)))
        else:
            converted.append((method, args))
    return registration(name, converted)


def to_oracle_calls(spec: Spec):
    from oracle.harness import SpecCall

    return [SpecCall(method, tuple(args)) for method, args in spec[1]]


_OPDEF_TAIL = re.compile(r"; in OpDef: .*", re.DOTALL)


def comparable(message: str) -> str:
    """A status text without its `; in OpDef: ...` tail: TF 2.21 prints a redaction marker
    and C++ float spellings in that debug string, and opgen's builder leaves it out."""
    return _OPDEF_TAIL.sub("", message)


# ----------------------------------------------------------------------------- generator


def _name(r: random.Random, used: set[str], upper: bool) -> str:
    while True:
        first = r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ" if upper else "abcdefghijklmnopqrstuvwxyz")
        rest = "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(r.randint(0, 6)))
        name = first + rest
        if name not in used and name.lower() not in set(TYPE_NAMES) and not name.startswith("list"):
            used.add(name)
            return name


def _type_set(r: random.Random) -> str:
    members = [r.choice(TYPE_NAMES[:24] + COMPOUND + ["realnumerictype"]) for _ in range(r.randint(1, 4))]
    if r.random() < 0.2:
        members.append(members[0])  # duplicates are kept
    sep = r.choice([",", ", ", " ,  "])
    return "{" + r.choice(WS) + sep.join(members) + (r.choice(["", ",", ", "]) if r.random() < 0.3 else "") + "}"


def _quoted(r: random.Random, text: str) -> str:
    q = r.choice("\"'")
    return q + text.replace("\\", "\\\\").replace(q, "\\" + q) + q


STRINGS = ["a", "SAME", "VALID", "NHWC", "x y", "tab\\there", "nl\\n", "", "quote\\\"s", "u\\u00e9",
           "oct\\101", "hex\\x41"]
SHAPES = ["{ }", "{}", "{ unknown_rank: true }", "{ dim { size: -1 } }", "{ dim { size: 2 } dim { size: 3 } }",
          "{ dim { size: 1 name: \"b\" } }"]
TENSORS = ["{ dtype: DT_FLOAT tensor_shape { } float_val: 1 }", "{ dtype: DT_INT32 int_val: 7 }",
           "{ dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: \"s\" }"]
FLOATS = ["0", "1.5", "-2", ".5", "1.", "1e-3", "1E+10", "inf", "-inf", "nan", "Infinity", "3.14159265",
          "1e-45", "+2", "0.1"]


def _attr(r: random.Random, name: str, kinds: dict[str, str]) -> str:
    """A valid Attr spec named `name`; records its type in `kinds`."""
    ws1, ws2 = r.choice(WS), r.choice(WS)
    kind = r.choice(["type", "type_set", "compound", "list_type", "int", "float", "bool", "string",
                     "string_set", "list_int", "list_float", "list_string", "list_bool", "shape",
                     "list_shape", "tensor", "func", "list_func", "list_type_set"])
    head = f"{name}{ws1}:{ws2}"
    if kind == "type":
        kinds[name] = "type"
        return head + "type" + (f" = {r.choice(DT_NAMES[:14])}" if r.random() < 0.5 else "")
    if kind == "type_set":
        kinds[name] = "type"
        return head + _type_set(r)
    if kind == "compound":
        kinds[name] = "type"
        c = r.choice(COMPOUND)
        return head + c + (" = DT_FLOAT" if r.random() < 0.4 else "")
    if kind in ("list_type", "list_type_set"):
        kinds[name] = "list(type)"
        inner = "type" if kind == "list_type" else r.choice([_type_set(r), r.choice(COMPOUND)])
        text = head + f"list{r.choice(WS)}({r.choice(WS)}{inner}{r.choice(WS)})"
        if r.random() < 0.5:
            text += f" >= {r.randint(0, 3)}"
        if r.random() < 0.3 and kind == "list_type":
            text += " = [" + ", ".join(r.choice(DT_NAMES[:6]) for _ in range(r.randint(0, 3))) + "]"
        return text
    if kind == "int":
        kinds[name] = "int"
        text = head + "int"
        lo = None
        if r.random() < 0.5:
            lo = r.randint(-5, 5)
            text += f"{r.choice(WS)}>={r.choice(WS)}{lo}"
        if r.random() < 0.6:
            v = r.randint(lo if lo is not None else -100, 100)
            text += f"{r.choice(WS)}={r.choice(WS)}{v}"
        return text
    if kind == "float":
        kinds[name] = "float"
        return head + "float" + (f" = {r.choice(FLOATS)}" if r.random() < 0.7 else "")
    if kind == "bool":
        kinds[name] = "bool"
        return (
            head + "bool" + (f" = {r.choice(['true', 'false', 'True', 'False', '0', '1'])}" if r.random() < 0.7 else "")
        )
    if kind == "string":
        kinds[name] = "string"
        return head + "string" + (f" = {_quoted(r, r.choice(STRINGS))}" if r.random() < 0.7 else "")
    if kind == "string_set":
        kinds[name] = "string"
        values = r.sample(STRINGS[:6], r.randint(1, 4))
        text = head + "{" + ", ".join(_quoted(r, v) for v in values) + (", " if r.random() < 0.2 else "") + "}"
        if r.random() < 0.5:
            text += f" = {_quoted(r, r.choice(values))}"
        return text
    if kind.startswith("list_") and kind != "list_func":
        base = kind[5:]
        kinds[name] = f"list({base})"
        text = head + f"list({base})"
        n = r.randint(0, 3)
        if r.random() < 0.4:
            text += f" >= {r.randint(0, n)}"
        if r.random() < 0.7:
            pick = {"int": lambda: str(r.randint(-9, 9)), "float": lambda: r.choice(FLOATS[:7]),
                    "string": lambda: _quoted(r, r.choice(STRINGS[:5])),
                    "bool": lambda: r.choice(["true", "false"]), "shape": lambda: r.choice(SHAPES)}[base]
            text += " = [" + ", ".join(pick() for _ in range(n)) + "]"
        return text
    if kind == "shape":
        kinds[name] = "shape"
        return head + "shape" + (f" = {r.choice(SHAPES)}" if r.random() < 0.7 else "")
    if kind == "tensor":
        kinds[name] = "tensor"
        return head + "tensor" + (f" = {r.choice(TENSORS)}" if r.random() < 0.6 else "")
    if kind == "func":
        kinds[name] = "func"
        return (
            head + "func" + (' = { name: "f" attr { key: "T" value { type: DT_INT32 } } }' if r.random() < 0.3 else "")
        )
    kinds[name] = "list(func)"
    return head + "list(func)" + (" = []" if r.random() < 0.5 else "")


def _arg(r: random.Random, name: str, kinds: dict[str, str], int_attrs: list[str]) -> str:
    type_attrs = [n for n, k in kinds.items() if k == "type"]
    list_attrs = [n for n, k in kinds.items() if k == "list(type)"]
    options = ["fixed"] + ["attr"] * bool(type_attrs) + ["list"] * bool(list_attrs) + ["n"] * bool(int_attrs)
    choice = r.choice(options)
    if choice == "fixed":
        body = r.choice(TYPE_NAMES)
    elif choice == "attr":
        body = r.choice(type_attrs)
    elif choice == "list":
        body = r.choice(list_attrs)
    else:
        body = f"{r.choice(int_attrs)}{r.choice(WS)}*{r.choice(WS)}{r.choice([*type_attrs, 'float', 'int32'])}"
    if choice != "list" and r.random() < 0.15:
        body = f"Ref{r.choice(WS)}({r.choice(WS)}{body}{r.choice(WS)})"
    return f"{name}{r.choice(WS)}:{r.choice(WS)}{body}"


def _doc(r: random.Random, names: list[str]) -> str:
    parts = [r.choice(["", "\n", "\n\n"]), r.choice(["Summary line.", "Adds x and y.   ", "  Indented summary",
                                                    "x: looks like an entry"]), "\n"]
    if r.random() < 0.6:
        parts.append("\n" + r.choice(["Description.\n  indented\n\nPara 2.", "One line.", "a\n\n\nb  "]) + "\n")
    for n in r.sample(names, k=min(len(names), r.randint(0, 3))):
        sep = r.choice([": ", ":", " : ", ":= ", ": = "])
        parts.append(f"\n{n}{sep}{r.choice(['The input.', 'first', ''])}")
        if r.random() < 0.5:
            parts.append(r.choice(["\n  continued\n    deeper\n\n  after blank", "\n\tTabbed", "\n   three"]))
    parts.append(r.choice(["", "\n", "\n\n  \n"]))
    return "".join(parts)


BROKEN_ATTRS = [
    "x: int32", "x: integer", "x: {Float}", "x: {int32 float}", "x: {}", "x: { }", "x int", " x: int",
    "x: realnumerictype", "x: realnumberictype", "x: {realnumberictype}", "x: {float8_e4m3fn}",
    "x: {'a', b}", "x: {'a' 'b'}", "x: {'a\\q'}", "x: list(int", "x: float >= 2", "x: type >= 1",
    "x: int >= +1", "x: int >= x", "x: int = 5 >= 1", "x: type = int32", "x: string = abc",
    "x: bool = t", "x: bool = FALSE", "x: float = 1f", "x: int = 0x10", "x: int = 1.0", "x: int = ",
    "x: list(int) = 7", "x: list(int) = [1,]", "x: shape = [2,3]", "x: any", "x: anything",
    "x: tensorflow", "x: boolean", "1x: int", "x: list(type) = [DT_INT32 , DT_HALF]",
    "x: int = 99999999999999999999", "x: int >= 99999999999999999999", "x: {'a'} >= 1",
    "x: {\"a\"", "x: {int32", "x: int = 1,",
    "x: {'\\xg'}", "x: {'\\x'}", "x: {'\\x100'}", "x: {'\\777'}", "x: {'\\u12'}", "x: {'\\u12g4'}",
    "x: {'\\ud800'}", "x: {'\\U00110000'}", "x: {'\\'}", "x: {'a\\'",
]
BROKEN_VALIDATION_ATTRS = [
    "float: int", "half: string", "int4_ref: int", "x: type = DT_FLOAT_REF", "x: type = DT_INVALID",
    "x: type = 999", "x: {int32} = DT_FLOAT", "x: {'a', 'b'} = 'c'", "x: int >= 3 = 2",
    "x: list(int) >= 2 = [1]", "x: list(type) = [DT_INVALID]", "x: list(string) >= 1 = []",
    "x: list(int) >= -1", "x: list({'a'}) = ['b']",
]
BROKEN_ARGS = [
    "A: float", "out_Z: float", "x float", "x: ref(float)", "x: Ref(float", "x: float extra",
    "x: Unknown", "x: 3", "x: N * ", "x: *float", "x: Ref()", "x: float_ref", "x: float_ref_ref",
]


def random_spec(r: random.Random, broken: bool = False) -> Spec:
    used: set[str] = set()
    name = _name(r, set(), upper=True)
    if r.random() < 0.05:
        name = r.choice(["_" + name, "Ns>" + name, name + "_v2"])
    kinds: dict[str, str] = {}
    calls: list[tuple[str, tuple]] = []
    for _ in range(r.randint(0, 5)):
        calls.append(("Attr", (_attr(r, _name(r, used, upper=r.random() < 0.5), kinds),)))
    int_attrs = []
    if r.random() < 0.4:
        n = _name(r, used, upper=True)
        spec = f"{n}: int" + r.choice(["", " >= 0", " >= 1", " >= 2", " = 2", " >= 1 = 3"])
        calls.append(("Attr", (spec,)))
        kinds[n] = "int"
        int_attrs.append(n)
    arg_names = []
    for method in ("Input", "Output"):
        for _ in range(r.randint(0, 3)):
            an = _name(r, used, upper=False)
            arg_names.append(an)
            calls.append((method, (_arg(r, an, kinds, int_attrs),)))
    r.shuffle(calls)  # the builder processes all Attrs first, whatever the call order
    for flag in ("SetIsCommutative", "SetIsAggregate", "SetIsStateful", "SetAllowsUninitializedInput",
                 "SetIsDistributedCommunication", "SetDoNotOptimize"):
        if r.random() < 0.1:
            calls.append((flag, ()))
    if r.random() < 0.15:
        calls.append(("Deprecated", (r.randint(1, 30), r.choice(["Use Foo instead", "", "gone."]))))
    if r.random() < 0.1:
        calls.append(("ControlOutput", (r.choice(["ctl", "c1", "a_b"]),)))
    if r.random() < 0.5:
        calls.append(("Doc", (_doc(r, arg_names + list(kinds)),)))
    has_output = any(m == "Output" for m, _ in calls)
    if has_output and r.random() < 0.25:
        helper = r.choice(["Nullary", "Unary", "UnaryGeneric", "UnaryTensorContainer",
                           "UnaryTensorContainer2", "VariadicTensorContainer", "NoOp", "NoOutputs"])
        var = r.choice(list(kinds) or ["T"])
        args = {"Nullary": ("Nullary", r.choice(TFT_IDS)), "Unary": ("Unary", r.choice(TFT_IDS), var),
                "UnaryGeneric": ("UnaryGeneric", r.choice(TFT_IDS)),
                "UnaryTensorContainer": ("UnaryTensorContainer", r.choice(TFT_IDS), var),
                "UnaryTensorContainer2": ("UnaryTensorContainer", r.choice(TFT_IDS), r.choice(TFT_IDS)),
                "VariadicTensorContainer": ("VariadicTensorContainer", r.choice(TFT_IDS), var),
                "NoOp": ("NoOp",), "NoOutputs": ("NoOutputs",)}[helper]
        calls.append(("SetTypeConstructor", args))
    if r.random() < 0.2:
        calls.append(("SetShapeFn", ("shape_inference::UnknownShape",)))
    if broken:
        calls = _break(r, calls, arg_names + list(kinds))
    return name, calls


def _break(r: random.Random, calls: list[tuple[str, tuple]], names: list[str]) -> list[tuple[str, tuple]]:
    how = r.choice(["attr", "attr", "validate", "arg", "doc", "twice", "dup", "unknown_ref"])
    calls = list(calls)
    if how == "attr":
        calls.insert(r.randint(0, len(calls)), ("Attr", (r.choice(BROKEN_ATTRS),)))
    elif how == "validate":
        calls.insert(r.randint(0, len(calls)), ("Attr", (r.choice(BROKEN_VALIDATION_ATTRS),)))
    elif how == "arg":
        calls.insert(r.randint(0, len(calls)), (r.choice(["Input", "Output"]), (r.choice(BROKEN_ARGS),)))
    elif how == "doc":
        calls = [c for c in calls if c[0] != "Doc"]
        calls.append(("Doc", (r.choice(["Summary.\n\nNote: a line", "S.\nReturns: x", "S.\n\nzzz: no such arg"]),)))
    elif how == "twice":
        extra = r.choice([("Doc", ("one",)), ("Deprecated", (3, "x")), ("SetShapeFn", ("f",))])
        calls += [extra, extra]
    elif how == "dup" and names:
        n = r.choice(names)
        calls.append(("Attr", (f"{n}: int",)) if n[0].isupper() else ("Input", (f"{n}: float",)))
    else:
        calls.append(("Input", ("zz_missing: NoSuchAttr",)))
    return calls


def to_cc(spec: Spec) -> str:
    """The spec as REGISTER_OP C++ source (strings as escaped C++ literals)."""
    from opgen.spec.emit_cc import cc_string

    name, calls = spec
    parts = [f"REGISTER_OP({cc_string(name)})"]
    for method, args in calls:
        if method == "SetTypeConstructor":
            texts = to_registration((name, [(method, args)])).calls[0].args[0].value
            parts.append(f".{method}({texts})")
        elif method == "SetShapeFn":
            parts.append(f".{method}({args[0]})")
        else:
            parts.append(f".{method}(" + ", ".join(str(a) if isinstance(a, int) else cc_string(a) for a in args) + ")")
    return "\n    ".join(parts) + ";\n"
