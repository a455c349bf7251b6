"""Per-class field tables: what generic code (repr, dicts, JSON, text, maps, extensions) reads.

Generated parse/serialize code does not use these tables; everything slower and
more flexible does.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final

from ._layout import FieldLayout

__all__ = [
    "FieldInfo", "OneofInfo", "MessageInfo", "EnumInfo", "ExtensionInfo", "message_info",
    "INT_RANGES", "KIND_NAMES", "MAX_DEPTH",
    "TYPE_DOUBLE", "TYPE_FLOAT", "TYPE_INT64", "TYPE_UINT64", "TYPE_INT32",
    "TYPE_FIXED64", "TYPE_FIXED32", "TYPE_BOOL", "TYPE_STRING", "TYPE_GROUP",
    "TYPE_MESSAGE", "TYPE_BYTES", "TYPE_UINT32", "TYPE_ENUM", "TYPE_SFIXED32",
    "TYPE_SFIXED64", "TYPE_SINT32", "TYPE_SINT64",
]

# Field kinds, numbered as in descriptor.proto's FieldDescriptorProto.Type.
TYPE_DOUBLE: Final = 1
TYPE_FLOAT: Final = 2
TYPE_INT64: Final = 3
TYPE_UINT64: Final = 4
TYPE_INT32: Final = 5
TYPE_FIXED64: Final = 6
TYPE_FIXED32: Final = 7
TYPE_BOOL: Final = 8
TYPE_STRING: Final = 9
TYPE_GROUP: Final = 10
TYPE_MESSAGE: Final = 11
TYPE_BYTES: Final = 12
TYPE_UINT32: Final = 13
TYPE_ENUM: Final = 14
TYPE_SFIXED32: Final = 15
TYPE_SFIXED64: Final = 16
TYPE_SINT32: Final = 17
TYPE_SINT64: Final = 18

# The integer kinds' limits, and the value range of every integer kind.
INT32_MIN: Final = -(1 << 31)
INT32_MAX: Final = (1 << 31) - 1
UINT32_MAX: Final = (1 << 32) - 1
INT64_MIN: Final = -(1 << 63)
INT64_MAX: Final = (1 << 63) - 1
UINT64_MAX: Final = (1 << 64) - 1
INT_RANGES: Final = {
    TYPE_INT32: (INT32_MIN, INT32_MAX), TYPE_SINT32: (INT32_MIN, INT32_MAX),
    TYPE_SFIXED32: (INT32_MIN, INT32_MAX), TYPE_UINT32: (0, UINT32_MAX), TYPE_FIXED32: (0, UINT32_MAX),
    TYPE_INT64: (INT64_MIN, INT64_MAX), TYPE_SINT64: (INT64_MIN, INT64_MAX),
    TYPE_SFIXED64: (INT64_MIN, INT64_MAX), TYPE_UINT64: (0, UINT64_MAX), TYPE_FIXED64: (0, UINT64_MAX),
}

# The .proto name of every field kind, for error messages.
KIND_NAMES: Final = {
    TYPE_INT32: "int32", TYPE_SINT32: "sint32", TYPE_SFIXED32: "sfixed32", TYPE_UINT32: "uint32",
    TYPE_FIXED32: "fixed32", TYPE_INT64: "int64", TYPE_SINT64: "sint64", TYPE_SFIXED64: "sfixed64",
    TYPE_UINT64: "uint64", TYPE_FIXED64: "fixed64", TYPE_DOUBLE: "double", TYPE_FLOAT: "float",
    TYPE_BOOL: "bool", TYPE_STRING: "string", TYPE_BYTES: "bytes", TYPE_ENUM: "enum",
    TYPE_MESSAGE: "message", TYPE_GROUP: "group",
}

# How deep messages may nest: the default max_depth of parse, and the limit of JSON (objects
# and arrays) and of the text format, as in protobuf's own runtimes.
MAX_DEPTH: Final = 100


class EnumInfo:
    """An enum's full name, closedness and value names.

    A closed enum's fields hold the members of its class ``cls`` (they can hold no other
    number), an open enum's plain ints (they keep numbers it does not name): ``members`` maps
    a closed enum's numbers to the values its fields hold, and ``names`` its names to them."""

    __slots__ = ("full_name", "closed", "names", "numbers", "members", "json_names", "legacy_json")

    def __init__(self, full_name: str, closed: bool, values: tuple[tuple[str, int], ...],
                 legacy_json: bool = False, cls: type[IntEnum] | None = None) -> None:
        self.full_name = full_name
        self.closed = closed
        # the first name of an aliased number is its canonical name
        self.numbers: dict[int, str] = {}
        for name, number in values:
            self.numbers.setdefault(number, name)
        self.members: dict[int, Any] = {}
        if closed:  # (without its class: its numbers)
            self.members = {int(m): m for m in cls} if cls is not None else {n: n for n in self.numbers}
        self.names: dict[str, Any] = {name: self.members.get(number, number) for name, number in values}
        # what generated JSON printers write: the canonical names as JSON strings, by the values
        # fields hold (a member found by identity; a plain int equal to it finds it too)
        self.json_names: dict[int, str] = {self.members.get(number, number): '"' + name + '"'
                                           for number, name in self.numbers.items()}
        self.legacy_json = legacy_json


class FieldInfo:
    """One field of a message (or a map entry's key/value, or an extension).

    Generated modules pass number, name, json_name, attr and kind (descriptor.proto's
    FieldDescriptorProto.Type number: the TYPE_* constants) by position, each followed by a
    comment holding the field's declaration, and the rest by keyword: keywords would cost
    import time (about 0.5 µs a field). ``unverified_lazy``: an [unverified_lazy] message
    field that the class decodes on first access, so a parse checks only that its bytes fit
    (a lazy field's check at parse does not look inside them either)."""

    __slots__ = (
        "number", "name", "json_name", "attr", "kind", "repeated", "packed", "presence",
        "oneof", "message_type", "enum", "map_key", "map_value", "utf8", "required",
        "default", "unverified_lazy",
    )

    def __init__(
        self, number: int, name: str, json_name: str, attr: str, kind: int, *,
        repeated: bool = False, packed: bool = False, presence: bool = False,
        oneof: str = "", message_type: type | None = None, enum: EnumInfo | None = None,
        map_key: FieldInfo | None = None, map_value: FieldInfo | None = None,
        utf8: bool = True, required: bool = False, default: object = None,
        unverified_lazy: bool = False,
    ) -> None:
        self.number = number
        self.name = name
        self.json_name = json_name
        self.attr = attr
        self.kind = kind
        self.repeated = repeated
        self.packed = packed
        self.presence = presence
        self.oneof = oneof
        self.message_type = message_type
        self.enum = enum
        self.map_key = map_key
        self.map_value = map_value
        self.utf8 = utf8
        self.required = required
        self.default = default
        self.unverified_lazy = unverified_lazy

    @property
    def is_map(self) -> bool:
        """Say whether this is a map field."""
        return self.map_key is not None

    def __repr__(self) -> str:
        return f"FieldInfo({self.name!r}, number={self.number})"


class OneofInfo:
    """A oneof: its name and its members' field numbers."""

    __slots__ = ("name", "numbers", "synthetic")

    def __init__(self, name: str, numbers: tuple[int, ...], synthetic: bool = False) -> None:
        self.name = name
        self.numbers = numbers
        self.synthetic = synthetic


class ExtensionInfo:
    """An extension: its field table entry and the message it extends."""

    __slots__ = ("full_name", "field", "extendee")

    def __init__(self, full_name: str, field: FieldInfo, extendee: type) -> None:
        self.full_name = full_name
        self.field = field
        self.extendee = extendee

    def __repr__(self) -> str:
        return f"ExtensionInfo({self.full_name!r})"


class MessageInfo:
    """A message class's full name, fields and oneofs, with lookups by number and name."""

    __slots__ = (
        "full_name", "fields", "oneofs", "by_number", "by_name", "by_json_name",
        "extension_ranges", "extensions", "message_set", "legacy_json", "is_map_entry",
        "reserved_names", "layout_by_order", "layout_by_number", "lazy_layout",
    )

    def __init__(
        self, full_name: str, fields: tuple[FieldInfo, ...], oneofs: tuple[OneofInfo, ...] = (),
        *, extension_ranges: tuple[tuple[int, int], ...] = (), message_set: bool = False,
        legacy_json: bool = False, reserved_names: tuple[str, ...] = (),
        layout: tuple[str | tuple[Any, ...], ...] = (),
    ) -> None:
        self.full_name = full_name
        self.fields = fields
        self.oneofs = oneofs
        self.by_number: dict[int, FieldInfo] = {f.number: f for f in fields}
        self.by_name: dict[str, FieldInfo] = {f.name: f for f in fields}
        # JSON names that name one field: one that two fields share (protoc allows it in proto2)
        # names neither, which are then printed and read under their proto names
        json_names = [f.json_name for f in fields]
        self.by_json_name: dict[str, FieldInfo] = {
            f.json_name: f for f in fields if json_names.count(f.json_name) == 1}
        self.extension_ranges = extension_ranges
        self.extensions: dict[int, ExtensionInfo] = {}
        self.message_set = message_set
        self.legacy_json = legacy_json
        # names of removed fields: the text format skips them instead of failing
        self.reserved_names = frozenset(reserved_names)
        # generated classes: each field's slot and presence, in the order of ``fields`` (_layout)
        entries = [FieldLayout(f, entry) for f, entry in zip(fields, layout)]
        self.layout_by_order = sorted(entries, key=lambda e: e.field.number)
        self.layout_by_number = {e.field.number: e for e in entries}
        self.lazy_layout = [e for e in entries if e.lazy]

    def in_extension_range(self, number: int) -> bool:
        """Say whether ``number`` lies in one of the declared extension ranges."""
        for start, end in self.extension_ranges:
            if start <= number < end:
                return True
        return False


def message_info(cls_or_msg: object) -> MessageInfo:
    """Return the field table of a generated message class or instance."""
    info = getattr(cls_or_msg, "_pb_info", None)
    if not isinstance(info, MessageInfo):
        raise TypeError(f"{cls_or_msg!r} is not a generated message")
    return info
