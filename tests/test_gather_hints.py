"""TF's messages, unchanged, with opgen's how-to-fix hints added."""

from __future__ import annotations

import pytest

from opgen.spec.gather import GatherErrors, gather

HEADER = '#include "tensorflow/core/framework/op.h"\n'


def _errors(tmp_path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (tmp_path / name).write_text(HEADER + text)
    with pytest.raises(GatherErrors) as e:
        gather([str(tmp_path / name) for name in files])
    return [err.format() for err in e.value.errors]


def test_duplicate_registration_says_where_the_first_is(tmp_path):
    errors = _errors(tmp_path, {"a.cc": 'REGISTER_OP("C1");\nREGISTER_OP("C1");\n', "b.cc": 'REGISTER_OP("C1");\n'})
    first = f"first registered at {tmp_path / 'a.cc'}:2:1"
    assert errors == [
        f"{tmp_path / 'a.cc'}:3:1: error: Op with name C1\n  hint: {first}; an op name can be registered once: "
        "rename one of them or delete the duplicate",
        f"{tmp_path / 'b.cc'}:2:1: error: Op with name C1\n  hint: {first}; an op name can be registered once: "
        "rename one of them or delete the duplicate",
    ]
