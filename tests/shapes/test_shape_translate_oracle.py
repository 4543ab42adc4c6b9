"""Differential oracle for translated shape functions: C++ lambdas run by TF vs their Python
translation run by opgen's embedded runtime.

tests/data/shape_translate_ops/shape_ops.cc (written for this test) declares ops whose
shape functions use one idiom of TF's InferenceContext API each. It is compiled against the
TF wheel and loaded into TF (tests/oracle/tf_library.py); `opgen build` translates the same
functions into the generated module. For every probe (input shapes known, partially known,
of unknown rank, invalid; attr variants) the node is built in a TF graph and in an
`opgen_runtime.Graph`: output shapes, or the ValueError text, must be equal for every op
whose shape function was translated; the one that is not gets unknown shapes and a warning.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
import subprocess
import sys

import pytest
from support.paths import REPO

pytestmark = pytest.mark.oracle

SOURCE = REPO / "tests" / "data" / "shape_translate_ops" / "shape_ops.cc"
FLOAT, INT32 = 1, 3
U = "unknown"

SHAPES = [U, [], [3], [None], [6], [2, 3], [None, 3], [2, None], [3, 3], [2, 4], [4, 2, 3],
          [None, None, None], [2, 3, 4], [2, 3, 4, 5], [1, 5, 5, 3], [2, 0, 3], [None, 0], [7, 1]]
PAIR_SHAPES = [U, [], [3], [None], [2, 3], [None, 3], [2, None], [3, 3], [2, 3, 4], [4, 2, 3], [2, 3, 4, 5]]
SHAPE_TENSORS = [("ph", U, INT32), ("ph", [3], INT32), ("ph", [None], INT32), ("ph", [], INT32),
                 ("ph", [2, 2], INT32), ("const", [2, 3]), ("const", [-1, 4]), ("const", []),
                 ("const", [2, -5]), ("const", 5), ("const", -1)]
ATTRS = {
    "StIntAttr": [{}, {"n": 0}, {"n": 5}, {"n": -1}],
    "StInt32Attr": [{}, {"n": 2**31 - 1}, {"n": 2**31}, {"n": -(2**31)}, {"n": -(2**31) - 1}, {"n": 2**33},
                    {"sizes": [1, 2**31]}, {"sizes": [-(2**31), 4]}],
    "StBoolAttr": [{}, {"keep_dims": True}, {"keep_dims": False}],
    "StStringAttr": [{}, {"data_format": "NCHW"}],
    "StListAttr": [{}, {"perm": [0, 1]}, {"perm": [2, 0, 1]}, {"perm": [0, 5]}, {"perm": []}],
    "StListAttrSize": [{}, {"sizes": []}, {"sizes": [4]}, {"sizes": [2, 3, 4]}],
    "StShapeAttr": [{"shape": [2, 3]}, {"shape": [None, 3]}, {"shape": []}, {"shape": [4, 2, None]}],
    "StFloatAttr": [{}, {"alpha": 0.1}, {"alpha": 0.05}, {"alpha": 1e-7}, {"alpha": -2.5}, {"alpha": 3.5},
                    {"alpha": 123456789.0}],
    "StTypeAttr": [{}, {"out_type": INT32}, {"out_type": 9}, {"out_type": 7}],
    "StTypeListAttr": [{}, {"types": [FLOAT, INT32, FLOAT]}, {"types": [INT32]}],
    "StShapeListAttr": [{}, {"shapes": [[2, 3]]}, {"shapes": [[None, 3], [4]]}, {"shapes": [[], [2, None]]}],
    "StSwitchRank": [{}, {"n": 1}, {"n": -2}, {"n": 5}],
    "StSwitchType": [{}, {"out_type": 2}, {"out_type": INT32}, {"out_type": 9}],
    "StStdMath": [{}, {"sizes": []}, {"sizes": [4]}, {"sizes": [7, 3, 5]}],
    "StNarrow": [{}, {"m": 2**32 + 5}, {"m": 2**31}, {"m": -5}, {"m": 2**40 + 2**33 + 1}],
    # size_t arithmetic wrapping below 0 and past 2**64 (2**32 * 2**32, 2**62 * 4 * 3, -1 cast)
    "StSizeTLocal": [{}, {"sizes": []}, {"sizes": [4]}, {"sizes": [2**32, 2**32]}, {"sizes": [-1]},
                     {"sizes": [2**62, 4, 3]}, {"sizes": [0, 5, 1]}, {"sizes": [10, 10, 2]}, {"sizes": [-1, -1]}],
    "StVectorCopies": [{}, {"m": []}, {"m": [4]}, {"m": [2, 6]}],
    "StOverloads": [{}, {"flag": False}],
    "StContinue": [{}, {"m": []}, {"m": [2, 2]}, {"m": [5, -3, 2, 7]}],
    "StBracedVectors": [{}, {"n": 0}, {"n": 3}, {"n": 5}],
}
SCALAR_TENSORS = [("ph", [], INT32), ("ph", U, INT32), ("ph", [2], INT32), ("const", 3), ("const", 0),
                  ("const", -2), ("const", [1, 2])]
# input_tensor probes without negative sizes (TF's MakeDim only DCHECKs them)
SIZE_TENSORS = [("ph", U, INT32), ("ph", [3], INT32), ("ph", [], INT32), ("const", [2, 3]), ("const", []),
                ("const", [0, 5, 1]), ("const", 4)]
UNTRANSLATED = {"StHandleData", "StUnsignedInt", "StOverloadUnresolved"}


@pytest.fixture(scope="module")
def sides(tf, tmp_path_factory):
    """(TF's prefix for the library's ops, the opgen module's op names, build stderr)."""
    from oracle.tf_library import _prefixes, build_library, library_op_list
    from oracle.tf_registry import tf_op_list_bytes
    from support.call_wrappers import record_build_dir

    from opgen_runtime.ops import registry

    op_list = library_op_list([SOURCE])
    _, key = build_library([SOURCE])
    prefix = _prefixes(key)[0]
    root = tmp_path_factory.mktemp("shape_translate")
    shutil.copy(SOURCE, root / SOURCE.name)
    done = subprocess.run([sys.executable, "-m", "opgen", "build", SOURCE.name, "--out", "gen"], cwd=root,
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), check=False)
    assert done.returncode == 0, done.stderr
    record_build_dir(root / "gen")  # every wrapper gets called (support/call_wrappers.py)
    registry.register_op_list("tensorflow_registry", tf_op_list_bytes())  # Placeholder, Const
    (module_path,) = (root / "gen").glob("gen_*.py")
    name = "shape_translate_under_test." + module_path.stem
    spec = importlib.util.spec_from_file_location(name, module_path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return prefix, {op.name: op for op in op_list.op}, done.stderr


def _probes(op) -> list[tuple[dict, dict]]:
    attrs_variants = ATTRS.get(op.name, [{}])
    args = list(op.input_arg)
    if len(args) == 1 and args[0].number_attr:
        inputs = [{"xs": ("list", [("ph", s, FLOAT)] * n)} for n in (1, 2, 3) for s in SHAPES[:8]]
        pairs = itertools.product(PAIR_SHAPES, repeat=2)
        inputs += [{"xs": ("list", [("ph", a, FLOAT), ("ph", b, FLOAT)])} for a, b in pairs]
    elif op.name == "StConstantVector":
        inputs = [{args[0].name: s} for s in SIZE_TENSORS]
    elif len(args) == 1 and args[0].type == INT32:
        inputs = [{args[0].name: s} for s in SHAPE_TENSORS]
    elif len(args) == 2 and args[1].type == INT32:
        inputs = [{args[0].name: ("ph", a, FLOAT), args[1].name: k} for a in PAIR_SHAPES for k in SCALAR_TENSORS]
    elif len(args) == 1:
        inputs = [{args[0].name: ("ph", s, FLOAT)} for s in SHAPES]
    else:
        inputs = [{args[0].name: ("ph", a, FLOAT), args[1].name: ("ph", b, FLOAT)}
                  for a, b in itertools.product(PAIR_SHAPES, repeat=2)]
    return [(i, a) for i in inputs for a in attrs_variants]


def test_build_warns_once_naming_the_untranslated_construct(sides):
    _, _, stderr = sides
    warnings = [line for line in stderr.splitlines() if "warning:" in line]
    assert warnings == [
        ("shape_ops.cc:898:14: warning: shape function not translated: c->input_handle_shapes_and_types "
        "(op StHandleData: unknown output shapes without TensorFlow)"),
        ("shape_ops.cc:1032:7: warning: shape function not translated: unsigned, an unsigned type narrower "
         "than 64 bits (op StUnsignedInt: unknown output shapes without TensorFlow)"),
        ("shape_ops.cc:1260:26: warning: shape function not translated: a call of StExpectRank, which is overloaded "
         "(StExpectRank(InferenceContext* c, int64_t rank) at line 1179, StExpectRank(InferenceContext* c, bool "
         "scalar_ok) at line 1184, StExpectRank(InferenceContext* c, const std::string& what, int64_t rank) at line "
         "1189): opgen picks an overload only when one has exactly the arguments' C++ types (op "
         "StOverloadUnresolved: unknown output shapes without TensorFlow)"),
    ]


def test_translated_shape_functions_agree_with_tf(sides, capsys):
    from oracle.shape_differential import build

    from opgen_runtime.ops import registry

    prefix, ops, _ = sides
    translated = sorted(n for n in ops if callable(registry.shape_fn_name(n)))
    assert sorted(set(ops) - set(translated)) == sorted(UNTRANSLATED)
    mismatches = []
    probes = rejected = 0
    for name in translated:
        for inputs, attrs in _probes(ops[name]):
            theirs = build(True, prefix + name, inputs, attrs)
            if theirs == ("skip",):
                continue
            if isinstance(theirs, tuple):
                theirs = (theirs[0], theirs[1].replace(prefix, ""))
                rejected += 1
            probes += 1
            ours = build(False, name, inputs, attrs)
            if ours != theirs:
                mismatches.append(f"{name} {inputs} {attrs}:\n  ours {ours}\n  TF   {theirs}")
    assert not mismatches, "\n".join(mismatches[:20]) + f"\n({len(mismatches)} mismatches)"
    assert len(translated) >= 40 and rejected > 100
    with capsys.disabled():
        print(f"\nshape functions translated: {len(translated)} of {len(ops)} ops; "
              f"{probes} probes equal to TF ({rejected} rejections)")


def test_untranslated_op_keeps_unknown_shapes(sides):
    from oracle.shape_differential import build

    for name in UNTRANSLATED:
        for inputs, attrs in _probes(sides[1][name]):
            assert build(False, name, inputs, attrs) in ([None], ("skip",))


def test_user_shape_fn_wins_over_translated(sides):
    from oracle.shape_differential import build

    from opgen_runtime.shapes import inference as shape_inference

    def fixed(c):
        c.set_output(0, c.make_shape([11]))

    shape_inference.register_shape_fn("StAtMost2", fixed)
    try:
        assert build(False, "StAtMost2", {"x": ("ph", [2, 3, 4], FLOAT)}, {}) == [(11,)]
    finally:
        shape_inference._user_fns.pop("StAtMost2")
        shape_inference._callbacks.pop("StAtMost2", None)
