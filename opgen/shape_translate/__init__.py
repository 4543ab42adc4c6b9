"""Translating C++ shape functions (`SetShapeFn` lambdas and project functions) into Python.

`translate_lambda(tokens, start, namespaces)` reads the lambda whose `[` is `tokens[start]`
(and `definition_at`, a named function's definition; a function template's is translated per
instantiation, `ShapeFnTemplate.instantiate`), with the unit's constants found where the
unit's `Namespaces` (gathering's, one per unit) says they stand, and returns a
`Translation`: the body of a Python function over the runtime's `InferenceContext`
(`opgen_runtime/shapes/context.py`), or the location and name of the first construct it
cannot express exactly. Nothing the
input says is pasted into the output: identifiers are checked and renamed, literals are
decoded and re-printed, calls map through a fixed table (`parser.py`).
"""

from opgen.shape_translate.parser import (
    ShapeFnTemplate,
    TemplateArguments,
    Translation,
    definition_at,
    template_arguments,
    translate_lambda,
)

__all__ = ["ShapeFnTemplate", "TemplateArguments", "Translation", "definition_at", "template_arguments",
           "translate_lambda"]
