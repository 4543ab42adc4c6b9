"""Build a Snapshot from gathered specs, the override model and `opgen.python_api.function`."""

from __future__ import annotations

import os
from pathlib import Path

from opgen.apidiff.snapshot import Function, OpEntry, Param, Snapshot, kernel_type_key, strip_docs
from opgen.config import Config
from opgen.errors import Location
from opgen.model import GatherResult
from opgen.module_groups import group_ops, module_pattern
from opgen.overrides.apidef import ApiModel
from opgen.proto import api_def_pb2, kernel_def_pb2
from opgen.python_api.function import FunctionApi, SkippedOp, located_function_api
from opgen.python_api.signature import is_private_endpoint, python_alias_name
from opgen.spec.kernel_summary import device_placement, device_types, selectable
from opgen_runtime.proto.datatypes import python_name

_SKIP_REASONS = {
    "skip": "skipped by an override (visibility SKIP)",
    "reserved": "no function: its Python name is a reserved word",
}


def module_names(gathered: GatherResult, config: Config) -> dict[str, str]:
    """Op name -> generated module, grouped exactly as `opgen build` groups them."""
    groups = group_ops(gathered.op_list, gathered.sources, dict(config.modules),
                       Location(str(config.root / "pyproject.toml")))
    return {op.name: module for module, ops in groups.items() for op in ops}


def _project(fn: FunctionApi, module: str) -> Function:
    return Function(
        module=module,
        name=fn.name,
        visible=fn.visible,
        signature=fn.signature_text(),
        aliases=fn.aliases,
        deprecated_aliases=tuple(sorted(fn.deprecated_aliases)),
        params=tuple(Param(p.name, f"{p.kind} {p.op_def_name}", p.default) for p in fn.params),
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
    """Rewrites locations relative to the project root, or, with `shown_root`, relative to
    the cwd as if the project lived at `shown_root`."""

    def __init__(self, root: Path, shown_root: Path | None):
        self.root = root.resolve()
        self.shown_root = shown_root.resolve() if shown_root is not None else None

    def __call__(self, loc: Location) -> Location:
        path = Path(loc.path)
        absolute = (path if path.is_absolute() else Path.cwd() / path).resolve()
        try:
            rel = absolute.relative_to(self.root)
        except ValueError:
            return loc
        if self.shown_root is not None:
            rel = Path(os.path.relpath(self.shown_root / rel, Path.cwd().resolve()))
        return Location(rel.as_posix(), loc.line, loc.col)


def _shaped_at(api: api_def_pb2.ApiDef, model: ApiModel, config: Config) -> dict[str, Location]:
    """Where each part of the op's Python API was shaped (`ApiModel.renamed_at`), each alias
    ("alias NAME", its Python name) at its endpoint's line, and as "module" the
    [tool.opgen.modules] glob that placed its function, if one did."""
    op = api.graph_op_name
    shaped = model.renamed_at.get(op, {})
    private = is_private_endpoint(api.visibility, api.endpoint[0].name if api.endpoint else "", op)
    aliases = {f"alias {python_alias_name(api.visibility, endpoint.name, private)}": at
               for endpoint in api.endpoint[1:] if (at := shaped.get(f"endpoint {endpoint.name}")) is not None}
    pattern = module_pattern(op, config.modules)
    placed = {"module": config.where("modules", pattern)} if pattern is not None else {}
    return {**shaped, **aliases, **placed}


def build_snapshot(gathered: GatherResult, model: ApiModel, config: Config, shown_root: Path | None = None) -> Snapshot:
    """Locations are relative to the project root, or to the cwd when `shown_root` is given
    (the directory the files are shown in: the project, spec tree or file's directory)."""
    relocate = _Relocator(config.root, shown_root)
    snapshot = Snapshot()
    modules = module_names(gathered, config)
    kernels_by_op: dict[str, list[kernel_def_pb2.KernelDef]] = {}
    kernel_locations: dict[str, dict[str, Location]] = {}
    op_defs = {op_def.name: op_def for op_def in gathered.op_list.op}
    for reg in gathered.kernels or []:
        kernels_by_op.setdefault(reg.kernel_def.op, []).append(reg.kernel_def)
        if selectable(reg.kernel_def, op_defs.get(reg.kernel_def.op)):  # as `kernels` counts them
            at = kernel_locations.setdefault(reg.kernel_def.op, {})
            device = reg.kernel_def.device_type
            at.setdefault(device, reg.location)
            for c in reg.kernel_def.constraint:  # and its first kernel of each type (`kernel_type_key`)
                for t in c.allowed_values.list.type:
                    at.setdefault(kernel_type_key(device, c.name, python_name(t)), reg.location)
    for op_def in gathered.op_list.op:
        source = gathered.sources.get(op_def.name)
        location = relocate(source.location) if source else None
        api = model.get(op_def)
        result = located_function_api(op_def, api, source)
        function = None
        skip_reason = ""
        if isinstance(result, SkippedOp):
            skip_reason = _SKIP_REASONS.get(result.reason, f"no function: {result.reason}")
        else:
            function = _project(result, modules[op_def.name])
        snapshot.ops[op_def.name] = OpEntry(
            op_def=strip_docs(op_def),
            function=function,
            docs=_docs(api),
            location=location,
            api_locations=tuple(map(relocate, model.provenance.get(op_def.name, []))),
            api_parts=tuple((key, relocate(at)) for key, at in _shaped_at(api, model, config).items()),
            skip_reason=skip_reason,
            kernels=None if gathered.kernels is None else device_types(kernels_by_op.get(op_def.name, []), op_def),
            kernel_placement={} if gathered.kernels is None else device_placement(
                kernels_by_op.get(op_def.name, []), op_def),
            kernel_locations=tuple((device, relocate(at))
                                   for device, at in kernel_locations.get(op_def.name, {}).items()),
            parts=tuple((key, at.moved(relocate)) for key, at in (source.parts if source else ())),
            argument_parts=tuple((key, text, at.moved(relocate))
                                 for key, text, at in (source.argument_parts if source else ())),
        )
    return snapshot
