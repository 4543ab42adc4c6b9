"""What `opgen.setup_helpers.build_ext` runs in a child process once it has compiled a package's
op libraries: the wheel's generated modules, loaded from where the build put them, register
their libraries with TensorFlow as on a user's machine (`load_op_libraries`), so that a library
that does not load (an undefined symbol), lacks a module's ops (the module mapped to another
library) or differs from its module fails the build instead of the users' first call.

Usage: python -m opgen.library_check JSON, JSON being {"modules": [[name, file, is_package], ...],
"libraries": [path, ...] (the libraries the setup built), "packages_root": the folder the built
packages import from (a `package:resource` library is found through its package)}. Prints one JSON line: {"error": the
OpLibraryError's message or null, "modules": {name: [op names]}, "libraries": {path: [op names],
or the message of TensorFlow's failure to load it}} (the op lists only with an error: they say
which library registers the ops a module lacks). Imports TensorFlow; never imported by opgen.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys


def _load_module(name: str, file: str, is_package: bool) -> None:
    """Executes generated module `file` as module `name`, without importing its package (whose
    `__init__` may need what the build environment lacks): the runtime finds its library from
    its `__file__`, as in the installed package."""
    locations = [os.path.dirname(file)] if is_package else None
    spec = importlib.util.spec_from_file_location(name, file, submodule_search_locations=locations)
    assert spec is not None and spec.loader is not None, file
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def main(argument: str) -> dict[str, object]:
    request = json.loads(argument)
    sys.path.insert(0, request["packages_root"])
    from opgen_runtime import OpLibraryError, load_op_libraries
    from opgen_runtime.ops import registry

    names = []
    for name, file, is_package in request["modules"]:
        _load_module(name, file, is_package)
        names.append(name)
    try:
        load_op_libraries()  # every module loaded: a split module's parts each register theirs
    except OpLibraryError as e:
        from opgen.errors import OpgenError
        from opgen.spec.op_library import op_list_from_library

        libraries: dict[str, list[str] | str] = {}
        for path in request["libraries"]:
            try:  # TensorFlow loads a library once: this reads the op list of a loaded one
                libraries[path] = [op.name for op in op_list_from_library(path).op]
            except OpgenError as failed:
                libraries[path] = failed.message
        modules = {name: sorted(op for part in sys.modules if part == name or part.startswith(name + ".")
                                for op in registry.op_defs_of(part)) for name in names}
        return {"error": str(e), "modules": modules, "libraries": libraries}
    return {"error": None, "modules": {}, "libraries": {}}


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    print(json.dumps(main(sys.argv[1])))
