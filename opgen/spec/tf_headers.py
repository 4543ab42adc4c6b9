"""What TensorFlow 2.21's headers give an op source that includes them, though gathering
never reads them: which exist (`__has_include`), and the configuration macros they define
that sources test in `#if` (`tf_headers.txt.gz`, written by tools/gen_tf_headers.py from
the wheel's include directory).

- The platform macros of `tsl/platform/platform.h`, which nearly every header includes:
  `PLATFORM_POSIX` (or `PLATFORM_WINDOWS`, `PLATFORM_POSIX_ANDROID`, ...), `PLATFORM_IS_X86`
  or `PLATFORM_IS_ARM*`, decided by the compiler's predefined macros (`-U`/`-D` describe
  another platform), unless the build already defined one (its first test).
- The version macros of `tensorflow/core/public/version.h` (`TF_GRAPH_DEF_VERSION` 2474,
  ...). TF 2.21's headers do not define `TF_MAJOR_VERSION`: its build passes it.
- Whether it declares the named shape functions of `tensorflow/core/framework/common_shape_fns.h`
  (`shape_inference::UnchangedShape`, ...): `op.h` and `shape_inference.h` do not, so an op
  naming one in a file that includes neither that header nor one that does fails to compile.
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path

_DATA = Path(__file__).resolve().parent / "tf_headers.txt.gz"
# The folders whose headers the file lists: a `__has_include` of another path there is false.
LISTED_PREFIXES = ("tensorflow/", "tsl/", "xla/", "third_party/")

# `tsl/platform/platform.h`'s decisions, as preprocessor text run with the unit's macros
# (an Apple target is macOS: TargetConditionals.h is not read, so never iOS).
PLATFORM_MACROS = """\
#if !defined(PLATFORM_POSIX) && !defined(PLATFORM_GOOGLE) && !defined(PLATFORM_POSIX_ANDROID) \\
    && !defined(PLATFORM_GOOGLE_ANDROID) && !defined(PLATFORM_WINDOWS)
#if defined(ANDROID) || defined(__ANDROID__)
#define PLATFORM_POSIX_ANDROID
#define IS_MOBILE_PLATFORM
#elif defined(_WIN32)
#define PLATFORM_WINDOWS
#elif defined(__EMSCRIPTEN__)
#define PLATFORM_PORTABLE_GOOGLE
#define PLATFORM_POSIX
#define IS_MOBILE_PLATFORM
#elif defined(__TF_CHROMIUMOS__)
#define PLATFORM_PORTABLE_GOOGLE
#define PLATFORM_POSIX
#define PLATFORM_CHROMIUMOS
#elif defined(__Fuchsia__)
#define PLATFORM_FUCHSIA
#define PLATFORM_GOOGLE
#elif defined(__CHROME__)
#define PLATFORM_POSIX
#define PLATFORM_PORTABLE_GOOGLE
#else
#define PLATFORM_POSIX
#endif
#endif
#if defined(__x86_64__) || defined(__amd64__) || defined(_M_IX86) || defined(_M_X64)
#define PLATFORM_IS_X86
#endif
#if defined(__aarch64__)
#define PLATFORM_IS_ARM
#define PLATFORM_IS_ARM64
#elif defined(__arm__)
#define PLATFORM_IS_ARM
#define PLATFORM_IS_ARM32
#endif
#define TSL_IS_IN_OSS 1
"""

VERSION_MACROS = """\
#define TF_STR_HELPER(x) #x
#define TF_STR(x) TF_STR_HELPER(x)
#define TF_GRAPH_DEF_VERSION_MIN_PRODUCER 0
#define TF_GRAPH_DEF_VERSION_MIN_CONSUMER 0
#define TF_GRAPH_DEF_VERSION 2474
#define TF_CHECKPOINT_VERSION_MIN_PRODUCER 0
#define TF_CHECKPOINT_VERSION_MIN_CONSUMER 0
#define TF_CHECKPOINT_VERSION 1
"""

# flag in the data file -> (the header that defines the macros, their text); flag `s` defines none
MACROS_BY_FLAG = {"p": ("tsl/platform/platform.h", PLATFORM_MACROS),
                  "v": ("tensorflow/core/public/version.h", VERSION_MACROS)}


@functools.cache
def _headers() -> dict[str, str]:
    """Header path -> its flags ("" for none)."""
    text = gzip.decompress(_DATA.read_bytes()).decode("utf-8")
    return {path: flags.strip("-") for flags, _, path in (line.partition(" ") for line in text.splitlines())}


def is_listed(path: str) -> bool:
    """Whether `path` is under the folders the wheel's header list covers."""
    return path.startswith(LISTED_PREFIXES)


def tf_header_flags(path: str) -> str | None:
    """The flags of a header of the wheel (`p`, `v`, `s`, several or ""), None if it has none such."""
    return _headers().get(path)
