from opgen_runtime.proto import attr_value_pb2 as _attr_value_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class KernelDef(_message.Message):
    __slots__ = ("op", "device_type", "constraint", "host_memory_arg", "label", "priority")
    class AttrConstraint(_message.Message):
        __slots__ = ("name", "allowed_values")
        NAME_FIELD_NUMBER: _ClassVar[int]
        ALLOWED_VALUES_FIELD_NUMBER: _ClassVar[int]
        name: str
        allowed_values: _attr_value_pb2.AttrValue
        def __init__(self, name: _Optional[str] = ..., allowed_values: _Optional[_Union[_attr_value_pb2.AttrValue, _Mapping]] = ...) -> None: ...
    OP_FIELD_NUMBER: _ClassVar[int]
    DEVICE_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONSTRAINT_FIELD_NUMBER: _ClassVar[int]
    HOST_MEMORY_ARG_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    op: str
    device_type: str
    constraint: _containers.RepeatedCompositeFieldContainer[KernelDef.AttrConstraint]
    host_memory_arg: _containers.RepeatedScalarFieldContainer[str]
    label: str
    priority: int
    def __init__(self, op: _Optional[str] = ..., device_type: _Optional[str] = ..., constraint: _Optional[_Iterable[_Union[KernelDef.AttrConstraint, _Mapping]]] = ..., host_memory_arg: _Optional[_Iterable[str]] = ..., label: _Optional[str] = ..., priority: _Optional[int] = ...) -> None: ...

class KernelList(_message.Message):
    __slots__ = ("kernel",)
    KERNEL_FIELD_NUMBER: _ClassVar[int]
    kernel: _containers.RepeatedCompositeFieldContainer[KernelDef]
    def __init__(self, kernel: _Optional[_Iterable[_Union[KernelDef, _Mapping]]] = ...) -> None: ...
