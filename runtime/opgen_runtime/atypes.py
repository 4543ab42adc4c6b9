"""Annotation classes for generated wrappers' TypeVars (`_atypes.Float32`, ...), like TF's.

One empty class per DataType annotation name (the names TF's generator writes, see
`python_op_gen.cc`, and `tensorflow/security/fuzzing/py/annotation_types.py`, which TF's
modules import as `_atypes`), plus `Float16`, which TF's unconstrained TypeVar list also
names. They exist for type checkers only.
"""

from __future__ import annotations

from opgen_runtime.proto import datatypes as _names

_NAMES = sorted({n.annotation for n in _names.BY_ENUM.values()} | {"Float16"})
__all__ = list(_NAMES)

for _name in _NAMES:
    globals()[_name] = type(
        _name, (), {"__module__": __name__, "__doc__": f"The `{_name}` element type."}
    )
