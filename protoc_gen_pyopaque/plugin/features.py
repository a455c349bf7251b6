"""Resolves protobuf features: the only module that knows about syntax and editions.

Per-field facts (presence, packing, UTF-8 validation, enum closedness, JSON format) come from
protobuf's own descriptor pool, which applies edition defaults and inheritance exactly as protoc
does (delimited encoding too: the pool's field type is GROUP then); this module asks it and adds
the one feature protobuf does not know: the API level.
"""

from __future__ import annotations

from typing import Any, Final

from google.protobuf import descriptor_pb2

from ..runtime import _wire as wire
from ..runtime.errors import DecodeError
from .schema import ApiLevel

# google.protobuf.FeatureSet enum values (descriptor.proto)
_UTF8_VERIFY: Final = descriptor_pb2.FeatureSet.VERIFY
_JSON_LEGACY_BEST_EFFORT: Final = descriptor_pb2.FeatureSet.LEGACY_BEST_EFFORT
_TYPE_STRING: Final = descriptor_pb2.FieldDescriptorProto.TYPE_STRING

# Our custom options (protoc_gen_pyopaque/proto/pyopaque/options.proto): extension
# numbers on FileOptions and MessageOptions, and the api_level field inside them.
FILE_OPTIONS_EXTENSION: Final = 7961
MESSAGE_OPTIONS_EXTENSION: Final = 7961
_API_LEVEL_FIELD: Final = 1
_API_LEVEL_UNSPECIFIED: Final = 0
_API_LEVELS: Final = {1: ApiLevel.OPEN, 2: ApiLevel.HYBRID, 3: ApiLevel.OPAQUE}

EDITION_2024: Final = descriptor_pb2.EDITION_2024

# Editions this plugin declares to protoc (CodeGeneratorResponse.minimum/maximum_edition).
MINIMUM_EDITION: Final = descriptor_pb2.EDITION_PROTO2
MAXIMUM_EDITION: Final = descriptor_pb2.EDITION_2024


def edition_label(fdp: descriptor_pb2.FileDescriptorProto) -> str:
    """Name the syntax or edition of a file: "proto2", "proto3", "2023", "2024"..."""
    if fdp.syntax == "editions":
        name: str = descriptor_pb2.Edition.Name(fdp.edition)
        return name.removeprefix("EDITION_")
    syntax: str = fdp.syntax
    return syntax or "proto2"


def default_api_level(fdp: descriptor_pb2.FileDescriptorProto) -> ApiLevel:
    """Return the edition's default style: opaque from edition 2024 on, open before (as in Go)."""
    if fdp.syntax == "editions" and fdp.edition >= EDITION_2024:
        return ApiLevel.OPAQUE
    return ApiLevel.OPEN


def field_features(fd: Any, kind: int) -> tuple[bool, bool, bool, bool]:
    """Resolve the features of a field descriptor (from protobuf's pool) of type ``kind``: what
    its wire format and API depend on, (presence, required, packed, utf8) (a tuple: one is made
    for every field of a request)."""
    return (
        bool(fd.has_presence),
        bool(fd.is_required),
        bool(fd.is_packed),
        # the resolved features only for strings: resolving them cost more than the rest
        kind != _TYPE_STRING or fd._GetFeatures().utf8_validation == _UTF8_VERIFY,
    )


def enum_closed(ed: Any) -> bool:
    """Say whether an enum is closed (unknown values go to unknown fields)."""
    return bool(ed.is_closed)


def legacy_json(d: Any) -> bool:
    """Say whether a file, message or enum uses json_format = LEGACY_BEST_EFFORT."""
    return bool(d._GetFeatures().json_format == _JSON_LEGACY_BEST_EFFORT)


def api_level_option(options: Any, extension_number: int) -> ApiLevel | None:
    """Read our api_level option from a FileOptions/MessageOptions message, if set.

    API_LEVEL_UNSPECIFIED (0) sets nothing: the level is inherited. Occurrences
    merge as protobuf merges them (the last api_level wins). Raise ValueError for an
    unknown value or an undecodable option.
    """
    raw = options.SerializeToString()
    level: ApiLevel | None = None
    try:
        for number, payload in _len_fields(raw):
            if number != extension_number:
                continue
            for inner_number, value in _varint_fields(payload):
                if inner_number != _API_LEVEL_FIELD:
                    continue
                if value == _API_LEVEL_UNSPECIFIED:
                    level = None
                elif value in _API_LEVELS:
                    level = _API_LEVELS[value]
                else:
                    raise ValueError(f"unknown api_level value {value}")
    except (IndexError, DecodeError) as exc:
        raise ValueError(f"malformed pyopaque option (extension {extension_number}): {exc}") from None
    return level


def _len_fields(raw: bytes) -> list[tuple[int, bytes]]:
    """Return the length-delimited fields of an encoded message as (number, payload)."""
    out: list[tuple[int, bytes]] = []
    pos = 0
    while pos < len(raw):
        tag, pos = wire.dec_varint(raw, pos)
        if tag & 7 == wire.WIRE_LEN:
            n, pos = wire.dec_varint(raw, pos)
            out.append((tag >> 3, raw[pos:pos + n]))
            pos += n
        else:
            pos = wire.skip_field(raw, tag, pos, len(raw), 100)
    return out


def _varint_fields(raw: bytes) -> list[tuple[int, int]]:
    """Return the varint fields of an encoded message as (number, value)."""
    out: list[tuple[int, int]] = []
    pos = 0
    while pos < len(raw):
        tag, pos = wire.dec_varint(raw, pos)
        if tag & 7 == wire.WIRE_VARINT:
            value, pos = wire.dec_varint(raw, pos)
            out.append((tag >> 3, value))
        else:
            pos = wire.skip_field(raw, tag, pos, len(raw), 100)
    return out
