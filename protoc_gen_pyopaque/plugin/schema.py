"""The resolved model: files, messages, fields, enums and extensions with every
protobuf feature already settled (presence, packing, UTF-8, encoding, API level).

Nothing here knows about syntax or editions; features.py decided everything. Nothing is
changed once made. The records made by the thousand (messages, fields, map types, oneofs, enum
values) are slotted dataclasses, not frozen (a frozen one costs three times as much to make), nor
NamedTuples (on Python 3.11 each attribute read of one goes through the generic lookup, ~130
instructions, where a slot's read is specialized, ~10: the views read a field's a hundred times);
the rest frozen dataclasses.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field as dc_field, replace
from functools import cached_property
from typing import Final, TypeAlias


class ApiLevel(enum.Enum):
    """The generated API style of a message."""

    OPEN = "API_OPEN"
    HYBRID = "API_HYBRID"
    OPAQUE = "API_OPAQUE"


# ApiLevel.OPAQUE is read through EnumType's __getattr__ hook (~300 ns on Python 3.11, on every
# read): the model and the views, which compare levels for every field, compare with these.
OPEN: Final = ApiLevel.OPEN
HYBRID: Final = ApiLevel.HYBRID
OPAQUE: Final = ApiLevel.OPAQUE
# the styles as the generated code names them (an enum member's name is a property: ~300 ns too)
STYLE_NAMES: Final = {level: level.name.lower() for level in ApiLevel}


# A field's default as Python holds it. Named: a dataclass compiled by mypyc looks its fields'
# types up among the module's globals, where ``object`` is not.
Default: TypeAlias = object


@dataclass(slots=True)
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


@dataclass(slots=True)
class MapTypes:
    key: Field
    value: Field


@dataclass(slots=True)
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
    default: Default  # the resolved scalar default (proto2 custom defaults included)
    lazy: bool  # decoded on first access ([lazy = true], [unverified_lazy = true], lazy_all)
    comment: str
    deprecated: bool = False
    lazy_unverified: bool = False  # [unverified_lazy = true]: no checks at parse time


@dataclass(slots=True)
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


@dataclass(slots=True)
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
        return replace(self, api_level=level, messages=tuple(m.with_api_level(level) for m in self.messages))


@dataclass(frozen=True)
class Method:
    """One RPC of a service."""

    name: str
    input: str  # full name of the request message
    output: str  # full name of the response message
    client_streaming: bool
    server_streaming: bool
    comment: str


@dataclass(frozen=True)
class Service:
    full_name: str
    name: str
    methods: tuple[Method, ...]
    comment: str


@dataclass(frozen=True)
class File:
    name: str  # the .proto path, e.g. "foo/bar.proto"
    package: str
    edition: str  # "proto2", "proto3", "2023", "2024", ... (for comments only)
    messages: tuple[Message, ...]
    enums: tuple[Enum, ...]
    extensions: tuple[Extension, ...]
    api_level: ApiLevel  # the file-level style (messages may override)
    comment: str
    services: tuple[Service, ...] = ()
    # the FileDescriptorProto as protoc sent it, without source_code_info, serialized
    descriptor: bytes = b""
    dependencies: tuple[str, ...] = ()  # the .proto files it imports, in its order
    public_dependencies: tuple[str, ...] = ()  # those imported with ``import public``
    # the classes' methods are packed, compiled on each class's first use, and their API is
    # written to a .pyi (the plugin's classes option: a large file's module imports fast)
    deferred_classes: bool = False

    @cached_property  # walked by the names and the views of the file's module several times
    def all_messages(self) -> list[Message]:
        """The file's messages and all their nested messages, depth first (walk_messages)."""
        return walk_messages(self.messages)

    @cached_property  # asked for every reference to the file's types
    def is_hybrid(self) -> bool:
        """Say whether any message of the file is hybrid (the file then gets an opaque twin)."""
        return any(m.api_level is HYBRID for m in self.all_messages)

    def as_opaque(self) -> File:
        """Return this file with every message switched to opaque (the hybrid twin)."""
        return replace(self, api_level=OPAQUE,
                       messages=tuple(m.with_api_level(OPAQUE) for m in self.messages))


def walk_messages(messages: tuple[Message, ...]) -> list[Message]:
    """Return ``messages`` and all their nested messages, depth first."""
    out: list[Message] = []
    for m in messages:
        out.append(m)
        out.extend(walk_messages(m.messages))
    return out


@dataclass
class Schema:
    """Every file of a request, with lookups of messages and enums by full name."""

    files: dict[str, File] = dc_field(default_factory=dict)
    messages: dict[str, Message] = dc_field(default_factory=dict)
    enums: dict[str, Enum] = dc_field(default_factory=dict)
    # the files generated by this run: only their messages' styles are known for sure
    # (dependencies may have been generated before, with other options)
    generated: frozenset[str] = frozenset()
    # Whole-run facts, settled once by settle_run_facts (every output module reads them):
    # messages that (transitively) hold required fields, the opaque messages of this run's
    # files that need no required check (so may hold parse(lazy=True) bytes), and the messages
    # whose classes have a validating scan (_pb_scan: opaque and hybrid ones without a required
    # check, of this run's files or shipped in the runtime, whose modules are hybrid).
    needs_required: frozenset[str] = frozenset()
    lazy_capable: frozenset[str] = frozenset()
    scannable: frozenset[str] = frozenset()

    def settle_run_facts(self, shipped: frozenset[str]) -> None:
        """Compute the whole-run facts once all files are in; ``shipped``: the .proto files
        whose modules ship in the runtime."""
        self.needs_required = frozenset(_needs_required(self.messages))
        self.lazy_capable = frozenset(
            m.full_name for m in self.messages.values()
            if m.file in self.generated and m.api_level is OPAQUE
            and m.full_name not in self.needs_required
        )
        self.scannable = frozenset(
            m.full_name for m in self.messages.values()
            if m.full_name not in self.needs_required
            and (m.file in shipped or m.file in self.generated and has_scan(m.api_level))
        )


def has_scan(level: ApiLevel) -> bool:
    """Say whether classes of this style have a validating scan (_pb_scan): opaque ones, which
    parse(lazy=True) defers, and hybrid ones, so that an opaque parent's scan can check them."""
    return level is not OPEN


def _needs_required(messages: dict[str, Message]) -> set[str]:
    """Messages that (transitively) contain required fields: a search back along field edges."""
    holders: dict[str, list[str]] = {}
    for m in messages.values():
        for f in m.fields:
            target = f.map.value.message if f.map is not None else f.message
            if target is not None:
                holders.setdefault(target, []).append(m.full_name)
    needs = {m.full_name for m in messages.values() if any(f.required for f in m.fields)}
    todo = list(needs)
    while todo:
        for holder in holders.get(todo.pop(), ()):
            if holder not in needs:
                needs.add(holder)
                todo.append(holder)
    return needs
