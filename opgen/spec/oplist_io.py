"""OpList files: text (`.pbtxt`), binary (`.pb`) and JSON, read with located errors and
written deterministically."""

from __future__ import annotations

import bisect
import contextlib
import functools
import hashlib
import re
import struct
from collections.abc import Iterable
from pathlib import Path

from google.protobuf import json_format, text_format
from google.protobuf.message import DecodeError, Message

from opgen.errors import Location, OpgenError, OpgenErrors, did_you_mean, plain_proto_names
from opgen.fsutil import atomic_write, cache_root, read_cache_file, seal, unsealed
from opgen.json_input import field_location, load_json, proto_json_problem
from opgen.limits import (
    MAX_TEXT_NESTING,
    read_input_bytes,
    text_nesting_problem,
    text_proto_structure,
)
from opgen.parallel import can_fork, cores, in_shares
from opgen.spec.fix_hints import fix_hint
from opgen.spec.text_reader import Unread, protobuf_error, read_text_message
from opgen.spec.validate import validate_op_def, without_op_def_dump
from opgen_runtime.proto import op_def_pb2
from opgen_runtime.proto.datatypes import BY_ENUM

FORMATS = ("pbtxt", "pb", "json")
BINARY_SUFFIXES = (".pb", ".binarypb")
TEXT_SUFFIXES = (".pbtxt", ".pbtext", ".textproto", ".txtpb")
JSON_SUFFIXES = (".json",)
OPLIST_SUFFIXES = BINARY_SUFFIXES + TEXT_SUFFIXES + JSON_SUFFIXES


def dump_op_list(op_list: Message, fmt: str) -> bytes:
    """An OpList (or another list message: a KernelList) as `pbtxt` (text format, UTF-8),
    `pb` (deterministic wire format) or `json` (proto field names, 2-space indent); text
    outputs end with a newline."""
    # Typed locals: protobuf's functions and messages are Any to mypy (no stubs).
    if fmt == "pbtxt":
        text: str = text_format.MessageToString(op_list, as_utf8=True)
        return text.encode("utf-8")
    if fmt == "pb":
        data: bytes = op_list.SerializeToString(deterministic=True)
        return data
    if fmt == "json":
        text = json_format.MessageToJson(op_list, preserving_proto_field_name=True, indent=2, sort_keys=True)
        return (text + "\n").encode("utf-8")
    raise ValueError(f"unknown OpList format {fmt!r} (expected one of {', '.join(FORMATS)})")


def load_op_list_file(path: str | Path) -> op_def_pb2.OpList:
    """Read an OpList file; the format follows the suffix (`.pb` binary, `.json`,
    anything else text format)."""
    return load_op_list_with_lines(path)[0]


def check_op_list(op_list: op_def_pb2.OpList, path: str, lines: list[int] | None = None,
                  problems: list[tuple[int, str]] | None = None, text: bytes | None = None) -> None:
    """Every OpDef of an OpList source must be one TF could have registered: TF's
    `ValidateOpDef` (its messages, via `opgen.spec.validate`) and known DataType enums
    for args (which ValidateOpDef leaves to the registering builder). Raises OpgenErrors
    located at the file (and for text files at the entry's line, or with the file's UTF-8 `text`
    at the field the message names: `_field_named`). `problems`: `_problems` of the ops when the
    caller found them already."""
    errors: list[OpgenError] = []
    decoded = ""
    starts: list[int] = []
    for i, message in _problems(op_list.op) if problems is None else problems:
        line = lines[i] if lines else 0
        entry = "" if line else f"OpList entry {i + 1}: "
        message = without_op_def_dump(message)
        where = Location(path, line, 1 if line else 0)
        if text is not None and line and lines:
            if not starts:  # the first error: only then is the text read again
                decoded = text.decode("utf-8")
                starts = _line_starts(decoded)
            end = starts[lines[i + 1] - 1] if i + 1 < len(lines) and lines[i + 1] > line else len(decoded)
            where = _field_named(message, decoded, starts, line, end) or where
            where = Location(path, where.line, where.col)
        hint = _missing_attr_hint(op_list.op[i], message) or fix_hint(message, set())
        errors.append(OpgenError(entry + message, where, hint=hint))
    if errors:
        raise OpgenErrors(errors)


def _line_starts(text: str) -> list[int]:
    """The offset of each line's first character (index 0: line 1)."""
    return [0, *(m.end() for m in re.finditer("\n", text))]


# A field whose value is a quoted name: `type_attr: "T"`, `name: "x"`.
_QUOTED_NAME = re.compile(r"'([A-Za-z_][A-Za-z0-9_./>-]*)'")


def _field_named(message: str, text: str, starts: list[int], line: int, end: int) -> Location | None:
    """Where, in the text entry from `line` to offset `end`, a field has as its string value the
    first name `message` quotes that the entry holds (`No attr with name 'N' for input 'x'`: the
    `number_attr: "N"`, else the arg `name: "x"`), at the field's name; None when none does."""
    for name in _QUOTED_NAME.findall(message):
        m = re.compile(r'([A-Za-z_]\w*)[ \t]*:[ \t]*"' + re.escape(name) + '"').search(text, starts[line - 1], end)
        if m is not None:
            at = bisect.bisect_right(starts, m.start())
            return Location("", at, m.start() - starts[at - 1] + 1)
    return None


_MISSING_ATTR = re.compile(r"No attr with name '(?P<name>[^']*)' for (?:input|output) '(?P<arg>[^']*)'")


def _missing_attr_hint(op_def: op_def_pb2.OpDef, message: str) -> str | None:
    """For ValidateOpDef's `No attr with name 'X' for input 'x'`: the `attr` entry to add, of
    the kind the arg's field needs (REGISTER_OP reaches this message only through `N * T`,
    an OpList through any of the three fields)."""
    m = _MISSING_ATTR.match(message)
    if m is None:
        return None
    name = m.group("name")
    for arg in (*op_def.input_arg, *op_def.output_arg):
        if arg.name != m.group("arg"):
            continue
        if arg.number_attr == name:
            entry = f'its length attr to the op: attr {{ name: "{name}" type: "int" has_minimum: true minimum: 1 }}'
        elif arg.type_attr == name:
            entry = f'its type attr to the op: attr {{ name: "{name}" type: "type" }}'
        elif arg.type_list_attr == name:
            entry = f'its type list attr to the op: attr {{ name: "{name}" type: "list(type)" }}'
        else:
            continue
        close = did_you_mean(name, [attr.name for attr in op_def.attr], quote="'")
        return f"{close} (or add {entry})" if close else f"add {entry}"
    return None


# Faulty entries of a JSON OpList located at their lines (each costs a walk of the text).
_MOST_LOCATED_JSON_ENTRIES = 100


def _problems(ops: Iterable[op_def_pb2.OpDef]) -> list[tuple[int, str]]:
    """(index, `op_def_problem`) of each op TF could not have registered."""
    return [(i, message) for i, op_def in enumerate(ops) if (message := op_def_problem(op_def))]


def op_def_problem(op_def: op_def_pb2.OpDef) -> str | None:
    """Why TF could not have registered `op_def` (TF's message), else None."""
    problem = validate_op_def(op_def)
    return problem.message if problem else _unknown_arg_type(op_def)


def _unknown_arg_type(op_def: op_def_pb2.OpDef) -> str | None:
    for kind, args in (("input", op_def.input_arg), ("output", op_def.output_arg)):
        for arg in args:
            dtype = arg.type
            if dtype and dtype not in BY_ENUM:
                return f"Invalid DataType enum {dtype} for {kind} '{arg.name}' of op '{op_def.name}'"
    return None


def load_op_list_with_lines(path: str | Path, cache: bool = False,
                            jobs: int = 0) -> tuple[op_def_pb2.OpList, list[int]]:
    """The OpList and, for a text file, the 1-based line of each `op` entry (0 otherwise);
    every OpDef validated (`check_op_list`). With `cache`, an OpList parsed and validated
    before (same bytes, same opgen code) is read from its binary form in opgen's cache:
    parsing and validation take most of a no-op rebuild. `jobs`: see `_parse_op_list`."""
    name = str(path)
    data = read_input_bytes(path, "OpList file")
    suffix = Path(name).suffix.lower()
    cached = _cache_file(data, suffix) if cache else None
    parsed = _read_cached(cached) if cached is not None else None
    if parsed is not None:
        return parsed
    op_list, lines, problems = _parse_op_list(name, data, suffix, jobs)
    check_op_list(op_list, name, lines, problems, None if suffix in BINARY_SUFFIXES + JSON_SUFFIXES else data)
    if cached is not None:  # only what passed validation
        _write_cached(cached, op_list, lines)
    return op_list, lines


def _cache_file(data: bytes, suffix: str) -> Path:
    """Keyed by the bytes, the suffix, protobuf's version and the code that parses and validates."""
    from google.protobuf import __version__ as protobuf_version

    h = hashlib.sha256(f"opgen-oplist-3\0{protobuf_version}\0{suffix}\0".encode())
    h.update(_code_digest())
    h.update(data)
    return cache_root() / "oplists" / h.hexdigest()


@functools.cache
def _code_digest() -> bytes:
    from opgen_runtime.proto import datatypes

    here = Path(__file__).parent
    return hashlib.sha256(b"".join((here / f).read_bytes() for f in ("oplist_io.py", "text_reader.py", "validate.py"))
                          + Path(datatypes.__file__).read_bytes()).digest()


def _read_cached(path: Path) -> tuple[op_def_pb2.OpList, list[int]] | None:
    """(OpList, lines) from `[seal][count][lines as uint32 LE][serialized OpList]`; None when
    absent, unreadable or not sealed by this user for this key (`fsutil.seal`: the OpList was
    validated when it was cached, and is not validated again)."""
    try:
        blob = unsealed(read_cache_file(path, mark_used=True), path.name.encode())
        if blob is None:
            return None
        (count,) = struct.unpack_from("<I", blob)
        lines = list(struct.unpack_from(f"<{count}I", blob, 4))
        op_list = op_def_pb2.OpList.FromString(blob[4 + 4 * count:])
    except (OSError, struct.error, DecodeError):
        return None
    return (op_list, lines) if len(op_list.op) == count else None


def _write_cached(path: Path, op_list: op_def_pb2.OpList, lines: list[int]) -> None:
    blob = struct.pack(f"<I{len(lines)}I", len(lines), *lines) + op_list.SerializeToString(deterministic=True)
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
        atomic_write(path, seal(path.name.encode(), blob) + blob)


def _parse_op_list(name: str, data: bytes, suffix: str,
                   jobs: int = 0) -> tuple[op_def_pb2.OpList, list[int], list[tuple[int, str]] | None]:
    """The OpList, each entry's line (0: not known), and for text its `_problems` (None: not
    looked for yet); a big text read by up to `jobs` processes (0: one per core)."""
    op_list = op_def_pb2.OpList()
    if suffix in BINARY_SUFFIXES:
        try:
            op_list.ParseFromString(data)
        except (DecodeError, RecursionError) as e:
            raise OpgenError(f"not a binary OpList: {e}", Location(name)) from None
        return op_list, [0] * len(op_list.op), None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise OpgenError("OpList file is not UTF-8 text (binary OpLists need the .pb suffix)",
                         Location(name, line, e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1)) from None
    if suffix in JSON_SUFFIXES:
        data = load_json(text, name, "JSON OpList")
        problem = proto_json_problem(data, op_list.DESCRIPTOR)
        if problem is not None:
            raise OpgenError(f"not a JSON OpList: {problem}", field_location(text, problem.field, name))
        try:
            json_format.ParseDict(data, op_list)
        except (json_format.ParseError, ValueError) as e:  # what the shape check leaves: bad base64, ...
            raise OpgenError(f"not a JSON OpList: {_one_line(str(e))}", Location(name)) from None
        # the line of each entry TF would reject (each found by a walk of the text: the first few only)
        found = _problems(op_list.op)
        lines = [0] * len(op_list.op)
        for i, _ in found[:_MOST_LOCATED_JSON_ENTRIES]:
            lines[i] = field_location(text, f"op[{i}]", name).line
        return op_list, lines, found
    problems: list[tuple[int, str]] | None = None
    try:
        starts, problems = _read_text_in_shares(text, op_list, jobs or cores())
        lines = _lines_at(text, starts)
    except Unread as stop:
        op_list = _parse_text_op_list(name, text, stop)
        lines = _op_entry_lines(text)
    if len(lines) != len(op_list.op):  # `op: [...]` list syntax: no per-entry lines
        lines = [0] * len(op_list.op)
    return op_list, lines, problems


# A text OpList is read and checked in a piece per this many bytes (so in pieces from twice
# this size on), by as many processes as `jobs` allows; a smaller piece would save less than
# a worker's start costs.
_SHARED_TEXT_BYTES = 1 << 20
# Where a piece may start: a line that opens a top-level `op` entry. No message in an OpList
# has a field named `op` and a string or comment never spans lines, so such a line is at the
# top level whenever the text before it reads as a whole message (which each piece checks).
_ENTRY_LINE = re.compile(r"\n(?=op[ \t]*\{)")


def _read_text_in_shares(text: str, op_list: op_def_pb2.OpList,
                         jobs: int) -> tuple[list[int], list[tuple[int, str]]]:
    """`read_text_message(text, op_list)` and `_problems` of its ops; a big text in pieces read
    and checked by up to `jobs` forked workers at once (`_SHARED_TEXT_BYTES`), whose OpLists
    joined are the one the whole text gives. Raises Unread (about the whole text) where the
    reader stops."""
    shares = min(jobs, len(text) // _SHARED_TEXT_BYTES) if can_fork() else 1
    cuts = [0]
    for k in range(1, shares):
        m = _ENTRY_LINE.search(text, max(cuts[-1], len(text) * k // shares))
        if m is not None:
            cuts.append(m.end())
    cuts.append(len(text))

    def piece(k: int, _: int, into: op_def_pb2.OpList | None = None
              ) -> tuple[bytes, list[int], list[tuple[int, str]]] | None:
        """Share k: its OpList (serialized; read into `into` instead, the first share's, which
        stays in this process), entry offsets and problems; None where it stops."""
        part = op_def_pb2.OpList() if into is None else into
        try:
            starts = read_text_message(text[cuts[k]:cuts[k + 1]], part)
        except Unread:
            return None
        return (b"" if into is not None else part.SerializeToString(),
                [cuts[k] + offset for offset in starts], _problems(part.op))

    if len(cuts) > 2:
        first, rest = in_shares(lambda k, n: piece(k, n, op_list), piece, len(cuts) - 1)
        if first is not None and all(p is not None for p in rest):
            _, starts, problems = first
            for data, piece_starts, piece_problems in rest:  # type: ignore[misc]
                problems += [(len(op_list.op) + i, message) for i, message in piece_problems]
                op_list.MergeFromString(data)
                starts += piece_starts
            return starts, problems
        op_list.Clear()  # what the first share read
    # one piece, or one that does not read alone: the whole text's reader says where it stops
    return read_text_message(text, op_list), _problems(op_list.op)


def _parse_text_op_list(name: str, text: str, stop: Unread) -> op_def_pb2.OpList:
    """A text OpList `read_text_message` stopped in: protobuf's `text_format.Parse` decides
    (its error, read from the top-level entry where the reader stopped when that tells), after
    opgen's nesting limit."""
    deep = text_nesting_problem(text)
    if deep is not None:
        raise OpgenError(f"text OpList nests messages more than {MAX_TEXT_NESTING} deep (opgen's limit)",
                         Location(name, deep))
    op_list = op_def_pb2.OpList()
    try:
        error = protobuf_error(text, stop, op_def_pb2.OpList)
        if error is not None:
            raise error
        text_format.Parse(text, op_list)
    except text_format.ParseError as e:
        line, col = e.GetLine() or 0, e.GetColumn() or 0
        message = re.sub(r"^\d+:\d+ : ", "", str(e))
        raise OpgenError(f"cannot parse text OpList: {_one_line(plain_proto_names(message))}",
                         Location(name, line, col)) from None
    return op_list


def _lines_at(text: str, offsets: list[int]) -> list[int]:
    """The 1-based lines of increasing offsets into `text`."""
    lines = []
    line, last = 1, 0
    for offset in offsets:
        line += text.count("\n", last, offset)
        last = offset
        lines.append(line)
    return lines


def _op_entry_lines(text: str) -> list[int]:
    """Lines of the top-level `op` fields of a text-format OpList, in order."""
    return [
        line
        for line, depth, tok in text_proto_structure(text, "op")
        if tok == "op" and depth == 0
    ]


def _one_line(message: str) -> str:
    return " ".join(message.split())
