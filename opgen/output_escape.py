"""One escaping helper per output format, for every string from input that opgen prints.

* text (terminal, `opgen diff --format text`): `opgen.errors.printable_line` (a newline as
  `\\n`, other control characters as `\\xNN`); `report` does it for messages on stderr.
* Markdown (`opgen kernels --format md`, the Markdown API snapshot, `opgen diff --format md`):
  `md_text` for inline text (headings, list items, table cells), `md_code` for a code span
  outside tables, `md_code_block` for a fenced block. A table cell is always `md_text`: GitHub's
  table parser (cmark-gfm `row_from_string`) and others disagree on a backslash before a pipe
  inside a code span, so escaped text is the one form that splits cells the same everywhere.
* GitHub workflow commands (`opgen diff --format github`): `gh_data` and `gh_property`, GitHub's
  own encoding (actions/toolkit `command.ts`: `escapeData` and `escapeProperty`).

Each first puts the string on one line (`printable_line`), so no input can start a line of
the output, let alone a heading, a table row, an HTML comment or a workflow command.
"""

from __future__ import annotations

import re

from opgen.errors import printable_line

__all__ = ["gh_data", "gh_property", "md_code", "md_code_block", "md_text"]

# Backslash-escapable ASCII punctuation (CommonMark 2.4) that can start inline syntax:
# emphasis, code, links, HTML and entities, table pipes, headings' closing `#`, GFM
# strikethrough, GitHub's math (`$`) and @-mentions. `_` only where it can open or close
# emphasis (not between two ASCII letters or digits), so identifiers stay readable.
_MD_INLINE = re.compile(r"[\\`*\[\]<>&|#~$@]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# What else starts a block when it begins a line's content (after the inline escapes, which
# cover `#`, `>`, `*` and `_`): a list item marker, a setext underline, an ordered-list number.
_MD_BLOCK_START = re.compile(r"[-+=]|\d{1,9}(?=[.)])")


def md_text(text: str) -> str:
    """`text` as Markdown inline text that renders exactly as `text` (on one line)."""
    out = _MD_INLINE.sub(lambda m: "\\" + m.group(), printable_line(text))
    start = _MD_BLOCK_START.match(out)
    if start is not None:
        end = start.end()
        out = out[:end] + "\\" + out[end:] if start.group()[0].isdigit() else "\\" + out
    if out.startswith((" ", "\t")):  # leading blanks would indent a list item into a code block
        out = f"&#{ord(out[0])};" + out[1:]
    return out


def _fence_length(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0) + 1


def md_code(text: str) -> str:
    """`text` as a Markdown code span (not for table cells: see the module docstring)."""
    content = printable_line(text)
    fence = "`" * _fence_length(content)
    if not content or content[0] in "` " or content[-1] in "` ":  # CommonMark strips one space each side
        content = f" {content} "
    return f"{fence}{content}{fence}"


def md_code_block(text: str, info: str = "") -> list[str]:
    """The lines of a fenced code block holding `text` on one line."""
    content = printable_line(text)
    fence = "`" * max(3, _fence_length(content))
    return [fence + info, content, fence]


def gh_data(text: str) -> str:
    """The message of a workflow command: GitHub's escapeData (`%`, CR, LF), then any other
    control character as `printable_line` spells it (GitHub prints them to the log as they are)."""
    return printable_line(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def gh_property(text: str) -> str:
    """A property value (`file=`, `title=`): GitHub's escapeProperty (escapeData, `:`, `,`)."""
    return gh_data(text).replace(":", "%3A").replace(",", "%2C")
