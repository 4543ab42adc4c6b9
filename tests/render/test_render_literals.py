"""Naming rules (`python_op_gen_internal.cc`, `python_op_gen.cc`) and literal rendering
(AttrValueToPython)."""

from __future__ import annotations

import keyword
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opgen.python_api import literals
from opgen.python_api.names import PY_RESERVED, avoid_reserved, function_name, lower_case_op_name
from opgen_runtime.proto import attr_value_pb2, tensor_pb2

F4_TABLE = [
    ("MatMul", "mat_mul"), ("BatchMatMulV2", "batch_mat_mul_v2"),
    ("Conv2DBackpropInput", "conv2d_backprop_input"), ("RGBToHSV", "rgb_to_hsv"),
    ("HSVToRGB", "hsv_to_rgb"), ("Conv3D", "conv3d"), ("FFT2D", "fft2d"), ("IFFT3D", "ifft3d"),
    ("DepthwiseConv2dNative", "depthwise_conv2d_native"), ("L2Loss", "l2_loss"), ("LRN", "lrn"),
    ("TPUReplicate", "tpu_replicate"), ("CTCLoss", "ctc_loss"), ("CudnnRNNV3", "cudnn_rnnv3"),
    ("TensorArrayV3", "tensor_array_v3"), ("BiasAddV1", "bias_add_v1"), ("ABc", "a_bc"),
    ("AbC", "ab_c"), ("Xla2Foo", "xla2_foo"), ("Abc1Def", "abc1_def"), ("A1B", "a1b"),
    ("A1b", "a1b"), ("UTF8Decode", "utf8_decode"), ("Ab_Cd", "ab__cd"), ("ABC_DEF", "abc_def"),
    ("NS>OpName", "ns_op_name"), ("Ab>Cd>Ef", "ab_cd_ef"), ("_Internal", "__internal"),
    ("QuantizedConv2DWithBiasAndReluAndRequantize", "quantized_conv2d_with_bias_and_relu_and_requantize"),
    ("math.Foo", "math._foo"), ("math.acosh", "math.acosh"),
]


@pytest.mark.parametrize("op,expected", F4_TABLE)
def test_lower_case_op_name(op, expected):
    assert lower_case_op_name(op) == expected


def test_reserved_covers_python3_keywords():
    assert set(keyword.kwlist) <= PY_RESERVED
    assert avoid_reserved("async") == "async_" and avoid_reserved("lambda") == "lambda_"
    assert avoid_reserved("input") == "input" and avoid_reserved("a>b") == "a_b"


@pytest.mark.parametrize(
    "base,hidden,expected",
    [("add", True, "add"), ("abs", True, "_abs"), ("print", True, "_print"), ("if", True, "_if"),
     ("if", False, None), ("max", False, "max"), ("mat_mul", False, "mat_mul")],
)
def test_function_name(base, hidden, expected):
    assert function_name(base, hidden=hidden, hidden_by_api_def=True) == expected


def _attr(**kw):
    return attr_value_pb2.AttrValue(**kw)


@pytest.mark.parametrize(
    "value,expected",
    [
        (_attr(f=0.1), "0.1"), (_attr(f=1e-7), "1e-07"), (_attr(f=100.0), "100.0"),
        (_attr(f=-0.0), "-0.0"), (_attr(f=3.4e38), "3.4e38"), (_attr(f=1234567.0), "1.23457e06"),
        (_attr(f=float("nan")), 'float("nan")'), (_attr(f=float("-inf")), 'float("-inf")'),
        (_attr(i=-9223372036854775808), "-9223372036854775808"), (_attr(b=True), "True"),
        (_attr(type=1), "_dtypes.float32"), (_attr(type=19), "_dtypes.half"),
        (_attr(type=2), "_dtypes.float64"),
        (_attr(list=attr_value_pb2.AttrValue.ListValue()), "[]"),
        (_attr(list=attr_value_pb2.AttrValue.ListValue(i=[1, 2])), "[1, 2]"),
        (_attr(list=attr_value_pb2.AttrValue.ListValue(f=[0.5, 10])), "[0.5, 10.0]"),
        (_attr(list=attr_value_pb2.AttrValue.ListValue(f=[-0.0, 0.0])), "[-0.0, 0.0]"),
    ],
)
def test_attr_default(value, expected):
    assert literals.attr_default(value, "a") == expected


def test_string_default_is_the_declared_text():
    """docs/differences-from-tf.md 19: the kernel gets the declared bytes (`make_str` encodes
    a str as UTF-8); bytes that are not UTF-8 keep TF's one character per byte."""
    value = _attr(s="café\t'q'\"\\".encode())
    rendered = literals.attr_default(value, "a")
    assert eval(rendered).encode("utf-8") == value.s
    not_utf8 = _attr(s=b"caf\xe9\xff")
    assert eval(literals.attr_default(not_utf8, "a")).encode("latin-1") == not_utf8.s


def test_shape_default():
    from opgen_runtime.proto import tensor_shape_pb2

    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=-1),
                                                   tensor_shape_pb2.TensorShapeProto.Dim(size=3)])
    assert literals.attr_default(_attr(shape=shape), "s") == "[None, 3]"  # TF's "[-1, 3]" fails make_shape
    unknown = tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
    assert literals.attr_default(_attr(shape=unknown), "s") == "None"


def test_tensor_default_text():
    t = tensor_pb2.TensorProto(dtype=3, int_val=[7])
    t.tensor_shape.SetInParent()
    assert literals.attr_default(_attr(tensor=t), "t") == (
        '_execute.make_tensor("dtype: DT_INT32 tensor_shape { } int_val: 7 ", "t")'
    )


@pytest.mark.parametrize("text", ["x", 'a"""b', "back\\slash", "\\", "tab\there", " lead", "trail ",
                                  "{{ jinja }}", "\u2028\x85\x00", "é ü"])
def test_py_str_round_trips(text):
    assert eval(literals.py_str(text)) == text


@pytest.mark.parametrize("width", [4, 20, 30, 40, 60, 80, 95])
def test_layout_is_black_layout(width):
    """`emit.layout` (via the template filters) gives black's layout for each statement shape
    the shipped templates emit, at widths around every line-length boundary, whenever
    `direct_chunk` lets it skip the formatter."""
    import black

    from opgen.render import emit

    n = "x" * width
    statements = [
        emit.wrap_call(f"def f_{n}(", [f"a_{n}", "b: int = 1", "name=None"], ") -> Annotated[Any, TV_T]:", "")
        + "\n    pass",
        emit.wrap_call(f"def g_{n}(", ["name=None"], ") -> Annotated[Any, _atypes.Int32]:", "") + "\n    pass",
        emit.assign_call(
            f"_{n}Output",
            "collections.namedtuple(",
            [emit.literals.py_str(f"_{n}Output"), emit.str_list([f"y_{n}", "batch_mean", "z"])],
            "",
        ),
        emit.wrap_call(
            f"def k_{n}(",
            [emit._annotated_param(f"input_{n}", f"Annotated[list[Any], TV_{n}_T]", ""), "name=None"],
            f") -> Annotated[Any, TV_{n}_T]:",
            "",
        )
        + "\n    pass",
        emit.assign_atom([f"_{n}.__name__", f"_{n}.__qualname__"], emit.literals.py_str(n), ""),
        "def h():\n    "
        + emit.assign_sum(
            "_result", ["_result[:2]", f"[_result[2 : 2 + len({n})]]", f"_result[2 + len({n}) :]"], "    "
        ),
        "def h():\n    "
        + emit.wrap_call(
            f"_attr_{n} = [", [emit.comprehension(f'_execute.make_type(_i, "{n}")', f"for _i in {n}")], "]", "    "
        ),
        "def h():\n    "
        + emit.wrap_call(f"_attr_{n} = _execute.make_bool(", [f"p_{n}", emit.literals.py_str(f"p_{n}")], ")", "    "),
        "def h():\n    if x:\n        "
        + emit.wrap_call("raise TypeError(", [f'f"Expected list for {n} {{x!r}}."'], ")", "        "),
        "def h():\n    "
        + emit.wrap_call(
            "_, _, _op, _outputs = _op_def_library._apply_op_helper(",
            [emit.literals.py_str(n), f"x_{n}=x", "name=name"],
            ")",
            "    ",
        ),
        "def h(t):\n    if t is None:\n        "
        + emit.assign_default(
            "t",
            emit.literals.attr_default(
                attr_value_pb2.AttrValue(tensor=tensor_pb2.TensorProto(dtype=3, string_val=[n.encode()])), "t"
            ),
            "        ",
        ),
        emit.wrap_call("__all__ = [", [emit.literals.py_str(f"{c}_{n}") for c in "abc"], "]", ""),
    ]
    direct = [s + "\n" for s in statements if emit.direct_chunk(s + "\n", "")]
    if width <= 40:  # long names make some heads too long for the templates: formatter
        assert len(direct) == len(statements)
    for source in direct:
        assert black.format_str(source, mode=black.Mode()) == source, source


def test_assign_call_is_black_layout_when_direct():
    """`emit.assign_call` across target lengths, argument lengths and indents: whenever
    `direct_chunk` accepts its output, black leaves it unchanged."""
    import black

    from opgen.render import emit

    checked = 0
    for width in range(20, 100, 3):
        calls = [
            ("_execute.make_tensor(", ['"' + "a" * 20 + '"', '"t"']),
            ("_execute.make_tensor(", ['"' + "a" * 70 + '"', '"t"']),
            ("collections.namedtuple(", ['"' + "X" * width + '"', '["a", "b", "c"]']),
            ("X" * (width - 10) + "._make(", ["_result"]),
            ("collections.namedtuple(", ['"' + "X" * 40 + '"', emit.str_list(["a" * 10] * 5)]),
        ]
        for prefix, args in calls:
            for indent, head in (("", ""), ("    ", "def f():\n    "), ("        ", "def f():\n    if x:\n        ")):
                source = head + emit.assign_call("T" * max(1, width - len(indent)), prefix, args, indent) + "\n"
                if emit.direct_chunk(source, ""):
                    checked += 1
                    assert black.format_str(source, mode=black.Mode()) == source, source
    assert checked > 200


def _natural_key(name: str) -> tuple:
    """RUF022's order as ruff spells it: the category, then each digit run as a number
    before any character."""
    import re

    category = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return (category, [(0, int(run)) if run.isdigit() else (1, ord(run)) for run in re.findall(r"\d+|\D", name)])


_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True) | st.from_regex(
    r"[a-z]?0*[0-9]{1,4}[A-Z_]?[0-9]?", fullmatch=True  # digit runs, leading zeros
)


@settings(deadline=None)  # a list's pairs, compared twice: a loaded machine must not fail it
@given(st.lists(_NAMES, max_size=30))
def test_isort_key_orders_like_natural_runs(names):
    assert sorted(names, key=literals.isort_key) == sorted(names, key=_natural_key)
    for a in names:
        for b in names:
            assert (literals.isort_key(a) == literals.isort_key(b)) == (_natural_key(a) == _natural_key(b))


def test_long_name_layouts_are_black_and_ruff_fixed_points(tmp_path):
    """The statements long op and argument names stretch (annotations, `Literal` values,
    `def`/`class` heads, chained assignments, tensor lists, `return X._make(...)`, a
    type-ignored field, a lone long argument), across name lengths around every line-length
    boundary: whenever `direct_chunk` accepts one, black and ruff both leave it unchanged."""
    import black

    from opgen.render import emit

    field = "if TYPE_CHECKING:\n\n    class A(NamedTuple):\n        {}"
    body = "def f():\n    try:\n        if x:\n            {}\n    except E:\n        pass\n    return _result"
    sources: list[str] = []
    for width in range(10, 110):
        n = "x" * width
        tv = f"Annotated[_api_types.Tensor, TV_{n}_T]"
        param = f"Annotated[_api_types.TensorLike, TV_{n}_T]"
        sources += [
            "if TYPE_CHECKING:\n\n    "
            + emit.wrap_call(f"class _{n}Output(", ["NamedTuple"], "):", "    ")
            + "\n        x: int",
            field.format(emit.annotated(f"out_{n[: width // 3]}", tv, "        ")),
            field.format(f"count: Annotated[_api_types.Tensor, TV_{n}]  # type: ignore[assignment]"),
            emit.wrap_call(f"def f_{n}(", ["name: str | None = None"], ") -> int:", "") + "\n    pass",
            emit.wrap_call(
                "def f(",
                [emit._annotated_param(f"input_{n[: width // 4]}", param, ""),
                 emit._annotated_param("b", param, " = None"), "name: str | None = None"],
                ") -> int:",
                "",
            )
            + "\n    pass",
            f'def f():\n    {emit.annotated("_result", tv, "    ")}\n    return _result',
            f'def f():\n    {emit.annotated("_result", f"_{n}Output", "    ")}\n    return _result',
            *(
                emit.wrap_call(
                    "def f(", [emit._annotated_param("mode", literal, rest), "name: str | None = None"], ") -> int:", ""
                )
                + "\n    pass"
                for literal in (
                    f'Literal["{n}"]',
                    f'Literal["a, b", "{n}"]',
                    "Literal[" + ", ".join(f'"{n[: width // 4]}_{i}"' for i in range(5)) + "]",
                )
                for rest in ("", f' = "{n[: width // 3]}"')
            ),
            body.format(emit.return_call(f"_{n}Output._make(", ["_result"], "            ")),
            *(
                "if x:\n    "
                + emit.assign_atom([f"_{n}Output.__name__", f"_{n}Output.__qualname__"], f'"{n[:width + d]}"', "    ")
                for d in (-10, 0, 10)
            ),
            *(
                emit.wrap_call("def f(", [emit._display("t: list[Any] = ", tensors), "name=None"], ") -> int:", "")
                + "\n    if t is None:\n        "
                + emit.assign_default("t", tensors, "        ")
                for tensors in (
                    f'[_execute.make_tensor("{n}", "t")]',
                    f'[_execute.make_tensor("{n[: width // 2]}", "t"), _execute.make_tensor("a", "t")]',
                )
            ),
            emit.assign_call(f"_dispatcher_for_{n[: width // 2]}", "_dispatch.api_dispatcher(", [n], ""),
        ]
    direct = [s + "\n" for s in sources if emit.direct_chunk(s + "\n", "")]
    assert len(direct) > len(sources) // 2
    for i, source in enumerate(direct):
        assert black.format_str(source, mode=black.Mode()) == source, source
        (tmp_path / f"s{i}.py").write_text(source)
    proc = subprocess.run([sys.executable, "-m", "ruff", "format", "--isolated", "--check", "--diff", str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
