"""`opgen oplist --from-library` and `--from-tensorflow`: the OpList a compiled op library
registers, or the installed TensorFlow's whole registry, read through TensorFlow (the one
generator path that needs it: a compiled library can only be asked by loading it)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from opgen.errors import Location, OpgenError, opgen_command
from opgen_runtime.proto import op_def_pb2


def op_list_from_library(path: str) -> op_def_pb2.OpList:
    """What `path` registers, as TensorFlow reads it (c_api.cc TF_LoadLibrary and
    TF_GetOpList), ops sorted by name; an error located at the library when it is missing,
    TensorFlow is not installed, or TensorFlow cannot load it."""
    # the path first: importing TensorFlow takes seconds
    if not os.path.exists(path):
        raise OpgenError(f"op library {path} does not exist", Location(path), hint="pass the path of a compiled .so")
    if not os.path.isfile(path):
        raise OpgenError(f"op library {path} is not a regular file", Location(path),
                         hint="pass the path of a compiled .so")
    c_api = _tensorflow_c_api("--from-library", "to load the op library", Location(path),
                              "give the library's REGISTER_OP sources (or an OpList file) instead")
    try:
        with _native_stderr_silenced():
            handle = c_api.TF_LoadLibrary(path)
    except Exception as e:  # noqa: BLE001 - TF raises its own NotFoundError/InvalidArgumentError types
        raise OpgenError(f"cannot load op library {path}: {getattr(e, 'message', e)}", Location(path)) from None
    try:
        data = c_api.TF_GetOpList(handle)
    finally:
        c_api.TF_DeleteLibraryHandle(handle)
    ops = op_def_pb2.OpList.FromString(data)
    return op_def_pb2.OpList(op=sorted(ops.op, key=lambda o: o.name.encode()))  # type: ignore[union-attr]


def op_list_from_tensorflow() -> op_def_pb2.OpList:
    """Every op of the installed TensorFlow's registry (c_api.cc TF_GetAllOpList: its OpDefs,
    whose docs TensorFlow keeps in ApiDef files instead), sorted by name."""
    c_api = _tensorflow_c_api("--from-tensorflow", "to read its registry", None,
                              "give OpList files or REGISTER_OP sources instead")
    buffer = c_api.TF_GetAllOpList()
    try:
        ops = op_def_pb2.OpList.FromString(c_api.TF_GetBuffer(buffer))
    finally:
        c_api.TF_DeleteBuffer(buffer)
    return op_def_pb2.OpList(op=sorted(ops.op, key=lambda o: o.name.encode()))  # type: ignore[union-attr]


def _tensorflow_c_api(option: str, why: str, where: Location | None, instead: str) -> Any:
    """TensorFlow's C API module, imported quietly; an error saying `option` needs it when
    TensorFlow is not installed."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # TF's C++ start-up logging is not opgen's output
    try:
        with _native_stderr_silenced():  # absl's and oneDNN's lines, which the level above does not stop
            import tensorflow  # noqa: F401 - first: its submodules may be imported already
    except ImportError:
        raise OpgenError(f"{option} needs TensorFlow {why}, and it is not installed", where,
                         hint=f"pip install tensorflow-cpu, or {instead}") from None
    from tensorflow.python.client import pywrap_tf_session

    return pywrap_tf_session


def op_list_from_libraries(paths: Sequence[str]) -> op_def_pb2.OpList:
    """The ops `paths` register together (`op_list_from_library` of each, each checked as an
    OpList file is), sorted by name; an op two of them register is an error at the second, and
    so is a library that registers none (what `--from-library` would print is then empty)."""
    from opgen.spec.oplist_io import check_op_list

    ops: dict[str, tuple[op_def_pb2.OpDef, str]] = {}
    for path in paths:
        op_list = op_list_from_library(path)
        if not op_list.op:
            raise OpgenError(
                f"op library {path} registers no op of its own: TensorFlow lists the ops a library registered "
                "as TF_LoadLibrary loaded it (c_api.cc TF_GetOpList), so its own libraries, which registered theirs "
                "at `import tensorflow`, give none, and so does a library without REGISTER_OP", Location(path),
                hint=f"for ops of TensorFlow's own registry: {opgen_command('oplist --from-tensorflow --allow FILE')}")
        check_op_list(op_list, path)
        for op in op_list.op:
            if op.name in ops:
                raise OpgenError(f"op {op.name} is registered by {ops[op.name][1]} and {path}", Location(path),
                                 hint="TensorFlow refuses to register an op twice: load one of the libraries")
            ops[op.name] = (op, path)
    return op_def_pb2.OpList(op=[ops[name][0] for name in sorted(ops, key=str.encode)])


@contextlib.contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """File descriptor 2 to /dev/null meanwhile: what TensorFlow's C++ writes there (absl's
    "All log messages before absl::InitializeLog()", oneDNN's notice) is not opgen's output,
    whose every unindented line starts with a location or is a summary (docs/cli.md); TF's
    errors reach opgen as exceptions."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
