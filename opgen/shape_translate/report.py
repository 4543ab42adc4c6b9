"""`opgen oplist --report-shapes`: how each op's shape function reaches opgen's runtime."""

from __future__ import annotations

from collections import Counter

from opgen.errors import OpgenError
from opgen.model import OpSource
from opgen.spec.tf_core_ops import is_tf_core_op
from opgen_runtime.proto import op_def_pb2


def _share(done: int, total: int) -> str:
    return f"{done} of {total} translated ({100 * done / total:.1f}%)" if total else "none"


def shape_report(sources: dict[str, OpSource]) -> str:
    """One line per op (`Op<TAB>kind[<TAB>where: construct]`, sorted by name), then totals:
    lambdas and project functions translated, names left to the runtime's built-ins."""
    lines = []
    kinds: Counter[str] = Counter()
    for name in sorted(sources):
        source = sources[name]
        kinds[source.shape_fn_kind] += 1
        problem = f"\t{source.shape_fn_problem}" if source.shape_fn_problem else ""
        lines.append(f"{name}\t{source.shape_fn_kind}{problem}")
    lambdas = kinds["lambda, translated"] + kinds["lambda, not translated"]
    functions = kinds["function, translated"] + kinds["function, not translated"]
    lines.append(f"lambdas: {_share(kinds['lambda, translated'], lambdas)}")
    lines.append(f"project functions: {_share(kinds['function, translated'], functions)}")
    translated = kinds["lambda, translated"] + kinds["function, translated"]
    lines.append(f"shape functions: {_share(translated, lambdas + functions)}"
                 f"; {kinds['named']} named (built-in or unread), {kinds['none']} without")
    return "\n".join(lines) + "\n"


def op_list_shape_warnings(op_list: op_def_pb2.OpList, sources: dict[str, OpSource]) -> list[str]:
    """A warning per OpList file whose ops (with outputs, other than TF's own, which have the
    runtime's ports) get no shape function without TensorFlow: an OpList holds no shape
    functions, so the translation of their C++ `SetShapeFn` that a build from the C++ sources
    would give them is lost. Located at the first such op's entry."""
    by_file: dict[str, list[tuple[str, OpSource]]] = {}
    for op in op_list.op:
        source = sources.get(op.name)
        if source is not None and source.from_op_list and op.output_arg and not is_tf_core_op(op.name):
            by_file.setdefault(source.location.path, []).append((op.name, source))
    warnings = []
    for ops in by_file.values():
        names = ", ".join(f"'{name}'" for name, _ in ops[:5]) + (f" and {len(ops) - 5} more" if len(ops) > 5 else "")
        count = f"{len(ops)} ops of this OpList have" if len(ops) > 1 else "1 op of this OpList has"
        warnings.append(OpgenError(
            f"{count} no shape function without TensorFlow (an OpList file holds none): {names}; the embedded "
            "runtime gives their outputs unknown shapes", min(source.location for _, source in ops),
            hint="build from the C++ sources that declare them (opgen translates their SetShapeFn), or register "
                 "one with opgen_runtime.register_shape_fn (docs/runtime.md)").format_warning())
    return warnings
