"""Op libraries of generated modules, registered with TensorFlow as soon as TF could need them.

A module generated with a library (`[tool.opgen] library`, `[tool.opgen.libraries]`) names
the compiled `.so` that registers its ops and kernels. TensorFlow needs those ops before
any of the module's wrappers runs: `tf.saved_model.load` or a `tf.data` pipeline may use
them in a fresh process whose code never calls a wrapper. So the library is registered

1. when the module is imported, if TensorFlow is imported already;
2. else right after TensorFlow is imported (`import_hooks`);
3. on the first op that runs on TensorFlow, for every library still pending;
4. by `load_op_libraries()`, which raises errors where the program chooses.

Failures are per library: one library's error must not stop the modules of other libraries
(another package's, or another module of the same package) from importing and running. In
1-3 an error is warned (`OpLibraryWarning`: an import cannot fail because of a library, nor
can `import tensorflow`) and remembered for that module's ops: each of them raises it as an
`OpLibraryError` when it runs on TensorFlow (`check_op`, and the eager fast path guarded by
`execute.guard_fast_path`). The failed library is not tried again per call (a `stat` or
`dlopen` per op); `load_op_libraries()` tries it again and raises.

Registering never loads a library whose ops TF has already (the same `.so` loaded by
another module, a copy of it, or the user's `tf.load_op_library`): a second copy of a
library registers its kernels twice, and TF then fails every call with `Multiple OpKernel
registrations match NodeDef at the same priority` (`kernel_registry` lookup in
`tensorflow/core/framework/op_kernel.cc` FindKernelRegistration).

Stale libraries: once the ops are registered, each OpDef TensorFlow holds (the library's)
is compared with the module's own (`_OP_DEFS`, what the wrappers were generated from),
documentation aside, by TF's graph-compatibility rules with the module as the old side
(`opgen_runtime.proto.op_def_compat`; TF's `OpDefCompatible` and `OpDefAttrDefaultsUnchanged` in
`op_def_util.cc`). A change those rules reject is an `OpLibraryError`; so is an input
renamed (TF accepts it, since graphs bind inputs by position, but the wrappers pass inputs
by name to `_apply_op_helper`), and so is an op the library lacks. Such an error is the
stale op's alone: the library stays registered, and the module's other ops, whose OpDefs
match, run (one op edited without rebuilding the `.so` must not stop the rest of a
package). Every other difference is an `OpLibraryWarning`. docs/custom-ops.md lists them.
"""

from __future__ import annotations

import os
import struct
import sys
import threading
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from opgen_runtime.proto import op_def_pb2
from opgen_runtime.proto.datatypes import python_name

from ..ops import registry as _registry
from . import import_hooks as _import_hooks


class OpLibraryError(RuntimeError):
    """A generated module's op library is missing, cannot be loaded, or does not match the module."""

    # Exception's own: AutoGraph re-raises an error from `tf.function` code as its own type only
    # when that type's __init__ is Exception's (`error_utils.create_exception`), else as StagingError.
    __init__ = Exception.__init__


class OpLibraryWarning(UserWarning):
    """An op library differs compatibly from its module, or could not be registered (its
    ops raise the error when they run)."""


_lock = threading.RLock()  # re-entrant: registering may import TF, whose hook registers too
_hook_installed = False
_loaded_paths: set[str] = set()  # real paths of the libraries this process loaded
_caller = threading.local()  # imports_tensorflow: this thread's `load_op_libraries` imports TF
# module name -> (its `library`, the error registering it raised, the ops that raise it: None for
# all, else each stale op's own part of it), until a registration succeeds
failed_libraries: dict[str, tuple[str, str, dict[str, str] | None]] = {}
registered_ops: set[str] = set()  # the ops of every module whose library registered
# op name -> the error its calls raise: the ops of failed libraries that no registered module has
# (two packages may ship the same ops; one package's copy failing leaves the other's working)
failed_ops: dict[str, str] = {}


def module_registered(module_name: str) -> None:
    """Called by `registry.register_op_list` for a module with a library, at its import."""
    global _hook_installed
    if _import_hooks.imported("tensorflow") is not None:
        # stacklevel 4: past this function and `register_op_list` to the module's import
        # (warnings skips importlib's frames), i.e. the `import` statement of the program
        register_pending((module_name,), stacklevel=4)
        return
    with _lock:
        if _hook_installed:
            return
        _hook_installed = True
    _import_hooks.call_when_imported("tensorflow", _register_when_tensorflow_imported)


_registry.library_registered = module_registered


def _register_when_tensorflow_imported(_tensorflow: ModuleType) -> None:
    global _hook_installed
    with _lock:
        _hook_installed = False
        if getattr(_caller, "imports_tensorflow", False):
            return  # `load_op_libraries` imports TF, and registers (raising, not warning) next
    # stacklevel 3: past the hook's loader (warnings skips importlib's frames) to `import tensorflow`
    register_pending(stacklevel=3)


def register_pending(modules: tuple[str, ...] = (), *, stacklevel: int) -> None:
    """Registers the libraries of `modules` (default: every pending one), each on its own:
    a failure is warned and remembered for that module's ops (`check_op`), never raised.

    `stacklevel` is where the warnings point, counted from the caller (1) outwards."""
    with _lock:
        for module_name in modules or list(_registry.pending_libraries):
            if module_name not in _registry.pending_libraries:
                continue
            error = _try_register(module_name, stacklevel + 2)
            if error is not None:
                stale = failed_libraries[module_name][2]
                if stale is None or len(stale) == len(_registry.op_defs_of(module_name)):
                    who = "its ops raise this error when they run on TensorFlow; the ops of other libraries are"
                else:  # (each its own part of the error)
                    names = ", ".join(sorted(stale))
                    who = (f"op {names} raises it when it runs" if len(stale) == 1 else
                           f"ops {names} raise it when they run") + (" on TensorFlow; the module's other ops, and "
                                                                     "those of other libraries, are")
                warnings.warn(f"{error} ({who} not affected)", OpLibraryWarning, stacklevel=stacklevel + 1)


def load_op_libraries(*modules: ModuleType | str) -> None:
    """Registers with TensorFlow the ops of generated modules that have an op library.

    `modules` (module objects or names) default to every imported generated module whose
    library is not registered yet, or failed. Imports TensorFlow. Normally not needed
    (modules register their library at import, or when TF is imported; a library that
    fails there is warned, and its ops raise the error when they run); call it to get an
    `OpLibraryError` where you choose, e.g. before `tf.saved_model.load` in a fresh
    process. Every library is tried, and the error names each that failed. A library
    whose ops TF already has is not loaded again: its ops are compared with the module's.
    """
    from .bridge import tensorflow

    _caller.imports_tensorflow = True
    try:
        tensorflow()
    finally:
        _caller.imports_tensorflow = False
    names = [m if isinstance(m, str) else m.__name__ for m in modules]
    errors = []
    with _lock:
        for module_name in names or [*_registry.pending_libraries, *failed_libraries]:
            if module_name in _registry.pending_libraries or module_name in failed_libraries:
                error = _try_register(module_name, stacklevel=3)
                if error is not None:
                    errors.append(error)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise OpLibraryError(f"{len(errors)} op libraries cannot be registered:\n" +
                             "\n".join(f"- {e}" for e in errors))


def check_op(op_name: str) -> None:
    """Raises the error of the op's library if it failed (called while `failed_ops` is not empty)."""
    message = failed_ops.get(op_name)
    if message is not None:
        raise OpLibraryError(message)  # a new exception per call: a reraised one would grow its traceback


def _try_register(module_name: str, stacklevel: int) -> OpLibraryError | None:
    """Registers one module's library (pending, or failed before); returns its error, which
    its ops raise from then on. Leaves the module pending no more either way. `stacklevel`:
    of a compatible-difference warning, counted from this function's caller's caller (1)."""
    pending = _registry.pending_libraries.get(module_name)
    library = pending if pending is not None else failed_libraries[module_name][0]
    try:
        stale = _register(module_name, library, stacklevel + 1)
    except OpLibraryError as e:
        failed_libraries[module_name] = (library, str(e), None)
        error: OpLibraryError | None = e
    else:
        registered_ops.update(name for name in _registry.op_defs_of(module_name) if name not in stale)
        error = OpLibraryError(_stale_message(stale)) if stale else None
        if error is not None:
            failed_libraries[module_name] = (library, str(error), {name: _stale_message({name: parts})
                                                                   for name, parts in stale.items()})
        else:
            failed_libraries.pop(module_name, None)
    _index_failures()
    # Last: other threads check `pending_libraries` without the lock, then run the op (or raise its error).
    _registry.pending_libraries.pop(module_name, None)
    return error


# Told `check_op` while some library has failed, else None: `execute.guard_fast_path`, added
# by `execute` at its import (it imports this module, never the other way: no import cycle).
fast_path_guards: list[Callable[[Callable[[str], None] | None], None]] = []


def _index_failures() -> None:
    """`failed_ops` from `failed_libraries`, and the eager fast path guarded while there are any."""
    failed = {
        name: message if stale is None else stale[name]
        for module_name, (_, message, stale) in failed_libraries.items()
        for name in (_registry.op_defs_of(module_name) if stale is None else stale)
        if name not in registered_ops
    }
    if failed != failed_ops:
        # Updated in place, new entries first: other threads read it without the lock.
        failed_ops.update(failed)
        for name in set(failed_ops) - set(failed):
            del failed_ops[name]
        for guard_fast_path in fast_path_guards:
            guard_fast_path(check_op if failed_ops else None)


# The setting a module's library comes from: `library`, or its entry of `libraries`.
_FIX_LIBRARY = ("fix `library` (or the module's entry of [tool.opgen.libraries]) in [tool.opgen], or "
                "`opgen build --library`, and regenerate")


def _register(module_name: str, library: str, stacklevel: int) -> dict[str, StaleOp]:
    """Loads the module's library unless TF has its ops, then checks them: raises an
    OpLibraryError when none of its ops can run; else returns the stale ops (`StaleOp`), which
    must not run, and warns of the compatible differences."""
    from .bridge import tensorflow

    tf = tensorflow()
    path = resolve_library(module_name, library)
    module_ops = _registry.op_defs_of(module_name)
    listed = ", ".join(sorted(module_ops)) or "none"
    registered = _registered_op_defs(tf, module_ops)
    loaded_here = os.path.realpath(path) in _loaded_paths
    if len(registered) < len(module_ops) and not loaded_here:
        if registered:
            raise OpLibraryError(
                f"TensorFlow already has ops {', '.join(sorted(registered))} of module '{module_name}' but not "
                f"{', '.join(sorted(set(module_ops) - set(registered)))}: another library registered them, and "
                f"loading op library {path} as well would register their kernels twice; load that library's "
                f"module instead, or give these ops their own module"
            )
        if not os.path.isfile(path):
            raise OpLibraryError(
                f"op library {path} of module '{module_name}' does not exist, so its ops ({listed}) cannot run "
                f"on TensorFlow; if this package was installed, its installation lacks the library: reinstall it (or "
                f"tell its authors the package ships no {os.path.basename(path)}); if you build it, build the "
                f"library, or {_FIX_LIBRARY}"
            )
        try:
            # `tf.load_library` registers the ops and kernels (TF_LoadLibrary) and nothing else;
            # `tf.load_op_library` would also exec TF's generated wrappers of the library, which
            # do not compile for names that are Python keywords (an attr `lambda`, an output
            # `is`) and would fail the whole library for ops whose wrappers here are fine.
            tf.tf.load_library(path)
        except Exception as e:  # noqa: BLE001 - TF raises NotFoundError and friends
            message = getattr(e, "message", None) or str(e)
            raise OpLibraryError(
                f"TensorFlow cannot load op library {path} of module '{module_name}' (ops {listed}): {message}"
            ) from None
        _loaded_paths.add(os.path.realpath(path))
        loaded_here = True
        registered = _registered_op_defs(tf, module_ops)
    source = (f"op library {path} of module '{module_name}'" if loaded_here else
              f"the ops of module '{module_name}' that TensorFlow already has (from another module or "
              f"tf.load_op_library; {path} is not loaded again)")
    stale = {name: StaleOp(source, loaded_here, missing=True) for name in sorted(set(module_ops) - set(registered))}
    errors, notes = _compare({name: module_ops[name] for name in registered}, registered)
    for name, op_errors in errors.items():
        # with the op's compatible differences too: the rebuild that fixes the errors removes them
        stale[name] = StaleOp(source, loaded_here, errors=tuple(op_errors), notes=tuple(notes.pop(name, ())))
    notes_text = [note for op_notes in notes.values() for note in op_notes]
    if notes_text:
        warnings.warn(f"{source} {'differs' if loaded_here else 'differ'} compatibly from the module: "
                      f"{'; '.join(notes_text)}; rebuild the library or the wrappers to make them equal",
                      OpLibraryWarning, stacklevel=stacklevel)
    return stale


class StaleOp(NamedTuple):
    """How one op of a module differs from the op TensorFlow registered from its library so
    that its wrapper must not run it: the library lacks it (`missing`), or `errors` (with its
    compatible differences, `notes`); `source` names the library as the messages say it."""

    source: str
    loaded_here: bool
    missing: bool = False
    errors: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _stale_message(stale: dict[str, StaleOp]) -> str:
    """The error of the stale ops `stale` (all of one module's library, in op-name order)."""
    first = next(iter(stale.values()))
    source, here = first.source, first.loaded_here
    missing = [name for name, op in stale.items() if op.missing]
    errors = [error for op in stale.values() for error in op.errors]
    notes = [note for op in stale.values() for note in op.notes]
    said = []
    if missing:
        said.append(f"{'registers' if here else 'include'} no op {', '.join(missing)}")
    if errors:
        also = f"; also, compatibly: {'; '.join(notes)}" if notes else ""
        said.append(f"{'does' if here else 'do'} not match the module: {'; '.join(errors)}{also}")
    fix = f", or, if another library registers them, {_FIX_LIBRARY}" if missing else ""
    return f"{source} {('; and it ' if here else '; and they ').join(said)}; rebuild the library or the wrappers{fix}"


def _registered_op_defs(tf: Any, module_ops: dict[str, op_def_pb2.OpDef]) -> dict[str, op_def_pb2.OpDef]:
    """The OpDefs TensorFlow has registered under the module's op names (TF's `op_def_registry`)."""
    found = {}
    for name in module_ops:
        op_def = tf.op_def_registry.get(name)
        if op_def is not None:
            found[name] = op_def_pb2.OpDef.FromString(op_def.SerializeToString())
    return found


def resolve_library(module_name: str, library: str) -> str:
    """`library` as written in [tool.opgen]: `package:resource`, else a path from the module's folder."""
    if ":" in library and not os.path.isabs(library):
        from importlib import resources

        package, _, resource = library.partition(":")
        try:
            return str(resources.files(package).joinpath(resource))
        except (ImportError, TypeError) as e:  # TypeError: a module that is no package
            raise OpLibraryError(
                f"op library {library!r} of module '{module_name}' names package '{package}', which cannot be "
                f"imported as a package ({e}); install it, or {_FIX_LIBRARY}"
            ) from None
    if os.path.isabs(library):
        return library
    module_file = getattr(sys.modules.get(module_name), "__file__", None)
    base = os.path.dirname(os.path.abspath(module_file)) if module_file else os.getcwd()
    return os.path.normpath(os.path.join(base, library))


# ---------------------------------------------------------------------------- stale check


def _compare(
    module_ops: dict[str, op_def_pb2.OpDef], registered: dict[str, op_def_pb2.OpDef]
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(errors, notes) by op name, in op-name order: how each op TensorFlow has differs from
    the module's, `op X: detail`."""
    from opgen_runtime.proto.op_def_compat import (
        accepted_changes,
        breaking_changes,
        without_restatements,
    )

    errors: dict[str, list[str]] = {}
    notes: dict[str, list[str]] = {}
    for name in sorted(module_ops):
        ours, theirs = _registry.without_docs(module_ops[name]), _registry.without_docs(registered[name])
        if ours.SerializeToString(deterministic=True) == theirs.SerializeToString(deterministic=True):
            continue
        breaking = without_restatements(breaking_changes(ours, theirs))
        # every difference, so one fix does not reveal the next; an arg list's accepted change
        # is left out where a breaking change of that list says it already
        broken = tuple(kind for kind in ("input", "output") if any(rule.startswith(kind) for rule, _ in breaking))
        accepted = [(rule, subject) for rule, subject in accepted_changes(ours, theirs)
                    if not rule.startswith(broken)]
        op_errors = [f"op {name}: {_detail(rule, subject, ours, theirs)}" for rule, subject in breaking]
        op_errors += [f"op {name}: {_detail(rule, subject, ours, theirs)}" for rule, subject in accepted
                      if rule == "inputs_renamed"]
        op_notes = [f"op {name}: {_detail(rule, subject, ours, theirs)}" for rule, subject in accepted
                    if rule != "inputs_renamed"]
        if not breaking and not accepted:  # a field no rule looks at, e.g. an arg's full type
            op_notes.append(f"op {name}: differs in fields opgen does not compare (library: {_one_line(theirs)})")
        if op_errors:
            errors[name] = op_errors
        if op_notes:
            notes[name] = op_notes
    return errors, notes


def _detail(rule: str, subject: str, module: op_def_pb2.OpDef, library: op_def_pb2.OpDef) -> str:
    """One change of `library` against `module`, as `what: module X, library Y`."""
    from opgen_runtime.proto.op_def_compat import attr_map, describe_arg

    ours, theirs = attr_map(module).get(subject), attr_map(library).get(subject)
    if rule in ("attr_removed", "attr_added_without_default", "attr_added"):
        attr = ours or theirs
        assert attr is not None
        default = f" = {_value_text(attr.default_value)}" if attr.HasField("default_value") else ", no default"
        side = "in the module, not the library" if ours else "in the library, not the module"
        return f"attr '{subject}' ({attr.type}{default}): {side}"
    if ours is not None and theirs is not None:  # a rule about one attr both sides have
        field, text = _attr_fields()[rule]
        return f"attr '{subject}' {field}: module {text(ours)}, library {text(theirs)}"
    if rule == "flag_changed":
        mine_set, other_set = (str(getattr(side, subject)).lower() for side in (module, library))
        return f"{subject}: module {mine_set}, library {other_set}"
    if rule.startswith("input"):
        what, mine, other = "inputs", module.input_arg, library.input_arg
    elif rule.startswith("output"):
        what, mine, other = "outputs", module.output_arg, library.output_arg
    else:
        what, mine, other = {
            "control_outputs_changed": ("control outputs", module.control_output, library.control_output),
            "op_deprecated": ("deprecation", [], [_one_line(library.deprecation)]),
            "op_undeprecated": ("deprecation", [_one_line(module.deprecation)], []),
            "attrs_reordered": ("attr order", [a.name for a in module.attr], [a.name for a in library.attr]),
        }[rule]
        return f"{what}: module ({', '.join(mine)}), library ({', '.join(other)})"
    return (f"{what}: module ({', '.join(describe_arg(a) for a in mine)}), "
            f"library ({', '.join(describe_arg(a) for a in other)})")


def _attr_fields() -> dict[str, tuple[str, Callable[[op_def_pb2.OpDef.AttrDef], str]]]:
    from opgen_runtime.proto.op_def_compat import allowed_text, default_text, minimum_text

    def allowed(attr: op_def_pb2.OpDef.AttrDef) -> str:
        return allowed_text(attr, _value_text)

    def default(attr: op_def_pb2.OpDef.AttrDef) -> str:
        return default_text(attr, _value_text)

    return {
        "attr_type_changed": ("type", lambda attr: attr.type),
        "allowed_values_narrowed": ("allowed values", allowed),
        "allowed_values_widened": ("allowed values", allowed),
        "allowed_values_unrestricted": ("allowed values", allowed),
        "minimum_raised": ("minimum", minimum_text),
        "minimum_lowered": ("minimum", minimum_text),
        "default_removed": ("default", default),
        "default_changed": ("default", default),
        "default_added": ("default", default),
    }


def _value_text(value: Any) -> str:
    """An AttrValue as Python writes the value (`2.0`, `'SAME'`, `float32`, `[1, 2]`)."""
    which = value.WhichOneof("value")
    if which == "list":
        for field in ("s", "i", "f", "b", "type", "shape"):
            items = getattr(value.list, field)
            if len(items):
                return "[" + ", ".join(_scalar_text(field, v) for v in items) + "]"
        return "[]"
    if which in ("s", "i", "f", "b", "type", "shape"):
        return _scalar_text(which, getattr(value, which))
    return _one_line(value)


def _scalar_text(field: str, value: Any) -> str:
    if field == "s":
        return repr(value.decode("utf-8", "backslashreplace"))
    if field == "f":
        return _float32_text(value)
    if field == "type":
        return python_name(value)
    if field == "shape":
        return "None" if value.unknown_rank else repr([d.size if d.size >= 0 else None for d in value.dim])
    return repr(value)


def _float32_text(value: float) -> str:
    """The shortest decimal that reads back as the same float32 (AttrValue.f is one)."""
    packed = struct.pack("<f", value)
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if struct.pack("<f", float(text)) == packed:
            break
    return text if any(c in text for c in ".en") else text + ".0"  # `3.0`, not `3`; `inf`, `nan`, `1e+20`


def _one_line(message: Any) -> str:
    from google.protobuf import text_format

    # A typed local: protobuf's text_format is Any to mypy (no stubs).
    text: str = text_format.MessageToString(message, as_one_line=True)
    return text
