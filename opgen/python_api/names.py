"""Python names for ops, arguments and attrs, as TF's python_op_gen derives them
(`python_op_gen_internal.cc` GenerateLowerCaseOpName, IsPythonReserved, AvoidPythonReserved,
IsOpWithUnderscorePrefix; `python_op_gen.cc` GetPythonOpsImpl).

Pure helpers shared by override validation (`opgen.overrides.load`, which rejects renames that
collide) and rendering, so both agree on every name; started as `opgen/render/naming.py`
and moved here because `overrides` may not import `render`.

One deliberate difference: `async`, `await` and `nonlocal` (Python 3 keywords TF's list
forgot) are reserved too, so no op or argument name can produce a syntax error.
"""

from __future__ import annotations

import functools
import keyword
import re
import sys

# TF's PY_RESERVED list (Python-2 keywords and capitalised builtins), plus the three
# Python-3 keywords TF's IsPythonReserved lacks.
PY_RESERVED: frozenset[str] = frozenset(
    """
    and as assert break class continue def del elif else except exec finally for from
    global if import in is lambda not or pass print raise return try while with yield
    ArithmeticError AssertionError AttributeError BaseException BufferError BytesWarning
    DeprecationWarning EOFError Ellipsis EnvironmentError Exception False
    FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning
    IndentationError IndexError KeyError KeyboardInterrupt LookupError MemoryError
    NameError None NotImplemented NotImplementedError OSError OverflowError
    PendingDeprecationWarning ReferenceError RuntimeError RuntimeWarning StandardError
    StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError True TypeError
    UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError
    UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError
    __debug__ __doc__ __import__ __name__ __package__
    async await nonlocal
    """.split()
)
assert set(keyword.kwlist) <= PY_RESERVED, "a Python keyword is missing from PY_RESERVED"

# Lowercase builtins that ApiDef-hidden ops still prefix with `_` (TF's IsOpWithUnderscorePrefix).
UNDERSCORE_SET: frozenset[str] = frozenset(
    """
    abs all any apply bin bool buffer bytearray bytes callable chr classmethod cmp coerce
    compile complex copyright credits delattr dict dir divmod enumerate eval execfile exit
    file filter float format frozenset getattr globals hasattr hash help hex id input int
    intern isinstance issubclass iter len license list locals long map max memoryview min
    next object oct open ord pow print property quit range raw_input reduce reload repr
    reversed set setattr slice sorted staticmethod str sum super tuple type unichr unicode
    vars xrange zip fused_batch_norm histogram_fixed_width stack
    batch_norm_with_global_normalization clip_by_value
    """.split()
)

# Names the generated module itself binds at top level; a function or alias named like one
# would shadow it (checked by the emitter).
MODULE_GLOBALS: frozenset[str] = frozenset(
    {"collections", "TYPE_CHECKING", "Annotated", "Any", "List", "Literal", "NamedTuple", "TypeVar", "_api_types",
     "_atypes", "_dtypes", "_execute", "_op_def_library", "_registry", "_dispatch", "_require_runtime", "__all__",
     "_OP_DEFS"}
)


# Builtins a generated wrapper's body may call (`isinstance(x, (list, tuple))`, `len(x)`,
# `float("nan")` defaults, `raise TypeError/ValueError`, TF's dispatch: `NotImplemented`,
# `except (TypeError, ValueError)`, `locals()`): a function named like one would
# shadow it in every body of its module, so it gets a trailing `_` like a reserved name
# (a parameter only when its own body calls the builtin: `opgen.python_api.function`).
BODY_BUILTINS: frozenset[str] = frozenset(
    {"isinstance", "list", "tuple", "len", "float", "TypeError", "ValueError", "NotImplemented", "locals"}
)
# Builtins the wrappers' annotations name (attr types, `name: str | None`, `list[Tensor]`
# results): a type checker, and `typing.get_type_hints` evaluating the annotations in the
# module's globals, would read a function named like one in their place.
ANNOTATION_BUILTINS: frozenset[str] = frozenset({"int", "float", "bool", "str", "list"})

_ASCII_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Top-level packages the generated code and opgen's runtime import (`opgen`, `opgen_runtime`, protobuf's
# `google`, `numpy`, `ml_dtypes`), TensorFlow itself and the import names of the packages
# tensorflow-cpu 2.21 requires (its wheel's METADATA `Requires-Dist`): a module named like one
# of them (a generated `google.py` next to the caller) would be imported in its place.
_RUNTIME_PACKAGES = frozenset({
    "opgen", "opgen_runtime", "google", "numpy", "ml_dtypes", "tensorflow", "tensorboard", "keras", "tf_keras", "absl",
    "astunparse", "flatbuffers", "gast", "pasta", "clang", "opt_einsum", "packaging", "requests", "setuptools",
    "pkg_resources", "six", "termcolor", "typing_extensions", "wrapt", "grpc", "h5py",
})
# Module names a generated module may not take: those, a standard-library module, or a
# package's special file.
_TAKEN_MODULE_NAMES: frozenset[str] = frozenset({*_RUNTIME_PACKAGES, *sys.stdlib_module_names})


@functools.lru_cache(maxsize=8192)  # every op asks about the same few names (x, T, name, ...)
def identifier_problem(name: str) -> str | None:
    """Why `name` cannot appear as a name in generated Python; None if it can.

    The one identifier policy for every name that reaches generated code (functions,
    aliases, parameters, keywords, namedtuple fields and type names, TypeVars): ASCII
    only, so names that differ in source never become equal under Python's NFKC
    normalisation of identifiers (`ｆoo` is `foo`, `__ｄｅｂｕｇ__` is `__debug__`).
    """  # noqa: RUF002 - look-alike letters are the point
    if not _ASCII_IDENTIFIER.match(name):
        if name.isidentifier():
            return "is not an ASCII identifier (Python would NFKC-normalise it)"
        return "is not a Python identifier"
    if keyword.iskeyword(name) or name == "__debug__":
        return "is a Python keyword"
    return None


def module_name_problem(name: str) -> str | None:
    """Why `name` cannot be a generated module's name; None if it can."""
    problem = identifier_problem(name)
    if problem:
        return problem
    if name in _TAKEN_MODULE_NAMES:
        return ("would shadow the package of that name (opgen, a package opgen's runtime or TensorFlow imports, "
                "or the standard library)")
    if name.startswith("__") and name.endswith("__"):
        return "is a special (dunder) name"
    return None


# Where TF's GenerateLowerCaseOpName inserts `_`: before an uppercase letter that follows a
# lowercase one, or that a lowercase one follows (not right after a `>`, which becomes `_`).
_WORD_START = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[^>])(?=[A-Z][a-z])")
# ASCII letters only: TF's `ToLower` leaves every other byte as it is.
_LOWER_CASE = str.maketrans({**{chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)}, ">": "_"})


@functools.lru_cache(maxsize=8192)  # asked for each op's function name and again for its aliases
def lower_case_op_name(name: str) -> str:
    """TF's GenerateLowerCaseOpName (`python_op_gen_internal.cc`): `MatMul` -> `mat_mul`, `NS>Op` -> `ns_op`."""
    return _WORD_START.sub("_", name).translate(_LOWER_CASE)


def is_reserved(name: str) -> bool:
    return name in PY_RESERVED


@functools.lru_cache(maxsize=8192)  # every op asks about the same few names (x, T, name, ...)
def avoid_reserved(name: str) -> str:
    """TF's AvoidPythonReserved: `>` -> `_`, then a trailing `_` for reserved names."""
    name = name.replace(">", "_")
    return name + "_" if name in PY_RESERVED else name


def function_name(base: str, *, hidden: bool, hidden_by_api_def: bool) -> str | None:
    """The wrapper's name (`python_op_gen.cc` GetPythonOpsImpl) from `base` = lower_case_op_name(endpoint);
    None = not generated.

    A visible op whose name is reserved is silently skipped, exactly as TF does.
    """
    reserved = base in PY_RESERVED
    if hidden:
        if not hidden_by_api_def or reserved or base in UNDERSCORE_SET:
            return "_" + base
        return base
    if reserved:
        return None
    return avoid_shadowing_builtins(base)


def avoid_shadowing_builtins(name: str) -> str:
    """A trailing `_` for a module-level name that would shadow a builtin the wrapper bodies
    (`BODY_BUILTINS`) or annotations (`ANNOTATION_BUILTINS`) use."""
    return name + "_" if name in BODY_BUILTINS or name in ANNOTATION_BUILTINS else name


def endpoint_base_name(endpoint: str) -> str:
    """`base` for `function_name` from an ApiDef endpoint: its last dotted component, lowercased.

    TF keeps dotted endpoints (`math.abs`) for `tf_export`; a module-level function can only
    take the last component.
    """
    return lower_case_op_name(endpoint.rsplit(".", 1)[-1])
