"""Running generated wrappers on TensorFlow, as TF's own generated wrappers run.

TF's generator (`python_op_gen.cc`) writes, for every op, an eager branch that calls
`TFE_Py_FastPathExecute` and falls back to an `*_eager_fallback` function (inputs converted
with `args_to_matching_eager`/`convert_to_mixed_eager_tensors`/`convert_to_tensor`, then
`execute.execute` and `record_gradient`), and a graph branch that calls TF's
`op_def_library._apply_op_helper` and then `record_gradient` when a tape is recording.
opgen's modules carry the eager fast path per op (it must be as fast as TF's); the fallback
and the graph branch run here, from an `_OpPlan` built once per op from the OpDef that
TensorFlow has registered, so they are written once instead of once per op.

Custom ops: a module generated with `[tool.opgen] library = "..."` registers its library
with TF at import or when TF is imported (`op_libraries`); one still pending is registered
before the next op runs on TensorFlow, by `backend.eager_context` and
`op_def_library._apply_op_helper` (the eager fast path cannot find an op TF has not loaded,
so this cannot wait for the op). The ops of a library that failed raise its error there
(`op_libraries.check_op`), and nothing else does.
"""

from __future__ import annotations

import importlib
import os
import re
from typing import Any

from ..ops import registry as _registry

_tf: _TF | None = None  # TensorFlow's modules, bound on first use (`tensorflow()`)
_plans: dict[str, _OpPlan] = {}
_plans_generation = -1  # registry.generation the plans were built at


class _TF:
    """TensorFlow's modules and functions used per call, bound once."""

    def __init__(self) -> None:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        try:
            import tensorflow as tf
        except ImportError as e:
            raise RuntimeError(
                "the tensorflow backend needs TensorFlow installed (pip install tensorflow-cpu)"
            ) from e
        from tensorflow.python import pywrap_tfe
        from tensorflow.python.eager import context, core, execute
        from tensorflow.python.framework import op_def_library, op_def_registry, ops
        from tensorflow.python.util import tf_stack, traceback_utils

        from .tracebacks import hide_runtime_frames, hide_runtime_frames_in_node_stacks

        hide_runtime_frames(traceback_utils)
        hide_runtime_frames_in_node_stacks(tf_stack)
        self.tf = tf
        self.context = context
        self.execute = execute
        self.ops = ops
        self.op_def_library = op_def_library
        self.op_def_registry = op_def_registry
        self.fast_path_execute = pywrap_tfe.TFE_Py_FastPathExecute
        self.NotOkStatusException = core._NotOkStatusException
        self.FallbackException = core._FallbackException
        self.SymbolicException = core._SymbolicException


def tensorflow() -> _TF:
    """TensorFlow, imported on the first call."""
    global _tf
    if _tf is None:
        _tf = _TF()
    return _tf


class _OpPlan:
    """What TF's generated wrapper of one op hard-codes, derived from TF's registered OpDef."""

    __slots__ = (
        "attr_names",
        "attr_types",
        "defaults",
        "fixed_inputs",
        "graph_defaults",
        "inferred",
        "input_is_list",
        "input_names",
        "min_lengths",
        "name",
        "name_bytes",
        "outputs",
        "suffixed",
    )

    def __init__(self, op_def: Any, as_dtype: Any) -> None:
        self.name = op_def.name
        self.name_bytes = op_def.name.encode()
        self.input_names = tuple(a.name for a in op_def.input_arg)
        self.input_is_list = {
            a.name: bool(a.number_attr or a.type_list_attr) for a in op_def.input_arg
        }
        self.attr_names = tuple(a.name for a in op_def.attr)
        # A wrapper passes an input or attr named like a Python keyword or a builtin it calls
        # with a trailing `_` (`in_`, `lambda_`), which TF's `_apply_op_helper` reads as well.
        self.suffixed = tuple((n, n + "_") for n in (*self.input_names, *self.attr_names))
        # (input, minimum) of each list input whose length attr has a minimum, in input order:
        # the check of TF's graph branch, before any conversion. Without it an empty list, whose
        # type nothing can infer, fails eagerly in the conversion (IndexError) or kernel lookup.
        minimums = {a.name: a.minimum for a in op_def.attr if a.has_minimum}
        self.min_lengths = [
            (a.name, minimums[a.number_attr]) for a in op_def.input_arg if a.number_attr in minimums
        ]
        self.attr_types = {a.name: a.type for a in op_def.attr}
        self.defaults = {
            a.name: _python_value(a.default_value)
            for a in op_def.attr
            if a.HasField("default_value")
        }
        # Attrs inferred from inputs, in OpDef order (the order TF's fallback converts in),
        # each with the arguments of its `args_to_matching_eager` call after the values
        # (allowed DTypes, and the default DType if any) and the inputs it is inferred from.
        self.inferred: list[tuple[str, str, tuple[Any, ...], list[str]]] = []
        for attr in op_def.attr:
            users = [
                a.name
                for a in op_def.input_arg
                if attr.name in (a.type_attr, a.number_attr, a.type_list_attr)
            ]
            if users:
                allowed = [as_dtype(t) for t in attr.allowed_values.list.type]
                # Only a type attr's default is a DType (an inferred number attr may have
                # an int default: `Nordering_token: int >= 0 = 0`, CollectiveReduceV2).
                default = (
                    (as_dtype(attr.default_value.type),)
                    if attr.HasField("default_value") and attr.type == "type"
                    else ()
                )
                self.inferred.append((attr.name, attr.type, (allowed, *default), users))
        # Attrs with a default that no input infers: a module generated before the library gained
        # one (a compatible change) does not pass it, and TF's graph branch takes None as "the
        # default" (`op_def_library._ExtractAttrProto`) but no value at all as an error.
        inferred_names = {name for name, *_ in self.inferred}
        self.graph_defaults = tuple(name for name in self.defaults if name not in inferred_names)
        self.fixed_inputs = [
            (a.name, a.type, bool(a.number_attr))
            for a in op_def.input_arg
            if not a.type_attr and not a.type_list_attr
        ]
        # Per output arg: None for one tensor, else the attr giving the list's size.
        self.outputs = [
            a.number_attr or a.type_list_attr or None for a in op_def.output_arg
        ]

    def execute_eagerly(
        self, tf: _TF, ctx: Any, name: Any, keywords: dict[str, Any]
    ) -> list[Any]:
        """A generated `*_eager_fallback`: the op's flat outputs.

        Raises TF's `_SymbolicException` when an input is a symbolic (graph) tensor.
        """
        for arg_name, suffixed in self.suffixed:
            if suffixed in keywords and arg_name not in keywords:
                # a copy: the caller's keywords go to the graph branch after a SymbolicException
                keywords = {**keywords, arg_name: keywords[suffixed]}
        for input_name, minimum in self.min_lengths:
            length = len(keywords[input_name])
            # An empty list only: nothing infers its type (TF's fallback fails on it with an
            # IndexError); a shorter one reaches TF, whose attr check raises what TF's wrappers do.
            if length == 0 and minimum > 0:
                raise ValueError(
                    f"List argument '{input_name}' to '{self.name}' Op with length {length} shorter than "
                    f"minimum length {minimum}."
                )
        execute = tf.execute
        inputs: dict[str, Any] = dict.fromkeys(self.input_names)
        attr_values = {}
        for attr in self.attr_names:
            value = keywords.get(attr)
            if value is None:
                value = self.defaults.get(attr)
            attr_values[attr] = _convert_attr(
                execute, self.attr_types[attr], value, attr
            )
        for attr, kind, matching, users in self.inferred:
            # A number attr is the lists' length (the wrapper checked that they agree).
            if kind == "int":
                attr_values[attr] = len(keywords[users[0]])
            elif kind == "list(type)":
                (user,) = users
                attr_values[attr], converted = execute.convert_to_mixed_eager_tensors(
                    keywords[user], ctx
                )
                inputs[user] = list(converted)
            else:
                values: list[Any] = []
                for user in users:
                    value = keywords[user]
                    values.extend(value if self.input_is_list[user] else [value])
                attr_values[attr], converted = execute.args_to_matching_eager(
                    values, ctx, *matching
                )
                position = 0
                for user in users:
                    if self.input_is_list[user]:
                        size = len(keywords[user])
                        inputs[user] = list(converted[position : position + size])
                        position += size
                    else:
                        inputs[user] = converted[position]
                        position += 1
        for input_name, dtype, is_list in self.fixed_inputs:
            convert = (
                tf.ops.convert_n_to_tensor if is_list else tf.ops.convert_to_tensor
            )
            inputs[input_name] = convert(keywords[input_name], dtype)
        flat_inputs: list[Any] = []
        for input_name in self.input_names:
            value = inputs[input_name]
            if self.input_is_list[input_name]:
                flat_inputs.extend(value)
            else:
                flat_inputs.append(value)
        attrs: list[Any] = []
        for attr in self.attr_names:
            attrs += (attr, attr_values[attr])
        attrs_tuple = tuple(attrs)
        num_outputs = 0
        for size_attr in self.outputs:
            if size_attr is None:
                num_outputs += 1
            elif self.attr_types[size_attr] == "int":
                num_outputs += attr_values[size_attr]
            else:
                num_outputs += len(attr_values[size_attr])
        result = execute.execute(
            self.name_bytes,
            num_outputs,
            inputs=flat_inputs,
            attrs=attrs_tuple,
            ctx=ctx,
            name=name,
        )
        if execute.must_record_gradient():
            execute.record_gradient(self.name, flat_inputs, attrs_tuple, result)
        return list(result or ())

    def add_to_graph(
        self, tf: _TF, name: Any, keywords: dict[str, Any]
    ) -> tuple[Any, bool, Any, list[Any]]:
        """TF's graph branch: TF's `_apply_op_helper`, then `record_gradient` under a tape."""
        arguments = {k: _to_tensorflow(v) for k, v in keywords.items()}
        for attr in self.graph_defaults:
            if attr not in arguments and attr + "_" not in arguments:
                arguments[attr] = None
        structure, stateful, op, outputs = tf.op_def_library._apply_op_helper(
            self.name, name=name, **arguments
        )
        outputs = list(outputs)
        if tf.execute.must_record_gradient():
            attrs: list[Any] = []
            for attr in self.attr_names:
                getter = _ATTR_GETTERS.get(self.attr_types[attr], "get_attr")
                attrs += (attr, getattr(op, getter)(attr))
            tf.execute.record_gradient(self.name, op.inputs, tuple(attrs), outputs)
        return structure, stateful, op, outputs


# The Operation getters TF's generated graph branches use for the attrs they record
# (`_op._get_attr_type("T")`: a DataType enum, not a DType); `get_attr` for the rest.
_ATTR_GETTERS = {
    "type": "_get_attr_type",
    "int": "_get_attr_int",
    "bool": "_get_attr_bool",
}


def _plan(tf: _TF, op_type_name: str) -> _OpPlan:
    global _plans_generation
    if _plans_generation != _registry.generation:
        _plans.clear()
        _plans_generation = _registry.generation
    op_def = tf.op_def_registry.get(op_type_name)
    if op_def is None:
        raise _not_registered(op_type_name)
    plan = _plans[op_type_name] = _OpPlan(op_def, tf.tf.dtypes.as_dtype)
    return plan


def _plan_for(op_type_name: str) -> tuple[_TF, _OpPlan]:
    tf = _tf or tensorflow()
    plan = _plans.get(op_type_name)
    if plan is None or _plans_generation != _registry.generation:
        plan = _plan(tf, op_type_name)
    return tf, plan


def apply_op_helper(
    op_type_name: str, name: Any, keywords: dict[str, Any]
) -> tuple[Any, Any, Any, list[Any]]:
    """`_apply_op_helper` on TensorFlow; when executing eagerly `(None, None, None, outputs)`."""
    tf, plan = _plan_for(op_type_name)
    ctx = tf.context._context or tf.context.context()
    if ctx._thread_local_data.is_eager:
        try:
            return None, None, None, plan.execute_eagerly(tf, ctx, name, keywords)
        except tf.SymbolicException:
            pass
    return plan.add_to_graph(tf, name, keywords)


def raise_from_not_ok_status(e: Exception, name: Any) -> None:
    """TF's `ops.raise_from_not_ok_status`: the fast path's status as TF's exception type; for
    an op of opgen's modules TensorFlow does not know, the error graph mode gives (which says
    how to load its library), not TF's "neither a type of a primitive operation"."""
    missing = _UNREGISTERED.search(str(e))
    if missing is not None and _registry.get(missing.group(1)) is not None:
        raise _not_registered(missing.group(1)) from None
    (_tf or tensorflow()).ops.raise_from_not_ok_status(e, name)


# TF's eager error for an op its registry lacks (`op_def_builder` lookups, NotFound).
_UNREGISTERED = re.compile(r"'([^']+)' is neither a type of a primitive operation nor a name of a function")


def _not_registered(op_type_name: str) -> RuntimeError:
    return RuntimeError(
        f"Op {op_type_name} is not registered in TensorFlow. Load the op library that "
        f"defines it first (tf.load_op_library('/path/to/lib.so')), or generate its "
        f'module with `[tool.opgen] library = "..."` so that it loads the library itself'
    )


_TF_MESSAGES = {
    "TensorProto": "tensorflow.core.framework.tensor_pb2",
    "TensorShapeProto": "tensorflow.core.framework.tensor_shape_pb2",
    "NameAttrList": "tensorflow.core.framework.attr_value_pb2",
    "AttrValue": "tensorflow.core.framework.attr_value_pb2",
}


_MAKERS = {
    "type": "make_type",
    "int": "make_int",
    "float": "make_float",
    "bool": "make_bool",
    "string": "make_str",
    "shape": "make_shape",
    "tensor": "make_tensor",
}


# Values generated wrappers pass already converted (`make_*`), which need no second pass.
_CONVERTED = {"type": int, "int": int, "float": float, "bool": bool, "string": bytes}


def _convert_attr(execute: Any, attr_type: str, value: Any, attr: str) -> Any:
    """An attr value as TF's eager fallback passes it to `execute.execute` (`make_*`)."""
    if value is None or type(value) is _CONVERTED.get(attr_type):
        return value
    value = _to_tensorflow(value)
    scalar = attr_type[5:-1] if attr_type.startswith("list(") else attr_type
    maker = _MAKERS.get(scalar)
    if maker is None:  # func attrs go to TFE as they are
        return value
    make = getattr(execute, maker)
    if scalar != attr_type:
        return [make(v, attr) for v in value]
    return make(value, attr)


def _python_value(attr_value: Any) -> Any:
    """A TF AttrValue default as the Python value TF's generated wrappers write for it."""
    which = attr_value.WhichOneof("value")
    if which == "list":
        items = attr_value.list
        for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            if len(getattr(items, field)):
                return [_scalar(field, v) for v in getattr(items, field)]
        return []
    return None if which is None else _scalar(which, getattr(attr_value, which))


def _scalar(field: str, value: Any) -> Any:
    if field == "shape":
        if value.unknown_rank:
            return None
        return [d.size if d.size >= 0 else None for d in value.dim]
    return value


def _to_tensorflow(value: Any) -> Any:
    """opgen's proto messages and DTypes as TF's (the wrappers' `make_*` build opgen's)."""
    cls = type(value)
    if cls is int or cls is bool or cls is float or cls is bytes or value is None:
        return value
    if cls is list or cls is tuple:
        return cls(_to_tensorflow(v) for v in value)
    if cls.__module__.startswith("opgen_runtime."):
        name = cls.__name__
        if name in _TF_MESSAGES:
            tf_cls = getattr(importlib.import_module(_TF_MESSAGES[name]), name)
            return tf_cls.FromString(value.SerializeToString())
        if name == "DType":
            return value.as_datatype_enum
        if name in ("Tensor", "Operation"):
            raise TypeError(
                f"{value!r} belongs to an opgen embedded graph, but this call runs on "
                f"TensorFlow: build it inside `with graph.as_default():` of that opgen Graph"
            )
    return value
