"""Reads a CodeGeneratorRequest into the resolved model.

The only module (with features.py) that touches protobuf's descriptor classes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from . import features
from .comments import (
    ENUM_VALUE, FILE_ENUM, FILE_EXTENSION, FILE_MESSAGE, FILE_SERVICE, MESSAGE_ENUM,
    MESSAGE_EXTENSION, MESSAGE_FIELD, MESSAGE_NESTED, MESSAGE_ONEOF, SERVICE_METHOD, Path,
    comment_index,
)
from .names import SHIPPED_PROTOS
from .options import Options
from .schema import (
    ApiLevel, Enum, EnumValue, Extension, Field, File, MapTypes, Message, Method, Oneof, Schema,
    Service, walk_messages,
)

# Files of this many fields or more get deferred classes under classes=auto: inline, their
# classes are 5-8 MB of source, seconds and gigabytes of compiling on first import.
DEFERRED_CLASSES_FIELDS = 1500

_TYPE_FLOAT = descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT
_TYPE_DOUBLE = descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE
_TYPE_STRING = descriptor_pb2.FieldDescriptorProto.TYPE_STRING
_TYPE_BYTES = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
_TYPE_BOOL = descriptor_pb2.FieldDescriptorProto.TYPE_BOOL
_TYPE_ENUM = descriptor_pb2.FieldDescriptorProto.TYPE_ENUM
_TYPE_MESSAGE = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
_TYPE_GROUP = descriptor_pb2.FieldDescriptorProto.TYPE_GROUP
_LABEL_OPTIONAL = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
_LABEL_REPEATED = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED


class InputError(Exception):
    """A problem with the .proto input, reported as ``file.proto: Msg.field: reason``."""


@dataclass(frozen=True)
class Request:
    """What the plugin reads of a CodeGeneratorRequest, its files still serialized.

    Decoded whole, a request takes about ten times its size (upb holds the source info as one
    message per location) for the whole run; here each file is decoded when the model step
    reads it, and let go once read.
    """

    file_to_generate: tuple[str, ...]
    parameter: str
    proto_files: tuple[bytes, ...]

    def files(self) -> Iterator[descriptor_pb2.FileDescriptorProto]:
        """The request's files, decoded one at a time, in protoc's order (dependencies first)."""
        for data in self.proto_files:
            yield descriptor_pb2.FileDescriptorProto.FromString(data)


def _serialized_files_request() -> Any:
    """CodeGeneratorRequest's class with ``proto_file`` read as bytes (a message field and a
    bytes field share the length-delimited wire type); other fields are not read."""
    fdp = descriptor_pb2.FileDescriptorProto(name="pyopaque/request.proto", package="pyopaque.plugin")
    message = fdp.message_type.add(name="Request")
    for name, number, kind in (("file_to_generate", 1, _TYPE_STRING), ("proto_file", 15, _TYPE_BYTES)):
        message.field.add(name=name, number=number, type=kind, label=_LABEL_REPEATED)
    message.field.add(name="parameter", number=2, type=_TYPE_STRING, label=_LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("pyopaque.plugin.Request"))


_REQUEST_CLASS = _serialized_files_request()


def decode_request(data: bytes) -> Request:
    """Decode the request protoc sent (its files stay serialized: see Request)."""
    message = _REQUEST_CLASS.FromString(data)
    return Request(file_to_generate=tuple(message.file_to_generate), parameter=message.parameter,
                   proto_files=tuple(message.proto_file))


def build_schema(generated: Iterable[str], proto_files: Iterable[descriptor_pb2.FileDescriptorProto],
                 options: Options) -> Schema:
    """Resolve every file of a request into the model: ``proto_files`` in protoc's order
    (dependencies first), of which ``generated`` are to be generated."""
    pool = descriptor_pool.DescriptorPool()
    schema = Schema(generated=frozenset(generated))
    for fdp in proto_files:
        # comments go into the generated modules only: a dependency's are not read
        comments = comment_index(fdp) if fdp.name in schema.generated else {}
        # the comments read, the rest of the source info (most of a file's size) is no use: neither
        # the pool nor the module that embeds the file gets it, and one serialization serves both
        fdp.ClearField("source_code_info")
        descriptor = bytes(fdp.SerializeToString())
        try:
            pool.AddSerializedFile(descriptor)
            pool_file = fdp
        except Exception as exc:  # protobuf reports descriptor problems with various types
            pool_file = _for_pool(fdp)  # looked for only now: most files have no JSON name clash
            if pool_file is fdp:
                raise InputError(f"{fdp.name}: {exc}") from None
            try:
                pool.AddSerializedFile(pool_file.SerializeToString())
            except Exception as exc:
                raise InputError(f"{fdp.name}: {exc}") from None
        reader = _FileReader(fdp, pool.FindFileByName(fdp.name), comments, options, pool_file is fdp)
        file = reader.read(descriptor if fdp.name in schema.generated else b"")  # its module embeds it
        schema.files[file.name] = file
        schema.messages.update(reader.messages)
        schema.enums.update(reader.enums)
    schema.settle_run_facts(SHIPPED_PROTOS)
    return schema


def json_name(fp: descriptor_pb2.FieldDescriptorProto) -> str:
    """The field's JSON name: its json_name option (protoc fills it in), else protoc's default."""
    if fp.HasField("json_name"):
        return str(fp.json_name)
    out: list[str] = []
    upper = False
    for c in fp.name:
        if c == "_":
            upper = True
        elif upper:
            out.append(c.upper())
            upper = False
        else:
            out.append(c)
    return "".join(out)


def _for_pool(fdp: descriptor_pb2.FileDescriptorProto) -> descriptor_pb2.FileDescriptorProto:
    """The file as protobuf's pool can take it.

    protoc only warns when two fields of a message share a JSON name under
    json_format = LEGACY_BEST_EFFORT (the proto2 default, e.g. ``foo_bar`` and
    ``fooBar``), but upb rejects such a file. The pool then gets a copy where those
    messages' fields use their own names as JSON names; the model reads the real
    JSON names from the FileDescriptorProto (see json_name).
    """
    copy: descriptor_pb2.FileDescriptorProto | None = None

    def clashing(mp: descriptor_pb2.DescriptorProto) -> bool:
        names = [json_name(f) for f in mp.field]
        return len(set(names)) != len(names)

    def visit(mp: descriptor_pb2.DescriptorProto, path: tuple[int, ...]) -> None:
        nonlocal copy
        if clashing(mp):
            if copy is None:
                copy = descriptor_pb2.FileDescriptorProto()
                copy.CopyFrom(fdp)
            target = copy.message_type[path[0]]
            for index in path[1:]:
                target = target.nested_type[index]
            for f in target.field:
                f.json_name = f.name
        for i, nested in enumerate(mp.nested_type):
            visit(nested, path + (i,))

    for i, mp in enumerate(fdp.message_type):
        visit(mp, (i,))
    return copy if copy is not None else fdp


class _FileReader:
    """The model of one file, read from protobuf's pool (its descriptors' attributes cost a
    fraction of the FileDescriptorProto's) and, for what the pool does not say, the file."""

    def __init__(self, fdp: descriptor_pb2.FileDescriptorProto, fd: Any, comments: dict[Path, str],
                 options: Options, pool_json_names: bool) -> None:
        self.fdp = fdp
        self.fd = fd
        # the pool holds the file's own JSON names (not _for_pool's copy's)
        self.pool_json_names = pool_json_names
        self.comments = comments  # comment_index's
        self.messages: dict[str, Message] = {}
        self.enums: dict[str, Enum] = {}
        self.file_level = self._file_api_level(options)
        self.options = options

    def _file_api_level(self, options: Options) -> ApiLevel:
        # precedence: edition default < default_api_level < apilevelM<file> < the .proto's option
        level = features.default_api_level(self.fdp)
        if options.default_api_level is not None:
            level = options.default_api_level
        level = options.file_api_levels.get(self.fdp.name, level)
        try:
            option = features.api_level_option(self.fdp.options, features.FILE_OPTIONS_EXTENSION)
        except ValueError as exc:
            raise InputError(f"{self.fdp.name}: {exc}") from None
        return option if option is not None else level

    def read(self, descriptor: bytes) -> File:
        """The file (``descriptor``: see File.descriptor)."""
        fdp, fd = self.fdp, self.fd
        legacy_json = features.legacy_json(fd)
        messages = tuple(
            self._message(mp, fd.message_types_by_name[mp.name], (FILE_MESSAGE, i), self.file_level, legacy_json)
            for i, mp in enumerate(fdp.message_type)
        )
        enums = tuple(
            self._enum(fd.enum_types_by_name[ep.name], (FILE_ENUM, i), legacy_json)
            for i, ep in enumerate(fdp.enum_type)
        )
        extensions = tuple(
            self._extension(fd.extensions_by_name[xp.name], (FILE_EXTENSION, i))
            for i, xp in enumerate(fdp.extension)
        )
        return File(
            name=fdp.name, package=fdp.package, edition=features.edition_label(fdp),
            deferred_classes=self._deferred_classes(messages),
            messages=messages, enums=enums,
            extensions=extensions, api_level=self.file_level,
            comment=self.comments.get((12,), ""),  # FileDescriptorProto.syntax: the file's header
            services=tuple(self._service(sp, fd.services_by_name[sp.name], (FILE_SERVICE, i))
                           for i, sp in enumerate(fdp.service)),
            dependencies=tuple(fdp.dependency),
            public_dependencies=tuple(fdp.dependency[i] for i in fdp.public_dependency),
            descriptor=descriptor,
        )

    def _deferred_classes(self, messages: tuple[Message, ...]) -> bool:
        classes = self.options.classes
        if classes == "auto":
            fields = sum(len(m.fields) for m in walk_messages(messages))
            return (fields >= DEFERRED_CLASSES_FIELDS
                    or self.fdp.options.optimize_for == descriptor_pb2.FileOptions.CODE_SIZE)
        return classes == "deferred"

    def _service(self, sp: descriptor_pb2.ServiceDescriptorProto, sd: Any, path: Path) -> Service:
        methods = tuple(
            Method(name=mp.name, input=sd.methods_by_name[mp.name].input_type.full_name,
                   output=sd.methods_by_name[mp.name].output_type.full_name,
                   client_streaming=mp.client_streaming, server_streaming=mp.server_streaming,
                   comment=self.comments.get(path + (SERVICE_METHOD, i), ""))
            for i, mp in enumerate(sp.method)
        )
        return Service(full_name=sd.full_name, name=sp.name, methods=methods,
                       comment=self.comments.get(path, ""))

    def _message(self, mp: descriptor_pb2.DescriptorProto, md: Any, path: Path,
                 inherited: ApiLevel, inherited_legacy_json: bool) -> Message:
        """Message ``mp`` (``md`` in the pool), of the API level and JSON format its scope has
        unless its options say otherwise."""
        level = inherited
        message_set = map_entry = False
        legacy_json = inherited_legacy_json
        if md.has_options:  # most messages have none: nothing to decode, no features of their own
            legacy_json = features.legacy_json(md)
            try:
                option = features.api_level_option(mp.options, features.MESSAGE_OPTIONS_EXTENSION)
            except ValueError as exc:
                raise InputError(f"{self.fdp.name}: {md.full_name}: {exc}") from None
            level = option if option is not None else inherited
            options = md.GetOptions()
            message_set, map_entry = options.message_set_wire_format, options.map_entry
        real_oneofs: list[int] = []
        oneof_of: dict[int, int] = {}  # field index -> position of its real oneof
        if md.oneofs:  # the pool's list: the file's costs more to make
            # one pass over the fields each: proto3 messages may have thousands of (synthetic) oneofs
            synthetic: set[int] = set()
            in_oneofs: list[tuple[int, int]] = []  # (field index, oneof index)
            for i, f in enumerate(mp.field):
                if f.HasField("oneof_index"):
                    if f.proto3_optional:
                        synthetic.add(f.oneof_index)
                    else:
                        in_oneofs.append((i, f.oneof_index))
            real_oneofs = [i for i in range(len(mp.oneof_decl)) if i not in synthetic]
            position = {index: pos for pos, index in enumerate(real_oneofs)}
            oneof_of = {i: position[index] for i, index in in_oneofs}
        json_names = None if self.pool_json_names else [json_name(fp) for fp in mp.field]
        # the pool's fields and nested types come in the order of the file's; the file's field
        # list is not walked (its items cost more to make than the pool's). The tuples of the
        # model are made of lists: a list comprehension costs less than a generator's resumes.
        comments = self.comments
        fields = tuple([
            self._field(fd, comments.get(path + (MESSAGE_FIELD, i), "") if comments else "", oneof_of.get(i),
                        json_names[i] if json_names is not None else fd.json_name)
            for i, fd in enumerate(md.fields)
        ])
        members: dict[int, list[int]] = {}
        for f in fields:
            if f.oneof is not None:
                members.setdefault(f.oneof, []).append(f.number)
        oneofs = tuple([
            Oneof(name=mp.oneof_decl[index].name, fields=tuple(members.get(pos, ())),
                  comment=self.comments.get(path + (MESSAGE_ONEOF, index), ""))
            for pos, index in enumerate(real_oneofs)
        ])
        # the file's lists are read only where the pool's say they hold something (reserved
        # names, which the pool does not hold: iterated only if any): each read of one makes a
        # container, and most messages have no nested types, extensions or reserved names
        nested, enums, extensions, reserved = md.nested_types, md.enum_types, md.extensions, mp.reserved_name
        # by position, in Message's order (see _field)
        message = Message(
            md.full_name, mp.name, self.fdp.name, fields, oneofs,  # full_name, name, file, fields, oneofs
            tuple([  # messages
                self._message(np, nd, path + (MESSAGE_NESTED, i), level, legacy_json)
                for i, (np, nd) in enumerate(zip(mp.nested_type, nested))
            ]) if nested else (),
            tuple([self._enum(ed, path + (MESSAGE_ENUM, i), legacy_json)  # enums
                   for i, ed in enumerate(enums)]) if enums else (),
            tuple([self._extension(xd, path + (MESSAGE_EXTENSION, i))  # extensions
                   for i, xd in enumerate(extensions)]) if extensions else (),
            tuple(md.extension_ranges), tuple(reserved) if reserved else (),  # extension_ranges, reserved_names
            message_set, map_entry, legacy_json, level,  # message_set, map_entry, legacy_json, api_level
            self.comments.get(path, ""),  # comment
        )
        self.messages[message.full_name] = message
        return message

    def _field(self, fd: Any, comment: str, oneof: int | None, json: str) -> Field:
        """Field ``fd`` of the pool, of real oneof ``oneof`` (its position), JSON name ``json``."""
        kind = fd.type  # the pool's: GROUP for a delimited message field
        presence, required, packed, utf8 = features.field_features(fd, kind)
        message_type = fd.message_type if kind in (_TYPE_MESSAGE, _TYPE_GROUP) else None
        message = message_type.full_name if message_type is not None else None
        enum = fd.enum_type.full_name if kind == _TYPE_ENUM else None
        map_types = None
        # a map entry has options (map_entry); most message types have none: nothing to decode
        if message_type is not None and message_type.has_options and message_type.GetOptions().map_entry:
            entry = message_type
            map_types = MapTypes(key=self._entry_field(entry.fields_by_number[1]),
                                 value=self._entry_field(entry.fields_by_number[2]))
        lazy = unverified_lazy = deprecated = False
        if fd.has_options:
            options = fd.GetOptions()
            lazy, unverified_lazy, deprecated = options.lazy, options.unverified_lazy, options.deprecated
        # by position, in Field's order: keywords cost more to bind, and there is one for every
        # field of the request
        return Field(
            fd.name, fd.number, json, kind, fd.is_repeated,
            presence, required, packed, utf8, message, enum,
            enum is not None and features.enum_closed(fd.enum_type),  # closed_enum
            oneof, map_types, _default(fd, kind),
            lazy or unverified_lazy or (self.options.lazy_all and kind == _TYPE_MESSAGE),
            comment, deprecated, unverified_lazy,
        )

    def _entry_field(self, fd: Any) -> Field:
        kind = fd.type  # the pool's, as in _field: never GROUP for a map value, whatever the file says
        utf8 = features.field_features(fd, kind)[3]
        enum = fd.enum_type.full_name if kind == _TYPE_ENUM else None
        # by position, in Field's order (see _field)
        return Field(
            fd.name, fd.number, fd.json_name, kind, False,  # name, number, json_name, kind, repeated
            False, False, False, utf8,  # presence, required, packed, utf8
            fd.message_type.full_name if kind in (_TYPE_MESSAGE, _TYPE_GROUP) else None,  # message
            enum, enum is not None and features.enum_closed(fd.enum_type),  # enum, closed_enum
            None, None, _default(fd, kind), False, "",  # oneof, map, default, lazy, comment
        )

    def _enum(self, ed: Any, path: Path, inherited_legacy_json: bool) -> Enum:
        values = tuple([
            EnumValue(vd.name, vd.number, self.comments.get(path + (ENUM_VALUE, i), ""))  # name, number, comment
            for i, vd in enumerate(ed.values)
        ])
        enum = Enum(full_name=ed.full_name, name=ed.name, file=self.fdp.name, values=values,
                    closed=features.enum_closed(ed),
                    legacy_json=features.legacy_json(ed) if ed.has_options else inherited_legacy_json,
                    comment=self.comments.get(path, ""))
        self.enums[enum.full_name] = enum
        return enum

    def _extension(self, xd: Any, path: Path) -> Extension:
        # the pool's JSON name: _for_pool's copy changes only message fields'
        field = self._field(xd, self.comments.get(path, ""), None, xd.json_name)
        return Extension(full_name=xd.full_name, name=xd.name,
                         extendee=xd.containing_type.full_name, field=field)


def _default(fd: Any, kind: int) -> object:
    """The field's default value as Python would hold it (None for messages)."""
    if kind in (_TYPE_MESSAGE, _TYPE_GROUP):
        return None
    if kind == _TYPE_ENUM:
        if fd.has_default_value:
            return fd.default_value
        return fd.enum_type.values[0].number
    value = fd.default_value
    if fd.is_repeated:
        return _ZERO.get(kind, 0)
    return value


_ZERO: dict[int, object] = {
    _TYPE_FLOAT: 0.0, _TYPE_DOUBLE: 0.0, _TYPE_STRING: "", _TYPE_BYTES: b"", _TYPE_BOOL: False,
}
