"""`opgen oplist --report-shapes`: how each op's shape function reaches opgen's runtime."""

from __future__ import annotations

from collections import Counter

from opgen.model import OpSource


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
