"""Random JSON values in every field of an API snapshot (docs/api-review.md): `opgen diff` on it exits 0
or with a located error (exit 2) — never 1 (an internal error; `--allow-breaking` keeps real
breaking changes at 0), never a traceback. The same for JSON OpLists."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import TESTS

from opgen import cli

BASE = json.loads((TESTS / "golden" / "apidiff_snapshot" / "project.json").read_text())
OPLIST = {"op": [{
    "name": "Scale",
    "input_arg": [{"name": "x", "type_attr": "T"}],
    "output_arg": [{"name": "y", "type_attr": "T"}],
    "attr": [{"name": "T", "type": "type", "allowed_values": {"list": {"type": ["DT_FLOAT"]}}},
             {"name": "factor", "type": "float", "default_value": {"f": 1.0}, "has_minimum": False}],
    "deprecation": {"version": 3, "explanation": "old"},
}]}


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every field (object key, array element) of `value`, and a new key in every object."""
    out = [path]
    if isinstance(value, dict):
        out.append((*path, "unexpected"))
        for k, v in value.items():
            out += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*path, i))
    return out


def _replaced(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replaced(value.get(head), rest, new)}
    copy = list(value)
    copy[head] = _replaced(copy[head], rest, new)
    return copy


_SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-(2**70), max_value=2**70)
            | st.floats() | st.text(max_size=12) | st.sampled_from(["any", "CPU", "DT_FLOAT", "type", "int",
                                                                    "list(type)", "i: 3", "list { }", "x",
                                                                    "is_stateful", "input x", "a.cc:3:1"]))
JSON_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6) | st.sampled_from(["name", "type", "op"]), inner,
                                             max_size=3), max_leaves=8)
# deep nesting, as a crafted file would have
DEEP = st.integers(min_value=1, max_value=400).map(lambda n: json.loads("[" * n + "]" * n))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("snapshot-hypothesis")
    (folder / "base.json").write_text(json.dumps(BASE))
    return folder


def _diff(path: Path, other: Path, fmt: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = cli.main(["diff", str(path), str(other), "--allow-breaking", "--format", fmt])
    return code, err.getvalue()


_SETTINGS = settings(max_examples=250, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_SETTINGS
@given(path=st.sampled_from(_paths(BASE)), value=JSON_VALUES | DEEP,
       fmt=st.sampled_from(["text", "md", "json", "github"]))
def test_any_value_in_any_snapshot_field(workdir, path, value, fmt):
    crafted = workdir / "crafted.json"
    crafted.write_text(json.dumps(_replaced(BASE, path, value)))  # NaN / Infinity too, as Python writes them
    code, err = _diff(crafted, workdir / "base.json", fmt)
    assert code in (0, 2), err
    if code == 2:
        assert err.startswith(f"{crafted}:") and ": error: " in err.splitlines()[0], err
        assert "Traceback" not in err and "internal error" not in err


@_SETTINGS
@given(path=st.sampled_from(_paths(OPLIST)), value=JSON_VALUES | DEEP)
def test_any_value_in_any_json_oplist_field(workdir, path, value):
    crafted = workdir / "crafted_oplist.json"
    crafted.write_text(json.dumps(_replaced(OPLIST, path, value)))
    code, err = _diff(crafted, crafted, "text")
    assert code in (0, 2), err
    if code == 2:
        assert err.startswith(f"{crafted}") and "error: " in err and "internal error" not in err, err
