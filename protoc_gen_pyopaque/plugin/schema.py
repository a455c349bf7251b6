"""The resolved model: files, messages, fields, enums and extensions with every
protobuf feature already settled (presence, packing, UTF-8, encoding, API level).

Nothing here knows about syntax or editions; features.py decided everything.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field as dc_field, replace


class ApiLevel(enum.Enum):
    """The generated API style of a message."""

    OPEN = "API_OPEN"
    HYBRID = "API_HYBRID"
    OPAQUE = "API_OPAQUE"


@dataclass(frozen=True)
class EnumValue:
    name: str
    number: int
    comment: str


@dataclass(frozen=True)
class Enum:
    full_name: str
    name: str
    file: str
    values: tuple[EnumValue, ...]
    closed: bool
    legacy_json: bool
    comment: str

    @property
    def default_number(self) -> int:
        """The enum's default: its first value."""
        return self.values[0].number


@dataclass(frozen=True)
class MapTypes:
    key: Field
    value: Field


@dataclass(frozen=True)
class Field:
    name: str
    number: int
    json_name: str
    kind: int  # descriptor.proto's FieldDescriptorProto.Type; GROUP for delimited encoding
    repeated: bool
    presence: bool  # explicit presence (has_x exists)
    required: bool
    packed: bool  # written packed (repeated scalars)
    utf8: bool  # strings validated as UTF-8
    message: str | None  # full name of the message type
    enum: str | None  # full name of the enum type
    closed_enum: bool
    oneof: int | None  # index of the (real) oneof this field belongs to
    map: MapTypes | None
    default: object  # the resolved scalar default (proto2 custom defaults included)
    lazy: bool  # decoded on first access ([lazy = true], [unverified_lazy = true], lazy_all)
    comment: str
    deprecated: bool = False
    lazy_unverified: bool = False  # [unverified_lazy = true]: no checks at parse time


@dataclass(frozen=True)
class Oneof:
    name: str
    fields: tuple[int, ...]  # field numbers
    comment: str


@dataclass(frozen=True)
class Extension:
    full_name: str
    name: str
    extendee: str  # full name of the extended message
    field: Field


@dataclass(frozen=True)
class Message:
    full_name: str
    name: str
    file: str
    fields: tuple[Field, ...]
    oneofs: tuple[Oneof, ...]
    messages: tuple[Message, ...]
    enums: tuple[Enum, ...]
    extensions: tuple[Extension, ...]
    extension_ranges: tuple[tuple[int, int], ...]
    reserved_names: tuple[str, ...]
    message_set: bool
    map_entry: bool
    legacy_json: bool
    api_level: ApiLevel
    comment: str

    def with_api_level(self, level: ApiLevel) -> Message:
        """Return this message (and its nested messages) switched to ``level``."""
        return replace(self, api_level=level,
                       messages=tuple(m.with_api_level(level) for m in self.messages))


@dataclass(frozen=True)
class File:
    name: str  # the .proto path, e.g. "foo/bar.proto"
    package: str
    edition: str  # "proto2", "proto3", "2023", "2024", ... (for comments only)
    dependencies: tuple[str, ...]
    messages: tuple[Message, ...]
    enums: tuple[Enum, ...]
    extensions: tuple[Extension, ...]
    api_level: ApiLevel  # the file-level style (messages may override)
    comment: str

    @property
    def is_hybrid(self) -> bool:
        """Say whether any message of the file is hybrid (the file then gets an opaque twin)."""
        return any(m.api_level is ApiLevel.HYBRID for m in _walk(self.messages))

    def as_opaque(self) -> File:
        """Return this file with every message switched to opaque (the hybrid twin)."""
        return replace(self, api_level=ApiLevel.OPAQUE,
                       messages=tuple(m.with_api_level(ApiLevel.OPAQUE) for m in self.messages))


def _walk(messages: tuple[Message, ...]) -> list[Message]:
    out: list[Message] = []
    for m in messages:
        out.append(m)
        out.extend(_walk(m.messages))
    return out


def walk_messages(messages: tuple[Message, ...]) -> list[Message]:
    """Return ``messages`` and all their nested messages, depth first."""
    return _walk(messages)


@dataclass
class Schema:
    """Every file of a request, with lookups of messages and enums by full name."""

    files: dict[str, File] = dc_field(default_factory=dict)
    messages: dict[str, Message] = dc_field(default_factory=dict)
    enums: dict[str, Enum] = dc_field(default_factory=dict)
