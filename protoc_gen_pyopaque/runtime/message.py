"""The base classes of generated messages: parse, serialize, copy, pickle, repr, dicts."""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeVar, cast

from librt.strings import StringWriter

from . import _codec, _json, _json_gen, _json_scan, _kept, _layout, _output, json_format
from ._values import check_buffer, checked_extension
from .descriptors import DescriptorProperty
from .errors import DecodeError, EncodeError, ProtobufError
from .reflect import MAX_DEPTH, ExtensionInfo, FieldInfo, MessageInfo
from ._wire import NATIVE, BytesWriter

if TYPE_CHECKING:  # an annotation only: mypyc compiles it to a C int64_t, Python runs plain ints
    from mypy_extensions import i64

    from ._names import _F, _O, _P, _S, _W, Named

__all__ = [
    "Message", "ExtendableMessage", "protoopaque_selected", "select_protoopaque",
    "PROTOOPAQUE_ENV", "LAZY_ENV", "set_lazy_decoding", "lazy_decoding", "LAZY_LOCK",
]

M = TypeVar("M", bound="Message")
Buffer = bytes | bytearray | memoryview

PROTOOPAQUE_ENV: Final = "PYOPAQUE_PROTOOPAQUE"
_protoopaque = os.environ.get(PROTOOPAQUE_ENV, "") not in ("", "0")


LAZY_ENV: Final = "PYOPAQUE_LAZY"


class _Switches:
    """The program-wide switches every parse() reads: compiled, the attributes of a native
    object are read in place, where a module global is a dictionary lookup."""

    lazy_decoding: bool
    # Whether parse(data) (lazy=None) defers a whole opaque message behind the validating scan,
    # as lazy=True does: compiled, where the scan makes no object and costs a fraction of the
    # decode (docs/performance.md). Interpreted, the scan costs half to all of the decode it
    # defers, so there parse(data) decodes. An untouched message serializes as its input only
    # where the scan found it canonical (what serialize would write), so deferring changes no output.
    defer_parse: bool

    def __init__(self, lazy_decoding: bool) -> None:
        self.set(lazy_decoding)

    def set(self, lazy_decoding: bool) -> None:
        self.lazy_decoding = lazy_decoding
        self.defer_parse = NATIVE and lazy_decoding


_switches: Final = _Switches(os.environ.get(LAZY_ENV, "1") not in ("", "0"))
# ... for inputs of this many bytes or more. A deferred message that is then read is walked
# twice (the scan, then the decode), which small messages feel: compiled, the 203-byte log entry
# parsed in 0.73x upb's time deferred and 1.6x decoded at once, but parse + read took 0.86x
# deferred and 0.66x decoded; the 1.7 KB address book parses in 0.53x deferred, 3.0x not.
DEFER_MIN_BYTES: Final = 1024
# Serialises first decodes of lazy fields, so that two threads see one decoded value.
# Re-entrant: decoding may merge into a message that itself holds lazy bytes.
LAZY_LOCK: Final = threading.RLock()


def lazy_decoding() -> bool:
    """Say whether ``parse(data)`` decodes lazily: fields declared lazy, and compiled whole opaque
    messages (``PYOPAQUE_LAZY=0`` turns it off)."""
    return _switches.lazy_decoding


def set_lazy_decoding(enabled: bool) -> None:
    """Turn lazy decoding on or off for the whole program: fields declared lazy, and in the
    compiled build the deferred parse of whole opaque messages that ``parse(data)`` does.

    ``parse(data, lazy=True/False)`` still decides for its own call.
    """
    _switches.set(enabled)


def protoopaque_selected() -> bool:
    """Say whether hybrid modules serve their opaque twins (``PYOPAQUE_PROTOOPAQUE=1``)."""
    return _protoopaque


def select_protoopaque(enabled: bool = True) -> None:
    """Make hybrid modules imported from now on serve their opaque twins."""
    global _protoopaque
    _protoopaque = enabled


class Message:
    """Base of every generated message class."""

    __slots__ = ("_pb_unknown",)
    _pb_info: ClassVar[MessageInfo]
    _pb_names: ClassVar[Any]  # generated classes: a _names.Names of their names
    # opaque classes: parse(lazy=True) keeps the input until first access (_kept.keep_input)
    _pb_lazy_capable: ClassVar[bool] = False
    # the class's google.protobuf Descriptor, built on first access (runtime/descriptors.py)
    DESCRIPTOR: ClassVar[Any] = DescriptorProperty()

    # unknown fields as read (_codec.unknown_buffer: a bytearray once there are any), or kept input
    _pb_unknown: bytes | bytearray

    # -- generated per class ---------------------------------------------------------

    def _pb_merge(self, buf: bytes, pos: i64, end: i64, depth: i64, end_tag: i64, lazy: int, /) -> i64:
        """Merge the fields in ``buf[pos:end]`` (up to ``end_tag`` for a group); return the end.

        ``lazy``: fields declared lazy keep their bytes instead of being decoded
        (_kept.NESTING_CHECKED: inside bytes a check at parse verified).
        """
        raise NotImplementedError

    def _pb_encode(self, out: BytesWriter, deterministic: bool, /) -> None:
        raise NotImplementedError

    def _pb_kept_input(self) -> bytes | None:
        """The input kept by ``parse(lazy=True)`` while no field was touched, if serialize may
        return it as it is: canonical input (_kept.kept_verbatim; opaque classes).

        A method, not a test of class attributes: compiled, those are generic lookups.
        """
        return None

    def _pb_items(self) -> list[tuple[FieldInfo, Any]]:
        """Return the fields that are set (non-empty, non-default without presence), by number."""
        return _layout.items(self)

    def _pb_set(self, field: FieldInfo, value: Any, /) -> None:
        """Set ``field`` to ``value`` (a list or dict for repeated and map fields)."""
        _layout.set_field(self, field, value)

    def _pb_reset(self) -> None:
        """Reset every field to its default and drop the unknown fields, in place (generated:
        it calls the class's own ``__init__`` by name; compiled, ``type(self).__init__(self)``
        would be object's, which leaves every attribute as it was)."""
        raise NotImplementedError

    def _pb_checks_required(self) -> bool:
        """Whether this message or one below it has required fields (generated where so): a
        method, because compiled code reads a class attribute by a dictionary lookup per call."""
        return False

    def _pb_missing(self, prefix: str, out: list[str], /) -> None:
        """Append the paths of required fields that are not set (recursively)."""

    def _pb_json_write(self, out: StringWriter, ctx: _json.JsonCtx, depth: int, /) -> None:
        """Write this message as compact ProtoJSON to ``out`` (generated, except for special JSON forms)."""
        out.write(_json_gen.json_text_reflective(self, ctx, depth))

    def _pb_json_merge(self, obj: Any, ctx: _json.JsonCtx, depth: int, /) -> None:
        """Merge the ProtoJSON value ``obj`` (generated, except for special JSON forms)."""
        _json_gen.json_merge_reflective(self, obj, ctx, depth)

    def _pb_json_scan(self, reader: _json_scan.JsonScan, ctx: _json.JsonCtx, depth: int, /) -> None:
        """Merge the JSON value at ``reader``'s position (generated for most messages; this reads it
        with json.loads, for special JSON forms and classes without a scan)."""
        self._pb_json_merge(reader.value(), ctx, depth)

    # -- binary ---------------------------------------------------------------------

    @classmethod
    def parse(cls: type[M], data: Buffer, *, lazy: bool | None = None,
              max_depth: int = MAX_DEPTH, partial: bool = False) -> M:
        """Decode ``data``; raise DecodeError on malformed input or missing required fields.

        ``lazy=None``: fields declared lazy are decoded on first access (unless
        turned off program-wide); ``lazy=True``: an opaque message as a whole too
        (checked now as a decode would check it, decoded on first access);
        ``lazy=False``: everything now. ``max_depth`` bounds message nesting;
        ``partial=True`` accepts missing required fields.
        """
        msg = cls()
        msg._pb_parse(data, lazy, max_depth, partial)
        return msg

    def _pb_parse(self, data: Buffer, lazy: bool | None, max_depth: int, partial: bool) -> None:
        """parse() into a new message: generated classes override parse() to construct theirs
        directly (compiled, a native call where ``cls()`` is a generic type call).

        A deferred parse (``lazy=True``; compiled, the default) checks everything a decode
        would and keeps the input, which the first access decodes.
        """
        buf = data if type(data) is bytes else check_buffer(data)
        if max_depth > _kept.UNBOUNDED:  # as deep as no input goes, and noted whole in kept input
            max_depth = _kept.UNBOUNDED
        if lazy is None:
            lazy = _switches.lazy_decoding
            defer = _switches.defer_parse and (len(buf) >= DEFER_MIN_BYTES or self._pb_defers_any_size())
        else:
            defer = lazy
        if defer:
            try:
                if self._pb_scan_input(buf, max_depth):
                    return
            except RecursionError:
                raise DecodeError(f"{self._pb_info.full_name}: nesting too deep for the Python stack") from None
        self._pb_merge_checked(buf, max_depth, partial, lazy)

    def _pb_defers_any_size(self) -> bool:
        """Whether parse(data) defers this class's parse below DEFER_MIN_BYTES too, where it defers
        (compiled): generated for the classes of the deferred layout, whose deferred parse makes no
        object and whose first reads make only the field read."""
        return False

    def _pb_scan_input(self, buf: bytes, max_depth: i64, /) -> bool:
        """Check ``buf`` as a parse into this message would (raise DecodeError), making no value,
        and keep it (_kept.keep_input, noting whether it is canonical); say whether it was kept
        (False: the class keeps no input, it decodes). Generated for the classes that can keep
        their input (opaque, without required fields)."""
        return False

    def merge_from_bytes(self, data: Buffer, *, max_depth: int = MAX_DEPTH,
                         partial: bool = False, lazy: bool | None = None) -> None:
        """Merge the fields encoded in ``data`` into this message, as protobuf merging does."""
        buf = data if type(data) is bytes else check_buffer(data)
        if max_depth > _kept.UNBOUNDED:  # as deep as no input goes, and noted whole in kept input
            max_depth = _kept.UNBOUNDED
        self._pb_merge_checked(buf, max_depth, partial, _switches.lazy_decoding if lazy is None else lazy)

    def _pb_merge_checked(self, buf: bytes, max_depth: int, partial: bool, lazy: bool) -> None:
        """Merge ``buf`` (bytes: the callers checked the buffer given) with the parse's checks."""
        try:  # lazy as a bool: no caller's value passes for NESTING_CHECKED
            self._pb_merge(buf, 0, len(buf), max_depth, -1, True if lazy else False)
        except RecursionError:
            raise DecodeError(f"{self._pb_info.full_name}: nesting too deep for the Python stack") from None
        if not partial and self._pb_checks_required():
            missing: list[str] = []
            self._pb_missing("", missing)
            if missing:
                raise DecodeError(f"{self._pb_info.full_name}: missing required fields: {', '.join(missing)}")

    def serialize(self, *, deterministic: bool = False, partial: bool = False) -> bytes:
        """Encode this message; ``deterministic`` sorts map entries by key.

        Raise EncodeError for values of the wrong type or missing required fields
        (``partial=True`` allows the latter).
        """
        if not partial and self._pb_checks_required():
            missing: list[str] = []
            self._pb_missing("", missing)
            if missing:
                raise EncodeError(f"{self._pb_info.full_name}: missing required fields: {', '.join(missing)}")
        if not deterministic:
            kept = self._pb_kept_input()
            if kept is not None:
                return kept  # parse(lazy=True) and never touched: its input, as it was
        out = BytesWriter()
        try:
            self._pb_encode(out, deterministic)
        except _codec.ENCODE_ERRORS as exc:
            _output.discard_output(out)
            raise _codec.encode_failure(self, exc) from None
        except RecursionError:
            _output.discard_output(out)
            raise _codec.nested_too_deep(self) from None
        except BaseException:
            _output.discard_output(out)
            raise
        return _output.take_output(out)

    def _pb_load_raw(self) -> None:
        """Decode the input kept by ``parse(lazy=True)`` or a lazy element (its first access);
        accessors call it whenever ``_pb_unknown`` is not the shared empty bytes.

        The fields are decoded into a new message and then adopted, kept input last: a thread
        that sees no kept input sees every field, and a failed decode leaves the input kept.
        """
        kept = self._pb_unknown
        if not kept or kept[0] != 0:  # unknown fields, not kept input
            return
        buf, start, depth, lazy = _kept.kept_fields(kept)
        decoded = type(self)()
        decoded._pb_merge(buf, start, len(buf), depth, -1, lazy)
        # Published once: threads that decode the same kept input at once each make their own
        # message, and the first to finish is adopted, the others dropped (a write after a first
        # decode is never undone). Compiled, the test and the adoption run without a thread
        # switch: no call leaves native code, nothing is allocated. Interpreted, a lock holds them together.
        if NATIVE:
            if self._pb_unknown is kept:
                self._pb_adopt(decoded)
            return
        with LAZY_LOCK:
            if self._pb_unknown is kept:
                self._pb_adopt(decoded)

    def _pb_adopt(self, other: Message, /) -> None:
        """Take the fields of ``other``, a new message of this class, ``_pb_unknown`` last
        (generated for the classes that can keep input)."""
        raise NotImplementedError

    def _pb_touch(self) -> None:
        """Decode the input kept by ``parse(lazy=True)``, if any: for the base class's own readers."""
        self._pb_load_raw()

    def is_initialized(self) -> bool:
        """Say whether every required field (recursively) is set."""
        missing: list[str] = []
        self._pb_missing("", missing)
        return not missing

    # -- JSON (canonical ProtoJSON, see json_format) --------------------------------

    def to_json(self, *, indent: int | None = None, preserving_proto_field_names: bool = False,
                always_print_fields_with_no_presence: bool = False,
                preserving_proto_field_name: bool = False) -> str:
        """Return this message as ProtoJSON text; raise JsonError when it has no JSON form,
        EncodeError when it is nested too deep to print.

        ``preserving_proto_field_name`` is json_format's spelling of ``preserving_proto_field_names``.
        """
        return json_format.to_json(
            self, indent=indent,
            preserving_proto_field_names=preserving_proto_field_names or preserving_proto_field_name,
            always_print_fields_with_no_presence=always_print_fields_with_no_presence)

    def to_dict(self, *, preserving_proto_field_names: bool = False,
                always_print_fields_with_no_presence: bool = False,
                preserving_proto_field_name: bool = False) -> Any:
        """Return the ProtoJSON form as Python values (a str for Timestamp, etc.)."""
        return json_format.to_dict(
            self, preserving_proto_field_names=preserving_proto_field_names or preserving_proto_field_name,
            always_print_fields_with_no_presence=always_print_fields_with_no_presence)

    @classmethod
    def from_json(cls: type[M], text: str | bytes, *, ignore_unknown_fields: bool = False) -> M:
        """Parse ProtoJSON text; raise JsonError (naming a JSON path) on bad input."""
        return json_format.from_json(cls, text, ignore_unknown_fields=ignore_unknown_fields)

    @classmethod
    def from_dict(cls: type[M], obj: Any, *, ignore_unknown_fields: bool = False) -> M:
        """Build a message from ProtoJSON-shaped Python values (as json.loads returns)."""
        return json_format.from_dict(cls, obj, ignore_unknown_fields=ignore_unknown_fields)

    # -- text format (imported on first use: most programs never need it) ------------

    def to_text(self, *, print_unknown_fields: bool = False, as_one_line: bool = False) -> str:
        """Return this message in the protobuf text format."""
        from . import text_format

        return text_format.to_text(self, print_unknown_fields=print_unknown_fields,
                                   as_one_line=as_one_line)

    @classmethod
    def from_text(cls: type[M], text: str | bytes) -> M:
        """Parse the protobuf text format; raise TextFormatError (a DecodeError) naming line:column."""
        from . import text_format

        return text_format.from_text(cls, text)

    def merge_from_text(self, text: str | bytes) -> None:
        """Merge fields given in the protobuf text format into this message."""
        from . import text_format

        text_format.merge_from_text(self, text)

    def __str__(self) -> str:
        return self.to_text()

    # -- pydantic (v2): a message class as the type of a model's field -----------------

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """Validate and serialize fields of this type as ProtoJSON: an instance is taken as is,
        any other value is the field's JSON value as from_dict reads it (a dict; a string for a
        Timestamp, etc.), and the field serializes as to_dict() in both of pydantic's modes, so
        that model_validate(model.model_dump()) and model_validate_json(model.model_dump_json())
        give the model back. pydantic_core is imported here, by pydantic, and only then."""
        schema = importlib.import_module("pydantic_core.core_schema")

        def validate(value: Any) -> Any:
            if isinstance(value, cls):
                return value
            try:
                return cls.from_dict(value)
            except (ProtobufError, TypeError) as exc:
                raise ValueError(str(exc)) from exc  # pydantic reports a ValueError as a ValidationError

        return schema.chain_schema(
            # after any_schema: model_json_schema() says "any JSON value" instead of failing
            [schema.any_schema(), schema.no_info_plain_validator_function(validate)],
            serialization=schema.plain_serializer_function_ser_schema(
                Message.to_dict, info_arg=False, return_schema=schema.any_schema()),
        )

    # -- unknown fields -------------------------------------------------------------

    def unknown_fields(self) -> bytes:
        """Return the fields this message did not know, as encoded, in the order read."""
        self._pb_touch()
        return bytes(self._pb_unknown)

    def discard_unknown_fields(self) -> None:
        """Drop the unknown fields of this message and of every message below it (as upb does)."""
        self._pb_touch()
        self._pb_unknown = b""
        for field, value in self.iter_set_fields():
            for child in _codec.messages_in(field, value):
                child.discard_unknown_fields()

    # -- whole-message and by-name operations (generic: through _pb_info) -------------
    # The official runtime's Clear, CopyFrom, MergeFrom, ByteSize, ParseFromString,
    # FindInitializationErrors, HasField, ClearField, WhichOneof; docs/migration.md maps them.

    def clear(self: Named[_F, Any, _O, Any, Any], name: _F | _O | None = None) -> None:
        """Clear the field or oneof ``name``, or, without a name, every field and the unknown fields."""
        msg = cast(Message, self)
        if name is None:
            msg._pb_reset()
            return
        numbers = msg._pb_numbers(name)
        msg._pb_touch()
        keep = [(f, v) for f, v in msg._pb_items() if f.number not in numbers]
        unknown = msg._pb_unknown
        msg._pb_reset()
        for field, value in keep:
            msg._pb_set(field, value)
        msg._pb_unknown = unknown

    def has(self: Named[Any, _P, _O, Any, Any], name: _P | _O) -> bool:
        """Say whether the field ``name`` (which must have presence) or a member of oneof ``name`` is set."""
        msg = cast(Message, self)
        numbers = msg._pb_numbers(name)
        field = msg._pb_info.by_name.get(name)
        if field is not None and (field.repeated or not field.presence):
            raise ValueError(f"{msg._pb_info.full_name}.{name} does not have presence")
        return any(f.number in numbers for f, _ in msg._pb_items())

    def which(self: Named[Any, Any, _O, _W, Any], oneof: _O) -> _W | None:
        """Name the member of oneof ``oneof`` that is set, or None."""
        msg = cast(Message, self)
        if not any(o.name == oneof for o in msg._pb_info.oneofs):
            raise ValueError(f"{msg._pb_info.full_name} has no oneof {oneof!r}")
        for field, _ in msg._pb_items():
            if field.oneof == oneof:
                return cast("_W", field.name)
        return None

    def get(self: Named[_F, Any, Any, Any, Any], name: _F) -> Any:
        """Return field ``name`` as the official runtime reads it: the default when unset, and
        for an unset sub-message a new empty one (not attached: ``mutable`` attaches)."""
        msg = cast(Message, self)
        field = msg._pb_info.by_name.get(name)
        if field is None:
            raise ValueError(f"{msg._pb_info.full_name} has no field {name!r}")
        for f, value in msg._pb_items():
            if f.number == field.number:
                return value
        if field.map_key is not None:
            return {}
        if field.repeated:
            return []
        return field.message_type() if field.message_type is not None else field.default

    def mutable(self: Named[Any, Any, Any, Any, _S], name: _S) -> Any:
        """Return the sub-message in field ``name``, created and set first if absent.

        What ``m.sub.x = 1`` does in the official runtime; setting a oneof member selects it.
        """
        msg = cast(Message, self)
        field = msg._pb_info.by_name.get(name)
        if field is None or field.message_type is None or field.repeated or field.map_key is not None:
            raise ValueError(f"{msg._pb_info.full_name} has no singular message field {name!r}")
        for f, value in msg._pb_items():
            if f.number == field.number:
                return value
        child = field.message_type()
        msg._pb_set(field, child)
        return child

    def copy_from(self, other: Message) -> None:
        """Make this message a deep copy of ``other`` (a message of the same type)."""
        self._pb_check_same(other)
        if other is not self:
            self.clear()
            self.merge_from(other)

    def merge_from(self, other: Message) -> None:
        """Merge ``other`` (of the same type) into this message, as protobuf merging does: set
        scalars and oneofs overwrite, repeated fields append, sub-messages merge, map entries replace."""
        self._pb_check_same(other)
        self.merge_from_bytes(other.serialize(partial=True), partial=True)

    def parse_from_bytes(self, data: Buffer, *, max_depth: int = MAX_DEPTH,
                         partial: bool = False) -> None:
        """Replace the contents of this message with the message encoded in ``data``."""
        buf = data if type(data) is bytes else check_buffer(data)  # TypeError before anything is cleared
        self.clear()
        self.merge_from_bytes(buf, max_depth=max_depth, partial=partial)

    def byte_size(self) -> int:
        """The length of this message's encoding."""
        return len(self.serialize(partial=True))

    def find_initialization_errors(self) -> list[str]:
        """The paths of required fields that are not set (recursively), e.g. ``items[0].id``."""
        missing: list[str] = []
        self._pb_missing("", missing)
        return missing

    def _pb_numbers(self, name: str) -> frozenset[int]:
        """The field number of field ``name``, or the members' of oneof ``name``."""
        info = self._pb_info
        field = info.by_name.get(name)
        if field is not None:
            return frozenset((field.number,))
        for oneof in info.oneofs:
            if oneof.name == name:
                return frozenset(oneof.numbers)
        raise ValueError(f"{info.full_name} has no field or oneof {name!r}")

    def _pb_check_same(self, other: Message) -> None:
        if not isinstance(other, Message):
            raise TypeError(f"{self._pb_info.full_name} cannot merge or copy from {type(other).__qualname__}")
        if other._pb_info.full_name != self._pb_info.full_name:
            raise TypeError(f"{self._pb_info.full_name} cannot merge or copy from {other._pb_info.full_name}")

    # -- Python protocols -----------------------------------------------------------

    def __copy__(self: M) -> M:
        return self.__deepcopy__({})

    def __deepcopy__(self: M, memo: dict[int, object]) -> M:
        clone = type(self)()
        data = self.serialize(partial=True)
        try:  # a message built in code may nest deeper than parse's default limit
            clone.merge_from_bytes(data, partial=True, max_depth=_kept.UNBOUNDED)
        except DecodeError:  # serialize's stack sufficed, but not decoding's
            raise _codec.nested_too_deep(self) from None
        return clone

    def __reduce__(self) -> tuple[Any, tuple[type[Message], bytes]]:
        return (_unpickle, (type(self), self.serialize(partial=True)))

    def __repr__(self) -> str:
        try:
            parts = [f"{field.attr}={value!r}" for field, value in self.iter_set_fields()]
        except RecursionError:
            raise _codec.nested_too_deep(self) from None
        return f"{type(self).__qualname__}({', '.join(parts)})"

    def iter_set_fields(self) -> Iterator[tuple[FieldInfo, Any]]:
        """Yield ``(field, value)`` for every set field, in field-number order."""
        return iter(self._pb_items())

    # messages are mutable; a ClassVar, or mypyc gives every instance a slot for it
    __hash__: ClassVar[None] = None  # type: ignore[assignment]


def _unpickle(cls: type[Message], data: bytes) -> Message:
    msg = cls()
    msg.merge_from_bytes(data, partial=True, max_depth=_kept.UNBOUNDED)  # what __reduce__ serialized
    return msg


class ExtendableMessage(Message):
    """Base of messages that declare extension ranges: keeps known extensions by number."""

    __slots__ = ("_pb_ext",)
    _pb_ext: dict[int, Any]

    def has_extension(self, ext: ExtensionInfo) -> bool:
        """Say whether ``ext`` is set on this message."""
        self._check_extendee(ext)
        value = self._pb_ext.get(ext.field.number)
        return value is not None and value != []

    def get_extension(self, ext: ExtensionInfo) -> Any:
        """Return the value of ``ext`` (its default when unset)."""
        self._check_extendee(ext)
        value = self._pb_ext.get(ext.field.number)
        if value is not None:
            return value
        if ext.field.repeated:
            return []
        return ext.field.default

    def set_extension(self, ext: ExtensionInfo, value: Any) -> None:
        """Set ``ext`` to ``value`` (a list for repeated extensions, copied); TypeError or ValueError
        for a value the extension cannot hold, as for fields."""
        self._check_extendee(ext)
        self._pb_ext[ext.field.number] = checked_extension(ext, value)

    def clear_extension(self, ext: ExtensionInfo) -> None:
        """Unset ``ext``."""
        self._check_extendee(ext)
        self._pb_ext.pop(ext.field.number, None)

    def clear(self: Named[_F, Any, _O, Any, Any], name: _F | _O | None = None) -> None:
        """Clear the field or oneof ``name`` (extensions stay), or without a name everything."""
        msg = cast(ExtendableMessage, self)
        ext = msg._pb_ext
        Message.clear(msg, name)
        if name is not None:
            msg._pb_ext = ext

    def discard_unknown_fields(self) -> None:
        """Drop the unknown fields here and below, in extensions too."""
        super().discard_unknown_fields()
        for field, value in self._pb_ext_items():
            for child in _codec.messages_in(field, value):
                child.discard_unknown_fields()

    def _check_extendee(self, ext: ExtensionInfo) -> None:
        if not isinstance(self, ext.extendee):
            raise TypeError(f"{ext.full_name} does not extend {self._pb_info.full_name}")
        self._pb_touch()

    def _pb_ext_items(self) -> list[tuple[FieldInfo, Any]]:
        info = self._pb_info
        return [(info.extensions[n].field, self._pb_ext[n]) for n in sorted(self._pb_ext)]
