"""`opgen oplist --from-library` and `--from-tensorflow` where TensorFlow is not installed."""

from __future__ import annotations

import sys
import types


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


def test_from_library_of_a_missing_file_is_a_located_error(tmp_path, monkeypatch, capsys):
    """The runtime's OpLibraryError becomes a located error (the file is checked before
    TensorFlow is used, so a stand-in module is enough)."""
    from opgen.cli import main

    monkeypatch.setitem(sys.modules, "tensorflow", types.ModuleType("tensorflow"))
    missing = tmp_path / "missing.so"
    assert main(["oplist", "--from-library", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"{missing}: error: op library {missing} does not exist" in err
    assert "hint: pass the path of a compiled .so" in err
    assert "Traceback" not in err and "internal error" not in err


def test_from_tensorflow_without_tensorflow_is_a_clear_error(tmp_path, monkeypatch, capsys):
    from opgen.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "tensorflow", None)  # `import tensorflow` raises ImportError
    assert main(["oplist", "--from-tensorflow", "-o", "tf.pbtxt"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("opgen: error: --from-tensorflow needs TensorFlow to read its registry, and it is not "
                          "installed\n  hint: pip install tensorflow-cpu, or give OpList files or REGISTER_OP "
                          "sources instead")
    assert not (tmp_path / "tf.pbtxt").exists()
