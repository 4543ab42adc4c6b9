from opgen_runtime.proto import attr_value_pb2 as _attr_value_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ApiDef(_message.Message):
    __slots__ = ("graph_op_name", "deprecation_message", "deprecation_version", "visibility", "endpoint", "in_arg", "out_arg", "arg_order", "attr", "summary", "description", "description_prefix", "description_suffix")
    class Visibility(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        DEFAULT_VISIBILITY: _ClassVar[ApiDef.Visibility]
        VISIBLE: _ClassVar[ApiDef.Visibility]
        SKIP: _ClassVar[ApiDef.Visibility]
        HIDDEN: _ClassVar[ApiDef.Visibility]
    DEFAULT_VISIBILITY: ApiDef.Visibility
    VISIBLE: ApiDef.Visibility
    SKIP: ApiDef.Visibility
    HIDDEN: ApiDef.Visibility
    class Endpoint(_message.Message):
        __slots__ = ("name", "deprecated", "deprecation_version")
        NAME_FIELD_NUMBER: _ClassVar[int]
        DEPRECATED_FIELD_NUMBER: _ClassVar[int]
        DEPRECATION_VERSION_FIELD_NUMBER: _ClassVar[int]
        name: str
        deprecated: bool
        deprecation_version: int
        def __init__(self, name: _Optional[str] = ..., deprecated: bool = ..., deprecation_version: _Optional[int] = ...) -> None: ...
    class Arg(_message.Message):
        __slots__ = ("name", "rename_to", "description")
        NAME_FIELD_NUMBER: _ClassVar[int]
        RENAME_TO_FIELD_NUMBER: _ClassVar[int]
        DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
        name: str
        rename_to: str
        description: str
        def __init__(self, name: _Optional[str] = ..., rename_to: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...
    class Attr(_message.Message):
        __slots__ = ("name", "rename_to", "default_value", "description")
        NAME_FIELD_NUMBER: _ClassVar[int]
        RENAME_TO_FIELD_NUMBER: _ClassVar[int]
        DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
        DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
        name: str
        rename_to: str
        default_value: _attr_value_pb2.AttrValue
        description: str
        def __init__(self, name: _Optional[str] = ..., rename_to: _Optional[str] = ..., default_value: _Optional[_Union[_attr_value_pb2.AttrValue, _Mapping]] = ..., description: _Optional[str] = ...) -> None: ...
    GRAPH_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    DEPRECATION_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DEPRECATION_VERSION_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    IN_ARG_FIELD_NUMBER: _ClassVar[int]
    OUT_ARG_FIELD_NUMBER: _ClassVar[int]
    ARG_ORDER_FIELD_NUMBER: _ClassVar[int]
    ATTR_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_PREFIX_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_SUFFIX_FIELD_NUMBER: _ClassVar[int]
    graph_op_name: str
    deprecation_message: str
    deprecation_version: int
    visibility: ApiDef.Visibility
    endpoint: _containers.RepeatedCompositeFieldContainer[ApiDef.Endpoint]
    in_arg: _containers.RepeatedCompositeFieldContainer[ApiDef.Arg]
    out_arg: _containers.RepeatedCompositeFieldContainer[ApiDef.Arg]
    arg_order: _containers.RepeatedScalarFieldContainer[str]
    attr: _containers.RepeatedCompositeFieldContainer[ApiDef.Attr]
    summary: str
    description: str
    description_prefix: str
    description_suffix: str
    def __init__(self, graph_op_name: _Optional[str] = ..., deprecation_message: _Optional[str] = ..., deprecation_version: _Optional[int] = ..., visibility: _Optional[_Union[ApiDef.Visibility, str]] = ..., endpoint: _Optional[_Iterable[_Union[ApiDef.Endpoint, _Mapping]]] = ..., in_arg: _Optional[_Iterable[_Union[ApiDef.Arg, _Mapping]]] = ..., out_arg: _Optional[_Iterable[_Union[ApiDef.Arg, _Mapping]]] = ..., arg_order: _Optional[_Iterable[str]] = ..., attr: _Optional[_Iterable[_Union[ApiDef.Attr, _Mapping]]] = ..., summary: _Optional[str] = ..., description: _Optional[str] = ..., description_prefix: _Optional[str] = ..., description_suffix: _Optional[str] = ...) -> None: ...

class ApiDefs(_message.Message):
    __slots__ = ("op",)
    OP_FIELD_NUMBER: _ClassVar[int]
    op: _containers.RepeatedCompositeFieldContainer[ApiDef]
    def __init__(self, op: _Optional[_Iterable[_Union[ApiDef, _Mapping]]] = ...) -> None: ...
