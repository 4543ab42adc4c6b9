"""What the kernels of an op say to a reader: per device, the types each type attr may take
(API snapshots, `opgen diff`, docstrings, `opgen kernels --format md`), and the cross-check
of kernels against the ops the sources declare.

A device's types for an attr are the union over its kernels of each kernel's constraint on
that attr (a kernel that does not constrain it accepts every type the op allows: None when
the op allows any), within the types the op allows. Kernels no node can get (constraints on
attrs the op lacks, no allowed type left) are left out; the cross-check reports them. Attrs no kernel of
the device constrains are left out. Labelled kernels
(selected only by a node's `_kernel` attr, op_kernel.cc FindKernelRegistration) are not part
of what an op "runs on"; the Markdown table lists them on their own rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from opgen.errors import Location, OpgenError, did_you_mean
from opgen.globs import glob_list
from opgen.model import KernelRegistration, OpSource, part_use_site
from opgen.output_escape import md_text
from opgen.proto import kernel_def_pb2
from opgen_runtime.proto import datatypes, op_def_pb2

# device -> attr -> type names (tf.DType names, in DataType order), None: any type.
DeviceTypes = dict[str, dict[str, "tuple[str, ...] | None"]]
# device -> (args some kernel keeps in host memory, sorted; its kernels' priorities, sorted)
DevicePlacement = dict[str, "tuple[tuple[str, ...], tuple[int, ...]]"]
_DEVICE_ORDER = {"CPU": 0, "GPU": 1}


def device_key(device: str) -> tuple[int, str]:
    """CPU, then GPU, then other devices by name."""
    return _DEVICE_ORDER.get(device, 2), device


def _type_attrs(op_def: op_def_pb2.OpDef | None) -> dict[str, tuple[int, ...] | None]:
    if op_def is None:
        return {}
    return {a.name: (tuple(a.allowed_values.list.type) if a.HasField("allowed_values") else None)
            for a in op_def.attr if a.type in ("type", "list(type)")}


def _names(types: Iterable[int], type_name: Callable[[int], str] = datatypes.python_name) -> tuple[str, ...]:
    return tuple(type_name(t) for t in sorted(set(types)))


def _usable(k: kernel_def_pb2.KernelDef, op_def: op_def_pb2.OpDef | None,
            type_attrs: dict[str, tuple[int, ...] | None]) -> bool:
    """Whether some node of the op can get kernel `k`: its constraints name attrs of the op,
    type constraints name type attrs, and each leaves a type the op allows (the
    cross-check reports the others). Unknown when the op is not declared: assumed usable."""
    if op_def is None:
        return True
    names = {a.name for a in op_def.attr}
    for c in k.constraint:
        types = c.allowed_values.list.type
        if c.name not in names or (types and c.name not in type_attrs):
            return False
        allowed = type_attrs.get(c.name)
        if types and allowed is not None and not set(types) & set(allowed):
            return False
    return True


def selectable(k: kernel_def_pb2.KernelDef, op_def: op_def_pb2.OpDef | None) -> bool:
    """Whether TF can select unlabelled kernel `k` for some node of the op (what `device_types`
    counts; the cross-check reports the others)."""
    return not k.label and _usable(k, op_def, _type_attrs(op_def))


def _by_device(kernels: Iterable[kernel_def_pb2.KernelDef], op_def: op_def_pb2.OpDef | None,
               group: str) -> dict[str, list[kernel_def_pb2.KernelDef]]:
    """The op's usable kernels with label `group` ("" : unlabelled), per device."""
    attrs = _type_attrs(op_def)
    by_device: dict[str, list[kernel_def_pb2.KernelDef]] = {}
    for k in kernels:
        if k.label == group and _usable(k, op_def, attrs):
            by_device.setdefault(k.device_type, []).append(k)
    return by_device


def device_placement(kernels: Iterable[kernel_def_pb2.KernelDef], op_def: op_def_pb2.OpDef | None) -> DevicePlacement:
    """Per device (CPU, GPU, then by name) whose unlabelled kernels keep an arg in host memory
    or have a priority other than 0: the args any of them keeps in host memory and the
    distinct priorities (both sorted; devices without either are left out)."""
    by_device = _by_device(kernels, op_def, "")
    out: DevicePlacement = {}
    for device in sorted(by_device, key=device_key):
        ks = by_device[device]
        host = tuple(sorted({arg for k in ks for arg in k.host_memory_arg}))
        priorities = tuple(sorted({k.priority for k in ks}))
        if host or priorities != (0,):
            out[device] = (host, priorities)
    return out


def device_types(kernels: Iterable[kernel_def_pb2.KernelDef], op_def: op_def_pb2.OpDef | None,
                 group: str = "", type_name: Callable[[int], str] = datatypes.python_name) -> DeviceTypes:
    """Per device (CPU, GPU, then by name), per constrained type attr, the types the op's
    unlabelled kernels (or those with label `group`) accept, named by `type_name` (tf.DType
    names unless a docstring wants its generator's spelling)."""
    attrs = _type_attrs(op_def)
    by_device = _by_device(kernels, op_def, group)
    out: DeviceTypes = {}
    for device in sorted(by_device, key=device_key):
        ks = by_device[device]
        constrained = [c.name for k in ks for c in k.constraint if c.allowed_values.list.type]
        per_attr: dict[str, tuple[str, ...] | None] = {}
        for attr in dict.fromkeys(constrained):
            union: set[int] = set()
            anything = False
            allowed = attrs.get(attr)
            for k in ks:
                own = [t for c in k.constraint if c.name == attr for t in c.allowed_values.list.type]
                if own:
                    union.update(own)
                elif allowed is None:
                    anything = True
                else:
                    union.update(allowed)
            if allowed is not None:  # a type the op does not allow never reaches a kernel
                union &= set(allowed)
            per_attr[attr] = None if anything else _names(union, type_name)
        out[device] = dict(sorted(per_attr.items()))
    return out


def runs_on(types: DeviceTypes) -> str:
    """`CPU (float32, float64, int32), GPU (float32)`; with several constrained attrs
    `CPU (T: float32, float64; Tidx: int32, int64)`; `any` for an unrestricted attr."""
    parts = []
    for device, per_attr in types.items():
        cells = [", ".join(names) if names is not None else "any" for names in per_attr.values()]
        if len(per_attr) == 1:
            parts.append(f"{device} ({cells[0]})")
        elif per_attr:
            parts.append(f"{device} ({'; '.join(f'{a}: {c}' for a, c in zip(per_attr, cells))})")
        else:
            parts.append(device)
    return ", ".join(parts)


def placement_text(placement: DevicePlacement) -> str:
    """`GPU (host memory: shape, x; priority 1)`, devices comma-separated."""
    parts = []
    for device, (host, priorities) in placement.items():
        facts = ([f"host memory: {', '.join(host)}"] if host else []) + (
            [f"priority {', '.join(map(str, priorities))}"] if priorities != (0,) else [])
        parts.append(f"{device} ({'; '.join(facts)})")
    return ", ".join(parts)


def kernels_by_op(kernel_list: kernel_def_pb2.KernelList) -> dict[str, list[kernel_def_pb2.KernelDef]]:
    out: dict[str, list[kernel_def_pb2.KernelDef]] = {}
    for k in kernel_list.kernel:
        out.setdefault(k.op, []).append(k)
    return out


def kernels_markdown(kernel_list: kernel_def_pb2.KernelList, op_list: op_def_pb2.OpList) -> str:
    """Per op, a table of devices x the types of each constrained type attr, with the
    host-memory args, labelled kernels on rows of their own and non-zero priorities; an op
    of `op_list` without kernels says so (it cannot run on TensorFlow from this library)."""
    op_defs = {op.name: op for op in op_list.op}
    by_op = kernels_by_op(kernel_list)
    lines = ["# Kernels", ""]
    for op in sorted(by_op.keys() | op_defs.keys()):
        kernels = by_op.get(op)
        if not kernels:
            lines += [f"## {md_text(op)}", "", "No kernel is registered for this op in the sources.", ""]
            continue
        op_def = op_defs.get(op)
        groups = {"": device_types(kernels, op_def)}
        for label in sorted({k.label for k in kernels if k.label}):
            groups[label] = device_types(kernels, op_def, label)
        heading = f"## {md_text(op)}" + ("" if op_def is not None else " (op not declared in the sources)")
        if not any(groups.values()):  # every kernel constrains what the op lacks or does not allow
            lines += [heading, "", ("No kernel registered in the sources can run this op (the warnings of "
                      "`opgen kernels` say why)."), ""]
            continue
        attrs = sorted({a for g in groups.values() for per in g.values() for a in per})
        lines += [heading, "",
                  "| Device | " + " | ".join(map(md_text, [*attrs, "Host memory"])) + " |",
                  "|---" * (len(attrs) + 2) + "|"]
        for label, types in groups.items():
            for device, per_attr in types.items():
                ks = [k for k in kernels if k.device_type == device and k.label == label]
                priorities = sorted({k.priority for k in ks if k.priority})
                head = device + (f' (label "{label}")' if label else "") + (
                    f" (priority {', '.join(map(str, priorities))})" if priorities else "")
                cells = [_cell(per_attr.get(a, ())) for a in attrs]
                host = ", ".join(dict.fromkeys(h for k in ks for h in k.host_memory_arg))
                # every cell escaped text (opgen.output_escape: never a code span in a table)
                lines.append("| " + " | ".join(map(md_text, [head, *cells, host])) + " |")
        lines.append("")
    return "\n".join(lines)


def _cell(names: tuple[str, ...] | None) -> str:
    if names is None:
        return "any"
    return ", ".join(names) if names else "(any the op allows)"


def cross_check(registrations: Iterable[KernelRegistration], op_list: op_def_pb2.OpList,
                internal_ops_listed: bool = True, sources: Mapping[str, OpSource] | None = None,
                kernels_elsewhere: Sequence[str] = (), type_coverage: bool = False) -> list[OpgenError]:
    """Kernels TensorFlow would reject at load or at run time: for an op the sources do not
    declare; constraining an attr the op lacks, a non-type attr with types, or a type the
    op does not allow; host memory on an arg the op does not have. Located at the
    registration (or the offending argument), each once (a kernel in a header several
    sources include is read once per source), in source order. Without `internal_ops_listed` (`op_list` was
    gathered without `_` ops, as `opgen build` gathers) kernels of `_` ops are not checked.

    Then, given the ops' `sources`, each op with no kernel at all although another op
    declared in its file has one (a kernel forgotten: TF's `No OpKernel was registered`
    at the first run), located at its REGISTER_OP. A file none of whose ops has a kernel
    (ops whose kernels live elsewhere: TensorFlow's own ops, an op-only library) and an
    OpList file are not reported. With `type_coverage`, also the types ops allow that none of
    their kernels accepts (`types_without_kernels`; `opgen kernels` lists them, `opgen build`
    counts them in one note: libraries whose kernels cover some of the types are common)."""
    registrations = list(registrations)
    op_defs: Mapping[str, op_def_pb2.OpDef] = {op.name: op for op in op_list.op}
    findings: list[OpgenError] = []
    # (op, device, attr) -> where kernels constrain an attr the op lacks (`TF_CALL_*` repeats one)
    unknown: dict[tuple[str, str, str], list[Location]] = {}
    for reg in registrations:
        k = reg.kernel_def
        if not internal_ops_listed and k.op.startswith("_"):
            continue
        op_def = op_defs.get(k.op)
        where = f"the {k.device_type} kernel of '{k.op}'"
        if op_def is None:
            close = did_you_mean(k.op, op_defs, "'", cutoff=0.75)
            hint = "pass the sources (or an OpList file) that declare the op"
            findings.append(OpgenError(f"{where}: no REGISTER_OP in the sources declares '{k.op}' (TensorFlow "
                                       "cannot use a kernel of an op it does not know)", reg.location,
                                       hint=f"{close} Otherwise {hint}" if close else hint))
            continue
        attrs = {a.name: a for a in op_def.attr}
        for c, loc in zip(k.constraint, reg.constraint_locations or [reg.location] * len(k.constraint)):
            attr = attrs.get(c.name)
            if attr is None:
                unknown.setdefault((k.op, k.device_type, c.name), []).append(loc)
                continue
            types = list(c.allowed_values.list.type)
            if types and attr.type not in ("type", "list(type)"):
                findings.append(OpgenError(f"{where} constrains attr '{c.name}' to types, but it is a "
                                           f"'{attr.type}' attr", loc))
            elif types and attr.HasField("allowed_values"):
                allowed = set(attr.allowed_values.list.type)
                outside = [t for t in types if t not in allowed]
                if outside:
                    findings.append(OpgenError(
                        f"{where} registers {', '.join(_names(outside))} for attr '{c.name}', which '{k.op}' "
                        f"does not allow (allowed: {', '.join(_names(allowed))}); no node can use it", loc))
        args = {a.name for a in [*op_def.input_arg, *op_def.output_arg]}
        for name, loc in zip(k.host_memory_arg, reg.host_memory_locations or [reg.location] * len(k.host_memory_arg)):
            if name not in args:
                findings.append(OpgenError(f"{where} puts '{name}' in host memory, but '{k.op}' has no input or "
                                           f"output named '{name}' (TensorFlow fails when it creates the kernel)",
                                           loc))
    for (op_name, device, name), locations in unknown.items():
        attr_names = [a.name for a in op_defs[op_name].attr]
        more = f" (and {len(locations) - 1} more registrations)" if len(locations) > 1 else ""
        findings.append(OpgenError(
            f"the {device} kernel of '{op_name}' constrains attr '{name}', which '{op_name}' does not have (its "
            f"attrs: {', '.join(attr_names) or 'none'}){more}: TensorFlow then fails every {device} kernel lookup "
            f"of '{op_name}', so each call of the op fails (kernel_def_util.cc KernelAttrsMatch: \"OpKernel "
            f"'{op_name}' has constraint on attr '{name}' not in NodeDef\")", locations[0],
            hint=did_you_mean(name, attr_names, "'") or "constrain one of the op's attrs"))
    findings += _overlapping_kernels(registrations, op_defs)
    if sources is not None:
        findings += _ops_without_kernels(registrations, op_list, sources, internal_ops_listed, kernels_elsewhere)
        if type_coverage:
            findings += [finding for _, finding in types_without_kernels(registrations, op_list, sources,
                                                                         kernels_elsewhere)]
    # in source order, as a compiler reports (registrations come by op name)
    unique = {finding.format(): finding for finding in findings}.values()
    return sorted(unique, key=lambda finding: finding.location or Location(""))


# Pairs of kernels `_overlapping_kernels` compares at most: a library registers tens per op and
# device; 250,000 pairs take about 0.4 s (a generated file of thousands of kernels of one op
# is checked that far).
_MOST_KERNEL_PAIRS = 250_000


def _overlapping_kernels(registrations: list[KernelRegistration],
                         op_defs: Mapping[str, op_def_pb2.OpDef]) -> list[OpgenError]:
    """Two registrations of one op, device, label and priority that a node can match both
    (each attr both constrain has a value in common that the op allows: `TF_CALL_REAL_NUMBER_TYPES`
    and `TF_CALL_half` of one kernel): TF's `FindKernelRegistration` fails every such call with
    `Multiple OpKernel registrations match NodeDef at the same priority`
    (tensorflow/core/framework/op_kernel.cc). Located at the later one. Kernels no node can
    get are left to their own findings. The same KernelDef at the same location twice is one
    registration read through two sources (a header both include); a macro such as
    `TF_CALL_REAL_NUMBER_TYPES` places its several at one location."""
    groups: dict[tuple[str, str, str, int], list[KernelRegistration]] = {}
    type_attrs_of: dict[str, dict[str, tuple[int, ...] | None]] = {}  # once per op with kernels
    for reg in registrations:
        k = reg.kernel_def
        op_def = op_defs.get(k.op)
        if op_def is None:
            continue
        if k.op not in type_attrs_of:
            type_attrs_of[k.op] = _type_attrs(op_def)
        if _usable(k, op_def, type_attrs_of[k.op]):
            groups.setdefault((k.op, k.device_type, k.label, k.priority), []).append(reg)
    findings: list[OpgenError] = []
    budget = _MOST_KERNEL_PAIRS
    for (op, device, _, _), regs in groups.items():
        type_attrs = type_attrs_of[op]
        once = {(reg.location, reg.kernel_def.SerializeToString(deterministic=True)): reg for reg in regs}
        regs = sorted(once.values(), key=lambda reg: reg.location)
        values = [_constraint_values(reg.kernel_def, type_attrs) for reg in regs]
        for i, later in enumerate(values):
            budget -= i
            if budget < 0:
                return findings
            for j in range(i):
                earlier = values[j]
                if any(attr in earlier and allowed.isdisjoint(earlier[attr]) for attr, allowed in later.items()):
                    continue  # no node matches both
                shared = "; ".join(f"{attr}: {', '.join(sorted(allowed & earlier[attr]))}"
                                   for attr, allowed in sorted(later.items()) if attr in earlier)
                findings.append(OpgenError(
                    f"the {device} kernel of '{op}' matches the same nodes as the one at {regs[j].location}"
                    + (f" ({shared})" if shared else "") + ": TensorFlow fails every such call with 'Multiple "
                    "OpKernel registrations match NodeDef at the same priority'", regs[i].location,
                    hint="register each type once (a TF_CALL_* list may already hold it), or give one a "
                         "Priority() or Label()"))
                break
    return findings


def _constraint_values(k: kernel_def_pb2.KernelDef,
                       type_attrs: dict[str, tuple[int, ...] | None]) -> dict[str, frozenset[str]]:
    """Per attr the kernel constrains, the values it allows (types: those the op allows too)."""
    found = {}
    for c in k.constraint:
        values = c.allowed_values.list
        op_types = type_attrs.get(c.name)
        types = [t for t in values.type if op_types is None or t in op_types]
        found[c.name] = frozenset((*_names(types), *map(repr, values.s), *map(str, values.i), *map(str, values.b)))
    return found


def _ops_without_kernels(registrations: list[KernelRegistration], op_list: op_def_pb2.OpList,
                         sources: Mapping[str, OpSource], internal_ops_listed: bool,
                         kernels_elsewhere: Sequence[str]) -> list[OpgenError]:
    """`cross_check`'s ops with no kernel in a file where other ops have some, but those
    `kernels_elsewhere` ([tool.opgen], op-name globs: another library registers them) matches."""
    with_kernels = {reg.kernel_def.op for reg in registrations}
    files = {source.location.path for op in with_kernels if (source := sources.get(op)) is not None}
    elsewhere = glob_list(tuple(kernels_elsewhere))
    findings = []
    for op in op_list.op:
        source = sources.get(op.name)
        if (op.name in with_kernels or source is None or source.from_op_list or source.location.path not in files
                or (not internal_ops_listed and op.name.startswith("_"))
                or elsewhere.first(op.name) is not None):
            continue
        findings.append(OpgenError(
            f"op '{op.name}' has no kernel in the sources, though other ops of its file have; TensorFlow "
            f"fails running it ('No OpKernel was registered to support Op '{op.name}'')", source.location,
            hint=f'register one: REGISTER_KERNEL_BUILDER(Name("{op.name}").Device(DEVICE_CPU), <its OpKernel '
                 "class>); or pass the source that does (GPU kernels behind `#if GOOGLE_CUDA` need "
                 f'-D GOOGLE_CUDA=1); or, when another library registers it, [tool.opgen] kernels_elsewhere = '
                 f'["{op.name}"]'))
    return findings


def types_without_kernels(registrations: Iterable[KernelRegistration], op_list: op_def_pb2.OpList,
                          sources: Mapping[str, OpSource], kernels_elsewhere: Sequence[str] = (),
                          ) -> list[tuple[str, OpgenError]]:
    """`cross_check`'s ops declared in C++ with kernels that all constrain a `type` attr the op
    restricts (`T: {float, int32}`) and together leave out some of its types: a call with one
    of those fails (TF's `No OpKernel was registered to support Op ... with these attrs`, or
    `Could not find device for node` eagerly). Located at the attr; none for an op
    `kernels_elsewhere` matches (another library, or a GPU build, registers the rest)."""
    op_defs = {op.name: op for op in op_list.op}
    kernels: dict[str, list[kernel_def_pb2.KernelDef]] = {}
    for reg in registrations:
        kernels.setdefault(reg.kernel_def.op, []).append(reg.kernel_def)
    elsewhere = glob_list(tuple(kernels_elsewhere))
    findings: list[tuple[str, OpgenError]] = []
    for op_name, ks in kernels.items():
        op_def = op_defs.get(op_name)
        source = sources.get(op_name)
        if op_def is None or source is None or source.from_op_list or elsewhere.first(op_name) is not None:
            continue
        ks = [k for k in ks if selectable(k, op_def)]
        for attr in op_def.attr:
            allowed = list(attr.allowed_values.list.type)
            if attr.type != "type" or not allowed or not ks:
                continue
            accepted: set[int] = set()
            for k in ks:
                own = [t for c in k.constraint if c.name == attr.name for t in c.allowed_values.list.type]
                if not own:  # this kernel takes every type the op allows
                    break
                accepted.update(own)
            else:
                missing = [t for t in allowed if t not in accepted]
                if not missing:
                    continue
                served = runs_on(device_types(ks, op_def))
                it = "it" if len(missing) == 1 else "them"
                findings.append((op_name, OpgenError(
                    f"op '{op_name}' allows {', '.join(_names(missing))} for attr '{attr.name}', but none of its "
                    f"kernels accepts {it} (kernels: {served}): TensorFlow fails such a call ('No OpKernel was "
                    f"registered to support Op '{op_name}' ... with these attrs')",
                    part_use_site(dict(source.parts).get(f"attr {attr.name}", source.location)),
                    hint=f"register kernels for {it}, or leave {it} out of the attr's allowed types; GPU kernels "
                         "behind `#if GOOGLE_CUDA` count with -D GOOGLE_CUDA=1; when another library registers "
                         f'{it}, [tool.opgen] kernels_elsewhere = ["{op_name}"]')))
    return findings
