"""Just enough of the C preprocessor for op libraries, aware of strings, raw strings and
comments (the lexer never looks inside them, so a doc line starting with `#` inside
`R"doc(...)doc"` is text, not a directive).

Handled: object- and function-like `#define` (with `#` stringizing, `##` pasting,
variadic `...`/`__VA_ARGS__`, GNU `, ## __VA_ARGS__` and C++20 `__VA_OPT__` and
`#__VA_OPT__` as g++ 12 -std=c++17 treats them), `#undef`, `#if/#ifdef/#ifndef/#elif/#elifdef/#elifndef/
#else/#endif` with `defined` and integer expressions, `#include` of the project's headers
(searched up to the project root, then `-I`; one that cannot be found is recorded and
skipped; `<...>` system headers and TensorFlow's own headers are skipped), `#pragma once`,
`#error`. Macros expand with hide sets as in C, so a macro never expands inside itself;
tokens produced by an expansion are located at the macro's use site, and remember where
in the macro's body they are written (the token's origin).
"""

from __future__ import annotations

import itertools
import math
import os
import re
import shlex
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from opgen.errors import Location, OpgenError, OpgenErrors
from opgen.globs import glob_list
from opgen.limits import (
    MAX_INCLUDES,
    MAX_MACRO_EXPANSION_TOKENS,
    MAX_MACRO_NESTING,
    MAX_TRANSLATION_UNIT_TOKENS,
    read_input_bytes,
)
from opgen.model import Registration
from opgen.spec.chains import REGISTER_MACROS
from opgen.spec.cpp_lexer import (
    BOL,
    END,
    HIDE,
    KIND,
    ORIGIN,
    POS,
    SPACE,
    SRC,
    TEXT,
    SourceFile,
    Token,
    parse_int_literal,
    relex,
    token_error,
    token_location,
    tokenize,
)
from opgen.spec.pp_expr import evaluate_if_expression
from opgen.spec.predefined import predefined_macros
from opgen.spec.tf_headers import MACROS_BY_FLAG, is_listed, tf_header_flags

MAX_INCLUDE_DEPTH = 200

# Headers of TensorFlow and its dependencies: an op library includes them for the C++
# declarations; they define no macro a REGISTER_OP chain needs. TF's framework headers
# are never read, even when an include directory (say TF's own) holds them; other
# `tensorflow/...` headers are read when found (op libraries inside a TF checkout) and
# skipped otherwise.
_NEVER_READ_PREFIXES = (
    "tensorflow/core/framework/", "tensorflow/core/platform/", "tensorflow/core/lib/",
    "tensorflow/core/util/", "tensorflow/core/public/", "tsl/", "xla/", "absl/", "third_party/",
    "Eigen/", "unsupported/", "google/protobuf/", "external/",
    # TF Lite's shim: opgen reads REGISTER_TF_OP_SHIM itself (opgen/spec/shim.py).
    "tensorflow/lite/kernels/shim/",
)
_EXTERNAL_INCLUDE_PREFIXES = ("tensorflow/", *_NEVER_READ_PREFIXES)
# Directories of the C library's, the kernel's and the compiler's own headers: a `<...>`
# include under them that cannot be found is a system header, never a project's.
_SYSTEM_DIRS = ("sys/", "bits/", "linux/", "asm/", "asm-generic/", "arpa/", "netinet/", "net/", "machine/",
                "gnu/", "c++/", "mach/", "mach-o/", "libkern/", "os/", "security/", "openssl/", "cuda/", "CL/", "GL/")
_DEFINE_OPTION_NAME = re.compile(r"([^\W\d]\w*)(\([^()]*\))?\Z")
_PROJECT_MARKERS = ("pyproject.toml", ".git")  # what marks a project's root directory


@dataclass(frozen=True)
class MissingInclude:
    """A `#include "..."` that no directory of the search path holds."""

    target: str  # as written between the quotes
    location: Location  # the file name in the #include line
    searched: tuple[str, ...]


@dataclass(frozen=True)
class UndefinedInCondition:
    """An identifier that `#if`/`#elif` read as 0 after some `#include "..."` of the same
    translation unit could not be found (which may be what defines it)."""

    name: str
    location: Location
    missing: tuple[MissingInclude, ...]  # the includes not found before this #if


@dataclass
class SkippedRegistrations:
    """Registrations (`REGISTER_OP(`, or a macro expanding to one) in a group of an `#if`
    chain that is not compiled because of macros that are not defined."""

    location: Location  # the first such macro in the deciding condition
    names: tuple[str, ...]  # the undefined macros that decided, in order
    together: bool = False  # only defining them all compiles the group (`#if A && B`), not each alone
    count: int = 0
    values: tuple[str, ...] = ()  # for each name, a value that compiles the group ("1", "2000")

    @property
    def build_configuration(self) -> bool:
        """Whether the group needs one of TF's build configuration macros or a platform macro
        (`#if GOOGLE_CUDA`, `#if GOOGLE_CUDA && MYPROJ_GPU`, `#ifdef EIGEN_USE_GPU`), so no
        project switch alone compiles it: the build opgen reads for leaves it out, not a
        forgotten -D."""
        return _build_configuration(self.names, self.together)


@dataclass(frozen=True)
class ChosenDefine:
    """A registration whose text expands a macro whose `#define` stands in a group of an `#if`
    chain that macros not defined chose (`#if V >= 2000 ... #else #define PREFIX(N) ... #endif`,
    V undefined): the op's name or spec is the build's only if the build leaves them undefined too."""

    names: tuple[str, ...]  # the undefined macros that decided, in order
    together: bool  # only defining them all changes the choice (`#if A && B`)
    condition: Location  # the first of them, where its `#if` reads it
    directive: str  # that `#if` line (`#if V >= 2000`)
    macro: str  # the macro the registration expands
    registration: Location  # its REGISTER_OP
    op_name: str | None  # the op it registers, when it could be read
    in_name: bool  # the macro writes the op's name (else other text of the chain)

    @property
    def build_configuration(self) -> bool:
        """As `SkippedRegistrations.build_configuration`: a choice the build opgen reads for makes."""
        return _build_configuration(self.names, self.together)


def _build_configuration(names: tuple[str, ...], together: bool) -> bool:
    """Whether undefined `names` (alone, or only `together`) that decided a conditional need one of
    TF's build configuration macros or a platform macro (`GOOGLE_CUDA`, `EIGEN_USE_GPU`)."""
    configuration = [name in BUILD_CONFIG_MACROS or name in PLATFORM_MACROS for name in names]
    return any(configuration) if together else all(configuration)


# The build's configuration macros, set with -D by the build (TF's .bazelrc and configure),
# not by a header: an undefined-in-#if check leaves them alone, and registrations they skip
# are noted apart from a project's own switches (opgen reads for a build without them).
BUILD_CONFIG_MACROS = frozenset({"GOOGLE_CUDA", "TENSORFLOW_USE_ROCM", "TENSORFLOW_USE_SYCL", "INTEL_MKL",
                                  "IS_MOBILE_PLATFORM", "SUPPORT_SELECTIVE_REGISTRATION", "ANDROID_TEGRA"})
# Platform and configuration macros of TF's platform.h and of builds in general: when one
# is undefined, that is the platform opgen reads for (a CPU build on Linux), not a forgotten
# project -D; registrations they skip are noted as a build configuration macro's.
PLATFORM_MACROS = frozenset({"PLATFORM_WINDOWS", "PLATFORM_POSIX", "PLATFORM_POSIX_ANDROID", "PLATFORM_GOOGLE",
                              "PLATFORM_GOOGLE_ANDROID", "PLATFORM_CHROMIUMOS", "PLATFORM_PORTABLE_GOOGLE",
                              "NDEBUG", "EIGEN_USE_GPU", "EIGEN_USE_THREADS", "CUDA_VERSION", "CUDNN_VERSION",
                              "TF_ENABLE_ONEDNN_OPTS", "ENABLE_ONEDNN_OPENMP", "ENABLE_MKL", "WIN32", "linux", "unix"})


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...] | None  # None: object-like
    variadic: bool
    body: tuple[Token, ...]
    va_opt: bool = False  # the body uses C++20 `__VA_OPT__(...)`
    # What chose the group of an #if chain the #define stands in (`Preprocessor._chosen_by`).
    chosen_by: tuple[_Deciding, ...] = ()


def parse_define_option(option: str) -> tuple[str, str]:
    """`-D NAME[=VALUE]` or `-D NAME(PARAMS)[=BODY]` -> (name with its parameter list,
    value); VALUE defaults to 1 as in g++."""
    name, eq, value = option.partition("=")
    m = _DEFINE_OPTION_NAME.match(name)
    if not m or m.group(1) == "defined":
        raise OpgenError(f"-D {option!r}: macro names must be identifiers (use -D NAME or -D NAME=VALUE)",
                         Location("<command-line>"))
    return name, (value if eq else "1")


def check_define_option(option: str) -> None:
    """One `-D` as `Preprocessor.run` reads it, alone: an OpgenError (at `<command-line>`) for
    a bad name, a value that does not lex (an unterminated string, comment or raw string) or
    a bad macro definition, so `[tool.opgen] defines` can report it at its own entry."""
    preprocessor = Preprocessor()
    preprocessor.macros = {}
    preprocessor._errors = []
    preprocessor._define_command_line(*parse_define_option(option))
    if preprocessor._errors:
        raise preprocessor._errors[0]


def parse_undefine_option(option: str) -> str:
    """`-U NAME` -> NAME."""
    if not option.isidentifier() or option == "defined":
        raise OpgenError(f"-U {option!r}: macro names must be identifiers (use -U NAME)", Location("<command-line>"))
    return option


class _Stream:
    """Tokens still to read: macro expansions pushed back (`pending`, a stack) in front
    of the rest of the file. A file's stream also carries its conditional state, so
    directives between the arguments of a macro invocation work as in g++."""

    __slots__ = ("active", "conds", "i", "pending", "toks")

    def __init__(self, toks: list[Token]):
        self.toks = toks
        self.i = 0
        self.pending: list[Token] = []
        self.conds: list[_Cond] | None = None  # None: not a file (a macro argument, an #if line)
        self.active = True

    def next(self) -> Token | None:
        if self.pending:
            return self.pending.pop()
        if self.i < len(self.toks):
            self.i += 1
            return self.toks[self.i - 1]
        return None

    def peek(self) -> Token | None:
        if self.pending:
            return self.pending[-1]
        return self.toks[self.i] if self.i < len(self.toks) else None


class _Deciding(NamedTuple):
    """The undefined switches (see `_undefined_switches`, their first tokens) whose definition
    would change a condition: each alone, or only `together` (`#if A && B`); with the value
    (`values[k]` for `tokens[k]`) that does ("1", "2000" for `#if V >= 2000`)."""

    tokens: tuple[Token, ...] = ()
    together: bool = False
    values: tuple[str, ...] = ()


_UNDECIDED = _Deciding()  # a condition no undefined switch decided


@dataclass
class _Cond:
    tok: Token  # the directive's name (`if`), for "unterminated" errors
    name: str  # "if", "ifdef" or "ifndef"
    active: bool  # this group's tokens are kept
    taken: bool  # some branch of this #if chain was taken
    seen_else: bool
    parent_active: bool
    # The undefined switches (see `_undefined_switches`) that decided: of the branch
    # taken, or else of the group being skipped (then `skipped` counts its registrations).
    undefined: _Deciding = _UNDECIDED
    skipped: SkippedRegistrations | None = None


class Preprocessor:
    """Preprocesses one translation unit at a time; `run(path)` returns its active tokens
    (directives removed, macros expanded)."""

    def __init__(self, defines: Iterable[str] = (), include_dirs: Iterable[str] = (), undefines: Iterable[str] = (),
                 external_includes: Iterable[str] = ()):
        self.include_dirs = [str(d) for d in include_dirs]
        self.external_includes = tuple(external_includes)  # fnmatch globs of other libraries' #include targets
        removed = {parse_undefine_option(u) for u in undefines}  # `-U` wins over the predefined macros and `-D`
        self._cmdline = [(name, value) for name, value in [*predefined_macros(removed),
                                                           *(parse_define_option(d) for d in defines)]
                         if name.split("(", 1)[0] not in removed]
        self._undefined_by_option = frozenset(removed)  # `-U X`: X left out on purpose, its skips not noted
        self.files_read: list[str] = []  # every file the last run() read, headers included
        # `#include "..."` files the last run() could not find; they are skipped, and the
        # caller decides whether that is an error (see gather's strict_includes).
        self.missing_includes: list[MissingInclude] = []
        # `#include <dir/file.h>` files (not the system's) the last run() could not find:
        # not reported, only named as the likely cause of an undefined name.
        self.missing_project_includes: list[MissingInclude] = []
        # identifiers #if read as 0 after a missing include (the caller warns; see gather)
        self.undefined_in_conditions: list[UndefinedInCondition] = []
        # groups of #if chains skipped for undefined switches that hold registrations
        self.skipped_registrations: list[SkippedRegistrations] = []
        self._undefined = _UNDECIDED  # the undefined switches that decided the last condition read
        self._registering: dict[int, tuple[Macro, bool]] = {}  # id(macro) -> (macro, expands to a registration)
        self._search_dirs: dict[tuple[str, bool], list[str]] = {}  # (including file's directory, <...>) -> search path
        self._nesting = 0
        self._expansion_budget = MAX_MACRO_EXPANSION_TOKENS
        self._includes = 0  # #include expansions of this translation unit (MAX_INCLUDES)
        self._tokens_left = MAX_TRANSLATION_UNIT_TOKENS  # tokens its files may still hold
        self._include_chain: list[Token] = []  # the `#include`s of the files being read, outermost first
        self._including_conds: list[list[_Cond]] = []  # the open conditionals of the files including the one read
        # the macros chosen by undefined switches (`Macro.chosen_by`) the unit expanded, by name
        self._chosen_used: dict[str, Macro] = {}

    def run(self, path: str) -> list[Token]:
        """The active tokens of the translation unit `path`. A bad directive or macro
        invocation is skipped and reading goes on, so that every independent error is
        found; they are raised together at the end."""
        self._nesting = 0  # expand_list calls on the Python stack (macro arguments within arguments)
        self._expansion_budget = MAX_MACRO_EXPANSION_TOKENS  # tokens all expansions of this file may produce
        self._includes = 0
        self._tokens_left = MAX_TRANSLATION_UNIT_TOKENS
        self._include_chain = []
        self._including_conds = []
        self._chosen_used = {}
        self.macros: dict[str, Macro] = {}
        self._once: set[str] = set()
        self.files_read = []
        self.missing_includes = []
        self.missing_project_includes = []
        self.undefined_in_conditions = []
        self.skipped_registrations = []
        self._tf_macros_defined: set[str] = set()  # `tf_headers` flags whose macros this unit has
        self.tf_header_flags: set[str] = set()  # the `tf_headers` flags of the TF headers it includes
        self.file_function_macros: set[str] = set()  # function-like macros the unit's files define (typo hints)
        self._errors: list[OpgenError] = []
        for name, value in self._cmdline:
            self._define_command_line(name, value)
        out: list[Token] = []
        self._file(path, self._read(path, None), out, 0)
        if self._errors:
            self.skipped_registrations = []  # a broken file's conditionals say nothing more
            raise self._errors[0] if len(self._errors) == 1 else OpgenErrors(self._errors)
        return out

    def _define_command_line(self, name: str, value: str) -> None:
        toks = tokenize(SourceFile("<command-line>", f"{name} {value}"))  # as `#define NAME VALUE`
        self._define(toks[0], toks)

    # ---------------------------------------------------------------- files

    def _read(self, path: str, at: Token | None) -> str:
        try:
            data = read_input_bytes(path, "source file")  # regular files only, size-limited
        except OpgenError as e:
            raise OpgenError(e.message, _at(at, path) if at is not None else e.location, e.hint) from None
        wide = _wide_encoding(data)
        if wide:
            encoding, iconv_name, why = wide
            raise OpgenError(f"{'source file' if at is None else 'included file ' + path} is not UTF-8: it looks like "
                             f"{encoding} ({why})", _at(at, path) if at is not None else Location(path, 1, 1),
                             hint=f"save it as UTF-8 (an editor's encoding setting, or `iconv -f {iconv_name} -t UTF-8 "
                                  f"{shlex.quote(path)} > NEW`): opgen, like g++, reads sources as UTF-8")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:  # g++ takes any bytes in comments and literals: see cpp_lexer.check_decoded
            text = data.decode("utf-8-sig", "surrogateescape")
        return text.replace("\r\n", "\n").replace("\r", "\n")

    def _file(self, path: str, text: str, out: list[Token], depth: int, read: bool = True) -> None:
        """Preprocess `text`, the file `path` (`read`: a file read from disk, which the
        unit depends on; else text standing in for a TF header, `tf_headers`)."""
        if read:
            self.files_read.append(path)
        src = SourceFile(path, text)
        toks = tokenize(src, self._tokens_left)
        if len(toks) > self._tokens_left:
            at = toks[self._tokens_left]
            self._tokens_left = -1  # reported once; the unit's other #includes are not read
            raise OpgenError(f"more than {MAX_TRANSLATION_UNIT_TOKENS} tokens in this translation unit (opgen's limit)",
                             token_location(at),
                             hint="split the source into several files (TensorFlow's whole op registry is about "
                                  "100,000 tokens); a file that registers no op, such as a data table, can be left "
                                  "out with [tool.opgen] exclude or --exclude")
        self._tokens_left -= len(toks)
        stream = _Stream(toks)
        conds: list[_Cond] = []
        stream.conds = conds
        macros = self.macros
        append = out.append
        while True:
            if stream.pending:
                tok = stream.pending.pop()
            elif stream.i < len(stream.toks):
                tok = stream.toks[stream.i]
                stream.i += 1
                if tok[BOL] and tok[TEXT] == "#" and tok[KIND] == "op":
                    try:
                        stream.active = self._directive(tok, stream, conds, stream.active, out, depth)
                    except OpgenError as e:  # the directive's line is consumed: go on after it
                        self._errors.append(e)
                    continue
                if not stream.active:
                    if tok[KIND] == "id" and self._registers(tok, stream):
                        self._count_skipped(conds)
                    continue
            else:
                break
            kind = tok[KIND]
            if kind == "id":
                macro = macros.get(tok[TEXT])
                hide = tok[HIDE]
                if macro is not None and (hide is None or macro.name not in hide):
                    try:
                        if self._expand(tok, macro, stream):
                            continue
                    except OpgenError as e:  # the invocation is dropped
                        self._errors.append(e)
                        continue
            elif kind == "bad":
                self._errors.append(token_error(tok, _bad_literal_message(tok)))
                continue
            append(tok)
        if conds:
            c = conds[-1]
            self._errors.append(OpgenError(f"unterminated #{c.name}: no matching #endif", token_location(c.tok),
                                           hint=f"add #endif where the #{c.name} group ends"))

    def _registers(self, tok: Token, stream: _Stream) -> bool:
        """Whether the skipped `tok` starts a registration: `REGISTER_OP(` or a call of a
        macro defined at that point that expands to one."""
        nxt = stream.toks[stream.i] if stream.i < len(stream.toks) else None
        if nxt is None or nxt[TEXT] != "(":
            return False
        if tok[TEXT] in REGISTER_MACROS:
            return True
        macro = self.macros.get(tok[TEXT])
        return macro is not None and self._macro_registers(macro, set())

    def _macro_registers(self, macro: Macro, seen: set[str]) -> bool:
        cached = self._registering.get(id(macro))
        if cached is not None and cached[0] is macro:
            return cached[1]
        seen.add(macro.name)
        result = False
        for t in macro.body:
            if t[KIND] != "id":
                continue
            inner = self.macros.get(t[TEXT])
            if t[TEXT] in REGISTER_MACROS or (inner is not None and inner.name not in seen
                                              and self._macro_registers(inner, seen)):
                result = True
                break
        self._registering[id(macro)] = (macro, result)
        return result

    def _count_skipped(self, conds: list[_Cond]) -> None:
        """Count a registration against the outermost skipped group (the one whose #if
        chain decided), when undefined switches decided it."""
        boundary = next(c for c in reversed(conds) if c.parent_active)
        if boundary.skipped is None:
            deciding = boundary.undefined
            off = [t[TEXT] in self._undefined_by_option for t in deciding.tokens]
            # (`#if A && B` with `-U A`: defining B alone compiles nothing either)
            if not deciding.tokens or (any(off) if deciding.together else all(off)):
                return
            boundary.skipped = SkippedRegistrations(token_location(deciding.tokens[0]),
                                                    tuple(t[TEXT] for t in deciding.tokens),  # (each once: _deciding)
                                                    deciding.together, values=deciding.values)
            self.skipped_registrations.append(boundary.skipped)
        boundary.skipped.count += 1

    def _chosen_by(self, conds: list[_Cond], hash_tok: Token, name: str) -> tuple[_Deciding, ...]:
        """What chose the groups the `#define` of `name` at `hash_tok` stands in: the undefined
        switches that decided each open conditional of its file and of the files including it,
        but `name` and those defined since (an include guard's, a default's: `#ifndef X` then
        `#define X`) and those `-U` leaves undefined on purpose; nothing for the text standing in
        for TF's headers."""
        if hash_tok[SRC].path.startswith("<"):
            return ()
        chosen = []
        for group in (*self._including_conds, conds):
            for c in group:
                deciding = c.undefined
                if not deciding.tokens:
                    continue
                kept = [k for k, t in enumerate(deciding.tokens) if t[TEXT] != name
                        and t[TEXT] not in self.macros and t[TEXT] not in self._undefined_by_option]
                if len(kept) == len(deciding.tokens):
                    chosen.append(deciding)
                elif kept and not deciding.together:  # (together, the others decide nothing any more)
                    chosen.append(_Deciding(tuple(deciding.tokens[k] for k in kept), False,
                                            tuple(deciding.values[k] for k in kept)))
        return tuple(chosen)

    def chosen_defines(self, tokens: list[Token], regs: Sequence[Registration]) -> list[ChosenDefine]:
        """The registrations among the last run()'s `tokens` (each from its `REGISTER_OP(` to the
        `;` ending its statement) whose text a macro chosen by undefined switches wrote
        (`Macro.chosen_by`: a token it expanded to has it in its hide set): one per registration
        and deciding switches, naming the macro that writes the op's name when one does. The
        code of a shape function (`.SetShapeFn(...)`) is not the op's text: its `return
        TFOkStatus;` compiles either way. `regs`: the registrations read from `tokens`, for
        their op names."""
        used = self._chosen_used
        if not used:  # (nearly always: no scan)
            return []
        op_names = {r.loc: r.op_name for r in regs}
        found: dict[tuple[int, tuple[str, ...]], ChosenDefine] = {}
        start = -1  # the statement's REGISTER_OP, -1 outside one
        depth = 0
        named = False  # the op name's `(...)` is closed
        shape_fn = False  # in `.SetShapeFn(...)`
        for i, t in enumerate(tokens):
            text = t[TEXT]
            if start < 0:
                if text not in REGISTER_MACROS or i + 1 == len(tokens) or tokens[i + 1][TEXT] != "(":
                    continue
                start, depth, named, shape_fn = i, 0, False, False
            elif t[KIND] == "op":
                if text in _OPENING:
                    depth += 1
                elif text in _CLOSING:
                    depth -= 1
                    named = named or depth == 0
                    shape_fn = shape_fn and depth > 0
                elif text == ";" and depth <= 0:
                    start = -1
                    continue
            elif text == "SetShapeFn" and depth == 0:
                shape_fn = True
            hide = t[HIDE]
            if hide is None or shape_fn or hide.isdisjoint(used):
                continue
            in_name = depth > 0 and not named
            for name in sorted(hide.intersection(used)):
                for deciding in used[name].chosen_by:
                    key = (start, tuple(switch[TEXT] for switch in deciding.tokens))
                    known = found.get(key)
                    if known is not None and (known.in_name or not in_name):
                        continue
                    where = token_location(tokens[start])
                    found[key] = ChosenDefine(key[1], deciding.together, token_location(deciding.tokens[0]),
                                              _directive_line(deciding.tokens[0]), name, where,
                                              op_names.get(where), in_name)
        return list(found.values())

    # ---------------------------------------------------------------- directives

    def _directive(self, hash_tok: Token, stream: _Stream, conds: list[_Cond], active: bool,
                   out: list[Token] | None, depth: int) -> bool:
        """Consume one directive line (`hash_tok` is its `#`); returns whether the
        following tokens are active. `out` is None between macro arguments."""
        toks = stream.toks
        start = stream.i
        n = len(toks)
        end = start
        while end < n and not toks[end][BOL]:
            end += 1
        stream.i = end
        line = toks[start:end]
        if not line:
            return active  # the null directive
        name_tok = line[0]
        name = name_tok[TEXT]
        rest = line[1:]
        if name in ("if", "ifdef", "ifndef"):
            if not active:
                conds.append(_Cond(name_tok, name, False, True, False, False))
                return False
            try:
                value = self._condition(name, name_tok, rest)
            except OpgenError:  # no branch of a broken #if is taken
                conds.append(_Cond(name_tok, name, False, True, False, True))
                raise
            conds.append(_Cond(name_tok, name, value, value, False, True, self._undefined))
            return value
        if name in ("elif", "elifdef", "elifndef", "else"):
            if not conds:
                raise token_error(name_tok, f"#{name} without #if")
            c = conds[-1]
            if c.seen_else:
                raise token_error(name_tok, f"#{name} after #else")
            c.skipped = None
            if name == "else":
                c.seen_else = True
                c.active = c.parent_active and not c.taken
            elif c.parent_active and c.taken:
                c.active = False
                # A branch was taken: what decided it decides an #else right after it, not an
                # #elif (its own condition was never read) nor anything after one.
                c.undefined = _UNDECIDED
            elif c.parent_active and not c.taken:
                c.active = self._condition(name[2:] if name != "elif" else "if", name_tok, rest)
                c.undefined = self._undefined  # of this branch, taken or skipped
            else:
                c.active = False
            c.taken = c.taken or c.active
            return c.active
        if name == "endif":
            if not conds:
                raise token_error(name_tok, "#endif without #if")
            return conds.pop().parent_active
        if not active:
            return False
        if name == "define":
            self._define(name_tok, rest, self._chosen_by(conds, hash_tok, rest[0][TEXT] if rest else ""))
        elif name == "undef":
            if not rest or rest[0][KIND] != "id":
                raise token_error(rest[0] if rest else name_tok, "macro names must be identifiers")
            self.macros.pop(rest[0][TEXT], None)
        elif name == "include":
            if out is None:
                raise token_error(name_tok, "#include inside the arguments of a macro invocation")
            self._include(name_tok, rest, out, depth, conds)
        elif name == "pragma":
            if rest and rest[0][TEXT] == "once":
                self._once.add(os.path.realpath(hash_tok[SRC].path))
        elif name == "error":
            text = hash_tok[SRC].text[rest[0][POS] : rest[-1][END]] if rest else ""
            raise token_error(name_tok, f"#error {text}".rstrip())
        elif name not in ("warning", "line", "ident", "sccs", "include_next", "import"):
            raise token_error(name_tok, f"invalid preprocessing directive #{name}")
        return True

    def _condition(self, name: str, name_tok: Token, rest: list[Token]) -> bool:
        """The value of a condition; `self._undefined`: the undefined switches that decided it."""
        self._undefined = _UNDECIDED
        if name in ("ifdef", "ifndef", "def", "ndef"):
            if not rest or rest[0][KIND] != "id":
                raise token_error(rest[0] if rest else name_tok, f"no macro name given in #{name_tok[TEXT]} directive")
            switches = _undefined_switches([rest[0]], self.macros)
            self._undefined = _Deciding(switches, False, ("1",) * len(switches))
            return (rest[0][TEXT] in self.macros) == (name in ("ifdef", "def"))
        if not rest:
            raise token_error(name_tok, f"#{name_tok[TEXT]} with no expression")
        final, undefined, defined_slots = self._resolve_defined(rest)
        value = evaluate_if_expression(final, name_tok) != 0
        if undefined:
            self._undefined = _deciding(final, undefined, value, name_tok, defined_slots)
        return value

    def _resolve_defined(self, toks: list[Token]) -> tuple[list[Token], dict[str, tuple[Token, list[int]]],
                                                            dict[int, Token]]:
        """Macro-expand an #if line, replacing `defined X` / `defined(X)` (and
        `__has_include(...)`) by 1 or 0 where it stands after expansion, its operand
        unexpanded, as g++ does (`#define HAS_X defined(X)` then `#if HAS_X`); then turn the
        remaining identifiers into 0 (`true` into 1) as #if does. Also: for each undefined
        switch (see `_undefined_switches`), at its first token, where the result
        has a 0 that defining it would make 1; and where `defined X` stood (index -> X)."""
        tested: set[str] = set()  # operands of `defined`: `defined(X) && X > 1` reads X as 0 on purpose
        operands: dict[int, Token] = {}  # index of the 0 of `defined X` in `expanded` -> X
        expanded: list[Token] = []
        stream = _Stream(toks)
        macros = self.macros
        self._nesting += 1
        try:
            while (t := stream.next()) is not None:
                if t[KIND] != "id":
                    expanded.append(t)
                    continue
                text = t[TEXT]
                if text == "defined":
                    operand = stream.next()
                    paren = operand is not None and operand[TEXT] == "("
                    if paren:
                        operand = stream.next()
                    if operand is None or operand[KIND] != "id":
                        raise token_error(t, "operator \"defined\" requires an identifier")
                    if paren and ((close := stream.next()) is None or close[TEXT] != ")"):
                        raise token_error(t, "missing ')' after \"defined\"")
                    tested.add(operand[TEXT])
                    operands[len(expanded)] = operand
                    expanded.append(("num", "1" if operand[TEXT] in macros else "0", *t[2:]))
                    continue
                if text == "__has_include":
                    call = [t]
                    while (nxt := stream.next()) is not None:
                        call.append(nxt)
                        if nxt[TEXT] == ")":
                            break
                    expanded.append(("num", self._has_include(call, 0)[0], *t[2:]))
                    continue
                if self._expanded(t, stream):
                    continue
                expanded.append(t)
        finally:
            self._nesting -= 1
        named = [(k, operands.get(k) or t) for k, t in enumerate(expanded) if k in operands or t[KIND] == "id"]
        switches = {t[TEXT] for t in _undefined_switches([t for _, t in named], self.macros)}
        undefined: dict[str, tuple[Token, list[int]]] = {}  # name -> (its first token, where it reads as 0)
        for k, t in named:
            if t[TEXT] in switches:
                undefined.setdefault(t[TEXT], (t, []))[1].append(k)
        if self.missing_includes:
            missing = tuple(self.missing_includes)
            self.undefined_in_conditions += [
                UndefinedInCondition(t[TEXT], token_location(t), missing) for t in expanded
                if t[KIND] == "id" and t[TEXT] not in ("true", "false") and t[TEXT] not in tested
                and t[TEXT] not in BUILD_CONFIG_MACROS and not _reserved(t[TEXT])]
        final = [("num", "1" if t[TEXT] == "true" else "0", *t[2:]) if t[KIND] == "id" else t for t in expanded]
        return final, undefined, operands

    def _has_include(self, toks: list[Token], i: int) -> tuple[str, int]:
        """`__has_include("x.h")` / `__has_include(<x>)` at `i` -> ("1" or "0", index after).
        A header on the search path is present; so are system headers, and TensorFlow's
        when its 2.21 wheel ships them (`tf_headers`): what g++ finds with TF's flags."""
        t = toks[i]
        j = i + 1
        if j >= len(toks) or toks[j][TEXT] != "(":
            raise token_error(t, "missing '(' after \"__has_include\"")
        close = next((k for k in range(j + 1, len(toks)) if toks[k][TEXT] == ")"), None)
        if close is None or close == j + 1:
            raise token_error(t, "missing '(\"FILENAME\")' or '(<FILENAME>)' after \"__has_include\"")
        inner = toks[j + 1 : close]
        system = inner[0][KIND] != "str"
        target = "".join(tok[TEXT] for tok in inner[1:-1]) if system else inner[0][TEXT][1:-1]
        if is_listed(target):
            found = tf_header_flags(target) is not None
        else:
            found = system or target.startswith(_EXTERNAL_INCLUDE_PREFIXES)
        found = found or any(os.path.isfile(os.path.join(d, target)) for d in self.search_path(t[SRC].path, system))
        return ("1" if found else "0"), close + 1

    def _define(self, name_tok: Token, rest: list[Token], chosen_by: tuple[_Deciding, ...] = ()) -> None:
        if not rest or rest[0][KIND] != "id":
            raise token_error(rest[0] if rest else name_tok, "macro names must be identifiers")
        name_t = rest[0]
        name = name_t[TEXT]
        if name == "defined":
            raise token_error(name_t, "\"defined\" cannot be used as a macro name")
        body = rest[1:]
        params: tuple[str, ...] | None = None
        variadic = False
        if body and body[0][TEXT] == "(" and body[0][POS] == name_t[4]:
            plist: list[str] = []
            i = 1
            while True:
                if i >= len(body):
                    raise token_error(body[0], f"missing ')' in parameter list of macro \"{name}\"")
                t = body[i]
                if t[TEXT] == ")" and not plist:
                    i += 1
                    break
                if t[TEXT] == "...":
                    variadic = True
                    plist.append("__VA_ARGS__")
                    i += 1
                elif t[KIND] == "id" and t[TEXT] not in plist:
                    plist.append(t[TEXT])
                    i += 1
                    if i < len(body) and body[i][TEXT] == "...":
                        variadic = True
                        i += 1
                else:
                    what = "duplicate macro parameter" if t[KIND] == "id" else "expected parameter name, found"
                    raise token_error(t, f"{what} \"{t[TEXT]}\" in macro \"{name}\"")
                if i < len(body) and body[i][TEXT] == ")":
                    i += 1
                    break
                if i >= len(body) or body[i][TEXT] != "," or variadic:
                    found = body[i][TEXT] if i < len(body) else "end of line"
                    raise token_error(body[i] if i < len(body) else t,
                                      f"expected ',' or ')' in parameter list of macro \"{name}\", found \"{found}\"")
                i += 1
            params = tuple(plist)
            body = body[i:]
        for t in body:
            if t[KIND] == "bad":
                raise token_error(t, _bad_literal_message(t))
        if body and body[0][TEXT] == "##":
            raise token_error(body[0], "'##' cannot appear at either end of a macro expansion")
        if body and body[-1][TEXT] == "##":
            raise token_error(body[-1], "'##' cannot appear at either end of a macro expansion")
        if params is not None:
            for i, t in enumerate(body):
                operand = body[i + 1][TEXT] if i + 1 < len(body) else None
                if t[TEXT] == "#" and t[KIND] == "op" and operand not in params and not (
                        variadic and operand == "__VA_OPT__"):  # C++20 `#__VA_OPT__(...)`
                    raise token_error(t, "'#' is not followed by a macro parameter")
        va_opt = False
        inside_until = -1  # index of the `)` closing the __VA_OPT__ being read
        for i, t in enumerate(body):
            if t[TEXT] == "__VA_OPT__" and t[KIND] == "id":
                if not variadic:
                    raise token_error(t, "__VA_OPT__ can only appear in the expansion of a variadic macro")
                if i < inside_until:
                    raise token_error(t, "__VA_OPT__ may not appear in a __VA_OPT__")
                end = _va_opt_end(body, i)
                if end is None:
                    raise token_error(t, "unterminated __VA_OPT__: expected '(' and a matching ')'")
                inside_until = end
                va_opt = True
        self.macros[name] = Macro(name, params, variadic, tuple(body), va_opt, chosen_by)
        if params is not None and name_tok[SRC].path != "<command-line>":
            self.file_function_macros.add(name)

    def _include(self, name_tok: Token, rest: list[Token], out: list[Token], depth: int,
                 conds: list[_Cond]) -> None:
        if not rest:
            raise token_error(name_tok, "#include expects \"FILENAME\" or <FILENAME>")
        if rest[0][KIND] == "id":  # a computed include: `#include MACRO`
            rest = self.expand_list(rest)
        first = rest[0] if rest else name_tok
        if first[KIND] == "str" and first[TEXT].startswith('"'):
            target, system = first[TEXT][1:-1], False
        elif first[TEXT] == "<":
            target, system = "".join(t[TEXT] for t in rest[1:] if t[TEXT] != ">"), True
        else:
            raise token_error(first, "#include expects \"FILENAME\" or <FILENAME>")
        if not target:  # (it would name the including file's directory)
            raise token_error(first, "empty filename in #include")
        if target.startswith(_NEVER_READ_PREFIXES):
            self._tf_header(target, out, depth)
            return
        dirs = self.search_path(name_tok[SRC].path, system)
        for d in dirs:
            candidate = os.path.join(d, target) if d else target
            if os.path.exists(candidate):  # not a regular file: an error when read, never a hang
                break
        else:
            if target.startswith(_EXTERNAL_INCLUDE_PREFIXES):
                self._tf_header(target, out, depth)
                return
            missing = MissingInclude(target, token_location(first), tuple(d or "." for d in dirs))
            external = not system and glob_list(self.external_includes).first(target) is not None
            if not system and not external:
                # A header of a dependency, of another project or generated by a build:
                # skipped, like the system headers (an op library rarely needs them).
                self.missing_includes.append(missing)
            elif external or ("/" in target and not target.startswith(_SYSTEM_DIRS)):
                # `<my_project/register.h>`, or a header the project calls another library's
                # ([tool.opgen] external_includes): skipped silently like a system header, but
                # named when a chain then needs something undefined.
                self.missing_project_includes.append(missing)
            return
        candidate = os.path.normpath(candidate) if not candidate.startswith("./") else candidate[2:]
        if os.path.realpath(candidate) in self._once:
            return
        if depth + 1 >= MAX_INCLUDE_DEPTH:
            raise self._too_deep(name_tok, candidate, depth + 1)
        if self._tokens_left < 0:  # past MAX_TRANSLATION_UNIT_TOKENS
            return
        self._includes += 1
        if self._includes > MAX_INCLUDES:
            if self._includes == MAX_INCLUDES + 1:  # reported once; the unit's other #includes are not read
                raise self._too_many_includes(name_tok)
            return
        self._include_chain.append(name_tok)
        self._including_conds.append(conds)
        try:
            self._file(candidate, self._read(candidate, first), out, depth + 1)
        finally:
            self._include_chain.pop()
            self._including_conds.pop()

    def _tf_header(self, target: str, out: list[Token], depth: int) -> None:
        """A TensorFlow header, not read: the configuration macros it would define (once per
        unit, like its include guard; `opgen.spec.tf_headers`)."""
        flags = tf_header_flags(target) or ""
        self.tf_header_flags.update(flags)
        for flag in flags:
            if flag in MACROS_BY_FLAG and flag not in self._tf_macros_defined:
                self._tf_macros_defined.add(flag)
                header, text = MACROS_BY_FLAG[flag]
                self._file(f"<{header}>", text, out, depth + 1, read=False)

    def _too_deep(self, name_tok: Token, candidate: str, depth: int) -> OpgenError:
        """The error at the #include nested beyond MAX_INCLUDE_DEPTH: g++'s message, naming the
        first cycle of files along the include chain, at the #include that closed it."""
        includes = [*self._include_chain, name_tok]  # includes[k] is in files[k] and reads files[k + 1]
        files = [t[SRC].path for t in includes] + [candidate]
        seen: dict[str, int] = {}
        for j, f in enumerate(files):
            i = seen.setdefault(os.path.realpath(f), j)
            if i != j:
                return OpgenError(
                    f"#include nested depth {depth} exceeds maximum of {MAX_INCLUDE_DEPTH}: "
                    f"the files include each other: {' -> '.join(files[i : j + 1])}",
                    token_location(includes[j - 1]),
                    hint=f"add `#pragma once` (or an #ifndef include guard) to {files[i]}")
        return OpgenError(f"#include nested depth {depth} exceeds maximum of {MAX_INCLUDE_DEPTH}",
                          token_location(name_tok), hint="include the most deeply nested headers directly")

    def _too_many_includes(self, name_tok: Token) -> OpgenError:
        """The error at the #include beyond MAX_INCLUDES, naming the chain of includes that led to it."""
        sites = [str(token_location(t)) for t in [*self._include_chain, name_tok]]
        if len(sites) > 12:
            sites[6:-5] = [f"... {len(sites) - 11} more ..."]
        return OpgenError(
            f"more than {MAX_INCLUDES} #include expansions in this translation unit (opgen's limit); "
            f"include chain: {' -> '.join(sites)}",
            token_location(name_tok),
            hint="headers without include guards that include each other more than once multiply: add "
            "`#pragma once` or an #ifndef guard to them")

    def search_path(self, including: str, system: bool) -> list[str]:
        """Where `#include "..."` looks, as projects are laid out: the including file's
        directory and each directory above it up to the project root (see
        `project_root`), then the -I directories. `<...>` looks where g++ does, in the -I
        directories, then in the project root, as if the build passed `-I ROOT` last (an op
        library's usual `#include <my_project/...>`); never in the including file's
        directory nor the ones between it and the root."""
        here = os.path.dirname(including)
        key = (here, system)
        dirs = self._search_dirs.get(key)
        if dirs is None:
            ancestors = _ancestors_up_to_root(here)
            dirs = self._search_dirs[key] = ([*self.include_dirs, ancestors[-1]] if system
                                             else [*ancestors, *self.include_dirs])
        return dirs

    # ---------------------------------------------------------------- macro expansion

    def expand_list(self, toks: list[Token]) -> list[Token]:
        """Fully macro-expand a token list on its own (macro arguments, #if lines)."""
        stream = _Stream(toks)
        out: list[Token] = []
        self._nesting += 1
        try:
            while (tok := stream.next()) is not None:
                if tok[KIND] != "id" or not self._expanded(tok, stream):
                    out.append(tok)
        finally:
            self._nesting -= 1
        return out

    def _expanded(self, tok: Token, stream: _Stream) -> bool:
        """Expand `tok` onto `stream` when it invokes a macro not hidden from it (inside
        `expand_list`): True when it did."""
        macro = self.macros.get(tok[TEXT])
        hide = tok[HIDE]
        if macro is None or (hide is not None and macro.name in hide):
            return False
        if self._nesting > MAX_MACRO_NESTING:
            raise token_error(tok, f"macro calls nested more than {MAX_MACRO_NESTING} deep in arguments "
                              "(opgen's limit)")
        return self._expand(tok, macro, stream)

    def _expand(self, name_tok: Token, macro: Macro, stream: _Stream) -> bool:
        """Push the expansion of `macro` (invoked by `name_tok`) back onto `stream`;
        False when a function-like macro's name is not followed by `(`."""
        site = name_tok[2:5]
        result: list[Token]
        if macro.params is None:
            hide: frozenset[str] = (name_tok[HIDE] or frozenset()) | {macro.name}
            result = [(t[0], t[1], *site, False, hide, t[SPACE], (macro.name, t[SRC], t[POS])) for t in macro.body]
            result = self._paste(result, hide)
        else:
            nxt = stream.peek()
            if nxt is None or nxt[TEXT] != "(":
                return False
            stream.next()
            args, rparen, va_absent = self._collect_args(name_tok, macro, stream)
            # Prosser's rule: names hidden at both the macro name and its `)` stay hidden.
            hide = (name_tok[HIDE] or frozenset()) & (rparen[HIDE] or frozenset()) | {macro.name}
            result = self._substitute(macro, args, va_absent, site, hide)
        if self._expansion_budget < 0:  # reported at the expansion that went past it: the others are dropped
            return True
        if len(hide) > MAX_MACRO_NESTING:  # each rescan copies the hide set: a chain costs its depth squared
            raise token_error(name_tok, f"macro expansions nested more than {MAX_MACRO_NESTING} deep (opgen's limit) "
                              f"while expanding \"{macro.name}\": each macro's expansion expands the next")
        self._expansion_budget -= len(result)
        if macro.chosen_by:
            self._chosen_used[macro.name] = macro
        if self._expansion_budget < 0:
            raise token_error(name_tok, f"macro expansion of this file exceeds {MAX_MACRO_EXPANSION_TOKENS} tokens "
                              f"(opgen's limit) while expanding \"{macro.name}\"")
        stream.pending.extend(reversed(result))
        return True

    def _collect_args(self, name_tok: Token, macro: Macro, stream: _Stream) -> tuple[list[list[Token]], Token, bool]:
        """The arguments of an invocation (after its `(`), the closing `)`, and whether the
        variadic argument was left out (`F(a)` for `F(a, ...)`, not `F(a,)`)."""
        args: list[list[Token]] = [[]]
        depth = 0
        nparams = len(macro.params or ())
        while True:
            t = stream.next()
            if t is None:
                raise token_error(name_tok, f"unterminated argument list invoking macro \"{macro.name}\"")
            text = t[TEXT]
            if stream.conds is not None and t[HIDE] is None:  # a token of the file itself
                if t[BOL] and text == "#" and t[KIND] == "op":
                    stream.active = self._directive(t, stream, stream.conds, stream.active, None, 0)
                    continue
                if not stream.active:
                    continue
            if t[KIND] == "op":
                if text == "(":
                    depth += 1
                elif text == ")":
                    if depth == 0:
                        rparen = t
                        break
                    depth -= 1
                elif text == "," and depth == 0 and not (macro.variadic and len(args) == nparams):
                    args.append([])
                    continue
            elif t[KIND] == "bad":
                raise token_error(t, _bad_literal_message(t))
            args[-1].append(t)
        if nparams == 0 and args == [[]]:
            return [], rparen, False
        if len(args) < nparams:
            if macro.variadic and len(args) == nparams - 1:
                return [*args, []], rparen, True
            raise token_error(
                name_tok, f'macro "{macro.name}" requires {nparams} arguments, but only {len(args)} given'
            )
        if len(args) > nparams:
            raise token_error(name_tok, f'macro "{macro.name}" passed {len(args)} arguments, but takes just {nparams}')
        return args, rparen, False

    def _substitute(self, macro: Macro, args: list[list[Token]], va_absent: bool, site: tuple[SourceFile, int, int],
                    hide: frozenset[str]) -> list[Token]:
        params = {p: i for i, p in enumerate(macro.params or ())}
        body: Sequence[Token] = macro.body
        result: list[Token] = []
        expanded: dict[int, list[Token]] = {}
        if macro.va_opt:
            va = len(args) - 1
            expanded[va] = self.expand_list(args[va])

            def stringized(content: list[Token]) -> str:  # `#__VA_OPT__(content)`: content substituted, pasted
                return _stringize(self._substitute(replace(macro, body=tuple(content), va_opt=False), args,
                                                   va_absent, site, hide))

            body = _replace_va_opt(macro.body, bool(expanded[va]), stringized)
        i = 0
        while i < len(body):
            t = body[i]
            text = t[TEXT]
            if (text == "," and macro.variadic and i + 2 < len(body) and body[i + 1][TEXT] == "##"
                    and params.get(body[i + 2][TEXT]) == len(args) - 1):
                # GNU `, ## __VA_ARGS__`: the comma goes when the variadic argument is left
                # out; otherwise the argument follows it, unexpanded like any pasted one
                # (g++ -std=c++17 keeps the comma for an empty argument, `F(a,)`), spaced
                # as written in the invocation.
                if not va_absent:
                    result.append((t[0], text, *site, False, hide, t[SPACE], (macro.name, t[SRC], t[POS])))
                    if args[-1]:
                        result.extend(_with_hide(args[-1], hide, args[-1][0][SPACE]))
                i += 3
                continue
            if text == "#" and t[KIND] == "op" and i + 1 < len(body) and body[i + 1][TEXT] in params:
                arg = args[params[body[i + 1][TEXT]]]
                result.append(("str", _stringize(arg), *site, False, hide, t[SPACE], (macro.name, t[SRC], t[POS])))
                i += 2
                continue
            if t[KIND] == "id" and text in params:
                idx = params[text]
                pasted = (i > 0 and body[i - 1][TEXT] == "##") or (i + 1 < len(body) and body[i + 1][TEXT] == "##")
                if pasted:
                    arg = args[idx] or [("placemarker", "", *site, False, hide, t[SPACE], None)]
                else:
                    if idx not in expanded:
                        expanded[idx] = self.expand_list(args[idx])
                    arg = expanded[idx]
                result.extend(_with_hide(arg, hide, t[SPACE]))
            else:
                result.append((t[0], text, *site, False, hide, t[SPACE], (macro.name, t[SRC], t[POS])))
            i += 1
        return [t for t in self._paste(result, hide) if t[KIND] != "placemarker"]

    def _paste(self, toks: list[Token], hide: frozenset[str]) -> list[Token]:
        if not any(t[TEXT] == "##" and t[KIND] == "op" for t in toks):
            return toks
        out: list[Token] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t[TEXT] == "##" and t[KIND] == "op" and out and i + 1 < len(toks):
                left = out.pop()
                right = toks[i + 1]
                if left[KIND] == "placemarker":
                    out.append(right)
                elif right[KIND] == "placemarker":
                    out.append(left)
                else:
                    pasted = relex(left[TEXT] + right[TEXT], left)
                    if len(pasted) != 1:
                        raise token_error(left, f"pasting \"{left[TEXT]}\" and \"{right[TEXT]}\" "
                                          "does not give a valid preprocessing token")
                    out.append((*pasted[0][:6], hide, left[SPACE], left[ORIGIN]))
                i += 2
                continue
            out.append(t)
            i += 1
        return out


def _with_hide(arg: list[Token], hide: frozenset[str], space: bool) -> list[Token]:
    """An argument's tokens substituted for a parameter: their hide sets gain the macro's,
    and the first token takes the parameter's spacing, as in g++."""
    return [(a[0], a[1], a[2], a[3], a[4], False, (a[HIDE] or frozenset()) | hide, space if k == 0 else a[SPACE],
             a[ORIGIN]) for k, a in enumerate(arg)]


def _va_opt_end(body: tuple[Token, ...] | list[Token], i: int) -> int | None:
    """Index of the `)` closing `__VA_OPT__(` whose name is at `i`; None when unbalanced."""
    if i + 1 >= len(body) or body[i + 1][TEXT] != "(":
        return None
    depth = 0
    for j in range(i + 1, len(body)):
        text = body[j][TEXT]
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


def _replace_va_opt(
    body: tuple[Token, ...], has_va_args: bool, stringized: Callable[[list[Token]], str]
) -> list[Token]:
    """The body with each `__VA_OPT__(content)` replaced by its content when the variadic
    argument expands to tokens, else by a placemarker (C++20 [cpp.subst]); and each
    `#__VA_OPT__(content)` by a string literal: `stringized(content)`, else `""`
    ([cpp.stringize], as g++ 12 with -std=c++17 or c++20)."""
    out: list[Token] = []
    i = 0
    while i < len(body):
        t = body[i]
        if t[TEXT] == "__VA_OPT__" and t[KIND] == "id":
            end = _va_opt_end(body, i)
            assert end is not None  # checked by #define
            if out and out[-1][TEXT] == "#" and out[-1][KIND] == "op":
                hash_tok = out.pop()
                text = stringized(list(body[i + 2 : end])) if has_va_args else '""'
                out.append(("str", text, *hash_tok[2:]))
            elif has_va_args:
                content = list(body[i + 2 : end])
                if content:
                    content[0] = (*content[0][:7], t[SPACE], content[0][ORIGIN])
                out.extend(content)
            else:
                out.append(("placemarker", "", *t[2:]))
            i = end + 1
            continue
        out.append(t)
        i += 1
    return out


def project_root(directory: str) -> str:
    """The real path of the nearest directory at or above `directory` holding a
    pyproject.toml or .git, else the working directory when it is above `directory`,
    else `directory` itself."""
    start = os.path.realpath(directory or ".")
    d = start
    while True:
        if any(os.path.exists(os.path.join(d, m)) for m in _PROJECT_MARKERS):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    cwd = os.getcwd()
    return cwd if start == cwd or start.startswith(cwd.rstrip(os.sep) + os.sep) else start


def _ancestors_up_to_root(here: str) -> list[str]:
    """`here` and the directories above it up to its project root, spelled relative to
    `here` when `here` is relative ("src/ops", "src", "", "..")."""
    root = project_root(here)
    dirs = [here]
    real = os.path.realpath(here or ".")
    while real != root and os.path.dirname(real) != real:
        real = os.path.dirname(real)
        here = os.path.normpath(os.path.join(here or ".", ".."))
        dirs.append("" if here == "." else here)
    return dirs


def _deciding(final: list[Token], undefined: dict[str, tuple[Token, list[int]]], value: bool,
              where: Token, defined_slots: Container[int]) -> _Deciding:
    """The undefined macros (their first tokens) whose definition would change the
    condition's `value`, each alone, or else all of them together, with the values that do
    (`_trial_values`); `defined(NOPE)` in `!defined(NOPE)` does not decide that the condition
    is false. `defined_slots`: where `defined X` stood (1 once X is defined)."""

    def flips(assigned: Mapping[str, str]) -> bool:
        changed = list(final)
        for name, as_value in assigned.items():
            for k in undefined[name][1]:
                changed[k] = ("num", "1" if k in defined_slots else as_value, *final[k][2:])
        try:
            return (evaluate_if_expression(changed, where) != 0) != value
        except OpgenError:  # `1 / X` when X was 0 before: nothing to learn
            return False

    trials = {name: _trial_values(final, slots) for name, (_, slots) in undefined.items()}
    alone = [(name, v) for name in undefined if (v := next((v for v in trials[name] if flips({name: v})), None))]
    if alone:
        return _Deciding(tuple(undefined[name][0] for name, _ in alone), False, tuple(v for _, v in alone))
    if len(undefined) > 1:
        # each its own first values (`#if MAJOR == 2 && MINOR >= 4`), a bounded number of tries
        firsts = [trials[name][:3] for name in undefined]
        tries = itertools.product(*firsts) if math.prod(map(len, firsts)) <= _MAX_JOINT_TRIALS else iter(())
        together = next((values for values in tries if flips(dict(zip(undefined, values)))), None)
        if together is not None:
            return _Deciding(tuple(t for t, _ in undefined.values()), True, together)
    return _UNDECIDED


# Bounds on the values tried per undefined macro, and on the tries of several together: a
# condition reads few numbers, and each try evaluates it again.
_MAX_TRIAL_VALUES = 9
_MAX_JOINT_TRIALS = 27
_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">="})


def _trial_values(final: list[Token], slots: list[int]) -> list[str]:
    """The values a macro undefined in a condition (reading as 0 at `slots`) is tried with:
    1 (`#if MYPROJ_WITH_TF`), then each integer it is compared with and the one after it
    (`#if V >= 2000`, `#if V > 2000`, `#if V == 2`), then those of the rest of the condition
    (`#if V + 1 > 2000`), a few at most."""
    compared = []
    for k in slots:
        for op, number in ((k + 1, k + 2), (k - 1, k - 2)):
            if 0 <= number < len(final) and final[op][TEXT] in _COMPARISONS and final[number][KIND] == "num":
                compared.append(final[number])
    values = {"1": None}
    for t in (*compared, *final):
        if t[KIND] == "num" and (n := parse_int_literal(t[TEXT])) is not None:
            values.update({str(n): None, str(n + 1): None})
    return list(values)[:_MAX_TRIAL_VALUES]


def _undefined_switches(names: list[Token], macros: dict[str, Macro]) -> tuple[Token, ...]:
    """The tokens of `names` naming a macro that is not defined and is not the compiler's
    (reserved): a switch a build defines, the project's own (`-D MYPROJ_WITH_TF`), one of TF's
    build configuration (`-D GOOGLE_CUDA=1`) or a platform macro (`-D EIGEN_USE_GPU=1`)."""
    return tuple(t for t in names if t[TEXT] not in macros and t[TEXT] not in ("true", "false")
                 and not _reserved(t[TEXT]))


_OPENING = frozenset("([{")
_CLOSING = frozenset(")]}")


def _directive_line(tok: Token) -> str:
    """The text of the directive line `tok` stands in (`#if V >= 2000`), without comments
    after it, its spaces collapsed."""
    text = tok[SRC].text
    end = text.find("\n", tok[POS])
    line = text[text.rfind("\n", 0, tok[POS]) + 1 : end if end >= 0 else len(text)]
    return " ".join(re.split(r"//|/\*", line, maxsplit=1)[0].split())


def _reserved(name: str) -> bool:
    """A name reserved for the implementation (`__GNUC__`, `_WIN32`): the compiler's, not a header's."""
    return name.startswith("__") or (name.startswith("_") and name[1:2].isupper())


def _stringize(arg: list[Token]) -> str:
    parts: list[str] = []
    prev: Token | None = None
    for t in arg:
        if prev is not None and t[SPACE]:
            parts.append(" ")
        text = t[TEXT]
        if t[KIND] in ("str", "raw", "chr", "bad"):
            text = text.replace("\\", "\\\\").replace('"', '\\"')
        parts.append(text)
        prev = t
    return '"' + "".join(parts) + '"'


def _bad_literal_message(tok: Token) -> str:
    if tok[TEXT] == "\\":
        return "stray '\\' in program"
    quote = "'" if "'" in tok[TEXT][:3] else '"'
    what = "character" if quote == "'" else "string"
    return f"unterminated {what} literal: missing terminating {quote} character"


_WIDE_BOMS = ((b"\xff\xfe\0\0", "UTF-32", "its byte order mark FF FE 00 00"),
              (b"\0\0\xfe\xff", "UTF-32", "its byte order mark 00 00 FE FF"),
              (b"\xff\xfe", "UTF-16", "its byte order mark FF FE"),
              (b"\xfe\xff", "UTF-16", "its byte order mark FE FF"))


def _wide_encoding(data: bytes) -> tuple[str, str, str] | None:
    """The encoding a source that is UTF-16 or UTF-32 looks like, iconv's name for it and why
    (("UTF-16", "UTF-16", "its byte order mark FF FE")), else None: a byte order mark, or a NUL
    byte at every other byte of its start (ASCII text saved as UTF-16 without a mark: valid
    UTF-8, that no C++ compiler reads as C++)."""
    for bom, encoding, why in _WIDE_BOMS:
        if data.startswith(bom):
            return encoding, encoding, why
    head = data[:256]
    if len(head) >= 4:
        for start, order in ((0, "BE"), (1, "LE")):
            if not any(head[start::2]) and all(head[1 - start::2]):
                return "UTF-16", f"UTF-16{order}", "a NUL byte every other byte"
    return None


def _at(tok: Token | None, path: str) -> Location:
    return tok[SRC].location(tok[POS]) if tok is not None else Location(path)
