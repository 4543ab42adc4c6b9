"""TF cross-check of the override layer (overrides/README.md, docs/tensorflow-backend.md).

TF 2.21's shipped `gen_math_ops` / `gen_array_ops` differ from what its generator writes
for the bare OpList (`_pywrap_python_op_gen.GetPythonWrappers`, every op VISIBLE, no
renames) exactly where TF's Python ApiDefs hide or rename. `tests/data/tf_python_api/`
holds ApiDef files reproducing those differences, derived here from the two sources (the
shipped module is the oracle; `OPGEN_UPDATE_GOLDEN=1` rewrites the files). The tests check

* the committed ApiDef files are exactly the derived differences (nothing stale, nothing missing);
* they load through `opgen.overrides.load.load_overrides` without error (so TF's own API
  passes every collision/validity check);
* with the resulting ApiModel, opgen's Python API model (`opgen.python_api.function`) and the
  module `opgen build` renders give every op of the modules the shipped function name,
  visibility, TF's dispatch decorators, parameter names and order, defaults, `_apply_op_helper` keywords and
  namedtuple fields;
* without them, TF's raw generator and the shipped module differ (the files are needed).
"""

from __future__ import annotations

import ast
import functools
import os
import re
from dataclasses import replace

import pytest
from google.protobuf import text_format
from support.tf_python_api import DATA, PyFunction, api_def_file, module_op_list, parse_module, shipped, tf_ops

from opgen.proto import api_def_pb2
from opgen.python_api.names import PY_RESERVED, avoid_reserved
from opgen_runtime.proto import attr_value_pb2, op_def_pb2

MODULES = ("gen_math_ops", "gen_array_ops")
UPDATE = os.environ.get("OPGEN_UPDATE_GOLDEN") == "1"

pytestmark = pytest.mark.oracle


@functools.cache
def raw(module: str) -> dict[str, PyFunction]:
    """TF's generator on the module's bare OpList (default ApiDefMap: no file loaded)."""
    from tensorflow.python.framework import _pywrap_python_op_gen

    return parse_module(_pywrap_python_op_gen.GetPythonWrappers(module_op_list(module).SerializeToString()).decode())


# --- deriving the ApiDefs that turn `raw` into `shipped` ---


def derive_api_def(op_def: op_def_pb2.OpDef, got: PyFunction, want: PyFunction) -> api_def_pb2.ApiDef | None:
    api = api_def_pb2.ApiDef(graph_op_name=op_def.name)
    if want.hidden:
        api.visibility = api_def_pb2.ApiDef.HIDDEN
    renamed = {k: _unreserved(v) for k, v in want.keywords}
    inputs = [a.name for a in op_def.input_arg]
    for arg in op_def.input_arg:
        if renamed[arg.name] != arg.name:
            api.in_arg.add(name=arg.name, rename_to=renamed[arg.name])
    by_param = {v: k for k, v in want.keywords}
    order = [by_param[p] for p, _ in want.params if by_param.get(p) in inputs]
    if order != inputs:
        api.arg_order.extend(order)
    raw_defaults = dict(got.params)
    param_of = dict(want.keywords)
    for attr in op_def.attr:
        if attr.name not in param_of:
            continue  # inferred: not a parameter
        if renamed[attr.name] != attr.name:
            api.attr.add(name=attr.name, rename_to=renamed[attr.name])
        default = dict(want.params)[param_of[attr.name]]
        if default != raw_defaults.get(avoid_reserved(attr.name)) and default is not None:
            entry = next((a for a in api.attr if a.name == attr.name), None) or api.attr.add(name=attr.name)
            entry.default_value.CopyFrom(_attr_value(attr.type, ast.literal_eval(_unparse_dump(default))))
    if len(op_def.output_arg) > 1:
        for arg, field in zip(op_def.output_arg, want.fields):
            if _unreserved(field) != arg.name:
                api.out_arg.add(name=arg.name, rename_to=_unreserved(field))
    changed = [f.name for f, _ in api.ListFields() if f.name != "graph_op_name"]
    return api if changed else None


def _unreserved(param: str) -> str:
    """The ApiDef rename behind a parameter name (AvoidPythonReserved appended `_`)."""
    return param[:-1] if param.endswith("_") and param[:-1] in PY_RESERVED else param


def _unparse_dump(dump: str) -> str:
    return ast.unparse(eval(dump, vars(ast)))  # an `ast.dump` of a literal: rebuild it


def _attr_value(attr_type: str, value) -> attr_value_pb2.AttrValue:
    field = {"int": "i", "float": "f", "bool": "b", "string": "s"}[attr_type.removeprefix("list(").rstrip(")")]
    if attr_type.startswith("list("):
        result = attr_value_pb2.AttrValue()
        getattr(result.list, field).extend(value)
        return result
    return attr_value_pb2.AttrValue(**{field: value.encode() if field == "s" else value})


def derived_api_defs(module: str) -> api_def_pb2.ApiDefs:
    ops, got, want = tf_ops(), raw(module), shipped(module)
    result = api_def_pb2.ApiDefs()
    for name in sorted(want):
        api = derive_api_def(ops[name], got[name], want[name])
        if api is not None:
            result.op.append(api)
    return result


@pytest.mark.parametrize("module", MODULES)
def test_committed_api_defs_are_the_derived_differences(module):
    text = (f"# TF 2.21 Python ApiDefs behind tensorflow.python.ops.{module}, derived by\n"
            f"# tests/overrides/test_tf_apidef_crosscheck.py (OPGEN_UPDATE_GOLDEN=1 rewrites this file).\n"
            + text_format.MessageToString(derived_api_defs(module), indent=0))
    if UPDATE:
        DATA.mkdir(parents=True, exist_ok=True)
        api_def_file(module).write_text(text)
    assert api_def_file(module).read_text() == text


@pytest.mark.parametrize("module", MODULES)
def test_raw_generator_differs_from_shipped_module(module):
    got, want = raw(module), shipped(module)
    assert set(got) == set(want)
    differing = {op for op in want if got[op] != want[op]}
    assert differing == {api.graph_op_name for api in derived_api_defs(module).op}
    example = {"gen_math_ops": ("Sum", "_sum", "axis"), "gen_array_ops": ("ExpandDims", "expand_dims", "axis")}
    op, fn, param = example[module]
    assert (want[op].name, want[op].params[1][0]) == (fn, param)
    assert got[op].params[1][0] != param


def tf_spelt(ours: PyFunction, theirs: PyFunction) -> PyFunction:
    """`ours` with each float attr's integral default spelt as TF spells it (`6` for our `6.0`):
    the one deliberate difference in defaults (README "Deliberate differences from
    TensorFlow's generator"); the parameters are found through TF's helper keywords."""
    attr_types = {a.name: a.type for a in tf_ops()[ours.op].attr}
    floats = {param for keyword, param in theirs.keywords if attr_types.get(keyword) == "float"}
    params = tuple((name, re.sub(r"Constant\(value=(\d+)\.0\)", r"Constant(value=\1)", default)
                    if name in floats and default is not None else default) for name, default in ours.params)
    return replace(ours, params=params)


def model_for(module: str):
    from opgen.overrides.load import load_overrides

    return load_overrides(api_def_file(module), module_op_list(module))


@pytest.mark.parametrize("module", MODULES)
def test_our_api_model_reproduces_shipped_signatures(module):
    from opgen.python_api.function import SkippedOp, function_api

    model = model_for(module)
    want = shipped(module)
    mismatches = []
    for op_def in module_op_list(module).op:
        api = function_api(op_def, model.get(op_def))
        if isinstance(api, SkippedOp):
            mismatches.append(f"{op_def.name}: skipped ({api.reason})")
            continue
        params = tuple((p.name, None if p.default is None else ast.dump(ast.parse(p.default, mode="eval").body))
                       for p in api.params)
        ours = PyFunction(op_def.name, api.name, not api.visible, api.visible, params,
                          tuple(sorted((p.keyword, p.name) for p in api.params)),
                          tuple(o.field for o in api.outputs) if len(api.outputs) > 1 else ())
        theirs = want[op_def.name]
        if tf_spelt(ours, theirs) != theirs:
            mismatches.append(f"{op_def.name}: ours {ours} != shipped {theirs}")
    assert len(model.provenance) == len(derived_api_defs(module).op)
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("module", MODULES)
def test_our_rendered_module_matches_shipped_signatures(module, tmp_path, monkeypatch):
    """`opgen build` on the module's OpList with the ApiDef file: every rendered wrapper has
    the shipped name, visibility, dispatch decorators, parameters, defaults, helper keyword names
    and namedtuple fields."""
    from opgen import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / f"{module[len('gen_'):]}.pbtxt").write_text(text_format.MessageToString(module_op_list(module)))
    assert cli.main(["build", f"{module[len('gen_'):]}.pbtxt", "--overrides", str(api_def_file(module)),
                     "--out", "out"]) == 0
    ours = parse_module((tmp_path / "out" / f"{module}.py").read_text(), tf_style=False)
    want = shipped(module)
    assert set(ours) == set(want)

    def comparable(f: PyFunction) -> PyFunction:
        # Helper keyword *names* only: how a converted attr value reaches the call (a local
        # of the renderer's choosing) is no API; keyword -> parameter is checked on pyapi above.
        return replace(f, keywords=tuple(sorted((k, "") for k, _ in f.keywords)))

    mismatches = [f"{op}: ours {ours[op]} != shipped {want[op]}" for op in sorted(want)
                  if comparable(tf_spelt(ours[op], want[op])) != comparable(want[op])]
    assert not mismatches, "\n".join(mismatches)
