"""`opgen oplist --report-shapes`: how each op's shape function reaches opgen's runtime."""

from __future__ import annotations

import json
from collections import Counter

from opgen.errors import OpgenError, plural
from opgen.model import OpSource
from opgen_runtime.proto import op_def_pb2
from opgen_runtime.shapes.fns import BY_OP, NAMED


def _share(done: int, total: int) -> str:
    return f"{done} of {total} translated ({100 * done / total:.1f}%)" if total else "none"


def _runtime_kind(name: str, source: OpSource) -> str:
    """The source's kind, or `TF port` where the runtime runs its port of TF's shape function
    instead (`opgen_runtime.shapes.fns.lookup`: a built-in named by SetShapeFn comes first); a
    name says whether the runtime has it built in, or the op's shapes are unknown without TF."""
    built_in = bool(source.shape_fn) and source.shape_fn.rsplit("::", 1)[-1] in NAMED  # type: ignore[union-attr]
    if name in BY_OP and not built_in:
        return "TF port"
    if source.shape_fn_kind == "named":
        return _BUILT_IN if built_in else _NOT_BUILT_IN
    return source.shape_fn_kind


_BUILT_IN = "named, built in"
_NOT_BUILT_IN = "named, not built in (unknown shapes without TensorFlow)"


def shape_report(sources: dict[str, OpSource], fmt: str = "text") -> str:
    """One line per op (`Op<TAB>kind[<TAB>where: construct]`, sorted by name), then totals:
    lambdas and project functions translated, and the share of all ops that get a shape
    function without TensorFlow (translated, built in, TF ports) with what the others lack,
    so 100% means every op. As JSON (`fmt` "json"): the same ops and counts as an object."""
    ops = []
    kinds: Counter[str] = Counter()
    for name in sorted(sources):
        source = sources[name]
        kind = _runtime_kind(name, source)
        kinds[kind] += 1
        ops.append({"op": name, "kind": kind,
                    "problem": source.shape_fn_problem if source.shape_fn_problem and kind != "TF port" else None})
    shares = {
        "lambdas": (kinds["lambda, translated"], kinds["lambda, translated"] + kinds["lambda, not translated"]),
        "project functions": (kinds["function, translated"],
                              kinds["function, translated"] + kinds["function, not translated"]),
    }
    with_fn = {"translated": shares["lambdas"][0] + shares["project functions"][0], "built_in": kinds[_BUILT_IN],
               "tf_ports": kinds["TF port"]}
    without = {"not_translated": kinds["lambda, not translated"] + kinds["function, not translated"],
               "not_built_in": kinds[_NOT_BUILT_IN], "none": kinds["none"]}
    with_count, total = sum(with_fn.values()), len(ops)
    if fmt == "json":
        totals: dict[str, object] = {what.replace(" ", "_"): {"translated": done, "of": of}
                                     for what, (done, of) in shares.items()}
        totals["ops"] = {"of": total, "with_shape_fn": with_count, **with_fn, **without}
        return json.dumps({"ops": ops, "totals": totals}, indent=2, ensure_ascii=False) + "\n"
    lines = [f"{op['op']}\t{op['kind']}" + (f"\t{op['problem']}" if op["problem"] else "") for op in ops]
    lines += [f"{what}: {_share(*shares[what])}" for what in ("lambdas", "project functions")]
    share = f" ({100 * with_count / total:.1f}%)" if total else ""
    lines.append(f"shape functions without TensorFlow: {with_count} of {plural(total, 'op')}{share}: "
                 f"{with_fn['translated']} translated, {with_fn['built_in']} built in, {with_fn['tf_ports']} TF ports")
    lines.append(f"without one: {plural(total - with_count, 'op')}: {without['not_translated']} not translated, "
                 f"{without['not_built_in']} named but not built in, {without['none']} none")
    return "\n".join(lines) + "\n"


def op_list_shape_warnings(op_list: op_def_pb2.OpList, sources: dict[str, OpSource]) -> list[str]:
    """A warning per OpList file whose ops (with outputs, other than the TF ops the runtime has
    ports of) get no shape function without TensorFlow: an OpList holds no shape
    functions, so the translation of their C++ `SetShapeFn` that a build from the C++ sources
    would give them is lost. Located at the first such op's entry."""
    by_file: dict[str, list[tuple[str, OpSource]]] = {}
    for op in op_list.op:
        source = sources.get(op.name)
        if source is not None and source.from_op_list and op.output_arg and op.name not in BY_OP:
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
