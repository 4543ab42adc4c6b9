"""Jinja rendering of generated modules: one chunk per op, then the header.

Bodies are rendered before the header so the header imports exactly the names they use.
Every literal goes through a filter from `opgen.python_api.literals`; the environment uses
StrictUndefined, so a template typo is an error, never an empty string.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import functools
import hashlib
import os
import re
import symtable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import jinja2
import jinja2.bccache
from jinja2.utils import missing

from opgen import __version__
from opgen.errors import Location, OpgenError, OpgenErrors, did_you_mean
from opgen.fsutil import atomic_write, cache_root, read_cache_file, seal, unsealed
from opgen.python_api import literals
from opgen.python_api.function import FunctionApi, SkippedOp
from opgen.python_api.names import MODULE_GLOBALS
from opgen.render.layout import LINE_LENGTH, Bracketed, layout, layout_atoms
from opgen_runtime.version import __version__ as runtime_version
from opgen_runtime.version import series

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType

TEMPLATE_NAMES = ("module_header.py.j2", "module_registration.py.j2", "function.py.j2")


def py_bytes(data: bytes) -> str:
    """A one-line bytes literal, every non-printable byte as `\\xNN`; double quotes unless
    single quotes need fewer escapes (black's rule, so black leaves it as it is).

    Python's `repr` escapes exactly so (in C: this literal holds a module's whole OpList);
    it only picks single quotes where black wants double ones.
    """
    text = repr(data)
    if text[1] == '"' or data.count(b"'") < data.count(b'"'):
        return text
    # repr used single quotes: every `'` is escaped as `\\'` and `"` is bare.
    return 'b"' + text[2:-1].replace("\\'", "'").replace('"', '\\"') + '"'


def wrap_call(prefix: str, args: list[Bracketed | str], suffix: str, indent: str) -> str:
    """`prefix` + args + `suffix` laid out by `layout` (a call, def or list statement)."""
    if all(type(arg) is str for arg in args):
        return layout_atoms(prefix, args, suffix, indent, prefix.startswith("def "))  # type: ignore[arg-type]
    return layout(Bracketed(prefix, tuple(args), suffix, is_def=prefix.startswith("def ")), indent)


def str_list(values: list[str]) -> Bracketed:
    """A list of str literals as a `layout` item."""
    return Bracketed("[", tuple(literals.py_str(v) for v in values), "]")


def assign_atom(targets: list[str], value: str, indent: str) -> str:
    """`t1 = t2 = ... = value` for atoms: one line, else black's parenthesised value, else
    (the head or value too long) black's parenthesised last-but-one target, whose lines black
    and ruff leave too long when they are (`_black_keeps_long`), for a value shorter than it
    (a namedtuple's name and its `__qualname__`)."""
    line = " = ".join([*targets, value])
    if len(indent) + len(line) <= LINE_LENGTH:
        return line
    head = " = ".join(targets)
    if len(indent) + len(head) + 4 <= LINE_LENGTH and len(indent) + 4 + len(value) <= LINE_LENGTH:
        return f"{head} = (\n{indent}    {value}\n{indent})"
    if len(targets) > 1 and len(value) < len(targets[-1]):
        return f"{' = '.join(targets[:-1])} = (\n{indent}    {targets[-1]}\n{indent}) = {value}"
    return line


def assign_sum(target: str, terms: list[str], indent: str) -> str:
    """`target = t1 + t2 + t3` (at least three terms): one line, else black's parenthesised
    sum on one line, else one term per line led by its operator."""
    line = f"{target} = {' + '.join(terms)}"
    if len(indent) + len(line) <= LINE_LENGTH or len(terms) < 3:
        return line
    inner = indent + "    "
    body = " + ".join(terms)
    if len(inner) + len(body) > LINE_LENGTH:
        body = f"\n{inner}+ ".join(terms)
    return f"{target} = (\n{inner}{body}\n{indent})"


def comprehension(element: str, clause: str) -> Bracketed:
    """`element for ...` as a `layout` item: black splits it before the `for`."""
    return Bracketed("", (element, clause), "", separator=" ")


# Lines black leaves too long: one string or f-string literal alone, one name alone (an
# argument), or one `keyword=name` argument (maybe with a comma): nothing to split at.
_LONE_STRING = re.compile(
    r' *(?:f?"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*=[A-Za-z_][A-Za-z0-9_.]*),?\Z'
)
# A `def name(` or `class Name(` head alone: the only bracket its line opens. And the lines of
# a chained assignment's parenthesised target (`assign_atom`), which black and ruff take
# whatever their lengths: `x.a = (`, `x.b`, `) = "value"`.
_UNSPLITTABLE = re.compile(
    r' *(?:(?:def|class) [A-Za-z_]\w*\(|[A-Za-z_]\w*\.[A-Za-z_]\w* = \(|[A-Za-z_]\w*\.[A-Za-z_]\w*|\) = "[^"\\]*")\Z'
)
# A statement's head `target = name(`, `target = name.attr(` (at most one dot: black keeps an
# attribute chain in its optional parentheses) or `return` + such a call: black leaves it too
# long when black's parenthesised call (`call_statement`) would not fit, either its head
# `target = (` or the call's head inside those parentheses.
_LONG_CALL_HEAD = re.compile(r"( *)([A-Za-z_]\w* = |return )([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?\()\Z")
# `name: Annotation` (a declaration, `annotated`): black leaves it too long when the name does
# not fit in black's parentheses either.
_LONG_ANNOTATION = re.compile(r"( *)[A-Za-z_]\w*: ([A-Za-z_]\w*)\Z")
# An annotation statement (a NamedTuple field) marked `# type: ignore[...]`: black never
# splits a one-line statement so marked (`Line.contains_unsplittable_type_ignore`), and ruff
# measures a line without such a pragma comment: both keep it when its code fits.
_TYPE_IGNORED = re.compile(r"( *[A-Za-z_]\w*: [\w.\[\], |]*[\w\]])  # type: ignore\[[\w-]+\]\Z")


def _black_keeps_long(line: str) -> bool:
    """A line longer than black allows that black leaves so (and so does ruff)."""
    if _LONE_STRING.match(line) or _UNSPLITTABLE.match(line) or line.lstrip().startswith("#"):
        return True
    ignored = _TYPE_IGNORED.match(line)
    if ignored is not None:
        return len(ignored.group(1)) <= LINE_LENGTH
    annotation = _LONG_ANNOTATION.match(line)
    if annotation is not None:
        return len(annotation.group(1)) + 4 + len(annotation.group(2)) > LINE_LENGTH
    head = _LONG_CALL_HEAD.match(line)
    if head is None:
        return False
    indent, lead, call = head.groups()
    return len(indent) + len(lead) + 1 > LINE_LENGTH or len(indent) + 4 + len(call) > LINE_LENGTH


def residual_lines(chunk: str, docstring: str) -> list[int] | None:
    """The lines (numbered from 1) of the shipped templates' `chunk` that are not black's
    (and ruff's) output yet: [] when the chunk is final, None when all of it needs a formatter.

    The templates and `layout` emit black's layout; what they leave to a formatter are
    lines longer than black allows (other than those black leaves as they are:
    `_black_keeps_long`) and non-ASCII code (black measures
    width by East Asian width: the whole chunk). `docstring`, the chunk's docstring literal, is
    exempt: black leaves its lines as they are. Tests prove black and ruff are fixed points of
    every direct chunk of TF's registry and of the random OpDef corpus.
    """
    code = chunk.replace(docstring, "\n" * docstring.count("\n"), 1) if docstring else chunk
    if chunk.startswith("\n") or not code.isascii():
        return None
    lines = code.split("\n")
    if max(map(len, lines)) <= LINE_LENGTH:  # most chunks: no line to look at
        return []
    return [number for number, line in enumerate(lines, 1) if len(line) > LINE_LENGTH and not _black_keeps_long(line)]


def direct_chunk(chunk: str, docstring: str) -> bool:
    """True when the shipped templates' `chunk` is already black's (and ruff's) output
    (`residual_lines` finds nothing to format)."""
    return residual_lines(chunk, docstring) == []


def call_statement(lead: str, prefix: str, args: list[Bracketed | str], indent: str) -> str:
    """`lead + prefix + args + ")"` (`lead`: `target = ` or `return `): `layout`, or with the
    call in black's parentheses when `lead + prefix` alone is too long and every line then
    fits; else, as black (`linegen.run_transformer`: the parenthesised split is only a second
    opinion, taken when all its lines fit), the long head with the arguments split under it."""
    if len(indent) + len(lead) + len(prefix) > LINE_LENGTH:
        inner = indent + "    "
        text = f"{lead}(\n{inner}{layout(Bracketed(prefix, tuple(args), ')'), inner)}\n{indent})"
        if all(len(line) <= LINE_LENGTH for line in text.split("\n")):
            return text
    return wrap_call(lead + prefix, args, ")", indent)


def assign_call(target: str, prefix: str, args: list[Bracketed | str], indent: str) -> str:
    """`target = prefix + args + ")"` as black lays it out (`call_statement`)."""
    return call_statement(f"{target} = ", prefix, args, indent)


def return_call(prefix: str, args: list[Bracketed | str], indent: str) -> str:
    """`return prefix + args + ")"` as black lays it out (`call_statement`)."""
    return call_statement("return ", prefix, args, indent)


def _annotated_param(name: str, annotation: str, rest: str) -> Bracketed | str:
    """`name: Annotated[X, Y]` or `name: Literal[...]` + rest as a `layout` item (black splits
    inside the brackets)."""
    flat = f"{name}: {annotation}{rest}"
    if annotation.startswith("Literal[") and annotation.endswith("]") and annotation.isascii():
        # A string attr's allowed values (the strings may hold `, `): their spans, as parsed.
        node = ast.parse(annotation, mode="eval").body
        if isinstance(node, ast.Subscript) and node.col_offset == 0 and node.end_col_offset == len(annotation):
            values = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            item = Bracketed(f"{name}: Literal[", tuple(annotation[v.col_offset : v.end_col_offset] for v in values),
                             "]" + rest)
            return item if str(item) == flat else flat
    first, _, second = annotation.removeprefix("Annotated[").removesuffix("]").rpartition(", ")
    if not annotation.startswith("Annotated[") or not first or "[" in second:
        return flat
    return Bracketed(f"{name}: Annotated[", (first, second), "]" + rest)


def annotated(name: str, annotation: str, indent: str) -> str:
    """`name: annotation` (a NamedTuple field, a local's declaration) laid out as black lays
    it out: split inside `Annotated[...]`, or a long name in parentheses (black's optional
    parentheses around an annotation, taken when the name then fits)."""
    long = len(indent) + len(name) + 2 + len(annotation) > LINE_LENGTH
    if long and annotation.isidentifier() and len(indent) + 4 + len(annotation) <= LINE_LENGTH:
        return f"{name}: (\n{indent}    {annotation}\n{indent})"
    return layout(_annotated_param(name, annotation, ""), indent)


_MAKE_TENSOR = "_execute.make_tensor("


def _tensor_call(default: str) -> tuple[str, ...] | None:
    """The two arguments of a `_execute.make_tensor("<text>", "<attr>")` default, else None
    (the attr literal is an identifier's, so the last `, ` separates them)."""
    if not (default.startswith(_MAKE_TENSOR) and default.endswith(")")):
        return None
    text, _, attr = default[len(_MAKE_TENSOR) : -1].rpartition(", ")
    return (text, attr) if attr[1:-1].isidentifier() and literals.py_str(attr[1:-1]) == attr else None


def _display(prefix: str, default: str) -> Bracketed | str:
    """`prefix` + a default value as a `layout` item: a list display (and the lists, tuples and
    tensor calls in it) split at its elements as black splits it; anything else, or a value that fits on
    any line it can stand on, one atom. Laid out here rather than by black, which takes
    quadratic time over one collection (minutes for a `list(int)` default of 100k values)."""
    flat = prefix + default
    if not default.startswith("[") or len(flat) + 8 <= LINE_LENGTH or not default.isascii():
        return flat  # (col_offset counts UTF-8 bytes; non-ASCII code goes to the formatter anyway)
    node = ast.parse(default, mode="eval").body

    def item(node: ast.expr, prefix: str = "") -> Bracketed | str:
        text = default[node.col_offset : node.end_col_offset]
        if isinstance(node, ast.List) and node.elts:
            return Bracketed(prefix + "[", tuple(item(e) for e in node.elts), "]", collection=True)
        if isinstance(node, ast.Tuple) and len(node.elts) > 1 and text.startswith("("):
            return Bracketed(prefix + "(", tuple(item(e) for e in node.elts), ")", collection=True)
        if isinstance(node, ast.Call) and (args := _tensor_call(text)) is not None:  # a list(tensor)'s
            return Bracketed(prefix + _MAKE_TENSOR, args, ")")
        return prefix + text

    return item(node, prefix) if isinstance(node, ast.List) else flat


def assign_default(name: str, default: str, indent: str) -> str:
    """`name = default`, a tensor default's call or a list laid out like black."""
    args = _tensor_call(default)
    if args is not None:
        return assign_call(name, _MAKE_TENSOR, list(args), indent)
    return layout(_display(f"{name} = ", default), indent)


def signature_params(f: FunctionApi) -> list[Bracketed | str]:
    parts: list[Bracketed | str] = []
    for p in f.params:
        if p.default is not None and (args := _tensor_call(p.default)) is not None:
            parts.append(Bracketed(f"{p.name}: {p.annotation} = {_MAKE_TENSOR}", args, ")"))
        elif p.default is not None and p.default.startswith("["):
            parts.append(_display(f"{p.name}: {p.annotation} = ", p.default))
        else:
            parts.append(_annotated_param(p.name, p.annotation, f" = {p.default}" if p.default is not None else ""))
    parts.append("name: str | None = None")
    return parts


def helper_keywords(f: FunctionApi) -> list[str]:
    return [f"{p.keyword}={p.local or p.name}" for p in f.params] + ["name=name"]


def dispatch_args(f: FunctionApi) -> str | Bracketed:
    """The tuple TF's wrapper passes its type-based dispatcher: every parameter, then `name`."""
    if not f.params:
        return "(name,)"
    return Bracketed("(", (*(p.name for p in f.params), "name"), ")")


def dispatch_keywords(f: FunctionApi) -> list[str | Bracketed]:
    """The arguments of `_dispatcher_for_<name>.fallback`: the eager context (None where the op
    cannot run eagerly), the body's locals, and the names of the attr parameters (whose
    converted values, `_attr_<name>`, TF's graph branch passes since it converts in place)."""
    attrs = [literals.py_str(p.name) for p in f.attrs]
    if len(attrs) == 1:
        attrs[0] += ","
    return ["None" if f.eager_unsupported else "_ctx", "locals()", Bracketed("(", tuple(attrs), ")") if attrs else "()"]


def list_type_error(param: str, op_name: str, value: str) -> str:
    """The TypeError message of TF's list-length checks (`python_op_gen.cc`) as an f-string naming `param`
    and `op_name`."""
    return literals.py_fstring(
        [
            ("text", f"Expected list for '{param}' argument to '{op_name}' Op, not "),
            ("expr", value + "!r"),
            ("text", "."),
        ]
    )


def list_length_error(param: str, op_name: str, first: str, attr_local: str) -> str:
    return literals.py_fstring(
        [
            ("text", f"List argument '{param}' to '{op_name}' Op with length "),
            ("expr", f"len({param})"),
            ("text", " must match length "),
            ("expr", attr_local),
            ("text", f" of argument '{first}'."),
        ]
    )


FILTERS: dict[str, Callable[..., Any]] = {
    "py_str": literals.py_str,
    "py_str_list": literals.py_str_list,
    "py_bytes": py_bytes,
    "docstring": literals.docstring_literal,
    "wrap_call": wrap_call,
    "str_list": str_list,
    "assign_atom": assign_atom,
    "assign_sum": assign_sum,
    "assign_call": assign_call,
    "return_call": return_call,
    "assign_default": assign_default,
    "annotated": annotated,
    "comprehension": comprehension,
    "signature_params": signature_params,
    "helper_keywords": helper_keywords,
    "dispatch_args": dispatch_args,
    "dispatch_keywords": dispatch_keywords,
    "list_type_error": list_type_error,
    "list_length_error": list_length_error,
}


def shipped_templates_dir() -> Path:
    """The templates shipped inside the opgen package (`opgen/_templates`, mapped from templates/)."""
    return Path(str(resources.files("opgen") / "_templates"))


class _SealedBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja's file cache of compiled templates, each file sealed (`fsutil.seal`) and read
    without following a symlink: Jinja unpickles and unmarshals what it reads, so a file
    another user or job wrote must never reach it (it would run code)."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path = Path(self._get_cache_filename(bucket))
        try:
            data = unsealed(read_cache_file(path, mark_used=True), path.name.encode())
        except OSError:
            return
        if data is not None:
            bucket.bytecode_from_string(data)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path = Path(self._get_cache_filename(bucket))
        data = bucket.bytecode_to_string()
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            atomic_write(path, seal(path.name.encode(), data) + data, durable=False)


def _bytecode_cache(shipped: bool) -> jinja2.BytecodeCache | None:
    """Compiled templates (Jinja keys them by name and source checksum), sealed. The shipped
    templates' are kept beside them when that folder can be written, as Python keeps a
    module's bytecode in `__pycache__` beside it: compiled once per installation rather than
    once per cache directory (compiling them costs a cold build of TF's registry 0.08 s, a
    tenth of it). A user's templates, and shipped ones in a folder this user cannot write
    (a system-wide installation), keep theirs under the opgen cache."""
    folders = [shipped_templates_dir() / "__pycache__"] if shipped else []
    for directory in (*folders, cache_root() / "jinja"):
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(directory, os.W_OK):
            return _SealedBytecodeCache(str(directory), pattern="__opgen_jinja_%s.sealed")
    return None


def template_files(directory: Path) -> list[Path]:
    """The files of template directory `directory`, sorted: the templates and every file they
    may include or import (Jinja's loader finds any file below the directory), compiled
    templates (`__pycache__`) aside. The build's cache keys and depfile hold them all."""
    return sorted(path for path in directory.rglob("*")
                  if "__pycache__" not in path.relative_to(directory).parts and path.is_file())


@dataclass(frozen=True)
class Templates:
    env: jinja2.Environment
    digest: str  # sha256 over the names and contents of the directory's files (`template_files`): a cache input
    shipped: bool = False  # opgen's own templates, whose output needs no formatter (`residual_lines`)
    directory: str = ""  # where they were loaded from (for errors)

    @classmethod
    def load(cls, directory: Path | None) -> Templates:
        shipped = directory is None or directory.resolve() == shipped_templates_dir().resolve()
        directory = directory or shipped_templates_dir()
        if not directory.is_dir():  # (trial39 #7: was "nosuch/module_header.py.j2 not found")
            what = "is not a directory" if directory.exists() else "does not exist"
            raise OpgenError(f"templates directory {directory} {what}", Location(str(directory)),
                             hint="--templates must name a directory holding " + ", ".join(TEMPLATE_NAMES))
        for name in TEMPLATE_NAMES:
            path = directory / name
            if not path.is_file():
                raise OpgenError(
                    f"template {name} not found",
                    Location(str(path)),
                    hint="--templates must name a directory holding " + ", ".join(TEMPLATE_NAMES),
                )
        h = hashlib.sha256()
        for path in template_files(directory):  # what they include too: a changed one renders again
            h.update(path.relative_to(directory).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(directory)),
            bytecode_cache=_bytecode_cache(shipped),
            undefined=jinja2.StrictUndefined if shipped else _Undefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=False,
            auto_reload=False,  # one build renders each template thousands of times: no stat per render
        )
        env.filters.update(FILTERS if shipped else {name: _strict(f) for name, f in FILTERS.items()})
        # (black spaces `:` in a slice unless its bounds are simple)
        identifier: Callable[[str], bool] = str.isidentifier
        env.tests["identifier"] = identifier if shipped else _strict(identifier)
        return cls(env, h.hexdigest(), shipped, str(directory))

    def render(self, name: str, **context: object) -> str:
        try:
            return self.env.get_template(name).render(**context)
        except jinja2.TemplateNotFound as e:  # an include or import of a template that is not there
            raise OpgenError(f"template error: {name} includes {e.name!r}, which --templates does not hold",
                             Location(self.path(name), _template_line(e.__traceback__, name)),
                             hint="fix the template in --templates") from None
        except jinja2.TemplateError as e:
            # A syntax error names the template it is in (maybe one `name` includes) and its
            # line; a render error (an undefined variable) has its line only in the traceback.
            where = getattr(e, "name", None) or name
            line = getattr(e, "lineno", 0) or _template_line(e.__traceback__, where)
            message = e.message if isinstance(e, jinja2.TemplateSyntaxError) and e.message else str(e)
            raise OpgenError(f"template error: {message}", Location(self.path(where), line),
                             hint=None if self.shipped else _lookup_hint(e, name, context)) from None
        except Exception as e:  # a user's template (or its filters) raised: their error, located
            if self.shipped:
                raise
            raise OpgenError(f"template {name} raised {type(e).__name__}: {e}",
                             Location(self.path(name), _template_line(e.__traceback__, name)),
                             hint="fix the template in --templates") from None

    def precompile(self, name: str) -> None:
        """Compile template `name` now, so that processes forked next share it rather than each
        compiling it (a cold cache's compile of function.py.j2 costs as much as rendering
        50 ops); one that does not compile is left to `render`, which reports it located."""
        with contextlib.suppress(jinja2.TemplateError):
            self.env.get_template(name)

    def path(self, name: str) -> str:
        """Template `name` as the user gave its directory (`--templates` or [tool.opgen] templates)."""
        return str(Path(self.directory) / name)


class _LookupFailed(jinja2.UndefinedError):
    """Jinja's error on an undefined value, with what the template looked up (`key`) on what
    (`obj`; jinja2's `missing` for a variable): the hint of a user's template names what is there."""

    def __init__(self, message: str | None, obj: object, key: object) -> None:
        super().__init__(message)
        self.obj = obj
        self.key = key  # (not `name`: a TemplateError's `name` is its template's)


class _Undefined(jinja2.StrictUndefined):
    """StrictUndefined (same messages) whose error is a `_LookupFailed`: a user's templates'."""

    __slots__ = ()

    def __init__(self, hint: str | None = None, obj: Any = missing, name: str | None = None,
                 exc: type[jinja2.TemplateRuntimeError] = jinja2.UndefinedError) -> None:
        if exc is jinja2.UndefinedError:  # (Jinja calls `exc(message)`)
            exc = functools.partial(_LookupFailed, obj=obj, key=name)  # type: ignore[assignment]
        super().__init__(hint, obj, name, exc)


def _strict(function: Callable[..., Any]) -> Callable[..., Any]:
    """A filter or test for a user's templates: an undefined value given to it (or in a list
    or tuple given to it) fails as Jinja fails on one (`'x' is undefined`), not with the
    TypeError the function would raise on it."""

    @functools.wraps(function)
    def strict(*args: Any, **kwargs: Any) -> Any:
        for value in (*args, *kwargs.values()):
            for item in value if isinstance(value, list | tuple) else (value,):
                if isinstance(item, jinja2.Undefined):
                    str(item)  # raises: a StrictUndefined cannot be printed
        return function(*args, **kwargs)

    return strict


_TEMPLATES_DOC = "docs/templates.md"
_FIX = "fix the template in --templates"


def _lookup_hint(error: jinja2.TemplateError, template: str, context: dict[str, object]) -> str:
    """The hint of a template error in a user's `template`, rendered with `context`: for an
    undefined variable the names the template receives, for an attribute (or key) an object
    lacks the ones it has (`_public_names`; not the keys of a dict of ops), after a did-you-mean
    when some are close; else only where to fix it."""
    if not isinstance(error, _LookupFailed) or not isinstance(error.key, str):
        return _FIX
    if error.obj is missing:
        names, what = list(context), f"{template} receives"
    else:
        names = _public_names(error.obj)
        if not names:
            return _FIX
        kind = type(error.obj).__name__
        article = "an" if kind[:1] in "AEIOU" else "a"  # (a class name)
        what = f"{article} {kind} has" if dataclasses.is_dataclass(error.obj) else f"the {kind} has keys"
    close = did_you_mean(error.key, names, "'")
    if len(names) > 40:  # (`shape_fns`: a dict of ops)
        return f"{close} {_FIX}" if close else _FIX
    return f"{close + ' ' if close else ''}{what} {', '.join(names)} ({_TEMPLATES_DOC}); {_FIX}"


def _public_names(obj: object) -> list[str]:
    """What a template may look up on `obj`: a dataclass's fields, then its public properties
    and methods; a dict's string keys; nothing for anything else."""
    if isinstance(obj, dict):
        return [key for key in obj if isinstance(key, str)]
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return []
    names = [field.name for field in dataclasses.fields(obj)]
    return names + [name for name, value in vars(type(obj)).items() if not name.startswith("_")
                    and name not in names and (isinstance(value, property) or callable(value))]


def _template_line(tb: TracebackType | None, name: str) -> int:
    """The line of template `name` in a traceback Jinja rewrote (its frames carry template lines)."""
    line = 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith(name):
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


# What a module header can import, by the name a rendered body uses for it: the runtime
# modules (`from opgen_runtime import execute as _execute`), `typing` names and `collections`.
RUNTIME_MODULES = ("api_types", "atypes", "dispatch", "dtypes", "execute", "op_def_library", "registry")
TYPING_NAMES = ("TYPE_CHECKING", "Annotated", "Any", "List", "Literal", "NamedTuple", "TypeVar")
_BUILTINS = frozenset(dir(builtins))


def free_globals(code: str) -> frozenset[str]:
    """The global names `code` (a module chunk) reads but binds nowhere at its top level, nor
    are builtins: the names its module must define or import for it. Python's own scoping
    (`symtable`), so a local, parameter or comprehension variable never counts, a docstring
    or string literal never does, and an annotation (evaluated in the module) does.
    Code that does not parse uses nothing: the formatter reports it, located."""
    try:
        top = symtable.symtable(code, "<chunk>", "exec")
    except SyntaxError:
        return frozenset()
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    read: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        read.update(s.get_name() for s in table.get_symbols()
                    if s.is_referenced() and (table is top or s.is_global()))
    return frozenset(read - bound - _BUILTINS)


# The names a module header may import, as a rendered chunk spells them.
HEADER_NAMES = frozenset((*(f"_{m}" for m in RUNTIME_MODULES), *TYPING_NAMES, "collections"))
# Python's `re` finds a pattern that starts with one literal (or alternatives that each start
# with one) far faster than one that starts with a character class or an assertion; the
# patterns of the scan in `header_names_read` are written so, and each may run on its own.
#
# The strings and comments the scan skips, read as Python's tokenizer reads them (an escape
# pair never ends a string; a one-line string may not run past its line; a comment ends at
# `\r` too, a newline to Python). A lone quote (a string the scan cannot follow), a backslash
# (a continued line) or a `\r` outside them matches alone, one character: the chunk goes to
# `free_globals`. `_DOUBLE_QUOTED` is its `"` part: a chunk's code outside the strings it
# finds holds no `'`, `#`, `\` nor `\r`, or `_STRING_OR_COMMENT` reads the chunk again.
_DOUBLE_QUOTED_PATTERN = (
    r'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""'
    r'|"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"|"'
)
_DOUBLE_QUOTED = re.compile(_DOUBLE_QUOTED_PATTERN)
_STRING_OR_COMMENT = re.compile(
    _DOUBLE_QUOTED_PATTERN
    + r"|'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"
    r"|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'|'"
    r"|#[^\r\n]*|\\|\r"
)
# String prefixes whose fields are code (`t`: template strings, Python 3.14).
_FIELD_PREFIXES = frozenset(("f", "rf", "fr", "t", "rt", "tr"))
_F_STRING_FIELD = re.compile(r"\{([^{}]*)\}")


def _whole(word: str) -> str:
    """A pattern for `word` not inside a longer name nor an attribute (`x.word`), checked after
    the word, so that a pattern starting with it starts with a literal."""
    return rf"{word}(?<![\w.]{word})(?!\w)"


_NAMES = "(?:" + "|".join(_whole(name) for name in sorted(HEADER_NAMES)) + ")"
# Each whole header name and the character after it (`.`, `(` or `[`: an attribute, call or
# subscript, a read unless `_BINDS` finds the name bound by `def`, `class` or `type`; another:
# `_read_in_place` decides). One pattern per two first letters, which `re` finds as a literal
# (one per first letter would try every `_` of the code).
_NAME_USES = tuple(
    re.compile("(" + "|".join(_whole(name) for name in sorted(HEADER_NAMES) if name[:2] == start) + r")(.?)")
    for start in sorted({name[:2] for name in HEADER_NAMES})
)
_PLAIN_AFTER = frozenset(".([")
# In code without strings and comments: what may bind a header name where `_NAME_USES` sees
# a read (`def`/`class`/`type` names, an attribute `x. name`), or bind names the scan does not
# follow (imports). A match pattern, which binds too, starts a line with `case` (`_CASE`).
_BINDS = tuple(
    re.compile(pattern)
    for pattern in (_whole("import"), rf"\.\s+{_NAMES}", rf"def\s+{_NAMES}", rf"class\s+{_NAMES}", rf"type\s+{_NAMES}")
)
_CASE = re.compile(_whole("case"))
# What may precede a name that is read, whatever follows it (`_SAFE_AFTER`): an annotation's
# `x: T` (`colon`) and `-> T`, a subscript `X[T` (not a list display after `for`, `del` or
# `as`, which binds), an operand of a keyword operator, and a class's first base, which may
# sit on the next line.
_READ_LEAD = re.compile(
    r"(?:(?P<colon>:)|->|(?:\]|\b(?!(?:for|del|as)\[)\w+)\[|\b(?:if|elif|while|return|not|and|or|in|is|else|assert))"
    r"[ \t\f]*\Z|\bclass\s+\w+\(\s*\Z"
)
_TYPE_PARAMS = re.compile(r"\b(?:def|class|type)\s+\w+\[[ \t\f]*\Z")
# What may follow a read name after a read lead: not `=`, `:=`, `+=`..., which bind it (`if x:
# y = 1`, `if y := 1:`, `X[y := 1]`, a class keyword). After a colon, not `,` or `:` either: the
# colon may end an `if` whose statement follows on its line (`if x: y, z = 1, 2`).
_SAFE_AFTER = re.compile(r"[ \t\f]*(?:[)\]},\n]|:(?!=)|\Z)")
_SAFE_AFTER_COLON = re.compile(r"[ \t\f]*(?:[)\]}\n]|\Z)")


def header_names_read(code: str) -> frozenset[str]:
    """`free_globals(code) & HEADER_NAMES` for code that parses: by `_scanned_header_names`
    when the scan can tell, else by Python's own scoping (`free_globals`), which is exact and
    slower on a registry's megabytes of chunks than the whole render."""
    scanned = _scanned_header_names(code)
    return free_globals(code) & HEADER_NAMES if scanned is None else scanned


def _scanned_header_names(code: str) -> frozenset[str] | None:
    """The `HEADER_NAMES` that `code` reads, found without parsing when every occurrence of
    those names is plainly a global read: outside strings and comments, and followed by `.`,
    `(` or `[` or placed where a name is read (`_read_in_place`). None when another occurrence
    may bind the name in some scope, or code the scan cannot follow may hide one.

    Line by line, each line's answer remembered (`_line_header_names`): most lines of a chunk are
    the template's own, repeated in every op's chunk; a line whose answer depends on its
    neighbours sends the whole chunk to `_scanned_code_names`."""
    bare = _code_of(code, _DOUBLE_QUOTED)
    if bare is None or any(c in bare for c in "'#\\\r"):
        bare = _code_of(code, _STRING_OR_COMMENT)
    if bare is None:
        return None
    read: set[str] = set()
    for line in bare.split("\n"):
        names = _line_header_names(line)
        if names is None:
            return _scanned_code_names(bare)
        read.update(names)
    return frozenset(read)


# A header name opening a line: `_read_in_place` may look at the line before it.
_OPENING_NAME = re.compile(r"[ \t\f]*(?:" + "|".join(sorted(HEADER_NAMES)) + r")(?![\w.(\[])")


@functools.lru_cache(maxsize=1 << 16)  # a registry's chunks hold some 26,000 distinct lines
def _line_header_names(line: str) -> frozenset[str] | None:
    """`_scanned_code_names` of one line of code without strings or comments, or None when the
    line's reading may depend on the lines around it: it ends in `.` (an attribute named on the
    next line) or opens with a header name `_read_in_place` judges by the line before."""
    if line.rstrip(" \t\f").endswith(".") or _OPENING_NAME.match(line):
        return None
    return _scanned_code_names(line)


def _scanned_code_names(bare: str) -> frozenset[str] | None:
    """`_scanned_header_names` of code whose strings are blanked and comments dropped (`_code_of`)."""
    # Not ASCII: NFKC may turn a name into a header name (fullwidth `Any` reads as `Any`).
    if not bare.isascii() or any(pattern.search(bare) for pattern in _BINDS):
        return None
    for m in _CASE.finditer(bare):
        if not bare[bare.rfind("\n", 0, m.start()) + 1 : m.start()].strip(" \t\f"):
            return None
    read = set()
    for pattern in _NAME_USES:
        for name, after in set(pattern.findall(bare)):
            if after not in _PLAIN_AFTER:
                for m in pattern.finditer(bare):
                    if m.group(1) == name and m.group(2) not in _PLAIN_AFTER and not _read_in_place(bare, *m.span(1)):
                        return None
            read.add(name)
    return frozenset(read)


def _code_of(code: str, tokens: re.Pattern[str]) -> str | None:
    """`code` with each string `tokens` finds blanked (`""`) and each comment dropped, except
    the fields of a one-line f-string, which are code: they follow it, in parentheses. None
    when `tokens` finds one character, an f-string in triple quotes or a field the scan cannot
    follow (a quote, a nested field, a format spec, a comment, a backslash)."""
    pieces = []
    done = 0
    for m in tokens.finditer(code):
        start, end = m.span()
        if code[start] == "#":
            pieces.append(code[done:start])
            done = end
            continue
        if end - start == 1:
            return None
        pieces += (code[done:start], '""')
        done = end
        if not code[start - 1 : start].isalpha():
            continue  # no prefix
        word = start - 1
        while word and (code[word - 1].isalnum() or code[word - 1] == "_"):
            word -= 1
        if code[word:start].lower() not in _FIELD_PREFIXES:
            continue  # a plain string (`elif"x"` is `elif` and a string)
        if code.startswith(code[start] * 3, start):
            return None
        body = code[start + 1 : end - 1].replace("{{", "").replace("}}", "")
        fields = [re.sub(r"![rsa]\Z", "", field) for field in _F_STRING_FIELD.findall(body)]
        if body.count("{") != len(fields) or any(c in field for field in fields for c in "'\":=!#\\"):
            return None
        pieces += (f"({field})" for field in fields)
    pieces.append(code[done:])
    return "".join(pieces)


def _read_in_place(code: str, start: int, end: int) -> bool:
    """The header name at `code[start:end]` (followed by neither `.`, `(` nor `[`) is read, as
    `_READ_LEAD` and `_SAFE_AFTER` tell from its neighbours on its line (a class base's, on the
    line before too)."""
    line = code.rfind("\n", 0, start) + 1
    lead = _READ_LEAD.search(code, line, start)
    if lead is None and not code[line:start].strip(" \t\f"):
        lead = _READ_LEAD.search(code, code.rfind("\n", 0, max(line - 1, 0)) + 1, start)
    if lead is None or _TYPE_PARAMS.search(code, line, start):
        return False
    return (_SAFE_AFTER_COLON if lead.group("colon") else _SAFE_AFTER).match(code, end) is not None


class ChunkUses(NamedTuple):
    """What one rendered chunk needs its module header to import (`header_names_read` sorted by kind)."""

    runtime: tuple[str, ...]  # `opgen_runtime` modules, as `_<name>`
    typing: tuple[str, ...]  # `from typing import` names
    collections: bool

    @classmethod
    def of(cls, code: str) -> ChunkUses:
        names = header_names_read(code)
        return cls(
            runtime=tuple(m for m in RUNTIME_MODULES if f"_{m}" in names),
            typing=tuple(n for n in TYPING_NAMES if n in names),
            collections="collections" in names,
        )


# A `FunctionSummary` as a plain tuple (`FunctionSummary.to_plain`).
PlainSummary = tuple[str | bool | tuple[str, ...], ...]


class FunctionSummary(NamedTuple):
    """What module assembly needs of one op's function (cached next to its formatted chunk,
    so an unchanged op never goes through pyapi or the templates again; a tuple, so a cache
    hit rebuilds it cheaply)."""

    op_name: str
    name: str  # "" for a skipped op
    aliases: tuple[str, ...] = ()
    visible: bool = True
    top_level: tuple[str, ...] = ()  # module-level names it binds besides `name`/aliases
    typing: tuple[str, ...] = ()  # `from typing import` names it uses
    runtime: tuple[str, ...] = ()  # `opgen_runtime` modules it uses
    collections: bool = False
    noqa: tuple[str, ...] = ()  # ruff codes its defaults trigger (TF's API, see module_uses)
    skipped: str = ""  # SkippedOp.reason

    @classmethod
    def of(cls, f: FunctionApi | SkippedOp, text: str = "") -> FunctionSummary:
        """The summary of op function `f`, whose rendered chunk is `text`: the names the
        chunk reads decide the imports (`ChunkUses`), never a rule about the op."""
        if isinstance(f, SkippedOp):
            return cls(f.op_name, "", skipped=f.reason)
        top_level = [t.name for t in f.typevars] + ([f.namedtuple] if f.namedtuple else [])
        if f.visible:  # TF's dispatch decorators bind `_dispatcher_for_<name>`
            top_level.append(f"_dispatcher_for_{f.name}")
        noqa = set()
        for p in f.attrs:
            if p.default is not None and p.default.startswith("["):
                noqa.add("B006")
            if p.default is not None and p.default.startswith("_execute.make_tensor("):
                noqa.add("B008")
        uses = ChunkUses.of(text)
        return cls(
            op_name=f.op_name,
            name=f.name,
            aliases=f.aliases,
            visible=f.visible,
            top_level=tuple(top_level),
            typing=uses.typing,
            runtime=uses.runtime,
            collections=uses.collections,
            noqa=tuple(sorted(noqa)),
        )

    def to_plain(self) -> PlainSummary:
        """A plain tuple (what marshal stores)."""
        return tuple(self)

    @classmethod
    def from_plain(cls, data: PlainSummary) -> FunctionSummary:
        return cls._make(data)


def module_exports(functions: list[FunctionSummary]) -> list[str]:
    """`__all__`: visible functions and their aliases, in ruff's RUF022 order; never a name
    starting with `_` (an internal op kept by include_internal, `_FwOp` -> `__fw_op`), which
    Python's convention, and `import *` without `__all__`, keep private (trial28 #7)."""
    names = [n for f in functions if f.name and f.visible for n in (f.name, *f.aliases) if not n.startswith("_")]
    return sorted(names, key=literals.isort_key)


def collisions(module: str, functions: list[FunctionSummary], locations: dict[str, Location]) -> list[OpgenError]:
    """Two top-level names of one module may not collide (TF's generator emits both; an error
    here): one error per pair of an op and the op (or module global) whose name it takes again,
    located at the later op's REGISTER_OP (or OpList entry) and naming where the earlier one
    is, as a duplicate op's error does. The names derived from a colliding name
    (`_dispatcher_for_<name>`) collide too: they add no error of their own."""
    owners: dict[str, str] = dict.fromkeys(MODULE_GLOBALS, "")  # name -> op, "" for the module itself
    errors: list[OpgenError] = []
    reported: set[frozenset[str]] = set()  # the pairs (op, op or "") told
    # in source order (a module lists its functions by name): the ops of no known place last
    def place(f: FunctionSummary) -> tuple[bool, Location | None]:
        at = locations.get(f.op_name)
        return at is None, at

    for f in sorted(functions, key=place):
        if not f.name:
            continue
        for n in (f.name, *f.aliases, *f.top_level):
            first = owners.setdefault(n, f.op_name)
            if first == f.op_name or frozenset((first, f.op_name)) in reported:
                continue
            reported.add(frozenset((first, f.op_name)))
            second = f.op_name
            if first and second not in locations and first in locations:
                first, second = second, first  # (located where it can be)
            at = locations.get(first) if first else None
            by = "the module itself" if not first else f"op {first}" + (f", at {at}" if at else "")
            errors.append(OpgenError(
                f"module {module}: name {n!r} of op {second} is already used by {by}",
                locations.get(second, Location(f"{module}.py")),
                hint="rename one of the ops with an override (rename_to), or put them in different modules",
            ))
    return errors


def raise_all(errors: list[OpgenError]) -> None:
    """Raises the errors, if any: one alone, several together in source order (each build
    stage reports all it finds in one run, as a compiler does)."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise OpgenErrors(sorted(errors, key=lambda e: e.location or Location("")))


def render_function(templates: Templates, f: FunctionApi) -> tuple[str, list[int] | None]:
    """The op's chunk, and its lines a formatter must lay out (`residual_lines`; None for
    all of them: a user's templates always go through the formatter)."""
    text = templates.render("function.py.j2", f=f)
    return text, residual_lines(text, literals.docstring_literal(f.docstring, "    ")) if templates.shipped else None


def module_uses(functions: list[FunctionSummary], registration: ChunkUses) -> dict[str, object]:
    """What the header must import (what the function chunks and the `registration`
    statement read) and which ruff codes it must waive, from the summaries."""
    runtime = set(registration.runtime)
    typing = set(registration.typing)
    noqa: set[str] = set()
    for f in functions:
        runtime.update(f.runtime)
        typing.update(f.typing)
        noqa.update(f.noqa)
    return {
        # B006: list defaults (`explicit_paddings=[]`) are TF's API and never mutated;
        # B008: tensor defaults are built by a call, exactly like TF's.
        "noqa": sorted(noqa),
        "collections": registration.collections or any(f.collections for f in functions),
        "typing": sorted(typing, key=literals.isort_key),  # ruff's isort order: CONSTANTS, Classes, rest
        "runtime": [r for r in RUNTIME_MODULES if r in runtime],
    }


_HEADER_TITLE = "Python wrappers around the ops of {stem}."
_HEADER_ORIGIN = "Generated by opgen {version} from {sources}. Do not edit."
_ANY_ORIGIN = re.compile(
    re.escape(_HEADER_ORIGIN).replace(re.escape("{version}"), r"\S+").replace(re.escape("{sources}"), r"[^\n]+")
)


def _header_title(module: str) -> str:
    return _HEADER_TITLE.format(stem=module.removeprefix("gen_").removesuffix("_ops") or module)


def opens_with_module_header(text: str, module: str) -> bool:
    """True when `text` starts with the docstring the shipped header template gives module
    `module` (written by any opgen version, from any sources): the title line naming this
    module, a blank line, the `Generated by opgen ... Do not edit.` line, the closing quotes."""
    lines = text.split("\n", 4)
    title = _header_title(module)
    return (len(lines) == 5 and lines[0] in (f'r"""{title}', f'"""{title}') and lines[1] == ""
            and _ANY_ORIGIN.fullmatch(lines[2]) is not None and lines[3] == '"""')


def runtime_series() -> str:
    """The runtime release series generated modules require (`opgen_runtime.version`): the
    `major.minor` of the runtime this generator ships with."""
    return "{}.{}".format(*series(runtime_version))


def render_header(
    templates: Templates, module: str, functions: list[FunctionSummary], sources: list[str], registration: ChunkUses
) -> tuple[str, list[int] | None]:
    """Docstring, imports and `__all__` (cached like an op's chunk), and its lines a formatter
    must lay out (as `render_function`)."""
    header_doc = (
        f"{_header_title(module)}\n\n{_HEADER_ORIGIN.format(version=__version__, sources=', '.join(sources))}"
    )
    text = templates.render(
        "module_header.py.j2",
        header_doc=header_doc,
        uses=module_uses(functions, registration),
        exports=module_exports(functions),
        runtime_series=runtime_series(),
    )
    return text, residual_lines(text, literals.docstring_literal(header_doc, "")) if templates.shipped else None


def render_package_init(module: str, parts: list[tuple[str, list[FunctionSummary]]], sources: list[str],
                        max_ops: int | None) -> str:
    """The `__init__.py` of a module split into the package's `parts` (name, functions): the
    module's header docstring, each part's functions and aliases re-exported (`x as x`) and
    the module's `__all__`, in black's and ruff's layout (not a template: it holds no op's code)."""
    header_doc = f"{_header_title(module)}\n\n{_HEADER_ORIGIN.format(version=__version__, sources=', '.join(sources))}"
    lines = [
        literals.docstring_literal(header_doc, ""),
        "",
        f"# Split into {len(parts)} parts of at most {max_ops} ops ([tool.opgen] max_ops_per_module);",
        "# this module is the API: the parts are private.",
        "# pyright: reportPrivateUsage=false",
        "# (it imports them, and the `_`-named functions of internal ops, as the modules' headers say)",
    ]
    for part, functions in parts:
        names = sorted({n for f in functions if f.name for n in (f.name, *f.aliases)}, key=literals.isort_key)
        for n in names:  # ruff's isort (combine-as-imports off) keeps each `as` import apart
            line = f"from .{part} import {n} as {n}"
            lines.append(line if len(line) <= LINE_LENGTH else f"from .{part} import (\n    {n} as {n},\n)")
    exports: list[Bracketed | str] = [
        literals.py_str(n) for n in module_exports([f for _, functions in parts for f in functions])
    ]
    lines += ["", wrap_call("__all__ = [", exports, "]", "")]
    return "\n".join(lines) + "\n"


OP_DEFS = "_OP_DEFS"  # the module-level list of its serialized OpDefs, registered last
OP_DEFS_DECLARATION = f"{OP_DEFS}: list[bytes] = []\n"
_BYTES_PER_PIECE = 81  # `b"` + 81 printable bytes + `"` after a 4-space indent: 88 columns


def op_def_statement(op_list_entry: bytes, width: int = 88) -> str:
    """`_OP_DEFS.append(b"...")` for one op's serialized OpDef (an `OpList.op` entry), in
    black's layout: one line if it fits, else one implicitly concatenated piece per line, each
    within `width` columns, so a changed op changes only its own lines."""
    literal = py_bytes(op_list_entry)
    line = f"{OP_DEFS}.append({literal})\n"
    if len(line) <= width + 1:
        return line
    pieces: list[str] = []
    i, room = 0, width - 4
    while i < len(op_list_entry):
        n = min(_BYTES_PER_PIECE, room - 3)
        while True:
            piece = py_bytes(op_list_entry[i : i + n])
            if len(piece) <= room or n == 1:
                break
            n = max(1, min(n - 1, n * room // len(piece)))
        pieces.append(f"    {piece}\n")
        i += n
    return f"{OP_DEFS}.append(\n{''.join(pieces)})\n"


def render_registration(templates: Templates, shape_fns: dict[str, str],
                        translated: dict[str, tuple[str, ...]] | None = None, library: str | None = None) -> str:
    """The `register_op_list(...)` statement, already in black's layout (never formatted); it
    registers `_OP_DEFS`, the OpDefs appended next to each function, and each op's shape
    function by built-in name or,
    translated from C++ (opgen/shape_translate), as a function of the module (one per
    distinct body, named by order of first use in op-name order, so output is deterministic)."""
    bodies: dict[tuple[str, ...], str] = {}
    for op in sorted(translated or {}):
        body = translated[op]  # type: ignore[index]
        bodies.setdefault(body, f"_shape_fn_{len(bodies)}")
    functions = [(name, body) for body, name in bodies.items()]
    translated_names = {op: bodies[body] for op, body in (translated or {}).items()}
    return templates.render("module_registration.py.j2", op_defs=OP_DEFS, shape_fns=shape_fns,
                            translated_fns=functions, translated_shape_fns=translated_names, library=library)
