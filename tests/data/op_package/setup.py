"""Compiles ops/example_ops.cc into example_ops/_example_ops.so (g++ with TensorFlow's flags) for the wheel."""

from setuptools import setup

from opgen.setup_helpers import OpLibrary, build_ext

setup(
    ext_modules=[OpLibrary("example_ops/_example_ops.so", ["ops/example_ops.cc"])],
    cmdclass={"build_ext": build_ext},
)
