"""Build a Snapshot from gathered specs, the override model and `opgen.render.pyapi`."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path, PurePosixPath

from opgen.apidef import ApiModel
from opgen.apidiff.snapshot import Function, OpEntry, Param, Snapshot, strip_docs
from opgen.config import Config
from opgen.errors import Location
from opgen.proto import api_def_pb2
from opgen.render.pyapi import FunctionApi, SkippedOp, function_api
from opgen.spec.model import GatherResult

_SKIP_REASONS = {
    "skip": "skipped by an override (visibility SKIP)",
    "reserved": "no function: its Python name is a reserved word",
}


def module_name(op_name: str, location: Location | None, config: Config) -> str:
    """The generated module of an op: the first `[tool.opgen.modules]` glob it matches,
    else `gen_<source file stem>` (op_specs/math_ops.cc -> gen_math_ops)."""
    for pattern, module in config.modules.items():
        if fnmatch.fnmatchcase(op_name, pattern):
            return module
    stem = Path(location.path).stem if location else "ops"
    return f"gen_{stem}"


def _project(fn: FunctionApi, module: str) -> Function:
    return Function(
        module=module,
        name=fn.name,
        visible=fn.visible,
        signature=fn.signature_text(),
        aliases=fn.aliases,
        params=tuple(Param(p.name, f"{p.kind} {p.keyword}", p.default) for p in fn.params),
        outputs=tuple(o.field for o in fn.outputs),
        output_type=fn.namedtuple_typename,
    )


def _docs(api: api_def_pb2.ApiDef) -> tuple[tuple[str, str], ...]:
    """The texts the docstring shows (after overrides), keyed by what they document (Python names)."""
    items = [("summary", api.summary), ("description", api.description)]
    for kind, args in (("input", api.in_arg), ("output", api.out_arg), ("attr", api.attr)):
        items += [(f"{kind} {a.rename_to or a.name}", a.description) for a in args]
    return tuple(sorted((k, v) for k, v in items if v))


class _Relocator:
    """Rewrites locations relative to the project root, behind an optional display prefix."""

    def __init__(self, root: Path, prefix: str):
        self.root = root.resolve()
        self.prefix = prefix

    def __call__(self, loc: Location | None) -> Location | None:
        if loc is None:
            return None
        path = Path(loc.path)
        absolute = (path if path.is_absolute() else Path.cwd() / path).resolve()
        try:
            rel = PurePosixPath(absolute.relative_to(self.root).as_posix())
        except ValueError:
            return loc
        shown = PurePosixPath(self.prefix) / rel if self.prefix else rel
        return Location(str(shown).replace(os.sep, "/"), loc.line, loc.col)


def build_snapshot(gathered: GatherResult, model: ApiModel, config: Config, display_prefix: str = "") -> Snapshot:
    relocate = _Relocator(config.root, display_prefix)
    snapshot = Snapshot()
    for op_def in gathered.op_list.op:
        source = gathered.sources.get(op_def.name)
        location = relocate(source.location if source else None)
        api = model.get(op_def)
        result = function_api(op_def, api)
        function = None
        skip_reason = ""
        if isinstance(result, SkippedOp):
            skip_reason = _SKIP_REASONS.get(result.reason, f"no function: {result.reason}")
        else:
            function = _project(result, module_name(op_def.name, source.location if source else None, config))
        snapshot.ops[op_def.name] = OpEntry(
            op_def=strip_docs(op_def),
            function=function,
            docs=_docs(api),
            location=location,
            api_locations=tuple(loc for loc in map(relocate, model.provenance.get(op_def.name, [])) if loc),
            skip_reason=skip_reason,
        )
    return snapshot
