"""A REGISTER_OP chain -> OpDef, exactly as TF 2.21's OpDefBuilder (`op_def_builder.cc`).

`build_op_def(reg)` replays the builder calls: flags, Deprecated, Doc and SetShapeFn act
(and record their errors, as OpDefBuilder's setters do) in call order; then Finalize processes all Attr specs, all Input
specs, all Output specs, control outputs, the Doc and the type constructor (OpDefBuilder::Finalize); then
ValidateOpDef (`op_def_util.cc`) runs, as at registration. Every TF error becomes an OpgenError at the
call that caused it, with TF's message text.
"""

from __future__ import annotations

import difflib
import itertools
import re

from opgen.errors import Location, OpgenError, OpgenErrors, did_you_mean
from opgen.model import BuilderCall, CallArg, Registration
from opgen.python_api.signature import inferred_attrs
from opgen.spec import arg_grammar, attr_grammar
from opgen.spec.arg_grammar import attr_index, finalize_arg, finalize_control_output
from opgen.spec.attr_grammar import SpecError, finalize_attr
from opgen.spec.doc import DocProblem, finalize_doc
from opgen.spec.fix_hints import fix_hint
from opgen.spec.full_type import (
    TypeConstructor,
    TypeConstructorError,
    parse_type_constructor,
)
from opgen.spec.kernels import KERNEL_BUILDER_METHODS
from opgen.spec.shape_fn_names import shape_fn_name
from opgen.spec.validate import validate_op_def, without_op_def_dump
from opgen_runtime.proto import op_def_pb2

# A shape function given by name: `shape_inference::UnchangedShape`, `::ns::Fn`.
# a function's name, or a function template's with its arguments (`F<k2>`: gathering instantiates it)
_RE_FUNCTION_NAME = re.compile(r"&?\s*(?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*(?:\s*<[^;{}\[\]]*>)?\Z")
_FLAGS = {
    "SetIsCommutative": "is_commutative",
    "SetIsAggregate": "is_aggregate",
    "SetIsStateful": "is_stateful",
    "SetDoNotOptimize": "is_stateful",  # the REGISTER_OP wrapper's alias (`op.h` OpDefBuilderWrapper)
    "SetAllowsUninitializedInput": "allows_uninitialized_input",
    "SetIsDistributedCommunication": "is_distributed_communication",
}
# method -> the argument kinds it takes ("string", "int", "any")
SIGNATURES: dict[str, tuple[str, ...]] = {
    "Attr": ("string",),
    "Input": ("string",),
    "Output": ("string",),
    "ControlOutput": ("string",),
    "Doc": ("string",),
    "Deprecated": ("int", "string"),
    "SetShapeFn": ("any",),
    "SetTypeConstructor": ("any",),
    "SetForwardTypeFn": ("any",),
    "SetReverseTypeFn": ("any", "any"),  # (input index, function)
    **dict.fromkeys(_FLAGS, ()),
}
KNOWN_METHODS = tuple(SIGNATURES)
_ANY_KINDS = ("string", "int", "expr")
# method -> every argument-kind tuple it accepts (a set lookup per call)
_ACCEPTED: dict[str, frozenset[tuple[str, ...]]] = {
    method: frozenset(
        tuple(kinds) for kinds in itertools.product(
            *[_ANY_KINDS if k == "any" else (k,) for k in sig]))
    for method, sig in SIGNATURES.items()
}


class _Builder:
    """The state OpDefBuilder keeps between calls and Finalize."""

    def __init__(self, reg: Registration):
        self.reg = reg
        self.op_def = op_def_pb2.OpDef(name=reg.op_name)
        self.errors: list[OpgenError] = []  # the builder setters' errors, in call order
        self.attrs: list[BuilderCall] = []
        self.inputs: list[BuilderCall] = []
        self.outputs: list[BuilderCall] = []
        self.control_outputs: list[BuilderCall] = []
        self.doc: CallArg | None = None
        self.shape_fn_set = False
        self.shape_fn: str | None = None
        self.type_ctor: tuple[TypeConstructor, BuilderCall] | None = None
        self.failed_attrs: set[str] = set()  # attrs whose own spec failed (their follow-on errors say so)
        # The first call that may have been meant to declare an attr and did not: an Attr() whose
        # argument opgen cannot read, or a misspelt one (`.Atr(`); said where an attr is missing.
        self.unread_attr: str | None = None

    def error(self, message: str, loc: Location, hint: str | None = None) -> None:
        self.errors.append(OpgenError(message, loc, hint=hint or fix_hint(message, self.failed_attrs,
                                                                          self.unread_attr)))

    def call(self, call: BuilderCall) -> None:
        if not self._check_signature(call):
            return
        method, name = call.method, self.op_def.name
        if method == "Attr":
            self.attrs.append(call)
        elif method == "Input":
            self.inputs.append(call)
        elif method == "Output":
            self.outputs.append(call)
        elif method == "ControlOutput":
            self.control_outputs.append(call)
        elif method in _FLAGS:
            setattr(self.op_def, _FLAGS[method], True)
        elif method == "Doc":
            if self.doc is not None and self.doc.value:
                self.error(f"Extra call to Doc() for Op {name}", call.loc)
            else:
                self.doc = call.args[0]
        elif method == "Deprecated":
            if self.op_def.HasField("deprecation"):
                self.error(f"Deprecated called twice for Op {name}", call.loc)
            else:
                version = int(call.args[0].value)
                if not -(2**31) <= version < 2**31:
                    self.error(f"Deprecated version {version} does not fit in an int", call.args[0].loc)
                    return
                self.op_def.deprecation.version = version
                self.op_def.deprecation.explanation = str(call.args[1].value)
        elif method == "SetShapeFn":
            self._set_shape_fn(call)
        elif method == "SetTypeConstructor":
            arg = call.args[0]
            try:
                self.type_ctor = (parse_type_constructor(str(arg.value)), call)
            except TypeConstructorError as e:
                self.error(f"{e} for Op {name}", arg.loc)
        # SetForwardTypeFn, SetReverseTypeFn: type inference functions never reach the OpDef.

    def _set_shape_fn(self, call: BuilderCall) -> None:
        arg = call.args[0]
        text = str(arg.value).strip()
        if text == "nullptr":  # an empty std::function: as if never set
            return
        if self.shape_fn_set:
            self.error(f"SetShapeFn called twice for Op {self.op_def.name}", call.loc)
            return
        self.shape_fn_set = True
        if arg.kind == "expr" and _RE_FUNCTION_NAME.match(text):
            self.shape_fn = shape_fn_name(text)

    def _check_signature(self, call: BuilderCall) -> bool:
        accepted = _ACCEPTED.get(call.method)
        if accepted is not None and tuple([a.kind for a in call.args]) in accepted:
            return True
        sig = SIGNATURES.get(call.method)
        if sig is None:
            hint = did_you_mean(call.method, KNOWN_METHODS, "'")
            kernel_method = difflib.get_close_matches(call.method, KERNEL_BUILDER_METHODS, n=1)
            if hint is None and kernel_method:  # `.Device(DEVICE_CPU)` on the op, not on its kernel
                hint = (f"{kernel_method[0]}() is a method of a kernel's registration, "
                        f"REGISTER_KERNEL_BUILDER(Name(\"{self.op_def.name}\").{kernel_method[0]}(...), ...), "
                        "not of REGISTER_OP")
            self.error(f"unknown REGISTER_OP builder method '{call.method}' for Op {self.op_def.name} "
                       f"(known: {', '.join(KNOWN_METHODS)})", call.loc, hint=hint)
            if hint is not None and "'Attr'" in hint and self.unread_attr is None:
                self.unread_attr = f"the '{call.method}' at {call.loc}, if it was meant as Attr()"
            return False
        kinds = tuple(a.kind for a in call.args)
        names = {"string": "a string", "int": "an integer", "any": "an expression", "expr": "an expression"}
        wanted = " and ".join(names[k] for k in sig) or "no arguments"
        got = ", ".join(names[k] for k in kinds) or "nothing"
        hint = None
        if sig == ("string",) and kinds == ("expr",):  # a string opgen cannot compute without compiling
            hint = ("opgen reads string literals, file constants, helpers and `+`, absl::StrCat or std::string "
                    "of them: write it so, or declare the function that returns it in [tool.opgen.helpers]")
            if call.method == "Attr" and self.unread_attr is None:
                self.unread_attr = f"the Attr() at {call.loc} that opgen cannot read"
        self.error(f"{call.method}() takes {wanted}, got {got} for Op {self.op_def.name}", call.loc, hint)
        return False

    def finalize(self) -> None:
        """OpDefBuilder::Finalize: errors accumulate in TF's order; the type constructor's is final."""
        op_def = self.op_def
        for call in self.attrs:
            spec_error = finalize_attr(str(call.args[0].value), op_def)
            if spec_error:
                self.failed_attrs.add(str(call.args[0].value).split(":", 1)[0].strip())
            self._record(spec_error, call)
        attrs = attr_index(op_def)
        for is_output, calls in ((False, self.inputs), (True, self.outputs)):
            for call in calls:
                self._record(finalize_arg(str(call.args[0].value), is_output, op_def, attrs), call)
        for call in self.control_outputs:
            self._record(finalize_control_output(str(call.args[0].value), op_def), call)
        problem = finalize_doc(str(self.doc.value) if self.doc else "", op_def)
        if problem and self.doc:
            self.error(problem.message, _doc_line(self.doc, problem.line), _doc_entry_hint(problem, op_def))
        if self.type_ctor is not None:
            ctor, call = self.type_ctor
            message = ctor.apply(op_def)
            if message:  # TF returns the constructor's error alone
                self.errors = [OpgenError(message, call.loc)]

    def _record(self, problem: SpecError | None, call: BuilderCall) -> None:
        """A spec's error, at the part of the spec it is about where that is known exactly."""
        if problem:
            self.error(problem.message, call.args[0].location_at(problem.at))

    def validate(self) -> None:
        problem = validate_op_def(self.op_def)
        if problem is None:
            return
        calls = {"attr": self.attrs, "input": self.inputs, "output": self.outputs}.get(problem.part)
        loc = self.reg.loc
        if calls and problem.index < len(calls):
            arg = calls[problem.index].args[0]
            field_offset = attr_grammar.field_offset if problem.part == "attr" else arg_grammar.field_offset
            loc = arg.location_at(field_offset(str(arg.value), problem.field) if problem.field else None)
        self.error(without_op_def_dump(problem.message), loc)


def _doc_line(doc: CallArg, line: int) -> Location:
    """Where line `line` of the Doc text starts, when known exactly, else the Doc's argument."""
    offset = 0
    for _ in range(line):
        offset = str(doc.value).index("\n", offset) + 1
    return doc.location_at(offset)


def _doc_entry_hint(problem: DocProblem, op_def: op_def_pb2.OpDef) -> str:
    names = [a.name for a in (*op_def.input_arg, *op_def.output_arg, *op_def.attr) if a.name]  # (a failed arg has none)
    meant = _doc_entry_meant(problem, op_def)
    return ((f"{meant} " if meant else "") + f"a line starting '{problem.name}:' documents the input, output or "
            f"attr of that name ({op_def.name} has {', '.join(names) or 'none'}): rename or remove it, or indent "
            "the line if it is description text")


def _doc_entry_meant(problem: DocProblem, op_def: op_def_pb2.OpDef) -> str | None:
    """"did you mean ...?" for a Doc line that names no part of the op: among the parts no other
    Doc line documents (renaming the line to one another line documents would document that
    part twice, the second text replacing the first: trial34 #2, where the line of an attr
    renamed `window` -> `size` got the op's output `windows`), the closest in spelling, each
    named with its kind; else, when exactly one of those is an argument or output of the
    Python wrapper (attrs inferred from the inputs are none), that one: the part a rename left
    the line behind. None when neither gives a name."""
    kinds = {a.name: kind for kind, args in (("input", op_def.input_arg), ("output", op_def.output_arg),
                                             ("attr", op_def.attr)) for a in args if a.name}
    free = [name for name in kinds if name not in problem.documented]
    close = difflib.get_close_matches(problem.name, free, n=3, cutoff=0.6)
    if close:
        return "did you mean " + ", ".join(f"the {kinds[name]} '{name}'" for name in close) + "?"
    inferred = inferred_attrs(op_def)
    shown = [name for name in free if not (kinds[name] == "attr" and name in inferred)]
    if len(shown) != 1:
        return None
    (only,) = shown
    aside = " (attrs inferred from the inputs aside)" if set(free) & inferred else ""
    return f"did you mean the {kinds[only]} '{only}', the one part of {op_def.name} no Doc line documents{aside}?"


def build_op_def(reg: Registration) -> tuple[op_def_pb2.OpDef, str | None]:
    """Finalize + ValidateOpDef of one REGISTER_OP chain.

    Returns the OpDef and the shape function's name (when SetShapeFn was given a plain,
    possibly qualified, name). Raises OpgenErrors with one located error per TF error.
    """
    builder = _Builder(reg)
    for call in reg.calls:
        builder.call(call)
    builder.finalize()
    if not builder.errors:
        builder.validate()
    if builder.errors:
        raise OpgenErrors(builder.errors)
    return builder.op_def, builder.shape_fn


def clear_spec_caches() -> None:
    """Forget the parsed Attr/Input/Output specs (kept per spec text); for cold-start timing."""
    attr_grammar.clear_cache()
    arg_grammar.clear_cache()


def registration(op_name: str, calls: list[tuple[str, tuple[str | int, ...]]], path: str = "<spec>",
                 ) -> Registration:
    """A Registration from (method, args) pairs, for tests and `opgen specs` round trips.

    String args become kind "string"; ints "int"; args of SetShapeFn, SetTypeConstructor
    and SetForwardTypeFn become kind "expr". Each call gets its own line for locations.
    """
    built = []
    for line, (method, args) in enumerate(calls, start=2):
        loc = Location(path, line, 3)
        call_args = []
        for k, value in enumerate(args):
            if method in ("SetShapeFn", "SetTypeConstructor", "SetForwardTypeFn"):
                kind = "expr"
            else:
                kind = "int" if isinstance(value, int) else "string"
            call_args.append(CallArg(kind, value, Location(path, line, 4 + len(method) + k)))  # type: ignore[arg-type]
        built.append(BuilderCall(method, tuple(call_args), loc))
    return Registration(op_name, Location(path, 1, 1), tuple(built))
