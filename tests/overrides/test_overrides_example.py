"""The example library's `overrides/` uses every override field, and each one shows in the
modules `opgen build` generates from `op_specs/` (built afresh into a temporary directory,
so this checks the pipeline, not a stale checkout; `opgen build --check` keeps the
committed `generated/` equal to it)."""

from __future__ import annotations

import ast
import os

import pytest
from google.protobuf.message import Message
from support.paths import REPO

from opgen.overrides.files import read_override_file
from opgen.overrides.load import override_layers

OPGEN_FIELDS = {"name", "skip", "hide", "rename_to", "alias", "attr_default", "attr_rename", "input_rename",
                "output_rename"}
APIDEF_FIELDS = {"graph_op_name", "visibility", "endpoint", "endpoint.deprecated", "in_arg.rename_to",
                 "in_arg.description", "out_arg.rename_to", "out_arg.description", "arg_order", "attr.rename_to",
                 "attr.default_value", "attr.description", "summary", "description", "description_prefix",
                 "description_suffix"}


def _fields(message: Message, prefix: str = "") -> set[str]:
    used = set()
    for field, value in message.ListFields():
        used.add(prefix + field.name)
        if field.message_type is not None and field.name in ("in_arg", "out_arg", "attr", "endpoint"):
            for item in value:
                used |= _fields(item, prefix + field.name + ".")
    return used


def test_example_overrides_use_every_field():
    used = {"opgen": set(), "apidef": set()}
    multiline = False
    for layer in override_layers(REPO / "overrides", "overrides"):
        for path, shown in layer:
            file = read_override_file(path, shown)
            multiline |= "<<END" in path.read_text()
            for entry in file.message.op:
                used[file.format] |= _fields(entry)
    assert used["opgen"] >= OPGEN_FIELDS, OPGEN_FIELDS - used["opgen"]
    assert used["apidef"] >= APIDEF_FIELDS, APIDEF_FIELDS - used["apidef"]
    assert multiline


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, str]:
    """Function name / module-level name -> its source, over all generated modules."""
    import os

    from opgen import cli

    out = tmp_path_factory.mktemp("generated")
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        assert cli.main(["build", "--out", str(out)]) == 0
    finally:
        os.chdir(cwd)
    return {p.name: p.read_text() for p in sorted(out.glob("gen_*.py"))}


def _module_names(sources: dict[str, str]):
    """Functions, aliases (a deprecated one bound by `_execute.deprecated_alias(function,
    "alias")`, its name ending in ` (deprecated)`), `__all__` and namedtuple fields."""
    functions: dict[str, ast.FunctionDef] = {}
    aliases: dict[str, str] = {}
    exported: set[str] = set()
    namedtuples: dict[str, list[str]] = {}
    for source in sources.values():
        body = ast.parse(source).body
        # the namedtuple is made in the `else:` of `if TYPE_CHECKING:` (docs/typing.md)
        for node in [*body, *(n for s in body if isinstance(s, ast.If) for n in s.orelse)]:
            if isinstance(node, ast.FunctionDef):
                functions[node.name] = node
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                target = node.targets[0].id
                if target == "__all__":
                    exported |= set(ast.literal_eval(node.value))
                elif isinstance(node.value, ast.Name):
                    aliases[target] = node.value.id
                elif ast.unparse(node.value).startswith("_execute.deprecated_alias("):
                    assert isinstance(node.value, ast.Call) and isinstance(node.value.args[0], ast.Name)
                    assert ast.literal_eval(node.value.args[1]) == target
                    aliases[target] = node.value.args[0].id + " (deprecated)"
                elif ast.unparse(node.value).startswith("collections.namedtuple("):
                    namedtuples[target] = ast.literal_eval(node.value.args[1])
    return functions, aliases, exported, namedtuples


def _signature(fn: ast.FunctionDef) -> str:
    args = fn.args.args
    defaults = [None] * (len(args) - len(fn.args.defaults)) + list(fn.args.defaults)
    return ", ".join(a.arg + ("" if d is None else "=" + ast.unparse(d)) for a, d in zip(args, defaults))


def test_every_field_shows_in_generated_modules(generated):
    functions, aliases, exported, namedtuples = _module_names(generated)
    doc = {name: ast.get_docstring(fn, clean=False) or "" for name, fn in functions.items()}
    # skip: no function and no name (the op itself stays registered for graphs)
    assert "placeholder_v2" not in set(functions) | set(aliases) | exported
    assert "placeholder" in functions
    # hide (OpGenOverride) and visibility HIDDEN (ApiDef): hidden naming rule, not exported
    assert {"_sum", "_if", "_while"} <= set(functions) and not {"_sum", "_if", "_while"} & exported
    # rename_to: new Python name, graph op name unchanged
    assert "add_two" in functions and "add_v2" not in functions
    assert "_apply_op_helper('AddV2'" in ast.unparse(functions["add_two"])
    # alias and extra endpoints (one deprecated): module-level names bound to the function
    assert aliases["multiply"] == "mul" and aliases["concat_v2"] == "concat"
    assert aliases["mean"] == "reduce_mean (deprecated)"
    assert {"multiply", "concat_v2", "mean", "reduce_mean", "concat"} <= exported
    # attr_default: signature default only
    assert "output_type=_dtypes.int32" in _signature(functions["arg_max"])
    # input_rename, attr_rename, in_arg rename_to: Python names; helper keywords stay OpDef names
    assert _signature(functions["_sum"]).startswith("input, axis, keepdims=False")
    helper = next(n for n in ast.walk(functions["_sum"]) if isinstance(n, ast.Call)
                  and ast.unparse(n.func).endswith("_apply_op_helper"))
    assert [k.arg for k in helper.keywords] == ["input", "reduction_indices", "keep_dims", "name"]
    assert ast.unparse(helper.keywords[1].value) == "axis"
    assert _signature(functions["expand_dims"]).startswith("input, axis")
    assert _signature(functions["reduce_mean"]).startswith("input, axis")
    # output_rename and out_arg rename_to: namedtuple fields
    assert namedtuples["_UniqueOutput"] == ["values", "indices"]
    assert namedtuples["_TopKOutput"] == ["values", "positions"]
    # ... and the Returns section names those fields (TF's keeps the OpDef's output names)
    assert "A tuple of `Tensor` objects (values, indices).\n\n      values: A `Tensor`." in doc["unique"]
    assert "\n      indices: A `Tensor` of type `out_idx`." in doc["unique"]
    assert "A tuple of `Tensor` objects (values, positions)." in doc["top_k"]
    # arg_order
    assert _signature(functions["split"]).startswith("value, split_dim, num_split")
    # ApiDef attr rename_to / default_value / description
    assert _signature(functions["squeeze"]) == "input, axis=[], name=None"
    assert "Size-1 dimensions to remove; all of them when empty." in doc["squeeze"]
    # in_arg / out_arg descriptions, summary, multi-line description
    assert doc["sqrt"].startswith("Square root of each element of `x`.")
    assert "Non-negative real or any complex values." in doc["sqrt"]
    assert "For negative real inputs the result is NaN.\n\n" in doc["sqrt"]
    assert "The principal square root of `x`." in doc["sqrt"]
    assert "its position in `values`." in doc["unique"]  # out_arg description, UpdateDocs'd
    assert "Where the kept entries were, along the last axis." in doc["top_k"]
    # description_prefix / description_suffix
    assert "For complex numbers use `ComplexAbs`." in doc["abs"] and "See also `Neg`." in doc["abs"]
    assert "The dimensions to reduce over." in doc["reduce_mean"]


def _hidden_build(tmp_path, override: str, filename: str) -> tuple[set[str], list[str]]:
    """Functions and `__all__` of gen_math_ops.py built with one override file."""
    import shutil

    from opgen.cli import main

    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    for name in ("math_ops.cc", "common_macros.h"):
        shutil.copy(REPO / "op_specs" / name, root / "specs" / name)
    (root / "ov").mkdir()
    (root / "ov" / filename).write_text(override, encoding="utf-8")
    # the sources declare TF's own ops on purpose: keep them (docs/gathering.md, core ops)
    (root / "pyproject.toml").write_text(
        '[tool.opgen]\ncore_ops = ["*"]\nsources = ["specs"]\nout = "gen"\noverrides = "ov"\n'
    )
    cwd = os.getcwd()
    os.chdir(root)
    try:
        assert main(["build"]) == 0
    finally:
        os.chdir(cwd)
    tree = ast.parse((root / "gen" / "gen_math_ops.py").read_text())
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    exported = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                    and ast.unparse(n.targets[0]) == "__all__")
    return functions, exported


def test_opgen_override_hide_makes_the_function_private(tmp_path):
    """OpGenOverride `hide`: `_`-prefixed and out of `__all__`, whatever the name (with its aliases)."""
    functions, exported = _hidden_build(tmp_path, 'op { name: "Neg" hide: true alias: "Negate" }\n', "math.pbtxt")
    assert "_neg" in functions and "neg" not in functions
    assert "_neg" not in exported and "_negate" not in exported and "negate" not in exported


def test_api_def_hidden_keeps_tensorflows_rule(tmp_path):
    """ApiDef `visibility: HIDDEN` keeps TF 2.21's rule: the name stays (only some names get `_`),
    out of `__all__`."""
    (tmp_path / "a").mkdir()
    functions, exported = _hidden_build(tmp_path / "a", 'op { graph_op_name: "Neg" visibility: HIDDEN }\n',
                                        "api_def_Neg.pbtxt")
    assert "neg" in functions and "neg" not in exported
