"""`.Doc(text)`: TF 2.21's `FinalizeDoc` (`op_def_builder.cc`).

Summary = first non-blank line; description = following lines up to the first "name
line" (`NAME ws* :` at column 0); then one entry per name line with its continuation
lines, whose common indentation (spaces) is removed. Every line loses trailing
whitespace first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opgen.tf_text.proto_text import SPACE
from opgen_runtime.proto import op_def_pb2

NAME_LINE = re.compile(r"([A-Za-z][A-Za-z0-9_]*)[ \t\n\v\f\r]*:[ \t\n\v\f\r]*")


def is_name_line(line: str) -> bool:
    """True when FinalizeDoc would read `line` as the start of an arg/attr entry."""
    return NAME_LINE.match(line) is not None


def _leading_spaces(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


@dataclass(frozen=True)
class DocProblem:
    """An entry naming no input, output or attr: TF's `message`, the entry's `name` and its
    `line` (0-based) in the Doc text, and the names the Doc's other entries give (before and
    after it: TF stops at this one), which a hint should not offer as what it meant."""

    message: str
    name: str
    line: int
    documented: frozenset[str] = frozenset()


def finalize_doc(text: str, op_def: op_def_pb2.OpDef) -> DocProblem | None:
    """Fill summary/description/arg docs of `op_def` from `text`; the problem TF reports, or None."""
    lines = [line.rstrip(SPACE) for line in text.split("\n")]
    n = len(lines)
    i = 0
    while i < n and not lines[i]:
        i += 1
    if i < n:
        op_def.summary = lines[i]
        i += 1
    while i < n and not lines[i]:
        i += 1
    start = i
    while i < n and not NAME_LINE.match(lines[i]):
        i += 1
    end = i
    while start < end and not lines[end - 1]:
        end -= 1
    description = "\n".join(lines[start:end])
    if description:
        op_def.description = description

    documented: set[str] = set()
    while i < n:
        m = NAME_LINE.match(lines[i])
        assert m is not None
        name = m.group(1)
        name_line = i
        entry = [lines[i][m.end():]]
        i += 1
        while i < n and not NAME_LINE.match(lines[i]):
            entry.append(lines[i])
            i += 1
        while entry and not entry[-1]:
            entry.pop()
        indents = [_leading_spaces(line) for line in entry[1:] if line]
        if indents:
            cut = min(indents)
            entry[1:] = [line[cut:] if line else line for line in entry[1:]]
        complete = "\n".join(entry)
        for args in (op_def.input_arg, op_def.output_arg, op_def.attr):
            target = next((a for a in args if a.name == name), None)
            if target is not None:
                target.description = complete
                documented.add(name)
                break
        else:
            # the entries after it: name lines, since its own continuation lines end at the next one
            later = {m.group(1) for line in lines[i:] if (m := NAME_LINE.match(line))}
            return DocProblem(f"No matching input/output/attr for name '{name}' from Doc() for Op {op_def.name}",
                              name, name_line, frozenset((documented | later) - {name}))
    return None
