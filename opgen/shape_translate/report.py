"""`opgen oplist --report-shapes`: how each op's shape function reaches opgen's runtime."""

from __future__ import annotations

import json
from collections import Counter

from opgen.errors import OpgenError
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
    lambdas and project functions translated, names left to the runtime's built-ins, TF ops
    the runtime's ports serve (an OpList's among them). As JSON (`fmt` "json"): the same ops
    and counts as an object."""
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
    shares["shape functions"] = (shares["lambdas"][0] + shares["project functions"][0],
                                 shares["lambdas"][1] + shares["project functions"][1])
    if fmt == "json":
        totals: dict[str, object] = {what.replace(" ", "_"): {"translated": done, "of": total}
                                     for what, (done, total) in shares.items()}
        totals |= {"named": kinds[_BUILT_IN] + kinds[_NOT_BUILT_IN], "named_not_built_in": kinds[_NOT_BUILT_IN],
                   "tf_ports": kinds["TF port"], "none": kinds["none"]}
        return json.dumps({"ops": ops, "totals": totals}, indent=2, ensure_ascii=False) + "\n"
    lines = [f"{op['op']}\t{op['kind']}" + (f"\t{op['problem']}" if op["problem"] else "") for op in ops]
    lines += [f"{what}: {_share(*shares[what])}" for what in ("lambdas", "project functions")]
    lines.append(f"shape functions: {_share(*shares['shape functions'])}"
                 f"; {kinds[_BUILT_IN] + kinds[_NOT_BUILT_IN]} named ({kinds[_NOT_BUILT_IN]} not built in),"
                 f" {kinds['TF port']} TF ports,"
                 f" {kinds['none']} without")
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
