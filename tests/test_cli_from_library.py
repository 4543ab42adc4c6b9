"""`opgen oplist --from-library` where TensorFlow is not installed."""

from __future__ import annotations

import sys


def test_from_library_without_tensorflow_is_a_clear_error(tmp_path, monkeypatch, capsys):
    """Not a traceback nor an internal error: what is missing and what to do, exit 2."""
    from opgen.cli import main

    library = tmp_path / "ops.so"
    library.write_bytes(b"")
    monkeypatch.setitem(sys.modules, "tensorflow", None)  # `import tensorflow` raises ImportError
    assert main(["oplist", "--from-library", str(library)]) == 2
    err = capsys.readouterr().err
    assert "--from-library needs TensorFlow" in err and "pip install tensorflow-cpu" in err
    assert "Traceback" not in err and "internal error" not in err
