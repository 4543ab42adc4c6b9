"""absl::CEscape, shared by the runtime's attr summaries (`shapes.summary`) and the
generator's text formats (`opgen/tf_text/proto_text.py`): a leaf module."""

from __future__ import annotations


def _build_escape_table() -> list[str]:
    special = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    table = []
    for b in range(256):
        if b in special:
            table.append(special[b])
        elif 0x20 <= b < 0x7F:
            table.append(chr(b))
        else:
            table.append(f"\\{b // 64}{(b % 64) // 8}{b % 8}")
    return table


_ESCAPE = _build_escape_table()


def c_escape(data: bytes | str) -> str:
    """absl::CEscape: `\\n \\r \\t \\" \\' \\\\` and 3-digit octal for non-printable bytes."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return "".join([_ESCAPE[b] for b in data])
