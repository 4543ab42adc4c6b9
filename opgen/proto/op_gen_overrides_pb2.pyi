from opgen_runtime.proto import attr_value_pb2 as _attr_value_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OpGenOverride(_message.Message):
    __slots__ = ("name", "skip", "hide", "rename_to", "alias", "attr_default", "attr_rename", "input_rename", "output_rename")
    class AttrDefault(_message.Message):
        __slots__ = ("name", "value")
        NAME_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        name: str
        value: _attr_value_pb2.AttrValue
        def __init__(self, name: _Optional[str] = ..., value: _Optional[_Union[_attr_value_pb2.AttrValue, _Mapping]] = ...) -> None: ...
    class Rename(_message.Message):
        __slots__ = ("to",)
        FROM_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        to: str
        def __init__(self, to: _Optional[str] = ..., **kwargs) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    HIDE_FIELD_NUMBER: _ClassVar[int]
    RENAME_TO_FIELD_NUMBER: _ClassVar[int]
    ALIAS_FIELD_NUMBER: _ClassVar[int]
    ATTR_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    ATTR_RENAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_RENAME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_RENAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    skip: bool
    hide: bool
    rename_to: str
    alias: _containers.RepeatedScalarFieldContainer[str]
    attr_default: _containers.RepeatedCompositeFieldContainer[OpGenOverride.AttrDefault]
    attr_rename: _containers.RepeatedCompositeFieldContainer[OpGenOverride.Rename]
    input_rename: _containers.RepeatedCompositeFieldContainer[OpGenOverride.Rename]
    output_rename: _containers.RepeatedCompositeFieldContainer[OpGenOverride.Rename]
    def __init__(self, name: _Optional[str] = ..., skip: bool = ..., hide: bool = ..., rename_to: _Optional[str] = ..., alias: _Optional[_Iterable[str]] = ..., attr_default: _Optional[_Iterable[_Union[OpGenOverride.AttrDefault, _Mapping]]] = ..., attr_rename: _Optional[_Iterable[_Union[OpGenOverride.Rename, _Mapping]]] = ..., input_rename: _Optional[_Iterable[_Union[OpGenOverride.Rename, _Mapping]]] = ..., output_rename: _Optional[_Iterable[_Union[OpGenOverride.Rename, _Mapping]]] = ...) -> None: ...

class OpGenOverrides(_message.Message):
    __slots__ = ("op",)
    OP_FIELD_NUMBER: _ClassVar[int]
    op: _containers.RepeatedCompositeFieldContainer[OpGenOverride]
    def __init__(self, op: _Optional[_Iterable[_Union[OpGenOverride, _Mapping]]] = ...) -> None: ...
