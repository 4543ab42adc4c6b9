"""`opgen build --warnings-as-errors` ([tool.opgen] warnings_as_errors): a warning the build
reports fails it with exit 2 before anything is compared or written (trial26: a shape function
setting an output the op lacks was a warning only, and nothing turned it into an error for CI);
a note does not count."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.cli import main

_HEADER = '#include "tensorflow/core/framework/op.h"\n'
# sets output 1 of a one-output op: a warning (TensorFlow aborts the process running it)
_WARNS = _HEADER + ('REGISTER_OP("SetsTwo").Input("x: float").Output("y: float")\n'
                    '    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {\n'
                    '      c->set_output(1, c->input(0));\n'
                    '      return ::tensorflow::OkStatus();\n'
                    '    });\n')
# a registration an #if on an undefined macro skips: a note
_NOTES = _HEADER + ('REGISTER_OP("Plain").Output("y: float");\n'
                    '#if USE_EXTRA\nREGISTER_OP("Extra").Output("y: float");\n#endif\n')
_FAILED = "opgen: error: 1 warning treated as errors"


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "proj"
    (root / "ops").mkdir(parents=True)
    (root / "ops" / "shapes.cc").write_text(_WARNS)
    (root / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\nout = "gen"\noverrides = ""\n')
    monkeypatch.chdir(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return root


def _tree(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_a_warning_fails_the_build_and_nothing_is_written(project, capsys):
    assert main(["build", "--warnings-as-errors", "--depfile", "gen.d"]) == 2
    err = capsys.readouterr().err
    assert "ops/shapes.cc:4:21: warning: the shape function of op SetsTwo sets output 1" in err
    assert err.splitlines()[-2:] == [
        f"{_FAILED} (--warnings-as-errors): nothing written",
        "  hint: fix what the warnings above say, or run without --warnings-as-errors to build anyway",
    ]
    assert not (project / "gen").exists() and not (project / "gen.d").exists()
    # without it, the same build warns and writes
    assert main(["build", "--depfile", "gen.d"]) == 0
    err = capsys.readouterr().err
    assert "warning: the shape function of op SetsTwo" in err and "treated as errors" not in err
    assert (project / "gen" / "gen_shapes.py").is_file() and (project / "gen.d").is_file()


def test_a_rebuild_of_the_same_input_fails_alike_and_leaves_the_tree(project, capsys):
    """A rebuild whose modules come from the render cache says the same warnings, so the
    result does not depend on what was built before."""
    assert main(["build"]) == 0
    written = _tree(project / "gen")
    capsys.readouterr()
    assert main(["build", "--warnings-as-errors"]) == 2
    assert _tree(project / "gen") == written
    assert capsys.readouterr().err.splitlines()[-2].endswith("nothing written")


@pytest.mark.parametrize("review", ["--check", "--diff", "--dry-run"])
def test_review_fails_on_a_warning_before_comparing(project, capsys, review):
    assert main(["build"]) == 0
    capsys.readouterr()
    assert main(["build", review, "--warnings-as-errors"]) == 2
    said = capsys.readouterr()
    assert said.out == ""  # no file listed as stale, no diff
    assert said.err.splitlines()[-2] == f"{_FAILED} (--warnings-as-errors): nothing compared"


def test_notes_do_not_count(project, capsys):
    (project / "ops" / "shapes.cc").write_text(_NOTES)
    assert main(["build", "--warnings-as-errors"]) == 0
    err = capsys.readouterr().err
    assert "note: 'USE_EXTRA' is not defined" in err and "treated as errors" not in err


def test_config_key_and_its_command_line_opposite(project, capsys):
    (project / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\nout = "gen"\noverrides = ""\n'
                                            "warnings_as_errors = true\n")
    assert main(["build"]) == 2
    assert capsys.readouterr().err.splitlines()[-2:] == [
        f"{_FAILED} ([tool.opgen] warnings_as_errors = true at pyproject.toml:5:1): nothing written",
        "  hint: fix what the warnings above say, or pass --no-warnings-as-errors to build anyway",
    ]
    assert not (project / "gen").exists()
    assert main(["build", "--no-warnings-as-errors"]) == 0
    assert (project / "gen" / "gen_shapes.py").is_file()


def test_config_key_must_be_a_boolean(project, capsys):
    (project / "pyproject.toml").write_text('[tool.opgen]\nsources = ["ops"]\nwarnings_as_errors = "yes"\n')
    assert main(["build"]) == 2
    assert capsys.readouterr().err.startswith(
        "pyproject.toml:3:1: error: [tool.opgen] warnings_as_errors must be true or false")
