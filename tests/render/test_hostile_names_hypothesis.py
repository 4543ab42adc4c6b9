"""Property test: random OpDefs with hostile names anywhere (arbitrary Unicode, NFKC twins,
keywords, builtins, body locals, code and escape payloads, control characters) either fail
validation with a located error, or give a module that imports in a fresh interpreter and
whose every wrapper runs on the embedded runtime.

Each example is one OpList of OPS_PER_EXAMPLE ops, taken through the same steps as an
OpList source in `opgen build`: `check_op_list` (ValidateOpDef + DataType enums, located
at the file), the Python API mapping with its identifier policy (`build._located`: errors
located at the op's entry), the module's collision check, rendering, then an import and a
call of every wrapper in a subprocess.
"""

from __future__ import annotations

import random
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import REPO

from opgen.errors import Location, OpgenError, OpgenErrors
from opgen.model import OpSource
from opgen.overrides.apidef import ApiModel
from opgen.python_api.function import FunctionApi
from opgen.render import emit
from opgen.render.build import Renderer, _located
from opgen.render.formatter import ChunkFormatter
from opgen.spec.oplist_io import check_op_list
from opgen_runtime.proto import op_def_pb2

OPS_PER_EXAMPLE = 100
EXAMPLES = 100  # x OPS_PER_EXAMPLE = 10,000 OpDefs

_HOSTILE = [
    "ｆoo", "__ｄｅｂｕｇ__", "é", "x\u200b", "ℌ", "ﬁ", "Ⅸ", "µ", "K", "ſ", "a\u0301",
    "list", "len", "isinstance", "tuple", "float", "int", "str", "TypeError", "ValueError", "None", "True",
    "lambda", "async", "match", "case", "_", "__debug__", "__import__", "__class__", "name", "_attr_a",
    "_result", "_op", "_outputs", "_i", "_execute", "collections", "TypeVar", "Annotated", "Any",
    "locals", "NotImplemented", "_dispatch", "_dispatcher_for_a", "_ctx",
    "T = 0\nimport os; os.system('touch CANARY')\nU", "x=open('CANARY','w')", "a\x1b[2J", "a\nb", "a\\",
    "a b", "1a", "", "a" * 200, "a-b", "a.b", "a>b", "A>B", "\x00", "\u2028",
]
_DATA_TYPE_NAMES = ["float", "int32", "string", "bool", "half", "resource"]


def _name(rnd: random.Random, valid_first: str) -> str:
    r = rnd.random()
    if r < 0.65:
        first = rnd.choice(valid_first)
        return first + "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(rnd.randint(0, 6)))
    if r < 0.88:
        return rnd.choice(_HOSTILE + _DATA_TYPE_NAMES)
    if r < 0.94:  # random Unicode
        return "".join(
            chr(rnd.choice([rnd.randint(0x21, 0x7E), rnd.randint(0xA0, 0xD7FF), rnd.randint(0xE000, 0x10FFFF)]))
            for _ in range(rnd.randint(1, 5))
        )
    return rnd.choice(_HOSTILE) + rnd.choice("abc_1")


def _op(rnd: random.Random, i: int) -> op_def_pb2.OpDef:
    r = rnd.random()
    if r < 0.5:
        op_name = f"Op{i}" + rnd.choice(["", "X", "Len", "List", "Float", "Collections"])
    elif r < 0.6:
        op_name = f"Ns{i}>Op"
    else:
        op_name = rnd.choice(["", "_"]) + _name(rnd, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") + str(i)
    op = op_def_pb2.OpDef(name=op_name, summary=rnd.choice(["", "Does it.", "\"\"\" \\ {{ x }}", "é\x00"]))
    attr_names = [_name(rnd, "abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(0, 3))]
    for name in attr_names:
        kind = rnd.choice(["int", "float", "string", "bool", "list(int)", "list(float)"])
        attr = op.attr.add(name=name, type=kind)
        if rnd.random() < 0.6:
            v = attr.default_value
            if kind == "int":
                v.i = rnd.choice([0, -1, 2**63 - 1])
            elif kind == "float":
                v.f = rnd.choice([0.5, float("nan"), float("-inf")])
            elif kind == "string":
                v.s = rnd.choice([b"", b"\"'\\", "é".encode()])
            elif kind == "bool":
                v.b = True
            elif kind == "list(int)":
                v.list.i.extend([1, 2])
            else:
                v.list.f.extend([1.5])
    type_attr = None
    if rnd.random() < 0.5:
        type_attr = _name(rnd, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        t = op.attr.add(name=type_attr, type="type")
        t.allowed_values.list.type.extend([1, 2])
    number_attr = None
    for _ in range(rnd.randint(0, 2)):
        arg = op.input_arg.add(name=_name(rnd, "abcdefghijklmnopqrstuvwxyz"))
        r = rnd.random()
        if r < 0.3 and type_attr is not None:
            arg.type_attr = type_attr
        elif r < 0.5:
            if number_attr is None:
                number_attr = _name(rnd, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
                op.attr.add(name=number_attr, type="int", has_minimum=True, minimum=1)
            arg.number_attr = number_attr
            arg.type = 1
        else:
            arg.type = 1
    for _ in range(rnd.randint(0, 2)):
        arg = op.output_arg.add(name=_name(rnd, "abcdefghijklmnopqrstuvwxyz"))
        if type_attr is not None and rnd.random() < 0.5:
            arg.type_attr = type_attr
        else:
            arg.type = 1
    return op


def _value(param) -> str:
    """A Python expression for a required parameter the embedded runtime accepts."""
    if param.kind == "input":
        return "[[1.0], [2.0]]" if param.is_list else "[1.0]"
    return {"int": "1", "float": "1.5", "string": "'s'", "bool": "True", "type": "dtypes.float32",
            "list(int)": "[1]", "list(float)": "[1.5]"}[param.attr_type]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(min_value=0, max_value=2**64))
def test_hostile_opdefs_fail_located_or_import_and_run(tmp_path_factory, seed):
    rnd = random.Random(seed)
    tmp = tmp_path_factory.mktemp("hostile")
    where = str(tmp / "hostile.pbtxt")
    accepted: list[op_def_pb2.OpDef] = []
    apis: dict[str, FunctionApi] = {}
    sources: dict[str, OpSource] = {}
    rejected = 0
    model = ApiModel({})
    for i in range(OPS_PER_EXAMPLE):
        op = _op(rnd, i)
        source = OpSource(Location(where, i + 1, 1))
        try:
            check_op_list(op_def_pb2.OpList(op=[op]), where, [i + 1])
            api = _located(op, model, source)
        except OpgenError as e:
            errors = e.errors if isinstance(e, OpgenErrors) else [e]
            assert all(err.location is not None and err.location.path == where for err in errors), e.format()
            rejected += 1
            continue
        if not isinstance(api, FunctionApi):
            continue  # skipped like TF (a visible op named like a keyword)
        try:  # the module's top-level names may not collide: the later op is rejected, located
            emit.raise_all(emit.collisions("gen_hostile", [emit.FunctionSummary.of(a) for a in [*apis.values(), api]],
                                           {op.name: source.location}))
        except OpgenError as e:
            assert e.location == source.location, e.format()
            rejected += 1
            continue
        accepted.append(op)
        apis[op.name] = api
        sources[op.name] = source

    renderer = Renderer(emit.Templates.load(None), ChunkFormatter("ruff", jobs=1, use_cache=False), model, tmp)
    module = "gen_hostile"
    files = renderer.render({module: accepted}, sources, pack="unused").files
    (tmp / f"{module}.py").write_bytes(files[f"{module}.py"])
    calls = []
    for api in apis.values():
        # name=: a graph node may not be named like an internal `_Op` (TF's root scope rule)
        args = ", ".join([*(f"{p.name}={_value(p)}" for p in api.params if p.default is None), "name='n'"])
        calls.append(f"    m.{api.name}({args})\n")
    script = (
        f"import sys; sys.path.insert(0, {str(tmp)!r})\n"
        "from opgen_runtime import Graph, dtypes\n"
        f"import {module} as m\n"
        "with Graph().as_default():\n" + ("".join(calls) or "    pass\n")
    )
    run_dir = tmp / "run"
    run_dir.mkdir()
    proc = subprocess.run([sys.executable, "-c", script], cwd=run_dir, capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not list(run_dir.iterdir()) and not (tmp / "CANARY").exists()
