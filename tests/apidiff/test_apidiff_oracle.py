"""Graph-compatibility verdicts and messages equal TF 2.21's OpDefCompatible and
OpDefAttrDefaultsUnchanged on seeded random mutations of TF's own OpDefs."""

from __future__ import annotations

import random

import pytest
from support.paths import TESTS

from opgen.apidiff.graph_compat import (
    attr_defaults_unchanged,
    graph_issues,
    op_def_compatible,
)
from opgen.apidiff.snapshot import strip_docs
from opgen_runtime.proto import attr_value_pb2, op_def_pb2

pytestmark = pytest.mark.oracle

PAIRS = 400
DTYPES = [1, 2, 3, 9, 10, 7, 19, 14, 20, 21]
ATTR_TYPES = ["int", "float", "string", "bool", "type", "shape", "list(int)", "list(type)", "list(string)"]


def _default_for(attr_type: str, rng: random.Random) -> attr_value_pb2.AttrValue:
    v = attr_value_pb2.AttrValue()
    base = attr_type.removeprefix("list(").removesuffix(")")
    is_list = attr_type.startswith("list(")
    target = v.list if is_list else v
    n = rng.randint(0, 3) if is_list else 1
    for _ in range(n):
        if base == "int":
            value = rng.randint(0, 3)
            target.i.append(value) if is_list else setattr(v, "i", value)
        elif base == "float":
            value = rng.choice([0.5, 1e-7, 3.14159265, 100.0])
            target.f.append(value) if is_list else setattr(v, "f", value)
        elif base == "string":
            value = rng.choice([b"NHWC", b"SAME", b"a\nb", b"x" * 90])
            target.s.append(value) if is_list else setattr(v, "s", value)
        elif base == "bool":
            value = rng.random() < 0.5
            target.b.append(value) if is_list else setattr(v, "b", value)
        elif base == "type":
            value = rng.choice(DTYPES)
            target.type.append(value) if is_list else setattr(v, "type", value)
        elif base == "shape":
            shape = v.list.shape.add() if is_list else v.shape
            shape.dim.add(size=rng.choice([-1, 3]))
    if is_list and n == 0:
        v.list.SetInParent()
    return v


def _args(op: op_def_pb2.OpDef, rng: random.Random):
    return op.input_arg if (rng.random() < 0.6 or not op.output_arg) else op.output_arg


def _mutate(op: op_def_pb2.OpDef, rng: random.Random) -> str:
    """Apply one random change to `op` (in place); returns what it did."""
    kind = rng.choice([
        "remove_attr", "retype_attr", "narrow_allowed", "widen_allowed", "drop_allowed", "add_allowed",
        "raise_min", "lower_min", "drop_min", "add_min", "add_attr", "add_attr_nodefault", "change_default",
        "remove_default", "add_default", "rename_arg", "add_input", "remove_arg", "add_output", "retype_arg",
        "toggle_ref", "to_number_attr", "to_type_attr", "add_list_input", "toggle_flag", "reorder_attrs",
    ])
    attrs = list(op.attr)
    attr = rng.choice(attrs) if attrs else None
    if kind == "remove_attr" and attr:
        op.attr.remove(attr)
    elif kind == "retype_attr" and attr:
        attr.type = rng.choice([t for t in ATTR_TYPES if t != attr.type])
    elif kind in ("narrow_allowed", "widen_allowed", "drop_allowed", "add_allowed") and attr:
        if kind == "drop_allowed":
            attr.ClearField("allowed_values")
        elif kind == "add_allowed":
            attr.allowed_values.list.type.extend(rng.sample(DTYPES, 2))
        elif kind == "narrow_allowed" and len(attr.allowed_values.list.type) > 1:
            del attr.allowed_values.list.type[rng.randrange(len(attr.allowed_values.list.type))]
        elif kind == "narrow_allowed" and len(attr.allowed_values.list.s) > 1:
            del attr.allowed_values.list.s[0]
        elif kind == "widen_allowed":
            if attr.allowed_values.list.s:
                attr.allowed_values.list.s.append(b"EXTRA")
            else:
                attr.allowed_values.list.type.append(rng.choice(DTYPES))
    elif kind in ("raise_min", "lower_min", "drop_min", "add_min") and attr:
        if kind == "drop_min":
            attr.has_minimum = False
            attr.minimum = 0
        else:
            attr.has_minimum = True
            attr.minimum = max(-1, attr.minimum + {"raise_min": 1, "lower_min": -1, "add_min": 0}[kind])
    elif kind in ("add_attr", "add_attr_nodefault"):
        t = rng.choice(ATTR_TYPES)
        new = op.attr.add(name=f"new_{rng.randrange(1000)}", type=t)
        if kind == "add_attr":
            new.default_value.CopyFrom(_default_for(t, rng))
    elif kind == "change_default" and attr:
        attr.default_value.CopyFrom(_default_for(attr.type, rng))
    elif kind == "remove_default" and attr:
        attr.ClearField("default_value")
    elif kind == "add_default" and attr and not attr.HasField("default_value"):
        attr.default_value.CopyFrom(_default_for(attr.type, rng))
    elif kind == "rename_arg":
        args = _args(op, rng)
        if args:
            rng.choice(args).name += "_renamed"
    elif kind == "add_input":
        op.input_arg.add(name="extra_in", type=rng.choice(DTYPES))
    elif kind == "add_output":
        op.output_arg.add(name="extra_out", type=rng.choice(DTYPES))
    elif kind == "remove_arg":
        args = _args(op, rng)
        if args:
            args.remove(rng.choice(args))
    elif kind == "retype_arg":
        args = [a for a in _args(op, rng) if a.type]
        if args:
            rng.choice(args).type = rng.choice(DTYPES)
    elif kind == "toggle_ref":
        args = _args(op, rng)
        if args:
            arg = rng.choice(args)
            arg.is_ref = not arg.is_ref
    elif kind == "to_number_attr":
        args = [a for a in op.input_arg if not a.number_attr and not a.type_list_attr]
        if args:
            rng.choice(args).number_attr = "NewN"
            op.attr.add(name="NewN", type="int", has_minimum=True, minimum=0).default_value.i = rng.randint(0, 2)
    elif kind == "to_type_attr":
        args = [a for a in op.input_arg if a.type]
        if args:
            arg = rng.choice(args)
            new = op.attr.add(name="NewT", type="type")
            new.default_value.type = rng.choice([arg.type, rng.choice(DTYPES)])
            arg.ClearField("type")
            arg.type_attr = "NewT"
    elif kind == "add_list_input":
        op.input_arg.add(name="extra_list", type_list_attr="NewL")
        new = op.attr.add(name="NewL", type="list(type)")
        new.default_value.list.type.extend(rng.sample(DTYPES, rng.randint(0, 2)))
        new.default_value.list.SetInParent()
    elif kind == "toggle_flag":
        op.is_stateful = not op.is_stateful
    elif kind == "reorder_attrs" and len(attrs) > 1:
        rng.shuffle(attrs)
        copies = [op_def_pb2.OpDef.AttrDef.FromString(a.SerializeToString()) for a in attrs]
        del op.attr[:]
        op.attr.extend(copies)
    return kind


def _pairs(tf_ops, n: int, seed: int = 20260221):
    rng = random.Random(seed)
    candidates = [op for op in tf_ops.op if not op.name.startswith("_")]
    pairs = []
    while len(pairs) < n:
        old = strip_docs(rng.choice(candidates))
        new = op_def_pb2.OpDef.FromString(old.SerializeToString())
        kinds = [_mutate(new, rng) for _ in range(rng.choice([0, 1, 1, 1, 2, 3]))]
        if rng.random() < 0.3:
            old, new = new, old  # the reverse direction exercises removals as additions
        pairs.append((old, new, kinds))
    return pairs


@pytest.fixture(scope="module")
def oracle():
    from oracle.harness import get_oracle

    return get_oracle()


@pytest.fixture(scope="module")
def pairs():
    from oracle.tf_registry import tf_op_list

    return _pairs(tf_op_list(), PAIRS)


def test_random_pairs_match_tf(oracle, pairs):
    mismatches = []
    verdicts = {"compatible": 0, "incompatible": 0, "defaults": 0}
    rules_seen: set[str] = set()
    for old, new, kinds in pairs:
        want_compat, want_defaults = oracle.compat(old, new)
        got_compat, got_defaults = op_def_compatible(old, new), attr_defaults_unchanged(old, new)
        verdicts["incompatible" if want_compat else "compatible"] += 1
        verdicts["defaults"] += want_defaults is not None
        issues = graph_issues(old, new)
        rules_seen.update(i.rule for i in issues)
        # the report's verdict (any graph issue = breaking) is TF's verdict
        breaking = bool(issues)
        if (got_compat, got_defaults, breaking) != (want_compat, want_defaults, bool(want_compat or want_defaults)):
            mismatches.append((old.name, kinds, want_compat, got_compat, want_defaults, got_defaults))
    assert not mismatches, mismatches[:5]
    # the corpus exercises both verdicts, the defaults check and every rule, not just one outcome
    assert verdicts["compatible"] >= 100 and verdicts["incompatible"] >= 100 and verdicts["defaults"] >= 10, verdicts
    assert rules_seen >= {
        "attr_removed", "attr_type_changed", "allowed_values_narrowed", "minimum_raised",
        "attr_added_without_default", "input_signature_changed", "input_became_ref",
        "output_signature_changed", "output_lost_ref", "default_removed", "default_changed",
    }, rules_seen


def test_long_lists_and_name_mismatch_match_tf(oracle):
    """Summaries of >= 30-item lists (elided with a fingerprint) and the name check."""
    old = op_def_pb2.OpDef(name="Foo")
    old.attr.add(name="L", type="list(int)").default_value.list.i.extend(range(40))
    old.attr.add(name="T", type="type").allowed_values.list.type.extend([1, 2, 3, 9, 10, 7, 19, 14] * 4)
    for new in (op_def_pb2.OpDef(name="Foo"), op_def_pb2.OpDef(name="Bar")):
        new.attr.add(name="L", type="list(int)")
        new.attr.add(name="T", type="type").allowed_values.list.type.append(1)
        assert (op_def_compatible(old, new), attr_defaults_unchanged(old, new)) == oracle.compat(old, new)


def test_scenario_corpus_graph_verdicts_match_tf(oracle, monkeypatch):
    """Every op pair of the golden scenario corpus gets TF's verdict and message."""

    from support.apidiff_cases import FILE_SCENARIOS, SCENARIOS, scenario_side

    from opgen.apidiff.inputs import load_side
    from opgen.config import Config

    corpus = TESTS / "golden" / "apidiff"
    checked = 0
    for folder in (corpus / s for s in SCENARIOS + FILE_SCENARIOS):
        monkeypatch.chdir(folder)
        config = Config(root=folder)
        old, new = (load_side(scenario_side(folder, side), config) for side in ("old", "new"))
        for name in sorted(set(old.ops) & set(new.ops)):
            a, b = old.ops[name].op_def, new.ops[name].op_def
            assert (op_def_compatible(a, b), attr_defaults_unchanged(a, b)) == oracle.compat(a, b), folder.name
            checked += 1
    assert checked >= 40


def test_json_snapshot_is_lossless_on_tf_registry(tmp_path):
    """Every graph fact of TF's own ops survives the JSON snapshot (what `opgen diff` reads back)."""
    from oracle.tf_registry import tf_op_list

    from opgen.apidiff.snapshot_build import build_snapshot
    from opgen.apidiff.snapshot_format import from_json, to_json
    from opgen.config import Config
    from opgen.model import GatherResult
    from opgen.overrides.apidef import default_api_model

    ops = op_def_pb2.OpList()
    ops.op.extend(op for op in tf_op_list().op if not op.name.startswith("_"))
    snapshot = build_snapshot(GatherResult(ops), default_api_model(ops), Config(root=tmp_path))
    text = to_json(snapshot)
    again = from_json(text, "tf.json")
    assert to_json(again) == text
    assert all(again.ops[name].op_def == strip_docs(op) for name, op in ((o.name, o) for o in ops.op))
