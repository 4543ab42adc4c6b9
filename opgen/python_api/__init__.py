"""The Python API of generated wrappers, decided in one place (torchgen's `api/python.py`):
OpDef + ApiDef -> `FunctionApi` (function and alias names, parameters, defaults, inferred
attrs, annotations, outputs, docstrings, reserved and builtin names).

The renderer (`opgen.render`), the API snapshot (`opgen.apidiff`) and override validation
(`opgen.overrides.load`) all ask this package; none of them decides a Python name itself.

- `names`: snake case, reserved words, the identifier policy, module-level names.
- `signature`: function name, aliases, parameters and inferred attrs of an ApiDef.
- `function`: `function_api(op_def, api_def) -> FunctionApi | SkippedOp`, `module_api`.
- `literals`, `docstrings`: defaults, annotations and docstrings as Python source.
"""
