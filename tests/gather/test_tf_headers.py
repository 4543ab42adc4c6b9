"""What TF 2.21's headers give an op source, though gathering never reads them
(`opgen.spec.tf_headers`): checked against g++ preprocessing the same source with TF's own
headers and flags (trial11 F0, F0b: `#if TF_GRAPH_DEF_VERSION`, `PLATFORM_POSIX`,
`__has_include` of a header the wheel lacks)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from support.paths import REPO

from opgen.spec.preprocessor import Preprocessor

pytestmark = pytest.mark.oracle

# Headers op sources include, alone: each brings the platform macros, the version macros,
# both or neither.
HEADERS = (
    "tensorflow/core/framework/op.h",
    "tensorflow/core/framework/shape_inference.h",
    "tensorflow/core/framework/common_shape_fns.h",
    "tensorflow/core/framework/op_kernel.h",
    "tensorflow/core/public/version.h",
    "tensorflow/core/platform/platform.h",
    "tensorflow/core/framework/versions.h",
    "tensorflow/core/framework/types.pb.h",
)
MACROS = ("PLATFORM_POSIX", "PLATFORM_WINDOWS", "PLATFORM_IS_X86", "PLATFORM_IS_ARM", "IS_MOBILE_PLATFORM",
          "TSL_IS_IN_OSS", "TF_GRAPH_DEF_VERSION", "TF_GRAPH_DEF_VERSION_MIN_PRODUCER",
          "TF_GRAPH_DEF_VERSION_MIN_CONSUMER", "TF_CHECKPOINT_VERSION", "TF_MAJOR_VERSION", "TF_STR")
# `__has_include` targets: the wheel's, and near misses it lacks.
HAS_INCLUDE = ('"tensorflow/core/public/release_version.h"', "<tensorflow/core/framework/op.h>",
               '"tensorflow/core/not_a_real_header.h"', '"tsl/platform/platform.h"', '"xla/no_such.h"',
               '"tensorflow/core/framework/full_type.pb.h"', "<tensorflow/core/kernels/no_such_op.h>")


@pytest.fixture(scope="module")
def gxx():
    if shutil.which("g++") is None:
        pytest.skip("g++ not available: it is the oracle here")
    from oracle.cxx_build import tf_flags

    return tf_flags()[0]


def _gxx_macros(source, flags) -> dict[str, str]:
    run = subprocess.run(["g++", "-std=c++17", "-E", "-dM", "-x", "c++", str(source), *flags],
                         capture_output=True, text=True, check=True)
    found = {}
    for line in run.stdout.splitlines():
        m = re.match(r"#define (\w+)(\([^)]*\))? ?(.*)", line)
        if m and m[1] in MACROS:
            found[m[1]] = "".join(m[3].split())  # tokens, as opgen keeps them
    return found


def _opgen_macros(source) -> dict[str, str]:
    pp = Preprocessor()
    pp.run(str(source))
    return {name: "".join(t[1] for t in macro.body) for name, macro in pp.macros.items() if name in MACROS}


@pytest.mark.parametrize("header", HEADERS)
def test_macros_tf_headers_define_equal_gxx(header, gxx, tmp_path):
    source = tmp_path / "ops.cc"
    source.write_text(f'#include "{header}"\n')
    assert _opgen_macros(source) == _gxx_macros(source, gxx)


def test_has_include_of_tf_headers_equals_gxx(gxx, tmp_path):
    source = tmp_path / "ops.cc"
    source.write_text("".join(f"#if __has_include({target})\nint has_{i};\n#endif\n"
                              for i, target in enumerate(HAS_INCLUDE)))
    run = subprocess.run(["g++", "-std=c++17", "-E", "-P", "-x", "c++", str(source), *gxx],
                         capture_output=True, text=True, check=True)
    theirs = set(re.findall(r"has_\d+", run.stdout))
    ours = {t[1] for t in Preprocessor().run(str(source)) if t[1].startswith("has_")}
    assert ours == theirs and 0 < len(theirs) < len(HAS_INCLUDE), (ours, theirs)


def test_header_list_is_tfs_wheel():
    """tools/gen_tf_headers.py --check, in a fresh process (it asks TF for its include directory)."""
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "gen_tf_headers.py"), "--check"], capture_output=True,
                          text=True, check=False, env=dict(os.environ, PYTHONPATH=str(REPO), TF_CPP_MIN_LOG_LEVEL="3"))
    assert proc.returncode == 0, proc.stderr


# Headers an op source may include alone before naming TF's `shape_inference::UnchangedShape`:
# `op.h` and `shape_inference.h` do not declare it; `common_shape_fns.h` does, and so does
# `resource_mgr.h` through it (trial18 #5).
SHAPE_FN_HEADERS = (
    ("tensorflow/core/framework/op.h",),
    ("tensorflow/core/framework/op.h", "tensorflow/core/framework/shape_inference.h",
     "tensorflow/core/framework/op_kernel.h"),
    ("tensorflow/core/framework/op.h", "tensorflow/core/framework/common_shape_fns.h"),
    ("tensorflow/core/framework/op.h", "tensorflow/core/framework/resource_mgr.h"),
)


@pytest.mark.parametrize("headers", SHAPE_FN_HEADERS, ids=lambda headers: "+".join(h.rsplit("/")[-1] for h in headers))
def test_undeclared_tf_shape_fn_warning_equals_gxx_rejecting_the_op(headers, gxx, tmp_path):
    """opgen warns that a `SetShapeFn(shape_inference::UnchangedShape)` does not compile exactly
    when g++ rejects it, with g++'s reason."""
    from opgen.spec.gather import gather

    source = tmp_path / "ops.cc"
    source.write_text("".join(f'#include "{h}"\n' for h in headers) + (
        'namespace tensorflow {\nREGISTER_OP("Sf").Input("x: float").Output("y: float")\n'
        "    .SetShapeFn(shape_inference::UnchangedShape);\n}  // namespace tensorflow\n"))
    run = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wno-deprecated-declarations", "-x", "c++",
                          str(source), *gxx], capture_output=True, text=True, check=False,
                         env=dict(os.environ, LC_ALL="C"))  # (ASCII quotes in its messages)
    warnings = [w for w in gather([str(source)]).warnings if "common_shape_fns.h, which this file" in w]
    if run.returncode == 0:
        assert warnings == []
    else:
        assert "'UnchangedShape' is not a member of 'tensorflow::shape_inference'" in run.stderr
        expected = (
            f"{source}:{len(headers) + 3}:17: warning: shape function 'shape_inference::UnchangedShape' is declared in "
            "tensorflow/core/framework/common_shape_fns.h, which this file includes neither directly nor through "
            "its other headers: g++ rejects it ('UnchangedShape' is not a member of 'tensorflow::shape_inference'), "
            'so the op library does not compile\n  hint: add #include "tensorflow/core/framework/common_shape_fns.h"')
        assert warnings == [expected]
