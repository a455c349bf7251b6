"""Hypothesis strategies driven by upb descriptors.

* ``message_specs``: random contents for a message type (bounded depth and width),
  edge values included, plus random unknown fields; ``build`` turns a spec into a
  upb message.
* ``wire_bytes``: schema-aware *raw* wire data (right and wrong wire types,
  invalid UTF-8, overlong and overflowing varints, bad lengths, stray group ends,
  closed-enum values out of range, ...), for the fuzzing tests.
* ``mutate``: a valid encoding with a few byte-level mutations.
* ``canon``: a comparable form of a upb message (NaN-tolerant, -0.0-strict).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator
from typing import Any

from google.protobuf.descriptor import FieldDescriptor as FD
from hypothesis import strategies as st

INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)
UINT32 = (0, (1 << 32) - 1)
UINT64 = (0, (1 << 64) - 1)

_RANGES = {
    FD.TYPE_INT32: INT32, FD.TYPE_SINT32: INT32, FD.TYPE_SFIXED32: INT32,
    FD.TYPE_INT64: INT64, FD.TYPE_SINT64: INT64, FD.TYPE_SFIXED64: INT64,
    FD.TYPE_UINT32: UINT32, FD.TYPE_FIXED32: UINT32,
    FD.TYPE_UINT64: UINT64, FD.TYPE_FIXED64: UINT64,
}
WIRE_OF_TYPE = {
    FD.TYPE_DOUBLE: 1, FD.TYPE_FLOAT: 5, FD.TYPE_INT64: 0, FD.TYPE_UINT64: 0, FD.TYPE_INT32: 0,
    FD.TYPE_FIXED64: 1, FD.TYPE_FIXED32: 5, FD.TYPE_BOOL: 0, FD.TYPE_STRING: 2, FD.TYPE_GROUP: 3,
    FD.TYPE_MESSAGE: 2, FD.TYPE_BYTES: 2, FD.TYPE_UINT32: 0, FD.TYPE_ENUM: 0,
    FD.TYPE_SFIXED32: 5, FD.TYPE_SFIXED64: 1, FD.TYPE_SINT32: 0, FD.TYPE_SINT64: 0,
}
_PACKABLE = {t for t, w in WIRE_OF_TYPE.items() if w in (0, 1, 5)}


def edge_ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    edges = [v for v in (0, 1, -1, 127, 128, -128, 255, 16383, 16384, lo, hi, lo + 1, hi - 1,
                         (1 << 31) - 1, -(1 << 31), (1 << 32) - 1, 1 << 31) if lo <= v <= hi]
    return st.one_of(st.sampled_from(edges), st.integers(lo, hi))


_TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", "é", "\u0000", "日本語", "\U0001f600", "\uffff", "a" * 200]),
)
_BYTES = st.one_of(
    st.binary(max_size=16),
    # occasionally large: lengths with two- and three-byte prefixes, cheap to draw
    st.tuples(st.integers(128, 40000), st.binary(min_size=1, max_size=3)).map(
        lambda t: (t[1] * t[0])[: t[0]]),
)
_DOUBLE = st.one_of(st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 1.7976931348623157e308]),
                    st.floats(allow_nan=False))
_FLOAT = st.one_of(st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, 3.4028234663852886e38]),
                   st.floats(width=32, allow_nan=False))


def is_map(f: Any) -> bool:
    return f.type == FD.TYPE_MESSAGE and f.message_type.GetOptions().map_entry


def scalar_values(f: Any) -> st.SearchStrategy[Any]:
    """Values of a scalar (or enum) field as upb accepts them."""
    t = f.type
    if t in _RANGES:
        return edge_ints(*_RANGES[t])
    if t == FD.TYPE_BOOL:
        return st.booleans()
    if t == FD.TYPE_DOUBLE:
        return _DOUBLE
    if t == FD.TYPE_FLOAT:
        return _FLOAT
    if t == FD.TYPE_STRING:
        return _TEXT
    if t == FD.TYPE_BYTES:
        return _BYTES
    if t == FD.TYPE_ENUM:
        known = st.sampled_from([v.number for v in f.enum_type.values])
        if f.enum_type.is_closed:
            return known
        return st.one_of(known, edge_ints(*INT32))  # open enums keep unknown values
    raise AssertionError(f"not a scalar: {f.full_name}")


# ----------------------------------------------------------------------------- message specs
# A spec is (list of (FieldDescriptor, value), unknown bytes); message values are specs.

def _width(depth: int) -> int:
    return {3: 8, 2: 4, 1: 2}.get(depth, 1)


@st.composite
def message_specs(draw: Any, desc: Any, extensions: dict[str, list[Any]], depth: int = 3) -> Any:
    candidates = list(desc.fields) + extensions.get(desc.full_name, [])
    chosen = draw(st.lists(st.sampled_from(candidates), max_size=_width(depth), unique_by=lambda f: f.number)) \
        if candidates else []
    items = [(f, draw(field_values(f, extensions, depth))) for f in chosen]
    unknown = b""
    if not desc.GetOptions().message_set_wire_format and draw(st.integers(0, 9)) == 0:
        unknown = draw(unknown_fields(desc, extensions))
    if draw(st.integers(0, 9)) == 0:
        unknown += draw(junk_map_entries(desc, extensions))
    return items, unknown


def field_values(f: Any, extensions: dict[str, list[Any]], depth: int) -> st.SearchStrategy[Any]:
    nested = f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP)
    if is_map(f):
        key_f = f.message_type.fields_by_name["key"]
        val_f = f.message_type.fields_by_name["value"]
        nested = val_f.type == FD.TYPE_MESSAGE
        return st.dictionaries(scalar_values(key_f), single_values(val_f, extensions, depth - 1),
                               max_size=(3 if depth > 1 else 1) if nested else 4)
    single = single_values(f, extensions, depth - 1)
    if f.is_repeated:
        return st.lists(single, max_size=(3 if depth > 1 else 1) if nested else 5)
    return single


def single_values(f: Any, extensions: dict[str, list[Any]], depth: int) -> st.SearchStrategy[Any]:
    if f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
        if depth <= 0:
            return st.just(([], b""))
        return message_specs(f.message_type, extensions, depth)
    return scalar_values(f)


def build(cls: Any, spec: Any) -> Any:
    """Make a upb message of class ``cls`` from a spec."""
    msg = cls()
    fill(msg, spec)
    return msg


def fill(msg: Any, spec: Any) -> None:
    items, unknown = spec
    for f, value in items:
        if is_map(f):
            target = getattr(msg, f.name)
            val_f = f.message_type.fields_by_name["value"]
            for k, v in value.items():
                if val_f.type == FD.TYPE_MESSAGE:
                    fill(target[k], v)
                else:
                    target[k] = v
        elif f.is_repeated:
            target = msg.Extensions[f] if f.is_extension else getattr(msg, f.name)
            for v in value:
                if f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
                    fill(target.add(), v)
                else:
                    target.append(v)
        elif f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
            sub = msg.Extensions[f] if f.is_extension else getattr(msg, f.name)
            sub.SetInParent()
            fill(sub, value)
        elif f.is_extension:
            msg.Extensions[f] = value
        else:
            setattr(msg, f.name, value)
    if unknown:
        msg.MergeFromString(unknown)


# ----------------------------------------------------------------------------- wire level

def varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint((number << 3) | wire_type)


@st.composite
def odd_varints(draw: Any) -> bytes:
    """Varints as parsers meet them: minimal, overlong (padded), 10 bytes with high bits set."""
    v = draw(st.one_of(edge_ints(*UINT64), st.integers(0, 300)))
    kind = draw(st.integers(0, 9))
    raw = varint(v)
    if kind == 0 and len(raw) < 10:  # overlong but valid: pad with 0x80 continuation bytes
        pad = draw(st.integers(1, 10 - len(raw)))
        raw = bytes(b | 0x80 for b in raw) + b"\x80" * (pad - 1) + b"\x00"
    elif kind == 1:  # ten bytes, last byte carrying bits above 2**64
        raw = b"\xff" * 9 + bytes([draw(st.integers(0, 0x7F))])
    return raw


def _payload_unknown(draw: Any, wire_type: int, depth: int) -> bytes:
    if wire_type == 0:
        return draw(odd_varints())
    if wire_type == 1:
        return draw(st.binary(min_size=8, max_size=8))
    if wire_type == 5:
        return draw(st.binary(min_size=4, max_size=4))
    if wire_type == 2:
        body = draw(st.binary(max_size=12))
        return varint(len(body)) + body
    return b""


@st.composite
def unknown_fields(draw: Any, desc: Any, extensions: dict[str, list[Any]], depth: int = 2) -> bytes:
    """Fields the message does not know (or known numbers with a wire type they cannot take)."""
    known = {f.number: f for f in list(desc.fields) + extensions.get(desc.full_name, [])}
    out = bytearray()
    for _ in range(draw(st.integers(1, 3))):
        number = draw(st.one_of(st.integers(1, 60), st.integers(1, (1 << 29) - 1), st.just((1 << 29) - 1)))
        f = known.get(number)
        if f is None:
            allowed = [0, 1, 2, 3, 5]
        else:
            ok = {WIRE_OF_TYPE[f.type]} | ({2} if f.is_repeated and f.type in _PACKABLE else set())
            allowed = [w for w in (0, 1, 2, 3, 5) if w not in ok]
        wire_type = draw(st.sampled_from(allowed))
        if wire_type == 3:
            inner = draw(unknown_fields(desc, extensions, depth - 1)) if depth > 0 else b""
            out += tag(number, 3) + inner + tag(number, 4)
        else:
            out += tag(number, wire_type) + _payload_unknown(draw, wire_type, depth)
    return bytes(out)


_EXOTIC_WIRE = st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7])


@st.composite
def wire_bytes(draw: Any, desc: Any, extensions: dict[str, list[Any]], depth: int = 3) -> bytes:
    """Raw wire data for ``desc``: mostly well-typed, sometimes subtly or grossly wrong."""
    fields = list(desc.fields) + extensions.get(desc.full_name, [])
    out = bytearray()
    for _ in range(draw(st.integers(0, 6 if depth >= 3 else 3))):
        choice = draw(st.integers(0, 19))
        if choice == 0 or not fields:  # garbage tag / unknown field
            number = draw(st.one_of(st.integers(0, 40), st.integers(1 << 29, 1 << 32),
                                    st.integers(1, (1 << 29) - 1)))
            wire_type = draw(_EXOTIC_WIRE)
            out += tag(number, wire_type)
            if wire_type == 3 and draw(st.booleans()):
                out += draw(wire_bytes(desc, extensions, depth - 1)) if depth > 0 else b""
                out += tag(number if draw(st.integers(0, 3)) else number + 1, 4)
            else:
                out += _payload_unknown(draw, wire_type, depth)
            continue
        if choice == 1:  # a raw tail of arbitrary bytes
            out += draw(st.binary(max_size=6))
            continue
        if choice <= 6 and desc.GetOptions().message_set_wire_format:
            out += _message_set_item(draw, desc, extensions, depth)
            continue
        f = draw(st.sampled_from(fields))
        out += _field_wire(draw, f, extensions, depth, wrong=choice == 2)
    return bytes(out)


def _message_set_item(draw: Any, desc: Any, extensions: dict[str, list[Any]], depth: int) -> bytes:
    """A MessageSet item group: type_id and message, sometimes out of order, repeated,
    missing or with an unknown type_id."""
    exts = {e.number: e for e in extensions.get(desc.full_name, [])}
    type_id = draw(st.one_of(st.sampled_from(sorted(exts)), st.integers(1, (1 << 31) - 1))
                   if exts else st.integers(1, (1 << 31) - 1))
    ext = exts.get(type_id)
    if ext is not None and ext.message_type is not None and depth > 0:
        payload = draw(wire_bytes(ext.message_type, extensions, depth - 1))
    else:
        payload = draw(st.binary(max_size=8))
    parts = [tag(2, 0) + varint(type_id), tag(3, 2) + varint(len(payload)) + payload]
    if draw(st.booleans()):
        parts.reverse()
    if draw(st.integers(0, 7)) == 0:
        parts.append(parts[draw(st.integers(0, 1))])
    if draw(st.integers(0, 7)) == 0:
        del parts[draw(st.integers(0, len(parts) - 1))]
    if draw(st.integers(0, 7)) == 0:
        parts.append(tag(draw(st.integers(4, 20)), 0) + varint(draw(st.integers(0, 300))))
    return tag(1, 3) + b"".join(parts) + (tag(1, 4) if draw(st.integers(0, 15)) else b"")


def _field_wire(draw: Any, f: Any, extensions: dict[str, list[Any]], depth: int, *, wrong: bool) -> bytes:
    natural = WIRE_OF_TYPE[f.type]
    if wrong:
        wire_type = draw(st.sampled_from([w for w in (0, 1, 2, 3, 5) if w != natural]))
        if wire_type == 3:
            return tag(f.number, 3) + tag(f.number, 4)
        return tag(f.number, wire_type) + _payload_unknown(draw, wire_type, depth)
    if is_map(f):
        entry = _map_entry(draw, f, extensions, depth)
        return tag(f.number, 2) + varint(len(entry)) + entry
    if f.is_repeated and f.type in _PACKABLE and draw(st.booleans()):
        body = b"".join(_value_wire(draw, f, extensions, depth) for _ in range(draw(st.integers(0, 4))))
        if draw(st.integers(0, 7)) == 0 and body:  # cut into the last element
            body = body[:-1]
        return tag(f.number, 2) + varint(len(body)) + body
    if f.type == FD.TYPE_GROUP:
        inner = draw(wire_bytes(f.message_type, extensions, depth - 1)) if depth > 0 else b""
        end = f.number if draw(st.integers(0, 9)) else draw(st.integers(1, 300))
        return tag(f.number, 3) + inner + (tag(end, 4) if draw(st.integers(0, 15)) else b"")
    return tag(f.number, natural) + _value_wire(draw, f, extensions, depth)


def _map_entry(draw: Any, f: Any, extensions: dict[str, list[Any]], depth: int) -> bytes:
    """One map entry's payload: key and value in either order, either missing, duplicated
    (the last wins), or of another wire type, and unknown fields (each of the last two
    makes upb keep the entry whole among the unknown fields)."""
    key_f = f.message_type.fields_by_name["key"]
    val_f = f.message_type.fields_by_name["value"]
    parts = []
    for number, g in ((1, key_f), (2, val_f)):
        if draw(st.integers(0, 5)):
            parts.append(_entry_part(draw, number, g) if draw(st.integers(0, 9)) == 0
                         else tag(number, WIRE_OF_TYPE[g.type]) + _value_wire(draw, g, extensions, depth))
    if draw(st.integers(0, 5)) == 0:
        parts.insert(draw(st.integers(0, len(parts))), draw(unknown_fields(f.message_type, extensions, 1)))
    return _shuffled_entry(draw, parts)


def _entry_part(draw: Any, number: int, f: Any, natural: bool = False) -> bytes:
    """A well-formed key (1) or value (2) of an entry: of its own wire type (``natural``; a
    message value empty), or of another one."""
    if natural:
        wire_type = WIRE_OF_TYPE[f.type]
        if f.type == FD.TYPE_MESSAGE:
            return tag(number, 2) + b"\0"
        return tag(number, wire_type) + encode_scalar(f.type, draw(scalar_values(f)))
    wire_type = draw(st.sampled_from([w for w in (0, 1, 2, 5) if w != WIRE_OF_TYPE[f.type]]))
    return tag(number, wire_type) + _payload_unknown(draw, wire_type, 0)


def _shuffled_entry(draw: Any, parts: list[bytes]) -> bytes:
    if draw(st.integers(0, 5)) == 0:
        parts.reverse()
    if draw(st.integers(0, 5)) == 0 and parts:
        parts.append(parts[draw(st.integers(0, len(parts) - 1))])  # a duplicate: the last one wins
    return b"".join(parts)


@st.composite
def junk_map_entries(draw: Any, desc: Any, extensions: dict[str, list[Any]]) -> bytes:
    """Well-formed entries of ``desc``'s maps holding what a map cannot (unknown fields, a
    key or value of another wire type), as unknown bytes of a message built by upb: upb
    keeps them whole, and so must ours when it reads them back."""
    maps = [f for f in desc.fields if is_map(f)]
    if not maps:
        return b""
    out = bytearray()
    for _ in range(draw(st.integers(1, 2))):
        f = draw(st.sampled_from(maps))
        parts = [_entry_part(draw, number, f.message_type.fields_by_name[name], draw(st.booleans()))
                 for number, name in ((1, "key"), (2, "value")) if draw(st.integers(0, 5))]
        parts.insert(draw(st.integers(0, len(parts))), draw(unknown_fields(f.message_type, extensions, 1)))
        entry = _shuffled_entry(draw, parts)
        out += tag(f.number, 2) + varint(len(entry)) + entry
    return bytes(out)


_SCALAR_FORMAT = {
    FD.TYPE_DOUBLE: "<d", FD.TYPE_FLOAT: "<f", FD.TYPE_FIXED64: "<Q", FD.TYPE_SFIXED64: "<q",
    FD.TYPE_FIXED32: "<I", FD.TYPE_SFIXED32: "<i",
}


def encode_scalar(t: int, v: Any) -> bytes:
    """The encoded value (no tag) of a scalar of type ``t``."""
    if t in _SCALAR_FORMAT:
        return struct.pack(_SCALAR_FORMAT[t], v)
    if t == FD.TYPE_STRING:
        return varint(len(v.encode())) + v.encode()
    if t == FD.TYPE_BYTES:
        return varint(len(v)) + v
    if t == FD.TYPE_SINT32:
        return varint((v << 1) ^ (v >> 31))
    if t == FD.TYPE_SINT64:
        return varint((v << 1) ^ (v >> 63))
    return varint(int(v))


def _value_wire(draw: Any, f: Any, extensions: dict[str, list[Any]], depth: int) -> bytes:
    """The encoded value (no tag) of one occurrence of ``f``."""
    t = f.type
    if t in (FD.TYPE_INT32, FD.TYPE_INT64, FD.TYPE_UINT32, FD.TYPE_UINT64, FD.TYPE_BOOL, FD.TYPE_ENUM):
        if draw(st.integers(0, 3)) == 0:
            return draw(odd_varints())
        if t == FD.TYPE_ENUM:
            v = draw(st.one_of(st.sampled_from([v.number for v in f.enum_type.values]), edge_ints(*INT32)))
        elif t == FD.TYPE_BOOL:
            v = draw(st.sampled_from([0, 1, 2, 1 << 40]))
        else:
            v = draw(edge_ints(*_RANGES[t]))
        return varint(v)
    if t in (FD.TYPE_SINT32, FD.TYPE_SINT64):
        lo, hi = _RANGES[t]
        v = draw(edge_ints(lo, hi))
        bits = 32 if t == FD.TYPE_SINT32 else 64
        zz = ((v << 1) ^ (v >> (bits - 1))) & ((1 << bits) - 1)
        return draw(st.sampled_from([varint(zz), varint(zz), draw(odd_varints())]))
    if t in (FD.TYPE_FIXED32, FD.TYPE_SFIXED32, FD.TYPE_FLOAT):
        return draw(st.one_of(st.binary(min_size=4, max_size=4),
                              st.sampled_from([b"\x00\x00\xc0\x7f", b"\x01\x00\x80\x7f", b"\x00\x00\x00\x80"])))
    if t in (FD.TYPE_FIXED64, FD.TYPE_SFIXED64, FD.TYPE_DOUBLE):
        return draw(st.one_of(st.binary(min_size=8, max_size=8),
                              st.sampled_from([struct.pack("<d", -0.0), struct.pack("<d", math.nan)])))
    if t == FD.TYPE_STRING:
        body = draw(st.one_of(_TEXT.map(lambda s: s.encode()), st.binary(max_size=8),
                              st.sampled_from([b"\xc3", b"\xed\xa0\x80", b"\xc0\x80", b"\xf4\x90\x80\x80",
                                               b"\xef\xbf\xbf", b"\xf0\x9f\x98\x80"])))
    elif t == FD.TYPE_BYTES:
        body = draw(st.binary(max_size=12))
    elif t == FD.TYPE_GROUP:
        inner = draw(wire_bytes(f.message_type, extensions, depth - 1)) if depth > 0 else b""
        return inner + tag(f.number, 4)
    else:
        body = draw(wire_bytes(f.message_type, extensions, depth - 1)) if depth > 0 else b""
    length = len(body)
    if draw(st.integers(0, 15)) == 0:
        length = draw(st.sampled_from([length + 1, length + 100, (1 << 31), (1 << 32) + length, (1 << 64) - 1]))
    return varint(length) + body


@st.composite
def mutate(draw: Any, data: bytes) -> bytes:
    """Apply one to three byte-level mutations to ``data``."""
    buf = bytearray(data)
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.integers(0, 5))
        i = draw(st.integers(0, len(buf))) if buf else 0
        if op == 0 and i < len(buf):
            buf[i] ^= 1 << draw(st.integers(0, 7))
        elif op == 1 and i < len(buf):
            buf[i] = draw(st.integers(0, 255))
        elif op == 2:
            buf[i:i] = draw(st.binary(min_size=1, max_size=4))
        elif op == 3:
            del buf[i:i + draw(st.integers(1, 4))]
        elif op == 4:
            del buf[i:]
        else:
            j = draw(st.integers(i, min(len(buf), i + 12)))
            buf[i:i] = buf[i:j]
    return bytes(buf)


# ----------------------------------------------------------------------------- comparison

def canon(msg: Any) -> Any:
    """A comparable form of a upb message: fields by number, NaNs equal, -0.0 != 0.0,
    unknown fields as parsed fields (a tag or varint may be re-encoded minimally, as
    C++ does; upb keeps the bytes it read)."""
    items = []
    for f, v in msg.ListFields():
        if f.is_repeated and len(v) == 0:
            continue  # upb lists a repeated extension read from an empty packed run
        items.append((f.number, _canon_field(f, v, msg)))
    items.sort(key=lambda kv: kv[0])
    return tuple(items), _norm_unknown(msg.DESCRIPTOR, unknown_bytes(msg))


_MASK32 = (1 << 32) - 1
# markers canon() leaves where upb behaves in its own way (see upb_*_quirk below)
FIELD_ZERO_QUIRK = "upb: field number 0 accepted"


def _has_field_zero(fields: Any) -> bool:
    return any(number == 0 or (wire_type == 3 and _has_field_zero(value)) for number, wire_type, value in fields)


_VARINT32 = {FD.TYPE_INT32, FD.TYPE_UINT32, FD.TYPE_SINT32, FD.TYPE_ENUM}


def _norm_unknown(desc: Any, raw: bytes) -> Any:
    """Unknown fields in a form where encodings C++, upb and ours may legitimately choose
    differently compare equal: minimal tags and varints; a closed enum's unknown value
    as its 32 bits (upb keeps the varint as read, C++ and ours write the int32 value
    sign-extended); a map entry kept for its unknown closed-enum value by its last
    key and value (upb and C++ re-encode the entry, ours keeps it as read); any other
    entry kept whole as upb re-encodes it (from ours' bytes as from the input)."""
    try:
        fields = list(iter_wire(raw))
    except (IndexError, ValueError):
        return raw
    if _has_field_zero(fields):
        return (FIELD_ZERO_QUIRK, raw)
    known = {f.number: f for f in list(desc.fields) + list(desc.file.pool.FindAllExtensions(desc))}
    out = []
    for number, wire_type, value in fields:
        f = known.get(number)
        if f is not None and wire_type == 0 and f.type == FD.TYPE_ENUM:
            value &= _MASK32
        elif f is not None and wire_type == 2 and is_map(f):
            value = _norm_entry(f.message_type, bytes(value))
        out.append((number, wire_type, value))
    return tuple(out)


def _norm_entry(entry: Any, payload: bytes) -> Any:
    try:
        fields = list(iter_wire(payload))
    except (IndexError, ValueError):
        return payload
    if _has_field_zero(fields):
        return (FIELD_ZERO_QUIRK, payload)  # an entry kept whole is parsed as upb parses it
    last: dict[int, Any] = {}
    for number, wire_type, value in fields:
        g = entry.fields_by_number.get(number)
        if g is None or WIRE_OF_TYPE[g.type] != wire_type:
            return payload  # kept whole (as upb re-encodes it: ours forwards it as read)
        if g.type in _VARINT32:
            value &= _MASK32
        elif g.type == FD.TYPE_BOOL:
            value = int(value != 0)
        last[number] = value
    return tuple(sorted((n, v) for n, v in last.items() if v not in (0, b"", b"\0" * 4, b"\0" * 8)))


def unknown_bytes(msg: Any) -> bytes:
    copy = type(msg)()
    copy.CopyFrom(msg)
    for f, _ in copy.ListFields():
        if f.is_extension:
            copy.ClearExtension(f)
        else:
            copy.ClearField(f.name)
    return copy.SerializePartialToString()


def _canon_field(f: Any, v: Any, owner: Any) -> Any:
    if is_map(f):
        val_f = f.message_type.fields_by_name["value"]
        try:
            return tuple(sorted((k, _canon_single(val_f, x)) for k, x in v.items()))
        except UnicodeDecodeError:
            # upb's Python maps cannot look up proto2 string keys that are not UTF-8:
            # fall back to reading the entries from the wire
            return ("entries", _map_entries(f, owner))
    if f.is_repeated:
        return tuple(_canon_single(f, x) for x in v)
    return _canon_single(f, v)


def _map_entries(f: Any, owner: Any) -> Any:
    """A map's entries as read back from what upb writes for ``owner`` with only this
    field set (keys as raw values, values canonicalized), sorted."""
    from google.protobuf import message_factory

    copy = type(owner)()
    copy.CopyFrom(owner)
    for g, _ in copy.ListFields():
        if g.number != f.number:
            copy.ClearExtension(g) if g.is_extension else copy.ClearField(g.name)
    val_f = f.message_type.fields_by_name["value"]
    entries = []
    for number, wire_type, payload in iter_wire(copy.SerializePartialToString(deterministic=True)):
        if number != f.number or wire_type != 2:
            continue
        key: Any = None
        value: Any = None
        for n, _, v in iter_wire(payload):
            if n == 1:
                key = v
            elif n == 2:
                value = v
        if val_f.type == FD.TYPE_MESSAGE:
            value = canon(message_factory.GetMessageClass(val_f.message_type).FromString(value or b""))
        elif val_f.type in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE) and value is not None:
            x = struct.unpack("<f" if val_f.type == FD.TYPE_FLOAT else "<d", value)[0]
            value = "NaN" if math.isnan(x) else struct.pack("<d", x)
        entries.append((repr(key), value))
    return tuple(sorted(entries, key=lambda kv: kv[0]))


def _canon_single(f: Any, x: Any) -> Any:
    if f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
        return canon(x)
    if f.type in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE):
        return "NaN" if math.isnan(x) else struct.pack("<d", x)
    return x


def iter_fields(msg: Any) -> Iterator[tuple[Any, Any]]:
    """Yield ``(field, value)`` for every set field of a upb message and its sub-messages."""
    for f, v in msg.ListFields():
        yield f, v
        if is_map(f):
            if f.message_type.fields_by_name["value"].type == FD.TYPE_MESSAGE:
                for x in map_values(v):
                    yield from iter_fields(x)
        elif f.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
            for x in v if f.is_repeated else [v]:
                yield from iter_fields(x)


def map_values(v: Any) -> list[Any]:
    """The values of a upb map, or [] when upb cannot look up its (non-UTF-8 string) keys."""
    try:
        return list(v.values())
    except UnicodeDecodeError:
        return []


def order_free(msg: Any) -> bool:
    """Say whether upb's deterministic bytes are canonical for ``msg``: upb writes
    extensions in insertion order and sorts integer map keys its own way (descending
    as unsigned), so messages with extensions or maps of two or more entries have no
    cross-implementation deterministic form."""
    return not any(f.is_extension or (is_map(f) and len(v) > 1) for f, v in iter_fields(msg))


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result & ((1 << 64) - 1), pos


def _parse_wire(data: bytes, pos: int, end_number: int | None) -> tuple[list[tuple[int, int, Any]], int]:
    fields: list[tuple[int, int, Any]] = []
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if wire_type == 4:
            if number != end_number:
                raise ValueError("stray end group")
            return fields, pos
        if wire_type == 0:
            value, pos = _read_varint(data, pos)
        elif wire_type == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire_type == 5:
            value, pos = data[pos:pos + 4], pos + 4
        elif wire_type == 2:
            n, pos = _read_varint(data, pos)
            value, pos = data[pos:pos + n], pos + n
        elif wire_type == 3:
            inner, pos = _parse_wire(data, pos, number)
            value = tuple(inner)
        else:
            raise ValueError(f"wire type {wire_type}")
        if pos > len(data):
            raise IndexError("truncated")
        fields.append((number, wire_type, value))
    if end_number is not None:
        raise ValueError("unterminated group")
    return fields, pos


def iter_wire(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """Yield ``(number, wire_type, value)`` for each field of well-formed wire data:
    varints decoded (so overlong encodings compare equal), groups as tuples of fields."""
    yield from _parse_wire(data, 0, None)[0]


def _contains(c: Any, marker: str) -> bool:
    if c == marker:
        return True
    return isinstance(c, tuple) and any(_contains(x, marker) for x in c)


def upb_field_zero_quirk(msg: Any) -> bool:
    """Say whether upb accepted field number 0 somewhere in ``msg``. upb parses unknown
    groups (also inside a map entry it then keeps whole) and message types without
    fields (google.protobuf.Empty) with its empty mini-table, which lets field number 0
    through; C++ and ours reject it everywhere (upb too, in messages with fields)."""
    return _contains(canon(msg), FIELD_ZERO_QUIRK)
