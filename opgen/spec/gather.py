"""Sources (C++ files, directories, globs, OpList files) -> one OpList, as TF's registry
would hold it after registering every op of those sources.

Directories contribute their `*.cc`/`*.cpp`/`*.cxx`/`*.c++`/`*.cu` translation units
(recursively); headers are read only through `#include` unless named explicitly; OpList
files are read when named (or globbed). Files are processed in sorted path order, so the
result and the errors do not depend on the order the sources were given in. Every error
of every file and op is collected and raised together as one GatherErrors.

An `#include "..."` that cannot be found is a warning (one per header, listing every file
that includes it): op libraries include dependency, sibling-project and generated headers
that define nothing their REGISTER_OP chains use. When a chain does need a name that is
not defined, its error names the missing includes as the likely cause. strict_includes
makes each missing header an error instead.
"""

from __future__ import annotations

import collections
import difflib
import fnmatch
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from opgen.errors import (
    Location,
    OpgenError,
    OpgenErrors,
    did_you_mean,
    error_summary,
    first_names,
    one_message,
    plural,
    printable_line,
    report,
)
from opgen.fsutil import LiteralPath, glob_paths
from opgen.heap import cyclic_gc_paused
from opgen.limits import read_text_file
from opgen.model import USED_IN, USED_THROUGH, BuilderCall, GatherResult, KernelRegistration, OpSource, Registration
from opgen.registry import OpRegistry, export_sorted
from opgen.shape_translate import (
    ShapeFnTemplate,
    TemplateArguments,
    Translation,
    definition_at,
    template_arguments,
    translate_lambda,
)
from opgen.spec.builder import build_op_def
from opgen.spec.chains import (
    UndefinedNameError,
    check_brackets,
    extract_registrations,
    matching_close,
    registrations_in_bodies,
    undefined_file_scope_macros,
    undefined_registration_macros,
)
from opgen.spec.cpp_lexer import KIND, TEXT, Token, token_location
from opgen.spec.cpp_namespaces import Namespaces
from opgen.spec.fix_hints import misspelt_macro
from opgen.spec.helpers import helper_table
from opgen.spec.kernels import extract_kernels, undefined_kernel_macros
from opgen.spec.oplist_io import OPLIST_SUFFIXES, load_op_list_with_lines
from opgen.spec.preprocessor import (
    BUILD_CONFIG_MACROS,
    PLATFORM_MACROS,
    ChosenDefine,
    MissingInclude,
    Preprocessor,
    SkippedRegistrations,
    project_root,
)
from opgen.spec.register_types import tf_call_defines
from opgen.spec.shape_fn_names import (
    builtin_shape_fn,
    known_shape_fns,
    shape_fn_name,
    undeclared_tf_shape_fn_warning,
    unknown_shape_fn_warning,
    unqualified,
)
from opgen.spec.shim import extract_shim_registrations, unread_registration_macros
from opgen.spec.tf_core_ops import is_tf_core_op

if TYPE_CHECKING:
    from opgen_runtime.proto import op_def_pb2

TRANSLATION_UNIT_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++", ".cu")
_GLOB_CHARS = set("*?[")


@dataclass(frozen=True)
class SourceFiles:
    cpp: list[str]  # translation units, sorted
    oplists: list[str]  # OpList files, sorted
    errors: list[OpgenError]  # sources that name nothing
    # The directories searched for translation units (of directory and glob sources), sorted:
    # a file added to or removed from one changes its mtime, which depfiles make a rebuild.
    directories: list[str] = field(default_factory=list)
    unmatched_excludes: list[str] = field(default_factory=list)  # `exclude` globs that match nothing


def _is_glob(source: str) -> bool:
    """A source (or exclude entry) with glob characters, unless `Config.source_paths` made it literal."""
    return bool(_GLOB_CHARS & set(source)) and not isinstance(source, LiteralPath)


def expand_sources(sources: Iterable[str], exclude: Iterable[str] = ()) -> SourceFiles:
    """Resolve files, directories and globs; each error names the source at fault. The
    `exclude` globs drop files of directory and glob sources (a directory they match drops
    everything below it); a file named on its own is always read, as ruff and black read one."""
    cpp: set[str] = set()
    oplists: set[str] = set()
    errors: list[OpgenError] = []
    directories: set[str] = set()
    excluded: set[str] = set()
    unmatched: list[str] = []
    for pattern in exclude:
        if _is_glob(pattern):
            matches = glob_paths(pattern)
        else:
            matches = [pattern] if os.path.lexists(pattern) else []
        excluded.update(os.path.realpath(m) for m in matches)
        if not matches:
            unmatched.append(pattern)

    def is_excluded(path: str) -> bool:
        return bool(excluded) and os.path.realpath(path) in excluded

    def add(path: str, explicit: bool) -> None:
        if path.lower().endswith(OPLIST_SUFFIXES):
            oplists.add(path)
        elif explicit or path.endswith(TRANSLATION_UNIT_SUFFIXES):
            cpp.add(path)

    def add_found(path: str, explicit: bool) -> None:  # a file of a directory or glob source
        if not is_excluded(path):
            add(path, explicit)

    for source in sources:
        if _is_glob(source):
            matches = sorted(glob_paths(source))
            if not matches:
                errors.append(OpgenError("glob matches no files", Location(source)))
            for m in matches:
                if os.path.isdir(m):
                    if not is_excluded(m):
                        _add_directory(m, add_found, directories, is_excluded)
                else:
                    add_found(_clean(m), True)
            # a file the glob would match may appear anywhere below its fixed part
            fixed = os.path.dirname(source[: min(source.index(c) for c in _GLOB_CHARS & set(source))]) or "."
            if os.path.isdir(fixed):
                _add_directory(fixed, lambda path, explicit: None, directories, is_excluded)
        elif os.path.isdir(source):
            _add_directory(source, add_found, directories, is_excluded)
        elif os.path.isfile(source):
            add(_clean(source), True)
        elif os.path.exists(source):
            errors.append(OpgenError("not a regular file or directory", Location(source)))
        else:
            errors.append(OpgenError("no such file or directory", Location(source)))
    return SourceFiles(_unique_sorted(cpp), _unique_sorted(oplists), errors, sorted(directories), unmatched)


def _add_directory(directory: str, add: Callable[[str, bool], None], walked: set[str],
                   is_excluded: Callable[[str], bool]) -> None:
    for root, dirs, files in os.walk(directory):
        walked.add(_clean(root))
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not is_excluded(os.path.join(root, d)))
        for f in files:
            if f.endswith(TRANSLATION_UNIT_SUFFIXES):
                add(_clean(os.path.join(root, f)), False)


def _unmatched_exclude_warning(pattern: str, origin: tuple[str, Location] | None) -> OpgenError:
    """An `exclude` pattern that matches nothing (a typo would otherwise read what it meant to leave out)."""
    if origin is None:
        return OpgenError(f"--exclude {pattern!r} matches no file")
    entry, where = origin
    return OpgenError(f"[tool.opgen] exclude entry {entry!r} matches no file", where,
                      hint="its paths are relative to pyproject.toml's directory")


def _clean(path: str) -> str:
    return os.path.normpath(path)


def _unique_sorted(paths: set[str]) -> list[str]:
    """One entry per real file (a file named twice, e.g. directly and via its
    directory, is read once), sorted by path."""
    by_real: dict[str, str] = {}
    for p in sorted(paths):
        by_real.setdefault(os.path.realpath(p), p)
    return sorted(by_real.values())


def read_allow_file(path: str) -> dict[str, int]:
    """Op names, one per line, with the line each is on (its first); blank lines and `#`
    comments are ignored."""
    text = read_text_file(path, "allow file")
    names: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        name = line.split("#", 1)[0].strip()
        if name:
            names.setdefault(name, number)
    return names


def _unmatched_allow_warnings(path: str, allowed: dict[str, int], registered: set[str],
                              not_held: str = "which no source registers") -> list[OpgenError]:
    """A warning at each name of the allow file no source registers that is close to a name
    one does: a misspelt name silently drops its op. Names close to none are quiet: an allow
    list is often shared by several libraries (TF's selective registration lists a binary's ops)."""
    warnings = []
    for name, line in allowed.items():
        meant = None if name in registered else did_you_mean(name, registered)
        if meant is not None:
            warnings.append(OpgenError(f"--allow names op {name!r}, {not_held}", Location(path, line, 1),
                                       hint=f"{meant} (without it, that op is left out)"))
    return warnings


def select_ops(op_list: op_def_pb2.OpList, allow_file: str | None, include_internal: bool,
               not_held: str) -> op_def_pb2.OpList:
    """The ops of a read OpList (a library's, TensorFlow's registry) that a gathering keeps:
    those the allow file names (warning at a close misspelt name: `not_held` says where it
    is missing), without `_` ops unless `include_internal`, as `gather` keeps an OpList file's."""
    kept = [op for op in op_list.op if include_internal or not op.name.startswith("_")]
    if allow_file:
        allowed = read_allow_file(allow_file)
        for warning in _unmatched_allow_warnings(allow_file, allowed, {op.name for op in kept}, not_held):
            report(warning.format_warning())
        kept = [op for op in kept if op.name in allowed]
    return export_sorted(kept, include_internal)


class GatherErrors(OpgenErrors):
    """Every error of a gather run with its warnings, in the order given (`_in_source_order`),
    and a summary line at the end."""

    def __init__(self, found: Sequence[OpgenError | str]):
        super().__init__([item for item in found if isinstance(item, OpgenError)])
        self.found = list(found)
        self.warnings = [item for item in found if isinstance(item, str)]

    def format(self) -> str:
        summary = error_summary(self.errors)
        if self.warnings:
            summary += f", {plural(len(self.warnings), 'warning')}"
        return "\n".join([*(item if isinstance(item, str) else item.format() for item in self.found), summary])

    def report(self) -> str:
        return self.format()  # its summary counts the warnings too


@dataclass
class ScannedFile:
    """What one translation unit registers, and its errors."""

    ops: list[Registration]
    errors: list[OpgenError]
    kernels: list[KernelRegistration]
    kernel_errors: list[OpgenError]  # each skips one kernel registration
    # Registrations opgen cannot read (a shim op, an unknown registration macro) and literal
    # text it drops (after a NUL): warnings.
    unread: list[OpgenError]
    # The names its SetShapeFn calls could mean that the unit declares (`Status ReduceShape(`).
    declared_shape_fns: frozenset[str] = frozenset()
    # Each SetShapeFn argument's Python translation (or why there is none), by where it stands.
    translations: dict[Location, Translation] = field(default_factory=dict)
    # The shape functions it defines (`shape_fn_definitions`), for another unit's SetShapeFn.
    shape_fn_definitions: dict[str, Translation | ShapeFnTemplate] = field(default_factory=dict)
    # The template arguments of each SetShapeFn naming a function template (`F<k2>`), resolved
    # here (or why they are not), for the template wherever it is defined.
    template_args: dict[Location, TemplateArguments | Translation] = field(default_factory=dict)
    # Its registrations that expand a macro undefined switches chose (`Preprocessor.chosen_defines`).
    chosen_defines: list[ChosenDefine] = field(default_factory=list)


def _undefined_macro_hint(name: str) -> str:
    fix = f"define '{name}', or include the header that defines it"
    nearest = misspelt_macro(name)
    return f"{nearest} Otherwise {fix}" if nearest else fix


def scan_cpp_file(path: str, pp: Preprocessor, helpers: Mapping[str, str]) -> ScannedFile:
    """Registrations of one translation unit and its errors (with preprocessing errors,
    all of them and no chains are read; chain errors are collected per chain; brackets
    anywhere in the file must balance). An error about a name nothing defines, in a file
    with missing includes, is an UndefinedNameError: `explain_undefined` says which
    includes were missing once every file that reaches it is read."""
    try:
        tokens = pp.run(path)
    except OpgenError as e:
        return ScannedFile([], e.errors if isinstance(e, OpgenErrors) else [e], [], [], [])
    namespaces = Namespaces(tokens)  # (walked once, for all the readers and the file-scope checks)
    kernels, kernel_errors = extract_kernels(tokens, helpers, namespaces)
    cut: list[OpgenError] = []
    regs, errors = extract_registrations(tokens, helpers, cut, namespaces)
    shim_regs, unread = extract_shim_registrations(tokens, helpers, namespaces)
    unread += cut
    regs += shim_regs
    if not errors:  # chain errors say more about a bracket in a chain than this would
        unbalanced = check_brackets(tokens)
        if unbalanced is not None:
            errors.append(unbalanced)
    # A registration through a macro nothing defines registers nothing: an error whether an
    # include is missing (its likely cause) or not.
    undefined_macros = undefined_registration_macros(tokens)
    for undefined in undefined_macros:
        undefined.hint = _undefined_macro_hint(undefined.name)
    errors += undefined_macros
    if pp.missing_includes or pp.missing_project_includes:
        kernel_errors += undefined_kernel_macros(tokens)
    else:
        # Every header was read, so an unexpanded kernel-registration-like call is a function
        # call, or a misspelt macro when its name is a registration macro's but for a letter
        # or two (g++ would reject it; without this, its kernels would be silently missing).
        for macro in undefined_kernel_macros(tokens):
            if isinstance(macro, UndefinedNameError) and misspelt_macro(macro.name):
                macro.hint = _undefined_macro_hint(macro.name)
                kernel_errors.append(macro)
    # Any other registration-like macro is a warning (one reported above stays an error).
    reported = {e.name for e in [*undefined_macros, *kernel_errors] if isinstance(e, UndefinedNameError)}
    calls = namespaces.file_scope_calls()
    unread += [e for e in unread_registration_macros(tokens, calls) if e.name not in reported]
    if regs and not errors:  # (after a bracket error, scopes are guesses)
        unread += registrations_in_bodies(tokens, calls)
    # Any other call of an undefined macro at file scope: what it registers is missing. With
    # every header read, only a misspelt macro of the unit is one (an error, as in g++);
    # with a header missing, any may be (a warning, which names the missing headers).
    reported.update(e.name for e in unread if isinstance(e, UndefinedNameError))
    for call in undefined_file_scope_macros(tokens, calls, pp.file_function_macros):
        if call.name in reported:
            continue
        if pp.missing_includes:
            unread.append(call)
        elif call.hint is not None:
            errors.append(call)
    for warning in unread:
        if isinstance(warning, UndefinedNameError) and warning.hint is None:
            warning.hint = _undefined_macro_hint(warning.name)
    shape_fns = {unqualified(shape_fn_name(str(c.args[0].value))) for r in regs for c in r.calls
                 if c.method == "SetShapeFn" and c.args and c.args[0].kind == "expr"}
    definitions = shape_fn_definitions(tokens, namespaces)
    template_args = shape_fn_template_args(tokens, regs, namespaces)
    return ScannedFile(regs, errors, kernels, kernel_errors, unread,
                       declared_functions(tokens, shape_fns) if shape_fns else frozenset(),
                       translate_shape_fns(tokens, regs, definitions, template_args, namespaces) if regs else {},
                       definitions,
                       template_args, pp.chosen_defines(tokens, regs))


def _shape_fn_kind(call: BuilderCall | None, translation: Translation | None) -> str:
    """How an op's shape function reaches the runtime (`opgen oplist --report-shapes`)."""
    if call is None or str(call.args[0].value).strip() == "nullptr":
        return "none"
    if translation is None:
        return "lambda, not translated" if str(call.args[0].value).lstrip().startswith("[") else "named"
    what = "lambda" if str(call.args[0].value).lstrip().startswith("[") else "function"
    return f"{what}, translated" if translation.lines is not None else f"{what}, not translated"


def shape_fn_definitions(tokens: Sequence[Token],
                         namespaces: Namespaces | None = None) -> dict[str, Translation | ShapeFnTemplate]:
    """Each function the tokens define that takes an `InferenceContext*` (`Status Name(
    InferenceContext* c) {`, `auto Name = [](InferenceContext* c) {`), translated (a function
    template: translated per instantiation, `ShapeFnTemplate`), by its
    name qualified with the namespaces it stands in (`mine::Name`; `defined_as` finds it):
    a `SetShapeFn(Name)` of this unit or, when only this unit defines it, of another."""
    definitions: dict[str, Translation | ShapeFnTemplate] = {}
    namespaces = namespaces or Namespaces(tokens)  # (walked at the first definition: most units define none)
    for i in range(1, len(tokens) - 2):
        t = tokens[i]
        if t[KIND] != "id":
            continue
        following = tokens[i + 1][TEXT]
        translate: Callable[[Sequence[Token], int, Namespaces], Translation | ShapeFnTemplate | None]
        if following == "(" and tokens[i - 1][TEXT] == "Status" and _takes_context(tokens, i + 1):
            translate = definition_at
        elif following == "=" and tokens[i + 2][TEXT] == "[":
            close = matching_close(tokens, i + 2)
            if close is None or close + 1 >= len(tokens) or not _takes_context(tokens, close + 1):
                continue
            translate = _lambda_at
        else:
            continue
        qualified = "::".join((*namespaces.at(i), t[TEXT]))
        if qualified not in definitions:
            definition = translate(tokens, i, namespaces)
            if definition is not None:
                definitions[qualified] = definition
    return definitions


def _lambda_at(tokens: Sequence[Token], i: int, namespaces: Namespaces) -> Translation:
    """`translate_lambda` of `auto Name = [](InferenceContext* c) {...}` whose name is at `i`."""
    return translate_lambda(tokens, i + 2, namespaces)


def defined_as(name: str,
               definitions: Mapping[str, Translation | ShapeFnTemplate]) -> list[Translation | ShapeFnTemplate]:
    """The definitions (`shape_fn_definitions`) the `SetShapeFn` name `name` may mean: of its
    last name, in the namespaces it names (`a::F` is `a::F` or `x::a::F`; `F` any `F`); function
    templates for a template-id (`F<k2>`), other functions for another name (C++ takes no other)."""
    written = name.split("<", 1)[0].lstrip(":")
    last = unqualified(written)
    template = "<" in name
    return [d for qualified, d in definitions.items() if unqualified(qualified) == last
            and (written == last or qualified == written or qualified.endswith("::" + written))
            and isinstance(d, ShapeFnTemplate) == template]


def _instance(definition: Translation | ShapeFnTemplate,
              args: TemplateArguments | Translation | None) -> Translation:
    """The translation a SetShapeFn gets from the definition it names: a function template's
    instantiation with the SetShapeFn's template arguments (`args`; a Translation when they
    are refused), another function's own."""
    if isinstance(definition, Translation):
        return definition
    assert args is not None  # (`defined_as` gives a template for a template-id only)
    return definition.instantiate(args)


def shape_fn_template_args(tokens: Sequence[Token], regs: list[Registration],
                           namespaces: Namespaces) -> dict[Location, TemplateArguments | Translation]:
    """The template arguments of each `SetShapeFn(F<...>)` of the registrations, by where the
    SetShapeFn's argument stands, resolved where they are written (`template_arguments`;
    `namespaces`: the unit's)."""
    wanted = {c.args[0].loc for r in regs for c in r.calls if c.method == "SetShapeFn" and c.args
              and c.args[0].kind == "expr" and "<" in str(c.args[0].value) and "[" not in str(c.args[0].value)}
    found: dict[Location, TemplateArguments | Translation] = {}
    for i in range(len(tokens) - 2) if wanted else ():
        if tokens[i][TEXT] != "SetShapeFn" or tokens[i + 1][TEXT] != "(" or token_location(tokens[i + 2]) not in wanted:
            continue
        close = matching_close(tokens, i + 1)
        less = next((k for k in range(i + 2, close or i + 2) if tokens[k][TEXT] == "<"), None)
        if close is not None and less is not None and tokens[close - 1][TEXT] == ">":
            found[token_location(tokens[i + 2])] = template_arguments(tokens, less, close - 1, namespaces)
    return found


def _takes_context(tokens: Sequence[Token], paren: int) -> bool:
    """The parameter list opened at tokens[paren] names `InferenceContext` (TF's shape function type)."""
    if tokens[paren][TEXT] != "(":
        return False
    close = matching_close(tokens, paren)
    return close is not None and any(t[TEXT] == "InferenceContext" for t in tokens[paren + 1 : close])


def translate_shape_fns(tokens: Sequence[Token], regs: list[Registration],
                        definitions: Mapping[str, Translation | ShapeFnTemplate],
                        template_args: Mapping[Location, TemplateArguments | Translation],
                        namespaces: Namespaces) -> dict[Location, Translation]:
    """The Python translation of each SetShapeFn argument that is a lambda, or names a
    function (or a lambda variable) the unit defines (`definitions`), whatever its name, or a
    function template's instantiation (`F<k2>`, its arguments in `template_args`): the
    runtime's built-in of a name (`builtin_shape_fn`) is for names the unit does not define."""
    wanted = {c.args[0].loc: str(c.args[0].value) for r in regs for c in r.calls
              if c.method == "SetShapeFn" and c.args and c.args[0].kind == "expr"}
    found: dict[Location, Translation] = {}
    lambdas = {loc for loc, text in wanted.items() if text.lstrip().startswith("[")}
    for i in range(len(tokens) - 2) if lambdas else ():
        if tokens[i][TEXT] == "SetShapeFn" and tokens[i + 1][TEXT] == "(" and tokens[i + 2][TEXT] == "[":
            loc = token_location(tokens[i + 2])
            if loc in lambdas:
                found[loc] = translate_lambda(tokens, i + 2, namespaces)
    for loc, text in wanted.items():
        meant = [] if loc in lambdas else defined_as(shape_fn_name(text), definitions)
        if len(meant) == 1:  # (several: which one C++ calls is the elsewhere check's to say)
            found[loc] = _instance(meant[0], template_args.get(loc))
    return found


def _op_source(reg: Registration, shape_fn: str | None, call: BuilderCall | None,
               translation: Translation | None, problem: str | None = None) -> OpSource:
    """Where an op came from and how its shape function reaches the runtime; `problem`: why
    the project function it names has no translation (`path:line:col: what`)."""
    if translation is not None and translation.problem:
        problem = f"{translation.location}: {translation.problem.split(': ', 1)[1]}"
    kind = "function, not translated" if translation is None and problem else _shape_fn_kind(call, translation)
    lines = translation.lines if translation is not None else None
    return OpSource(reg.loc, shape_fn, _part_locations(reg), _argument_parts(reg), lines, kind, problem)


def _translation_warnings(op_def: op_def_pb2.OpDef, translation: Translation) -> list[_Warning]:
    """The warnings of an op's translated (or untranslatable) shape function."""
    if translation.problem is not None:
        return [(translation.location,
                 f"{translation.location}: warning: {translation.problem} (op {op_def.name}: unknown output "
                 "shapes without TensorFlow)" + (f"\n  hint: {translation.hint}" if translation.hint else ""))]
    return _declaration_warnings(op_def, translation)


def _declaration_warnings(op_def: op_def_pb2.OpDef, translation: Translation) -> list[_Warning]:
    """What a shape function uses that the op does not declare: a constant index past the
    op's inputs or outputs, when their count is fixed (no list arguments; TF's
    InferenceContext, tensorflow/core/framework/shape_inference.h, reads `inputs_[idx]`
    unchecked, and `outputs_.at(idx)` throws, which aborts the process); an attr by a name
    the op lacks (GetNodeAttr's NotFound, tensorflow/core/framework/node_def_util.cc)."""
    warnings: list[_Warning] = []
    for use, index, where in translation.indices:
        kind = use.split()[1]
        args = op_def.input_arg if kind == "input" else op_def.output_arg
        if index < len(args) or any(a.number_attr or a.type_list_attr for a in args):
            continue
        names = ", ".join(a.name for a in args) or "none"
        effect = "reads out of bounds" if kind == "input" else "aborts the process"
        text = (f"{where}: warning: the shape function of op {op_def.name} {use} {index}, but the op has "
                f"{len(args)} {kind}(s) ({names}): TensorFlow {effect} when it runs it, and opgen's "
                "runtime raises ValueError"
                f"\n  hint: the op's {kind}s are numbered from 0 in declaration order; fix the index, "
                f"or declare the {kind} with .{kind.capitalize()}(\"name: type\")")
        warnings.append((where, text))
    declared = [a.name for a in op_def.attr]
    for name, where in translation.attrs:
        if name not in declared:
            close = did_you_mean(name, declared, "'")
            shown = printable_line(name)  # a newline in it must not start a line of output
            text = (f"{where}: warning: the shape function of op {op_def.name} reads attr '{shown}', which "
                    "the op does not declare: TensorFlow's shape inference fails there (NotFoundError: No "
                    f"attr named '{shown}'), and opgen's runtime raises ValueError"
                    f"\n  hint: {close or 'declare it with .Attr(), or fix the name'}")
            warnings.append((where, text))
    return warnings


class _Explanations:
    """What each UndefinedNameError of a run is explained by: the missing includes before
    it in every translation unit that reaches it (a header's error, reached from files
    with different missing includes, blames only the ones they all miss), and the `#if`
    names read as 0 after a missing include likewise (warned once, where they stand); and
    which directory each missing include needs (`add_include_dirs`)."""

    def __init__(self) -> None:
        self._missing: dict[tuple[str, Location | None], list[MissingInclude]] = {}
        self.blamed_targets: set[str] = set()  # the missing includes some error or warning blames
        self._holding: dict[tuple[str, str], str | None] = {}  # (target, root) -> `_directory_holding`

    def add_include_dirs(self, missing: Sequence[MissingInclude]) -> str:
        """How to make missing includes found: `add ... or [tool.opgen] include_dirs`, naming the
        -I that finds one when a directory below the project root holds it (`-I src`), else, for
        one spelled with a path, the directory holding its first folder (`tensorflow_text/` for
        "tensorflow_text/core/kernels/x.h"), not the header's own directory."""
        found = [self.directory_holding(m) for m in missing]
        if len(missing) == 1:
            target, holding = missing[0].target, found[0]
            if holding is not None:
                fix = f"add -I {holding} (it holds {target})"
            elif "/" in target:
                fix = (f"add the directory holding {target.split('/', 1)[0]}/ with -I DIR (DIR such that "
                       f"DIR/{target} exists)")
            else:
                fix = "add its directory with -I DIR"
            return f"{fix} or [tool.opgen] include_dirs"
        known = dict.fromkeys(f"-I {holding}" for holding in found if holding is not None)
        others = dict.fromkeys(f"the directory holding {m.target.split('/', 1)[0]}/" if "/" in m.target
                               else f'the directory of "{m.target}"' for m, holding in zip(missing, found)
                               if holding is None)
        if others and not known and all("/" not in m.target for m in missing):
            return "add their directories with -I DIR or [tool.opgen] include_dirs"
        parts = [*known, *([f"{' and '.join(others)} with -I DIR"] if others else [])]
        return f"add {' and '.join(parts)} or [tool.opgen] include_dirs"

    def directory_holding(self, m: MissingInclude) -> str | None:
        """`_directory_holding` of the missing include below its including file's project root,
        looked up once per run."""
        root = project_root(os.path.dirname(m.location.path))
        key = (m.target, root)
        if key not in self._holding:
            self._holding[key] = _directory_holding(m.target, root)
        return self._holding[key]

    def note(self, message: str, location: Location | None, missing: Sequence[MissingInclude]) -> None:
        key = (message, location)
        known = self._missing.get(key)
        self._missing[key] = list(missing) if known is None else [m for m in known if m in missing]

    def blamed(self, message: str, location: Location | None, name: str) -> OpgenError | None:
        """The error with the missing includes that apply as its likely cause; None when none applies."""
        missing = self._missing.get((message, location))
        if not missing:
            return None
        self.blamed_targets.update(m.target for m in missing)
        return _blame_missing_includes(message, location, name, missing, self.add_include_dirs(missing))

    def explain(self, e: OpgenError) -> OpgenError:
        if not isinstance(e, UndefinedNameError):
            return e
        return self.blamed(e.message, e.location, e.name) or OpgenError(e.message, e.location, e.hint)


def declared_functions(tokens: Sequence[Token], names: set[str]) -> frozenset[str]:
    """Which of `names` the tokens declare or define as a function or variable
    (`Status ReduceShape(InferenceContext* c)`, `auto ReduceShape = [](...)`): a name
    after a type, not after an operator, `return` or a call's `(`."""
    found = set()
    for i in range(1, len(tokens) - 1):
        t = tokens[i]
        if t[TEXT] in names and t[KIND] == "id" and tokens[i + 1][TEXT] in ("(", "=", "{"):
            before = tokens[i - 1]
            if (before[KIND] == "id" and before[TEXT] not in _NOT_A_TYPE) or before[TEXT] in (">", "*", "&"):
                found.add(t[TEXT])
    return frozenset(found)


# Keywords an expression's name can follow (`return ReduceShape(c)`): not a declaration's type.
_NOT_A_TYPE = frozenset({"return", "case", "else", "do", "new", "delete", "throw", "co_return", "co_yield",
                         "co_await", "sizeof", "decltype", "typeid", "not", "and", "or"})


def _blame_missing_includes(message: str, location: Location | None, name: str,
                            missing: Sequence[MissingInclude], fix: str) -> OpgenError:
    """The error `message` about the undefined `name`, with the missing includes as its likely
    cause and `fix` (`_Explanations.add_include_dirs`)."""
    names = [f"\"{m.target}\" ({m.location})" for m in missing]
    if len(names) == 1:
        cause = f"{names[0]} was not found and may define '{name}'"
    else:
        cause = f"{', '.join(names[:-1])} and {names[-1]} were not found and one may define '{name}'"
    return OpgenError(message, location, hint=f"likely cause: {cause}; {fix}")


def _missing_include_message(target: str, sites: list[MissingInclude]) -> str:
    first = sites[0]
    text = f"cannot find include file \"{target}\" (searched: {', '.join(first.searched)})"
    others = [str(loc) for loc in dict.fromkeys(m.location for m in sites) if loc != first.location]
    return text + (f"; also included at {', '.join(others)}" if others else "")


def _missing_include_hint(m: MissingInclude, explanations: _Explanations) -> str:
    """How to find a missing header: the file a misspelt name may mean (`_include_meant`), else
    the directory to add (`_Explanations.add_include_dirs`), and unless a directory of the
    project holds it, how to skip another library's silently (its top directory or name as a
    glob)."""
    fix = explanations.add_include_dirs([m])
    meant = _include_meant(m.target, m.searched)
    if meant is not None:
        return f'did you mean "{meant}"? (else {fix})'
    if explanations.directory_holding(m) is not None:
        return fix
    glob_text = f"{m.target.split('/', 1)[0]}/*" if "/" in m.target else m.target
    return f'{fix}; or skip another library\'s header silently: [tool.opgen] external_includes = ["{glob_text}"]'


# Directories `_directory_holding` looks through at most (each missing include once per run): a
# project's tree is rarely bigger; in a bigger one (a checkout of dependencies), the rest is not searched.
_MAX_DIRECTORIES_SEARCHED = 2000


def _directory_holding(target: str, root: str) -> str | None:
    """A directory below `root` (breadth first, hidden ones and symlinks skipped, at most
    `_MAX_DIRECTORIES_SEARCHED`) that holds the include `target` as a file: the -I that finds
    it, relative to the working directory when below it."""
    first = target.split("/", 1)[0]
    queue = collections.deque([root])
    for _ in range(_MAX_DIRECTORIES_SEARCHED):
        if not queue:
            return None
        here = queue.popleft()
        try:
            entries = sorted(os.scandir(here), key=lambda entry: entry.name)
        except OSError:
            continue
        queue.extend(e.path for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        if here != root and any(e.name == first for e in entries) and os.path.isfile(os.path.join(here, target)):
            relative = os.path.relpath(here, os.path.realpath(os.getcwd()))
            return here if relative.startswith("..") else relative
    return None


def _include_meant(target: str, searched: Sequence[str]) -> str | None:
    """A file of the include's own folder below a searched directory whose name is close to
    the include's (`fw_comon.h` for `fw_common.h`), as the include would name it; None if none is."""
    folder, _, name = target.rpartition("/")
    for directory in searched:
        try:
            names = [entry.name for entry in os.scandir(os.path.join(directory, folder)) if entry.is_file()]
        except OSError:
            continue
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
        if close:
            return f"{folder}/{close[0]}" if folder else close[0]
    return None


def _as_warnings(errors: Iterable[OpgenError]) -> list[_Warning]:
    """Errors printed as warnings, each once (a header several files include reports once)."""
    return list(dict.fromkeys((e.location, e.format_warning()) for e in errors))


def _condition_message(name: str) -> str:
    return f"'{name}' is not defined and reads as 0 in #if"


# Located notes per undefined macro; the rest of its conditionals are counted on one line.
_NOTES_PER_MACRO = 3


def _skipped_notes(groups: list[SkippedRegistrations], strict: bool) -> tuple[list[_Warning], list[OpgenError]]:
    """One note per conditional that skipped registrations for undefined project switches
    (errors with `strict`); after `_NOTES_PER_MACRO` of the same macros, one line for the rest.
    Conditionals that need TF's build configuration macros (`#if GOOGLE_CUDA`) are one note per
    macro, at the first, never an error: a build without them is the one opgen reads for, and
    TF's own sources hold many such groups (a note for each would bury the other messages)."""
    by_deciding: dict[tuple[tuple[str, ...], bool], list[SkippedRegistrations]] = {}
    for g in groups:
        by_deciding.setdefault((g.names, g.together), []).append(g)
    notes: list[_Warning] = []
    errors: list[OpgenError] = []
    for (names, together), same in by_deciding.items():
        quoted = " and ".join(f"'{n}'" for n in names)
        are = "is" if len(names) == 1 else "are"
        values = same[0].values
        defines = (" " if together else " or ").join(f"-D {n}={v}" for n, v in zip(names, values))
        # (a value other than 1 is one that compiles the group: the build's own may differ)
        hint = f"{defines}{' (or what the build passes)' if set(values) != {'1'} else ''}, or [tool.opgen] defines"
        if same[0].build_configuration:
            these = "this conditional" + (f" and {len(same) - 1} more" if len(same) > 1 else "")
            skip = "skips" if len(same) == 1 else "skip"
            note = OpgenError(f"{quoted} {are} not defined ({_configuration_macros(names)}), so {these} "
                              f"{skip} {plural(sum(g.count for g in same), 'registration')}", same[0].location, hint)
            notes.append((note.location, note.format_note()))
            continue
        located = [OpgenError(f"{quoted} {are} not defined, so this conditional skips "
                              f"{plural(g.count, 'registration')}", g.location, hint) for g in same]
        if strict:
            errors += located
            continue
        notes += [(e.location, e.format_note()) for e in located[:_NOTES_PER_MACRO]]
        rest = same[_NOTES_PER_MACRO:]
        if rest:  # (after the last located one)
            text = (f"note: {quoted} {are} not defined: {plural(len(rest), 'more conditional')} skip "
                    f"{plural(sum(g.count for g in rest), 'more registration')} (first at {rest[0].location})")
            notes.append((same[_NOTES_PER_MACRO - 1].location, text))
    return notes, errors


def _chosen_define_notes(found: list[ChosenDefine], strict: bool) -> tuple[list[_Warning], list[OpgenError]]:
    """One note per undefined macro (or macros deciding only together) that chose the #define
    of a macro registrations expand, at the first such registration, counting the others: an
    error with `strict`, but for TF's build configuration and platform macros (a choice of the
    build opgen reads for, as in `_skipped_notes`), whose choice is noted only where it names
    the op. A registration several units read counts once."""
    by_deciding: dict[tuple[tuple[str, ...], bool], dict[Location, ChosenDefine]] = {}
    for c in found:
        if c.build_configuration and not c.in_name:
            # the spec of the build opgen reads for (TF's own `#if defined(IS_MOBILE_PLATFORM)`
            # around a type list): only a different op name is worth a note on every build
            continue
        by_deciding.setdefault((c.names, c.together), {}).setdefault(c.registration, c)
    notes: list[_Warning] = []
    errors: list[OpgenError] = []
    for registrations in by_deciding.values():
        first, *others = registrations.values()
        names = first.names
        quoted = " and ".join(f"'{n}'" for n in names)
        are = "is" if len(names) == 1 else "are"
        why = f" ({_configuration_macros(names)})" if first.build_configuration else ""
        op = f"op '{first.op_name}'" if first.op_name else "the op"
        use = f"names {op}" if first.in_name else f"the registration of {op} expands"
        more = f" (and {plural(len(others), 'more registration')})" if others else ""
        them = "it" if len(names) == 1 else "them"
        hint = (f"pass what the build defines: {' '.join(f'-D {n}=VALUE' for n in names)}, or [tool.opgen] defines; "
                f"{' '.join(f'-U {n}' for n in names)} ([tool.opgen] undefines) if the build leaves {them} undefined")
        note = OpgenError(f"{quoted} {are} not defined{why}, so `{first.directive}` ({first.condition}) chose the "
                          f"#define of '{first.macro}' that {use} here{more}", first.registration, hint)
        if strict and not first.build_configuration:
            errors.append(note)
        else:
            notes.append((note.location, note.format_note()))
    return notes, errors


def _configuration_macros(names: tuple[str, ...]) -> str:
    """Why `names` are undefined: `a build configuration macro: opgen reads for a build without
    it` (`a platform macro: opgen reads for a CPU build on Linux`), naming those that are when
    a project switch or the other kind is among them."""
    kinds = [(kind, [f"'{n}'" for n in names if n in macros]) for kind, macros in
             (("build configuration macro", BUILD_CONFIG_MACROS), ("platform macro", PLATFORM_MACROS))]
    kinds = [(kind, quoted) for kind, quoted in kinds if quoted]
    platform = any(kind == "platform macro" for kind, _ in kinds)
    several = sum(len(quoted) for _, quoted in kinds) > 1
    reads = "a CPU build on Linux" if platform else f"a build without {'them' if several else 'it'}"
    if len(kinds) == 1 and len(kinds[0][1]) == len(names):
        kind = kinds[0][0]
        return f"{kind}s: opgen reads for {reads}" if several else f"a {kind}: opgen reads for {reads}"
    described = [f"{' and '.join(quoted)} {'are' if len(quoted) > 1 else 'is'} "
                 f"{kind + 's' if len(quoted) > 1 else 'a ' + kind}" for kind, quoted in kinds]
    return f"{'; '.join(described)}: opgen reads for {reads}"


# Located warnings per SetShapeFn name that may be a typo; its other ops are named on one line.
_SHAPE_FN_WARNINGS = 3


class _ShapeFnUse(NamedTuple):
    """A SetShapeFn name that may be a typo (`unknown_shape_fn_warning`), where it stands, and its op."""

    name: str
    where: Location
    op: str


def _shape_fn_warnings(found: list[_Warning | _ShapeFnUse]) -> list[_Warning]:
    """The shape-function warnings, each once (a header's op is read once per unit including
    it): `unknown_shape_fn_warning` for a use, located for the first `_SHAPE_FN_WARNINGS` uses
    of a name in registration order; one line after them names the rest (a misspelt name
    shared by thousands of ops would otherwise print thousands of warnings)."""
    uses: dict[str, list[tuple[Location, str]]] = {}
    for item in dict.fromkeys(found):
        if isinstance(item, _ShapeFnUse):
            uses.setdefault(item.name, []).append((item.where, item.op))
    warnings: list[_Warning] = []
    for item in dict.fromkeys(found):
        if not isinstance(item, _ShapeFnUse):
            warnings.append(item)
            continue
        name, where, op = item
        sites = uses[name]
        if (where, op) not in sites[:_SHAPE_FN_WARNINGS] or not (warning := unknown_shape_fn_warning(name, where, op)):
            continue
        warnings.append((where, warning))
        rest = sites[_SHAPE_FN_WARNINGS:]
        if rest and (where, op) == sites[_SHAPE_FN_WARNINGS - 1]:
            ops = first_names([o for _, o in rest], 10)
            text = (f"warning: {plural(len(rest), 'more op')} name shape function '{name}' too: {ops} "
                    f"(first at {rest[0][0]})")
            warnings.append((where, text))
    return warnings


# Located warnings about TF core op names; the rest are named on one line.
_CORE_OP_WARNINGS = 3


def _core_op_warnings(regs: list[Registration]) -> list[_Warning]:
    """A located warning per registration of a TF core op name (the first few; the rest on one line)."""
    warnings = _as_warnings(
        OpgenError(f"'{r.op_name}' is a TensorFlow core op: TensorFlow keeps its own definition and ignores this "
                   "registration when it loads the library; left out", r.loc,
                   hint="give the op a name of its own, or list it in [tool.opgen] core_ops to generate a wrapper for "
                   "TensorFlow's op") for r in regs[:_CORE_OP_WARNINGS])
    rest = regs[_CORE_OP_WARNINGS:]
    if rest:  # (after the last located one)
        names = first_names([r.op_name for r in rest], 10)
        text = f"warning: {plural(len(rest), 'more TensorFlow core op')} left out: {names} (first at {rest[0].loc})"
        warnings.append((regs[_CORE_OP_WARNINGS - 1].loc, text))
    return warnings


# A warning (or note) as printed, with where it stands in the sources (`_in_source_order`);
# None for a conclusion about them all.
_Warning = tuple[Location | None, str]
_Item = TypeVar("_Item")


def _in_source_order(found: list[tuple[Location | None, _Item]], read: Mapping[str, int]) -> list[_Item]:
    """What a gather run found (its errors and warnings, each with where it stands), in
    source order: first those in files no source is (pyproject.toml, the allow file, a source
    or --exclude pattern as named), file by file as they come up; then file by file in the
    order the sources' files were first `read` (the C++ files by path, each header after the
    file that first includes it, then the OpList files), so each file's findings stand
    together; each file by line and column; last the conclusions about them all (nothing
    registered). The sort is stable, so what stands at one place keeps the order it was
    found in: one op's errors, all at its REGISTER_OP, in TensorFlow's order, a cause before
    the errors it brings ("fix that one first")."""
    unread: dict[str, int] = {}
    for at, _ in found:
        if at is not None and at.path not in read:
            unread.setdefault(at.path, len(unread))

    def key(item: tuple[Location | None, _Item]) -> tuple[int, int, int, int]:
        at = item[0]
        if at is None:
            return (2, 0, 0, 0)
        if at.path in read:
            return (1, read[at.path], at.line, at.col)
        return (0, unread[at.path], at.line, at.col)

    return [value for _, value in sorted(found, key=key)]


def gather(
    sources: Iterable[str],
    *,
    exclude: Iterable[str] = (),
    defines: Iterable[str] = (),
    include_dirs: Iterable[str] = (),
    allow_file: str | None = None,
    include_internal: bool = False,
    helpers: Mapping[str, str] | None = None,
    strict_includes: bool = False,
    strict_kernels: bool = False,
    cache: bool = False,
    require_ops: bool = False,
    warn: Callable[[str], None] = report,
    undefines: Iterable[str] = (),
    strict_defines: bool = False,
    core_ops: Iterable[str] | None = None,
    external_includes: Iterable[str] = (),
    jobs: int = 0,
    helper_locations: Mapping[str, Location] | None = None,
    exclude_origins: Mapping[str, tuple[str, Location]] | None = None,
) -> GatherResult:
    """The OpList (sorted by name, `_` ops only with include_internal) of every op the
    sources register, and their kernels; raises GatherErrors with every error found. A
    kernel registration that cannot be evaluated is a warning and skipped, or an error
    with strict_kernels. TF's `TF_CALL_*` macros are predefined for the `defines`.
    `cache`: parsed text OpLists are kept in opgen's cache
    (`oplist_io.load_op_list_with_lines`); `jobs`: the processes that may read a big one
    (0: one per core). The warnings of a successful gather go to `warn`
    (stderr, terminal-safe), so every command that gathers prints them alike; a failed
    one's are part of its GatherErrors. Sources that register no op (and no kernel) are a
    warning, or an error with `require_ops` (`opgen build`: it would delete every module).
    The compiler's predefined macros (`predefined.py`) are defined but the `undefines`.
    Registrations an `#if` on an undefined project macro skips, or whose text expands a
    `#define` such an `#if` chose, are a note, or an error with `strict_defines`. With
    `core_ops` (fnmatch globs of TF core op names to keep), a C++ registration of a
    TensorFlow core op name (`tf_core_ops.py`) not matched is a warning and left out, as TF
    ignores it when it loads the library. An `#include "..."`
    that cannot be found warns, unless its target matches one of the `external_includes`
    globs (a header of another library): then it is named only as the likely cause of an
    undefined name, as a `<dir/file.h>` one is. `helper_locations`:
    where each `helpers` key is written (pyproject.toml), for errors in its text. `exclude`:
    globs of files of directory and glob sources not to read (`expand_sources`); one that
    matches nothing is a warning, located by `exclude_origins` (pattern -> the entry as
    written and where) when it comes from pyproject.toml."""
    try:
        with cyclic_gc_paused():
            result = _gather(sources, list(exclude), list(defines), include_dirs, allow_file, include_internal, helpers,
                             strict_includes, strict_kernels, cache, require_ops, undefines=undefines,
                             strict_defines=strict_defines, core_ops=None if core_ops is None else tuple(core_ops),
                             external_includes=tuple(external_includes), jobs=jobs,
                             helper_locations=helper_locations or {},
                             exclude_origins=exclude_origins or {})
    except GatherErrors:
        raise
    except OpgenError as e:  # a bad -D option or allow file: nothing can be gathered
        raise GatherErrors(e.errors if isinstance(e, OpgenErrors) else [e]) from None
    for warning in result.warnings:
        warn(warning)
    return result


def _nothing_registered(sources: list[str], files: SourceFiles, allow_file: bool, left_out: int,
                        internal: int) -> OpgenError:
    """Sources that register no op: an empty directory, a misspelt glob, registrations
    through a macro opgen cannot see, only TF core op names, only internal (`_`) ops."""
    where = Location(sources[0]) if len(sources) == 1 else None
    if internal and not left_out:
        return OpgenError(f"no op left: the {plural(internal, 'op')} registered {'is' if internal == 1 else 'are'} "
                          "internal (named with a leading `_`), which opgen leaves out unless asked", where,
                          hint="give the ops public names, or pass --include-internal ([tool.opgen] "
                               "include_internal = true: they get hidden, `_`-prefixed functions)")
    if left_out:
        return OpgenError(f"no op left: the {plural(left_out, 'op')} registered {'is a' if left_out == 1 else 'are'} "
                          f"TensorFlow core op{'s' if left_out > 1 else ''}, which TensorFlow ignores in a library",
                          where, hint="give the ops names of their own, or list them in [tool.opgen] core_ops")
    n = len(files.cpp) + len(files.oplists)
    if n == 0:
        return OpgenError(f"no C++ sources ({', '.join(TRANSLATION_UNIT_SUFFIXES)}) or OpList files in "
                          f"{', '.join(sources) or 'the sources'}", where,
                          hint="name the directories or files that hold the REGISTER_OP calls (SOURCES or "
                          "[tool.opgen] sources)")
    return OpgenError(f"no op registered in {plural(n, 'source file')}" + (" allowed by --allow" if allow_file else ""),
                      where, hint="opgen reads REGISTER_OP(...) chains (also through macros it can expand); "
                      "check the sources, -D defines and include directories")


_FLAG_CALLS = {"SetIsStateful": "is_stateful", "SetDoNotOptimize": "is_stateful", "SetIsCommutative": "is_commutative",
               "SetIsAggregate": "is_aggregate", "SetAllowsUninitializedInput": "allows_uninitialized_input",
               "SetIsDistributedCommunication": "is_distributed_communication"}


def _saved_model_warnings(op_def: op_def_pb2.OpDef, reg: Registration) -> list[_Warning]:
    """An output list whose length comes from an attr with a default other than none: TF's
    SavedModel drops every attr at its default from the graphs it saves
    (`meta_graph.strip_graph_default_valued_attrs`, tensorflow/python/saved_model/save.py),
    and loading counts such an output's tensors from the node's attrs alone
    (`_get_num_args`, tensorflow/python/framework/function_def_to_graph.py), so a saved call
    at the default loads as an output of no tensors and fails (trial26 #2; TF's own ops
    `NIntsOutDefault` likewise)."""
    # (every op of a project passes here: nothing is built for one without such an output, and
    # its parts' places, which registering it computes too, only for a warning)
    warnings: list[_Warning] = []
    for arg in op_def.output_arg:
        name = arg.number_attr or arg.type_list_attr
        attr = next((a for a in op_def.attr if a.name == name), None) if name else None
        if attr is None or not attr.HasField("default_value"):
            continue
        default = attr.default_value
        count = default.i if arg.number_attr else len(default.list.type)
        if count == 0:  # saved or not, the count is 0: nothing is lost
            continue
        shown = str(count) if arg.number_attr else f"a list of {count} types"
        at = dict(_part_locations(reg)).get(f"attr {name}", reg.loc)
        text = (f"{at}: warning: output '{arg.name}' of op {op_def.name} has as many tensors as attr '{name}' says, "
                f"and a SavedModel drops that attr when it is at its default ({shown}): a saved model calling the op "
                "with the default fails to load (TensorFlow's function_def_to_graph counts the tensors from the saved "
                f"attrs alone: KeyError '{op_def.name}:{arg.name}:<index>')"
                f"\n  hint: declare '{name}' without a default, so every call passes it and saved graphs keep it")
        warnings.append((at, text))
    return warnings


def _written_at(call: BuilderCall) -> tuple[Location, tuple[str, Location] | None]:
    """Where the text of an `.Attr/Input/Output(...)` call's string is written: the line that
    changes when it does. Text written elsewhere has two places, kept both (the other as the
    location's `expanded_from`, a note): a macro argument's characters stand at the macro call
    (`FW_BINARY_OP(Hypot, "float")`, noted with the #define using them), which is what differs
    between the ops one #define registers; text of a #define alone, or of a constant, stands
    where it is written (noted with where it is used). With the place, for text an argument
    supplied: that text, and the part's place in the #define (`OpSource.argument_parts`)."""
    arg = call.args[0]
    if arg.loc.expanded_from is None:
        return call.loc, None
    what, written = arg.loc.expanded_from
    in_body = replace(written, expanded_from=(USED_THROUGH + what, arg.loc))
    supplied = [run for run in arg.runs if run.use is None]  # written where the macro is called
    if not supplied:
        return in_body, None
    text = "".join(str(arg.value)[run.start : run.end] for run in supplied)
    return replace(arg.location_at(supplied[0].start), expanded_from=(USED_IN + what, written)), (text, in_body)


def _part_locations(reg: Registration) -> tuple[tuple[str, Location], ...]:
    """("attr T", where `.Attr("T: ...")` stands), ... for each declared part (first wins);
    an arg or attr whose text is written elsewhere (a constant, a macro) is located where its
    text is (`_written_at`)."""
    return tuple((key, at) for key, (at, _) in _declared_parts(reg).items())


def _argument_parts(reg: Registration) -> tuple[tuple[str, str, Location], ...]:
    """`OpSource.argument_parts`: the parts a macro call's argument supplied text to."""
    return tuple((key, *argument) for key, (_, argument) in _declared_parts(reg).items() if argument is not None)


def _declared_parts(reg: Registration) -> dict[str, tuple[Location, tuple[str, Location] | None]]:
    """Each declared part (first wins): its place and, for one a macro argument supplied text
    to, that text and its #define place (`_written_at`)."""
    parts: dict[str, tuple[Location, tuple[str, Location] | None]] = {}
    for call in reg.calls:
        if call.method in ("Attr", "Input", "Output") and call.args and call.args[0].kind == "string":
            key = f"{call.method.lower()} {str(call.args[0].value).split(':', 1)[0].strip()}"
            if key not in parts:
                parts[key] = _written_at(call)
        elif call.method in _FLAG_CALLS:
            parts.setdefault(f"flag {_FLAG_CALLS[call.method]}", (_at_call(call), None))
        elif call.method == "Deprecated":
            parts.setdefault("deprecation", (_at_call(call), None))
        elif call.method == "Doc":
            parts.setdefault("doc", (_at_call(call), None))
    return parts


def _at_call(call: BuilderCall) -> Location:
    """Where a flag, deprecation or doc call stands; one a macro's #define writes stands at the
    macro's call, its note (the place in the #define) worded as `_written_at`'s."""
    if call.loc.expanded_from is None:
        return call.loc
    what, written = call.loc.expanded_from
    return replace(call.loc, expanded_from=(USED_IN + what, written))


def _with_helper_origin(e: OpgenError, origins: Mapping[Location, list[tuple[str, Location]]]) -> OpgenError:
    """An error in a builder call whose text is `[tool.opgen.helpers]` entries', with a hint
    saying where those entries are written (the error stays at the C++ call)."""
    origin = origins.get(e.location) if e.location is not None else None
    if not origin:
        return e
    note = "the text comes from " + ", ".join(f"[tool.opgen.helpers] {name} at {at}" for name, at in origin)
    return OpgenError(e.message, e.location, hint=f"{e.hint}; {note}" if e.hint else note)


def _duplicate_error(e: OpgenError, first: Location, first_unit: str | None, unit: str | None) -> OpgenError:
    """TF's `Op with name X` as a sentence saying where X was first registered. The same
    REGISTER_OP twice is a header read by two translation units (or twice by one): TF fails
    loading the library the same way, so say which units include it."""
    if e.location != first or first_unit is None or unit is None:
        return OpgenError(f"{e.message} is already registered, at {first}", e.location,
                          hint="an op name can be registered once: rename one of them or delete the duplicate")
    header = first.path
    if first_unit == unit:
        return OpgenError(f"{e.message} is registered twice: {unit} includes {header} twice", e.location,
                          hint=f"give {header} an include guard (#pragma once) or include it once")
    return OpgenError(f"{e.message} is registered twice: both {first_unit} and {unit} include {header}", e.location,
                      hint=f"a REGISTER_OP in a header runs in each translation unit that includes it: include "
                           f"{header} from one translation unit only, or move the REGISTER_OP to a .cc file")


def _gather(
    sources: Iterable[str],
    exclude: list[str],
    defines: list[str],
    include_dirs: Iterable[str],
    allow_file: str | None,
    include_internal: bool,
    helpers: Mapping[str, str] | None,
    strict_includes: bool,
    strict_kernels: bool,
    cache: bool,
    require_ops: bool = False,
    *,
    undefines: Iterable[str] = (),
    strict_defines: bool = False,
    core_ops: tuple[str, ...] | None = None,
    external_includes: tuple[str, ...] = (),
    jobs: int = 0,
    helper_locations: Mapping[str, Location],
    exclude_origins: Mapping[str, tuple[str, Location]],
) -> GatherResult:
    sources = list(sources)
    files = expand_sources(sources, exclude)
    # each error where it stands in the sources (`_in_source_order`): its own location, or its
    # op's REGISTER_OP for a builder error
    errors: list[tuple[Location | None, OpgenError]] = [(e.location, e) for e in files.errors]
    read: dict[str, int] = {}  # every file of the sources (headers too) in the order first read
    pp = Preprocessor([*tf_call_defines(defines), *defines], include_dirs, undefines, external_includes)
    allowed = read_allow_file(allow_file) if allow_file else None
    table = helper_table(helpers)

    registry = OpRegistry()
    sources_by_op: dict[str, OpSource] = {}

    units_by_op: dict[str, str] = {}  # the translation unit that first registered an op

    def register(op_def: op_def_pb2.OpDef, source: OpSource, unit: str | None = None) -> None:
        try:
            registry.register(op_def, source)
        except OpgenError as e:
            first = sources_by_op.get(op_def.name)
            if first is not None and not isinstance(e, OpgenErrors):  # a duplicate: TF's text, made a sentence
                e = _duplicate_error(e, first.location, units_by_op.get(op_def.name), unit)
            errors.extend((error.location, error) for error in (e.errors if isinstance(e, OpgenErrors) else [e]))
            return
        sources_by_op.setdefault(op_def.name, source)
        if unit is not None:
            units_by_op.setdefault(op_def.name, unit)

    inputs = {*files.oplists, *([allow_file] if allow_file else [])}
    registered: set[str] = set()  # every op name the sources register, allowed or not
    missing: dict[str, list[MissingInclude]] = {}  # header -> where it is included, in file order
    kernels: list[KernelRegistration] = []
    kernel_errors: list[OpgenError] = []
    explanations = _Explanations()
    conditions: dict[tuple[str, Location], None] = {}  # (name, where) #if read as 0 after a missing include
    skipped: dict[Location, SkippedRegistrations] = {}  # a shared header's conditional once
    chosen: list[ChosenDefine] = []  # registrations expanding a macro undefined switches chose
    # translation warnings, and SetShapeFn names (name, where, op) that may be typos (`_shape_fn_warnings`)
    shape_fn_warnings: list[_Warning | _ShapeFnUse] = []
    saved_model_warnings: list[_Warning] = []
    defined_in: dict[str, dict[str, Translation | ShapeFnTemplate]] = {}  # unit -> the shape functions it defines
    # ops whose SetShapeFn names a project function their unit does not define
    elsewhere: list[tuple[op_def_pb2.OpDef, Registration, BuilderCall, str, bool, OpSource,
                          TemplateArguments | Translation | None]] = []
    unread: list[OpgenError] = []  # registrations opgen cannot read (skipped)
    core_registrations: list[Registration] = []
    # where a builder call's text came from [tool.opgen.helpers]: its location -> (key as written, where written)
    helper_origins: dict[Location, list[tuple[str, Location]]] = {}
    written_keys = {name.lstrip(":"): (name, at) for name, at in helper_locations.items()}  # as helper_table keys
    for path in files.cpp:
        read.setdefault(path, len(read))
        scanned = scan_cpp_file(path, pp, table)
        for header in pp.files_read:
            read.setdefault(header, len(read))
        regs, file_errors = scanned.ops, scanned.errors
        all_missing = (*pp.missing_includes, *pp.missing_project_includes)
        for e in (*file_errors, *scanned.kernel_errors, *scanned.unread):
            if isinstance(e, UndefinedNameError):
                explanations.note(e.message, e.location, all_missing)
        # selective registration drops a kernel with its op (op_kernel.h: SHOULD_REGISTER_OP(op_name))
        kernels += [k for k in scanned.kernels if allowed is None or k.system or k.kernel_def.op in allowed]
        kernel_errors += scanned.kernel_errors
        unread += scanned.unread
        chosen += scanned.chosen_defines
        inputs.update(pp.files_read)
        for u in pp.undefined_in_conditions:
            explanations.note(_condition_message(u.name), u.location, u.missing)
            conditions.setdefault((u.name, u.location))
        for group in pp.skipped_registrations:
            skipped.setdefault(group.location, group)
        for m in pp.missing_includes:
            if strict_includes and m.target not in missing:  # each header once, where first included
                close = _include_meant(m.target, m.searched)
                file_errors.append(OpgenError(f"{_missing_include_message(m.target, [m])}; "
                                              f"{explanations.add_include_dirs([m])}", m.location,
                                              hint=f'did you mean "{close}"?' if close else None))
            missing.setdefault(m.target, []).append(m)
        registered.update(r.op_name for r in regs)
        regs = [r for r in regs if allowed is None or r.system or r.op_name in allowed]
        for reg in regs if written_keys else ():
            for arg in (arg for call in reg.calls for arg in call.args if arg.helpers):
                helper_origins[arg.loc] = [written_keys[key] for key in dict.fromkeys(arg.helpers)
                                           if key in written_keys]
        built = []
        errors += [(e.location, e) for e in file_errors]
        for reg in regs:
            try:
                built.append((build_op_def(reg), reg))
            except OpgenError as e:  # (in TF's order: a cause before the errors that follow from it)
                errors += [(reg.loc, error) for error in (e.errors if isinstance(e, OpgenErrors) else [e])]
        if scanned.shape_fn_definitions:
            defined_in.setdefault(path, scanned.shape_fn_definitions)
        # every header read, none declaring TF's named shape functions: naming one fails in g++
        undeclared_tf_fns = ("s" not in pp.tf_header_flags and not all_missing)
        for (op_def, shape_fn), reg in built:
            call = next((c for c in reg.calls if c.method == "SetShapeFn" and c.args), None)
            translation = scanned.translations.get(call.args[0].loc) if call is not None else None
            if undeclared_tf_fns and call is not None and shape_fn is not None and translation is None:
                warning = undeclared_tf_shape_fn_warning(shape_fn, scanned.declared_shape_fns, call.args[0].loc)
                if warning is not None:
                    shape_fn_warnings.append((call.args[0].loc, warning))
            if not is_tf_core_op(op_def.name):
                saved_model_warnings += _saved_model_warnings(op_def, reg)
            if core_ops is not None and is_tf_core_op(op_def.name) and not any(
                    fnmatch.fnmatchcase(op_def.name, glob) for glob in core_ops):
                core_registrations.append(reg)
            if call is not None and shape_fn is not None and translation is None and not builtin_shape_fn(shape_fn):
                # the project's function, defined in another unit (or in none opgen reads):
                # its translation is found once every unit is read; never the runtime's
                # built-in of its name
                source = _op_source(reg, None, call, None, f"{call.args[0].loc}: not read yet")
                register(op_def, source, path)
                declared = unqualified(shape_fn) in scanned.declared_shape_fns
                elsewhere.append((op_def, reg, call, shape_fn, declared, source,
                                  scanned.template_args.get(call.args[0].loc)))
                continue
            # (TF's own ops have the runtime's hand ports: no warning for them)
            if translation is not None and not is_tf_core_op(op_def.name):
                shape_fn_warnings += _translation_warnings(op_def, translation)
            register(op_def, _op_source(reg, shape_fn, call, translation), path)
            if shape_fn and call and unqualified(shape_fn) not in scanned.declared_shape_fns:
                shape_fn_warnings.append(_ShapeFnUse(shape_fn, call.args[0].loc, op_def.name))

    for op_def, reg, call, shape_fn, declared, source, template_args in elsewhere:
        if sources_by_op.get(op_def.name) is not source:
            continue  # a duplicate registration (an error)
        where = call.args[0].loc
        definitions = {path: meant for path, defs in defined_in.items() if (meant := defined_as(shape_fn, defs))}
        core = is_tf_core_op(op_def.name)  # (the runtime's port of TF's op: no warning of its shape function)
        if len(definitions) == 1 and len(meant := next(iter(definitions.values()))) == 1:
            translation = _instance(meant[0], template_args)
            shape_fn_warnings += [] if core else _translation_warnings(op_def, translation)
            resolved = _op_source(reg, None, call, translation)
        elif definitions or unqualified(shape_fn) in known_shape_fns():
            # never the runtime's function of another name's, nor one of several definitions
            why = (f"shape function '{shape_fn}' is defined in {len(definitions)} files ({', '.join(definitions)}): "
                   "which one the library links is not known" if definitions else
                   f"shape function '{shape_fn}' is the project's, and defined in none of the sources opgen reads")
            fix = "leave the others out of the sources" if definitions else "add the file defining it to the sources"
            if not core:
                text = (f"{where}: warning: {why} (op {op_def.name}: unknown output shapes without TensorFlow)\n"
                        f"  hint: {fix}, or give the runtime a Python port: opgen_runtime.register_shape_fn "
                        "(docs/shape-functions.md)")
                shape_fn_warnings.append((where, text))
            resolved = _op_source(reg, None, call, None, f"{where}: {why}")
        else:  # a library's own function opgen does not read (only the compiled library runs it)
            if not declared:
                shape_fn_warnings.append(_ShapeFnUse(shape_fn, where, op_def.name))
            resolved = _op_source(reg, shape_fn, call, None)
        sources_by_op[op_def.name] = registry.sources[op_def.name] = resolved

    for path in files.oplists:
        read.setdefault(path, len(read))
        try:
            op_list, lines = load_op_list_with_lines(path, cache=cache, jobs=jobs)
        except OpgenError as e:
            errors += [(error.location, error) for error in (e.errors if isinstance(e, OpgenErrors) else [e])]
            continue
        for op_def, line in zip(op_list.op, lines):
            registered.add(op_def.name)
            if allowed is None or op_def.name in allowed:
                register(op_def, OpSource(Location(path, line, 1 if line else 0), from_op_list=True))

    warnings: list[_Warning] = []
    for pattern in files.unmatched_excludes:
        unmatched = _unmatched_exclude_warning(pattern, exclude_origins.get(pattern))
        warnings.append((unmatched.location or Location(pattern), unmatched.format_warning()))
    condition_errors = [blamed for name, where in conditions
                        if (blamed := explanations.blamed(_condition_message(name), where, name)) is not None]
    if strict_includes:
        errors += [(e.location, e) for e in condition_errors]
    else:
        warnings += _as_warnings(condition_errors)
    explained = {(e.message, e.location) for e in condition_errors}
    notes, skip_errors = _skipped_notes([g for g in skipped.values()
                                         if (_condition_message(g.names[0]), g.location) not in explained],
                                        strict_defines)
    warnings += notes
    errors += [(e.location, e) for e in skip_errors]
    notes, choice_errors = _chosen_define_notes([c for c in chosen if (_condition_message(c.names[0]), c.condition)
                                                 not in explained], strict_defines)
    warnings += notes
    errors += [(e.location, e) for e in choice_errors]
    warnings += _as_warnings([explanations.explain(e) for e in unread])
    warnings += _shape_fn_warnings(shape_fn_warnings)
    warnings += saved_model_warnings
    errors = [(at, explanations.explain(e)) for at, e in errors]
    if helper_origins:
        errors = [(at, _with_helper_origin(e, helper_origins)) for at, e in errors]
    kernel_errors = [explanations.explain(e) for e in kernel_errors]
    if strict_kernels:
        errors += [(e.location, e) for e in kernel_errors]
    else:
        warnings += [(at, w + "\n  (kernel registration skipped)") for at, w in _as_warnings(kernel_errors)]
    # (a header blamed for an error needs its directory: it is not another library's to skip)
    warnings += [] if strict_includes else [
        (sites[0].location, f"{sites[0].location}: warning: {_missing_include_message(target, sites)}; skipped"
         + ("" if target in explanations.blamed_targets
            else f"\n  hint: {_missing_include_hint(sites[0], explanations)}"))
        for target, sites in missing.items()]
    if allow_file and allowed is not None and not errors:
        warnings += _as_warnings(_unmatched_allow_warnings(allow_file, allowed, registered))
    left_out = {reg.op_name for reg in core_registrations}
    warnings += _core_op_warnings(core_registrations)
    op_list = registry.export(include_internal)
    if len(op_list.op) == len(left_out & {op.name for op in op_list.op}) and not errors \
            and (require_ops or not kernels):
        internal = len(registry) - len(op_list.op)  # `_` ops, left out without include_internal
        nothing = _nothing_registered(sources, files, allowed is not None, len(left_out), internal)
        if require_ops:  # (a conclusion, after the findings it concludes from)
            errors.append((None, nothing))
        else:
            warnings.append((None, nothing.format_warning()))
    warnings = [(at, one_message(w)) for at, w in warnings]
    if errors:
        unique: dict[str, tuple[Location | None, OpgenError]] = {}  # an error in a header several files include: once
        for at, error in errors:
            unique.setdefault(error.format(), (at, error))
        raise GatherErrors(_in_source_order([*unique.values(), *warnings], read))
    if left_out:
        kept = [op for op in op_list.op if op.name not in left_out]
        del op_list.op[:]
        op_list.op.extend(kept)
    kernels.sort(key=lambda k: k.kernel_def.op)  # stable: source order within an op
    return GatherResult(op_list, {op.name: sources_by_op[op.name] for op in op_list.op if op.name in sources_by_op},
                        sorted(inputs), _in_source_order(warnings, read), kernels if files.cpp else None,
                        files.directories)
