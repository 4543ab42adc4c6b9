"""The macros the compiler predefines that op sources test, as `g++ -x c++ -std=c++17` (GCC
12, the compiler TF 2.21's `tf.sysconfig` flags are used with) defines them on x86-64 Linux:
`g++ -x c++ -std=c++17 -dM -E - </dev/null`, filtered to the operating system, architecture,
data model, byte order, compiler identity and version, language level and the
exception/RTTI switches. Left out: floating-point limits, type names and widths, atomics,
instruction-set extensions beyond SSE2 and the `__cpp_*` feature macros (no op library
registers ops depending on them). tests/gather/test_gather_skipped.py compares each value with
the installed g++.

`-U NAME` (`[tool.opgen] undefines`) removes one, `-D NAME=V` replaces it; another
platform is a matter of both (docs/gathering.md).
"""

from __future__ import annotations

from collections.abc import Iterable

GXX_X86_64_LINUX: dict[str, str] = {
    # language
    "__cplusplus": "201703L",
    "__STDC__": "1",
    "__STDC_HOSTED__": "1",
    "__STRICT_ANSI__": "1",  # -std=c++17, not gnu++17
    "_GNU_SOURCE": "1",  # g++ always defines it (libstdc++ needs it)
    "__EXCEPTIONS": "1",
    "__cpp_exceptions": "199711L",
    "__GXX_RTTI": "1",
    "__cpp_rtti": "199711L",
    # compiler
    "__GNUC__": "12",
    "__GNUC_MINOR__": "2",
    "__GNUC_PATCHLEVEL__": "0",
    "__GNUG__": "12",
    "__VERSION__": '"12.2.0"',
    "__GXX_ABI_VERSION": "1017",
    # operating system and object format
    "__linux__": "1",
    "__linux": "1",
    "__gnu_linux__": "1",
    "__unix__": "1",
    "__unix": "1",
    "__ELF__": "1",
    # architecture and data model
    "__x86_64__": "1",
    "__x86_64": "1",
    "__amd64__": "1",
    "__amd64": "1",
    "__SSE__": "1",
    "__SSE2__": "1",
    "__LP64__": "1",
    "_LP64": "1",
    "__CHAR_BIT__": "8",
    "__SIZEOF_INT__": "4",
    "__SIZEOF_LONG__": "8",
    "__SIZEOF_LONG_LONG__": "8",
    "__SIZEOF_POINTER__": "8",
    "__SIZEOF_SIZE_T__": "8",
    "__SIZEOF_INT128__": "16",
    "__ORDER_LITTLE_ENDIAN__": "1234",
    "__ORDER_BIG_ENDIAN__": "4321",
    "__ORDER_PDP_ENDIAN__": "3412",
    "__BYTE_ORDER__": "__ORDER_LITTLE_ENDIAN__",
}


def predefined_macros(undefines: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(name, value) of each predefined macro but the `undefines`."""
    removed = set(undefines)
    return [(name, value) for name, value in GXX_X86_64_LINUX.items() if name not in removed]
