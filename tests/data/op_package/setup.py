"""Compiles ops/example_ops.cc into example_ops/_example_ops.so (g++ with TensorFlow's flags) for the wheel."""

from setuptools import setup

try:
    from opgen.setup_helpers import OpLibrary, build_ext
except ImportError as e:  # the build runs without isolation, in the environment that has opgen
    raise SystemExit(
        f"{e}: building example_ops compiles its op library with opgen's setup helpers; install opgen "
        "here (pip install ./runtime . in an opgen clone) and build with pip wheel --no-build-isolation"
    ) from None

setup(
    ext_modules=[OpLibrary("example_ops/_example_ops.so", ["ops/example_ops.cc"])],
    cmdclass={"build_ext": build_ext},
)
